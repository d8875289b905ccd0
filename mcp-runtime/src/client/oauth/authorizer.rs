//! [`Authorizer`]: the OAuth state of one connection. The HTTP transport asks it for the
//! credentials of each request ([`Authorizer::credentials`]) and tells it of each refusal
//! ([`Authorizer::refused`]); it discovers, registers, runs the grant, refreshes and steps up
//! as the MCP authorization specification says, one flow at a time.

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use oauth2::basic::BasicClient;
use oauth2::{AuthUrl, ClientId, CsrfToken, PkceCodeChallenge, RedirectUrl, Scope};
use parking_lot::Mutex;

use super::challenge::{self, Challenge};
use super::config::{Grant, OAuth};
use super::credentials::ClientCredentials;
use super::discovery::{Discovered, discover};
use super::dpop::{DpopKey, Nonces};
use super::endpoint::{AuthMethod, TokenEndpoint, exchange_id_token};
use super::registration::register;
use super::{AuthError, RegisteredClient, StoredAuthorization, Tokens};

/// A token that expires within this many seconds is refreshed before it is sent.
const REFRESH_MARGIN_SECS: u64 = 30;

/// The scope that asks for a refresh token (OpenID Connect Core §11, SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// How many times one request is sent again with a new DPoP nonce.
const MAX_NONCE_RETRIES: usize = 2;

/// What one request has been through, to bound its retries.
#[derive(Debug, Default)]
pub(crate) struct Attempts {
    /// Whether the request already went again with refreshed tokens.
    refreshed: bool,
    /// Whether the request already went again with the tokens of a fresh grant.
    granted: bool,
    step_ups: usize,
    nonces: usize,
}

/// The `Authorization` (and `DPoP`) headers of one request, and which tokens they carry.
#[derive(Debug, Default)]
pub(crate) struct Presented {
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    generation: u64,
}

/// The OAuth state of one connection.
pub(crate) struct Authorizer {
    config: OAuth,
    http: reqwest::Client,
    /// The MCP endpoint.
    server: String,
    nonces: Nonces,
    current: Mutex<Current>,
    /// One flow (loading, refreshing, authorizing) at a time.
    flow: tokio::sync::Mutex<Flow>,
}

/// What requests carry now.
#[derive(Default)]
struct Current {
    /// Counts the changes of `record`'s tokens.
    generation: u64,
    record: Option<StoredAuthorization>,
    dpop: Option<Arc<DpopKey>>,
}

/// What the flows remember between them.
#[derive(Default)]
struct Flow {
    loaded: bool,
    discovered: Option<Discovered>,
}

impl Authorizer {
    /// The authorizer of the connection to `server`, set up as `config` says; `http` talks to
    /// the authorization servers unless `config` names another client.
    pub(crate) fn new(config: OAuth, server: String, http: reqwest::Client) -> Self {
        Authorizer {
            http: config.http.clone().unwrap_or(http),
            config,
            server,
            nonces: Nonces::default(),
            current: Mutex::new(Current::default()),
            flow: tokio::sync::Mutex::new(Flow::default()),
        }
    }

    /// The credentials of a `method` request to `url`: the stored tokens, refreshed first when
    /// they are about to expire.
    pub(crate) async fn credentials(
        &self,
        method: &str,
        url: &str,
    ) -> Result<Presented, AuthError> {
        let (loaded, stale) = {
            let current = self.current.lock();
            let stale = current
                .record
                .as_ref()
                .and_then(|r| r.tokens.as_ref())
                .is_some_and(|t| t.expires_within(REFRESH_MARGIN_SECS));
            (current.generation > 0, stale)
        };
        if loaded && !stale {
            return self.present(method, url);
        }
        let mut flow = self.flow.lock().await;
        if !flow.loaded {
            self.load(&mut flow).await?;
        }
        if stale {
            self.refresh_expiring(&mut flow).await?;
        }
        drop(flow);
        self.present(method, url)
    }

    /// Decides what to do about a request to `url` that was answered `status` (`401` or
    /// `403`) with `headers` while it carried `presented`: `Ok(true)` to send it again (with
    /// new credentials or a new nonce), `Ok(false)` when the answer is not about its tokens
    /// (a `403` for another reason), or why the client cannot get tokens the server takes.
    pub(crate) async fn refused(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        url: &str,
        presented: &Presented,
        attempts: &mut Attempts,
    ) -> Result<bool, AuthError> {
        let challenges = challenge::parse(
            headers
                .get_all(http::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok()),
        );
        let first = challenges.first();
        if first.and_then(Challenge::error) == Some("use_dpop_nonce")
            && attempts.nonces < MAX_NONCE_RETRIES
            && self.nonces.remember(url, headers)
        {
            attempts.nonces += 1;
            return Ok(true);
        }
        let mut flow = self.flow.lock().await;
        if status == StatusCode::FORBIDDEN {
            if first.and_then(Challenge::error) != Some("insufficient_scope") {
                return Ok(false);
            }
            let scope = first.and_then(Challenge::scope).unwrap_or_default();
            if attempts.step_ups >= self.config.max_step_ups {
                return Err(AuthError::InsufficientScope {
                    scope: scope.to_owned(),
                    attempts: attempts.step_ups,
                });
            }
            attempts.step_ups += 1;
            self.authorize(&mut flow, first, attempts, true).await?;
            return Ok(true);
        }
        if self.current.lock().generation != presented.generation {
            // Another request already renewed the tokens.
            return Ok(true);
        }
        if attempts.granted {
            return Err(AuthError::Rejected {
                detail: format!(
                    "the server answered {status} to a token just issued{}",
                    first
                        .and_then(|c| c.param("error_description"))
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ),
            });
        }
        self.authorize(&mut flow, first, attempts, false).await?;
        Ok(true)
    }

    /// The headers for the current tokens.
    fn present(&self, method: &str, url: &str) -> Result<Presented, AuthError> {
        let current = self.current.lock();
        let mut presented = Presented {
            headers: Vec::new(),
            generation: current.generation,
        };
        let Some(tokens) = current.record.as_ref().and_then(|r| r.tokens.as_ref()) else {
            return Ok(presented);
        };
        let dpop = tokens.token_type == "DPoP";
        let scheme = if dpop { "DPoP" } else { "Bearer" };
        presented.headers.push((
            http::header::AUTHORIZATION,
            sensitive(&format!("{scheme} {}", tokens.access_token.expose()))?,
        ));
        if dpop && let Some(key) = &current.dpop {
            let proof = key.proof(
                method,
                url,
                Some(&tokens.access_token),
                self.nonces.get(url).as_deref(),
            )?;
            presented
                .headers
                .push((HeaderName::from_static("dpop"), sensitive(&proof)?));
        }
        Ok(presented)
    }

    /// Reads the store.
    async fn load(&self, flow: &mut Flow) -> Result<(), AuthError> {
        let record = self.config.store.load(&self.server).await?;
        let dpop = match record.as_ref().and_then(|r| r.dpop_key.as_ref()) {
            Some(stored) => Some(Arc::new(DpopKey::from_stored(stored)?)),
            None => None,
        };
        let mut current = self.current.lock();
        current.record = record;
        current.dpop = dpop;
        current.generation += 1;
        flow.loaded = true;
        Ok(())
    }

    /// Refreshes tokens about to expire, when the client knows where; forgets them when the
    /// refresh is refused (the next request then authorizes afresh).
    async fn refresh_expiring(&self, flow: &mut Flow) -> Result<(), AuthError> {
        let Some(discovered) = flow.discovered.clone() else {
            return Ok(());
        };
        let (record, dpop) = {
            let current = self.current.lock();
            (current.record.clone(), current.dpop.clone())
        };
        let Some(mut record) = record.filter(|r| r.issuer == discovered.issuer) else {
            return Ok(());
        };
        if !record
            .tokens
            .as_ref()
            .is_some_and(|t| t.expires_within(REFRESH_MARGIN_SECS))
        {
            return Ok(());
        }
        if let Some(fresh) = self.refresh(&discovered, &record, dpop.as_deref()).await? {
            record.tokens = fresh;
            self.keep(record, dpop).await?;
        }
        Ok(())
    }

    /// Refreshes the tokens of `record`: `None` when it has no refresh token, `Some(None)`
    /// when the authorization server refused it (the client then authorizes afresh), else the
    /// new tokens.
    async fn refresh(
        &self,
        discovered: &Discovered,
        record: &StoredAuthorization,
        dpop: Option<&DpopKey>,
    ) -> Result<Option<Option<Tokens>>, AuthError> {
        let Some(tokens) = &record.tokens else {
            return Ok(None);
        };
        let Some(refresh_token) = &tokens.refresh_token else {
            return Ok(None);
        };
        let client = self.client_of(&record.client);
        let endpoint = self.endpoint(
            discovered,
            &client,
            record.client.token_endpoint_auth_method.as_deref(),
            dpop,
        )?;
        match endpoint
            .refresh(refresh_token, &discovered.resource, tokens.scope.as_deref())
            .await
        {
            Ok(fresh) => Ok(Some(Some(fresh))),
            Err(AuthError::Token { error, .. }) => {
                tracing::debug!(%error, "the refresh token was refused; authorizing afresh");
                Ok(Some(None))
            }
            Err(error) => Err(error),
        }
    }

    /// Gets new tokens after a refusal whose challenge is `challenge`: by refreshing when
    /// that may do, else by running the grant; `step_up` asks for more scope.
    async fn authorize(
        &self,
        flow: &mut Flow,
        challenge: Option<&Challenge>,
        attempts: &mut Attempts,
        step_up: bool,
    ) -> Result<(), AuthError> {
        let discovered = discover(&self.http, &self.server, challenge).await?;
        flow.discovered = Some(discovered.clone());
        let (record, dpop) = {
            let current = self.current.lock();
            (current.record.clone(), current.dpop.clone())
        };
        // Everything the client holds is bound to the authorization server that issued it.
        let record = record.filter(|r| r.issuer == discovered.issuer);
        let previous_scope = record
            .as_ref()
            .and_then(|r| r.tokens.as_ref())
            .and_then(|t| t.scope.clone());
        if !step_up
            && !attempts.refreshed
            && let Some(mut record) = record.clone()
            && let Some(Some(fresh)) = self.refresh(&discovered, &record, dpop.as_deref()).await?
        {
            attempts.refreshed = true;
            record.tokens = Some(fresh);
            return self.keep(record, dpop).await;
        }
        let scope = select_scope(
            challenge.and_then(Challenge::scope),
            &discovered,
            previous_scope.as_deref(),
            self.config.offline_access && matches!(self.config.grant, Grant::AuthorizationCode(_)),
        );
        let dpop = if self.config.dpop && discovered.metadata.supports_dpop() {
            match dpop {
                Some(key) => Some(key),
                None => Some(Arc::new(DpopKey::generate()?)),
            }
        } else {
            None
        };
        attempts.granted = true;
        let (client, tokens) = self
            .grant(
                &discovered,
                record.as_ref(),
                scope.as_deref(),
                dpop.as_deref(),
            )
            .await?;
        let record = StoredAuthorization {
            issuer: discovered.issuer.clone(),
            client,
            tokens: Some(tokens),
            dpop_key: dpop.as_ref().map(|k| k.stored().clone()),
        };
        self.keep(record, dpop).await
    }

    /// Runs the configured grant: the client's registration, and the tokens.
    async fn grant(
        &self,
        discovered: &Discovered,
        record: Option<&StoredAuthorization>,
        scope: Option<&str>,
        dpop: Option<&DpopKey>,
    ) -> Result<(RegisteredClient, Tokens), AuthError> {
        let issuer = &discovered.issuer;
        let pre_registered = self.config.pre_registered.iter().find(|c| c.fit(issuer));
        let Grant::AuthorizationCode(user_agent) = &self.config.grant else {
            let Some(client) = pre_registered else {
                return Err(AuthError::Registration {
                    issuer: issuer.clone(),
                    detail: "the client has no credentials for this authorization server; \
                             give them to OAuth with ClientCredentials::for_issuer"
                        .into(),
                });
            };
            let endpoint = self.endpoint(discovered, client, None, dpop)?;
            let tokens = match &self.config.grant {
                Grant::JwtBearer(assertion) => {
                    let assertion = assertion.current().await?;
                    endpoint
                        .jwt_bearer(&assertion, &discovered.resource, scope)
                        .await?
                }
                Grant::Enterprise(idp) => {
                    let grant = exchange_id_token(
                        &self.http,
                        idp,
                        issuer,
                        &discovered.resource,
                        scope,
                        &self.nonces,
                    )
                    .await?;
                    endpoint
                        .jwt_bearer(&grant, &discovered.resource, scope)
                        .await?
                }
                _ => {
                    endpoint
                        .client_credentials(&discovered.resource, scope)
                        .await?
                }
            };
            return Ok((registered(client, endpoint.method), tokens));
        };
        let redirect_uri = user_agent.redirect_uri();
        let (client, method) = match pre_registered {
            Some(client) => (client.clone(), None),
            None => match record {
                Some(record) => (
                    self.client_of(&record.client),
                    record.client.token_endpoint_auth_method.clone(),
                ),
                None => register(&self.http, discovered, &self.config, &redirect_uri).await?,
            },
        };
        let endpoint = self.endpoint(discovered, &client, method.as_deref(), dpop)?;
        let (code, verifier) = self
            .authorization_code(
                discovered,
                &client,
                user_agent.as_ref(),
                &redirect_uri,
                scope,
            )
            .await?;
        let tokens = endpoint
            .authorization_code(code, verifier, &redirect_uri, &discovered.resource, scope)
            .await?;
        let mut kept = registered(&client, endpoint.method);
        if method.is_some() {
            kept.token_endpoint_auth_method = method;
        }
        Ok((kept, tokens))
    }

    /// Takes the user to the authorization endpoint, and checks the answer: the
    /// authorization code, and the PKCE verifier to exchange it with.
    async fn authorization_code(
        &self,
        discovered: &Discovered,
        client: &ClientCredentials,
        user_agent: &dyn super::UserAgent,
        redirect_uri: &str,
        scope: Option<&str>,
    ) -> Result<(String, oauth2::PkceCodeVerifier), AuthError> {
        let metadata = &discovered.metadata;
        let issuer = &discovered.issuer;
        let supports_s256 = metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"));
        if discovered.published && !supports_s256 {
            return Err(AuthError::Configuration {
                detail: format!(
                    "the authorization server {issuer} does not support PKCE with S256 \
                     (`code_challenge_methods_supported`), which MCP requires; refusing to \
                     authorize"
                ),
            });
        }
        let configuration = |detail: String| AuthError::Configuration { detail };
        let authorization_endpoint = metadata.authorization_endpoint.clone().ok_or_else(|| {
            configuration(format!(
                "the authorization server {issuer} has no authorization endpoint"
            ))
        })?;
        let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
            .set_auth_uri(AuthUrl::new(authorization_endpoint).map_err(|error| {
                configuration(format!("the authorization endpoint is not a URL: {error}"))
            })?)
            .set_redirect_uri(RedirectUrl::new(redirect_uri.to_owned()).map_err(|error| {
                configuration(format!("the redirect URI is not a URL: {error}"))
            })?);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = oauth
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", discovered.resource.clone());
        if let Some(scope) = scope {
            request = request.add_scopes(scope.split_whitespace().map(|s| Scope::new(s.into())));
        }
        if asks_offline_access(scope) {
            // OpenID Connect Core §11: offline access needs the user's consent, so strict
            // providers (panva's oidc-provider) drop `offline_access`, and issue no refresh
            // token, unless the request asks for it with `prompt=consent`. Authorization
            // servers that do not know `prompt` ignore it (RFC 6749 §3.1).
            request = request.add_extra_param("prompt", "consent");
        }
        let (url, state) = request.url();
        let answer = user_agent.authorize(&url).await?;
        let query: std::collections::HashMap<String, String> =
            answer.query_pairs().into_owned().collect();
        let failed = |detail: String| AuthError::Authorization { detail };
        if let Some(error) = query.get("error") {
            return Err(failed(format!(
                "the authorization server answered {error}{}",
                query
                    .get("error_description")
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )));
        }
        if query.get("state").map(String::as_str) != Some(state.secret().as_str()) {
            return Err(failed(
                "the redirect does not carry the state of the authorization request (a \
                 forged or stale redirect); start again"
                    .into(),
            ));
        }
        match query.get("iss") {
            // RFC 9207: compared as strings, without normalisation.
            Some(iss) if iss != issuer => {
                return Err(AuthError::IssuerMismatch {
                    detail: format!(
                        "the authorization response comes from the issuer {iss:?}, not from \
                         {issuer:?}; refusing it (RFC 9207)"
                    ),
                });
            }
            None if metadata.authorization_response_iss_parameter_supported => {
                return Err(AuthError::IssuerMismatch {
                    detail: format!(
                        "the authorization response carries no `iss`, though {issuer} says it \
                         sends one; refusing it (RFC 9207)"
                    ),
                });
            }
            _ => {}
        }
        let code = query
            .get("code")
            .cloned()
            .ok_or_else(|| failed("the redirect carries no authorization code".into()))?;
        Ok((code, verifier))
    }

    /// The token endpoint of `discovered`, for `client`.
    fn endpoint<'a>(
        &'a self,
        discovered: &'a Discovered,
        client: &'a ClientCredentials,
        registered_method: Option<&str>,
        dpop: Option<&'a DpopKey>,
    ) -> Result<TokenEndpoint<'a>, AuthError> {
        let url = discovered
            .metadata
            .token_endpoint
            .as_deref()
            .ok_or_else(|| AuthError::Configuration {
                detail: format!(
                    "the authorization server {} has no token endpoint",
                    discovered.issuer
                ),
            })?;
        Ok(TokenEndpoint {
            http: &self.http,
            issuer: &discovered.issuer,
            url,
            client,
            method: AuthMethod::choose(
                client,
                registered_method,
                discovered
                    .metadata
                    .token_endpoint_auth_methods_supported
                    .as_deref(),
            ),
            dpop,
            nonces: &self.nonces,
        })
    }

    /// The credentials of a registration.
    fn client_of(&self, client: &RegisteredClient) -> ClientCredentials {
        // A pre-registered client keeps its key (private_key_jwt), which is not stored.
        if let Some(known) = self
            .config
            .pre_registered
            .iter()
            .find(|c| c.client_id == client.client_id)
        {
            return known.clone();
        }
        match &client.client_secret {
            Some(secret) => {
                ClientCredentials::with_secret(client.client_id.clone(), secret.clone())
            }
            None => ClientCredentials::public(client.client_id.clone()),
        }
    }

    /// Makes `record` current, and stores it.
    async fn keep(
        &self,
        record: StoredAuthorization,
        dpop: Option<Arc<DpopKey>>,
    ) -> Result<(), AuthError> {
        self.config.store.save(&self.server, &record).await?;
        let mut current = self.current.lock();
        current.record = Some(record);
        current.dpop = dpop;
        current.generation += 1;
        Ok(())
    }
}

/// The registration to keep for `client`, which authenticates with `method`.
fn registered(client: &ClientCredentials, method: AuthMethod) -> RegisteredClient {
    RegisteredClient {
        client_id: client.client_id.clone(),
        client_secret: client.secret.clone(),
        token_endpoint_auth_method: Some(method.name().to_owned()),
    }
}

/// The scopes to ask for (the MCP specification's scope selection strategy): those of the
/// challenge, else every one the resource metadata lists, else none; with the ones asked for
/// before (a step-up keeps what the client held), and `offline_access` when `offline` and the
/// authorization server offers it.
fn select_scope(
    challenged: Option<&str>,
    discovered: &Discovered,
    previous: Option<&str>,
    offline: bool,
) -> Option<String> {
    let mut scopes: Vec<String> = match challenged {
        Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
        None => discovered.resource_scopes.clone().unwrap_or_default(),
    };
    let mut add = |scope: &str| {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    };
    for scope in previous.unwrap_or_default().split_whitespace() {
        add(scope);
    }
    if offline && discovered.metadata.supports_scope(OFFLINE_ACCESS) {
        add(OFFLINE_ACCESS);
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// Whether `scope` asks for a refresh token the OpenID Connect way (`offline_access`).
fn asks_offline_access(scope: Option<&str>) -> bool {
    scope.is_some_and(|scope| scope.split_whitespace().any(|s| s == OFFLINE_ACCESS))
}

/// A header value that HTTP/2 encoders and debug output treat as secret.
fn sensitive(value: &str) -> Result<HeaderValue, AuthError> {
    let mut value = HeaderValue::from_str(value).map_err(|_| AuthError::Rejected {
        detail: "the authorization server issued a token that cannot go in a header".into(),
    })?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::oauth::discovery::ServerMetadata;

    fn discovered(resource_scopes: Option<&[&str]>, server_scopes: Option<&[&str]>) -> Discovered {
        Discovered {
            resource: "http://localhost/mcp".into(),
            resource_scopes: resource_scopes.map(|s| s.iter().map(|s| s.to_string()).collect()),
            issuer: "http://localhost".into(),
            metadata: ServerMetadata {
                scopes_supported: server_scopes.map(|s| s.iter().map(|s| s.to_string()).collect()),
                ..ServerMetadata::default()
            },
            published: true,
        }
    }

    #[test]
    fn scopes_come_from_the_challenge_then_the_resource_metadata_then_nowhere() {
        let d = discovered(Some(&["a", "b"]), None);
        assert_eq!(
            select_scope(Some("c"), &d, None, true).as_deref(),
            Some("c")
        );
        assert_eq!(select_scope(None, &d, None, true).as_deref(), Some("a b"));
        assert_eq!(
            select_scope(None, &discovered(None, None), None, true),
            None
        );
    }

    #[test]
    fn a_step_up_keeps_the_scopes_held_and_offline_access_comes_when_offered() {
        let d = discovered(None, Some(&["mcp:basic", "offline_access"]));
        assert_eq!(
            select_scope(
                Some("mcp:write"),
                &d,
                Some("mcp:basic offline_access"),
                true
            )
            .as_deref(),
            Some("mcp:write mcp:basic offline_access")
        );
        assert_eq!(
            select_scope(Some("mcp:basic"), &d, None, false).as_deref(),
            Some("mcp:basic")
        );
        let without = discovered(None, Some(&["mcp:basic"]));
        assert_eq!(
            select_scope(Some("mcp:basic"), &without, None, true).as_deref(),
            Some("mcp:basic")
        );
    }
}
