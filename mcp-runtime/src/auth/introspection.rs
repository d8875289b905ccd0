//! [`IntrospectionVerifier`]: tokens checked by asking their issuer (OAuth 2.0 Token
//! Introspection, RFC 7662).
//!
//! The struct's documentation says what is checked and what is cached; this module also holds
//! the client authentication.

use crate::rt::{Instant, SystemTime};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderValue};
use serde_json::{Map, Value};

use super::cache::{CacheKey, TokenCache};
use super::discovery::{self, shown};
use super::jwt::seconds_now;
use super::resource_server::RETRY_AFTER;
use super::{AccessToken, TokenError, TokenVerifier, VerifyFuture};

/// How the server authenticates to the introspection endpoint (RFC 6749 §2.3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClientAuthentication {
    /// `client_secret_basic`: HTTP Basic authentication, with the client id and secret
    /// form-urlencoded first, as RFC 6749 §2.3.1 says. The default.
    #[default]
    Basic,
    /// `client_secret_post`: the client id and secret as `client_id` and `client_secret` in the
    /// form posted.
    Post,
}

/// Verifies tokens by asking their issuer (OAuth 2.0 Token Introspection, RFC 7662).
///
/// Opaque access tokens (random strings that only the authorization server can read), and JWTs
/// whose revocation must take effect at once, are verified by posting them to the issuer's
/// introspection endpoint. The server authenticates there as a client of its own (a client id
/// and secret the authorization server gave it), and the answer says whether the token is
/// active, and for whom, which client, which scopes and which resource it was issued:
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::auth::{ClientAuthentication, IntrospectionVerifier};
///
/// let secret = std::env::var("MCP_CLIENT_SECRET").unwrap_or_default();
/// // The endpoint comes from the issuer's metadata (`introspection_endpoint`), on first use.
/// let verifier = IntrospectionVerifier::discover(
///     "https://idp.example.com/realms/acme",
///     "mcp-server",
///     secret,
///     "https://mcp.example.com/mcp",
/// )
/// .client_authentication(ClientAuthentication::Post)
/// .cache_ttl(Duration::from_secs(30));
/// # let _ = verifier;
/// ```
///
/// A token is accepted when the answer says `active: true`, names this server in `aud` (a
/// token without an audience only with
/// [`allow_missing_audience`](IntrospectionVerifier::allow_missing_audience)), names the
/// expected issuer in `iss` when it names one, and is not past its `exp`.
///
/// Active answers are cached, under a hash of the token, for
/// [`cache_ttl`](IntrospectionVerifier::cache_ttl) (never past the token's expiry), so that a
/// client making many requests does not cost an introspection each. The price: a token revoked
/// at the issuer is still accepted until its cache entry expires. A `cache_ttl` of zero makes
/// revocation take effect at once.
///
/// When the authorization server cannot be reached, tokens get [`TokenError::Unavailable`]
/// (`503`): each request to it waits [`request_timeout`](IntrospectionVerifier::request_timeout)
/// at most (requests arriving while the endpoint is discovered share that discovery), and once
/// one has failed, tokens that are not in the cache get that failure for 5 seconds before the
/// authorization server is asked again, so that a burst of requests during an outage is answered
/// at once.
pub struct IntrospectionVerifier {
    endpoint: Endpoint,
    client_id: String,
    client_secret: String,
    audiences: Vec<String>,
    issuer: Option<String>,
    allow_missing_audience: bool,
    authentication: ClientAuthentication,
    client: reqwest::Client,
    request_timeout: Duration,
    cache_ttl: Duration,
    /// Active answers.
    cache: TokenCache,
    /// When the authorization server last failed to answer, and why: it is not asked again for
    /// [`RETRY_AFTER`].
    outage: parking_lot::Mutex<Option<(Instant, String)>>,
}

/// Where tokens are introspected.
enum Endpoint {
    /// At this URL.
    Given(String),
    /// At the `introspection_endpoint` of the issuer's metadata, discovered on first use.
    Discovered {
        /// The issuer whose metadata names the endpoint.
        issuer: String,
        found: tokio::sync::OnceCell<String>,
    },
}

impl IntrospectionVerifier {
    /// A verifier posting tokens to `endpoint`, authenticated as `client_id` with
    /// `client_secret`, that accepts the tokens issued for `audience`, the resource identifier
    /// of this server.
    pub fn new(
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        IntrospectionVerifier {
            endpoint: Endpoint::Given(endpoint.into()),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audiences: vec![audience.into()],
            issuer: None,
            allow_missing_audience: false,
            authentication: ClientAuthentication::Basic,
            client: reqwest::Client::new(),
            request_timeout: discovery::VERIFIER_TIMEOUT,
            cache_ttl: Duration::from_secs(60),
            cache: TokenCache::new(10_000),
            outage: parking_lot::Mutex::new(None),
        }
    }

    /// Like [`new`](Self::new), with the endpoint of `issuer`'s metadata (found on first use;
    /// see [`AuthorizationServerMetadata::discover`](super::AuthorizationServerMetadata::discover)),
    /// and an answer's `iss`, when it has one, required to be `issuer`.
    pub fn discover(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        let mut verifier = IntrospectionVerifier::new("", client_id, client_secret, audience);
        let issuer = issuer.into();
        verifier.endpoint = Endpoint::Discovered {
            issuer: issuer.clone(),
            found: tokio::sync::OnceCell::new(),
        };
        verifier.issuer = Some(issuer);
        verifier
    }

    /// Authenticates to the endpoint with `method` (default [`ClientAuthentication::Basic`]).
    pub fn client_authentication(mut self, method: ClientAuthentication) -> Self {
        self.authentication = method;
        self
    }

    /// Requires an answer's `iss`, when it has one, to be `issuer`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Accepts tokens whose audience is `audience` too.
    pub fn also_accept_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Accepts tokens whose answer names no audience. Only for authorization servers that
    /// never say (some omit `aud` from introspection answers): such a server must be trusted
    /// to issue tokens for this server alone, since a token issued for another resource
    /// cannot be told apart.
    pub fn allow_missing_audience(mut self) -> Self {
        self.allow_missing_audience = true;
        self
    }

    /// How long an active answer is reused (default 60 seconds; never past the token's
    /// expiry). A token revoked meanwhile is accepted until then; zero turns the cache off.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// How many answers the cache holds at most (default 10,000). When full, expired entries
    /// go first, then the oldest.
    pub fn max_cache_entries(mut self, entries: usize) -> Self {
        self.cache.set_max_entries(entries);
        self
    }

    /// Introspects (and discovers the endpoint) with `client`. Every request is bounded to the
    /// [`request_timeout`](Self::request_timeout) and a 1 MiB answer whatever the client's
    /// settings.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = client;
        self
    }

    /// How long a request to the authorization server (an introspection, or a fetch of its
    /// metadata) may take, the answer read in full (default 5 seconds). A token the
    /// authorization server did not judge in time gets `503`.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The issuer an answer's `iss` must name, if one was given.
    pub fn expected_issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// Verifies `token`.
    async fn check(&self, token: &str) -> Result<AccessToken, TokenError> {
        let key = TokenCache::key(token);
        if let Some(known) = self.cache.get(&key, 0) {
            return Ok(known);
        }
        if let Some(error) = self.recent_outage() {
            return Err(error);
        }
        let endpoint = self.endpoint().await?;
        let answer = self
            .introspect(&endpoint, token)
            .await
            .map_err(|reason| self.failed(reason))?;
        let access = self.judge(answer)?;
        self.remember(key, &access);
        Ok(access)
    }

    /// The introspection endpoint, discovered if need be: callers arriving while it is
    /// discovered share that discovery.
    async fn endpoint(&self) -> Result<String, TokenError> {
        let (issuer, found) = match &self.endpoint {
            Endpoint::Given(endpoint) => return Ok(endpoint.clone()),
            Endpoint::Discovered { issuer, found } => (issuer.as_str(), found),
        };
        let endpoint = found
            .get_or_try_init(|| async {
                // Callers that queued behind a failed discovery take its outcome.
                if let Some(error) = self.recent_outage() {
                    return Err(error);
                }
                let discovered = discovery::find(&self.client, issuer, self.request_timeout)
                    .await
                    .and_then(|metadata| {
                        metadata.introspection_endpoint.ok_or_else(|| {
                            format!(
                                "the metadata of the authorization server {issuer} names no \
                                 introspection_endpoint"
                            )
                        })
                    });
                discovered.map_err(|reason| self.failed(reason))
            })
            .await?;
        Ok(endpoint.clone())
    }

    /// The failure of the authorization server remembered, if it is less than [`RETRY_AFTER`]
    /// old.
    fn recent_outage(&self) -> Option<TokenError> {
        match &*self.outage.lock() {
            Some((at, reason)) if at.elapsed() < RETRY_AFTER => {
                Some(TokenError::unavailable(reason.clone()))
            }
            _ => None,
        }
    }

    /// Logs and remembers that the authorization server failed for `reason`, and returns the
    /// error.
    fn failed(&self, reason: String) -> TokenError {
        tracing::warn!(issuer = self.issuer.as_deref(), "{reason}");
        *self.outage.lock() = Some((Instant::now(), reason.clone()));
        TokenError::unavailable(reason)
    }

    /// Posts `token` to `endpoint`: the answer, as a JSON object, or why there is none.
    async fn introspect(&self, endpoint: &str, token: &str) -> Result<Map<String, Value>, String> {
        let mut form = vec![("token", token), ("token_type_hint", "access_token")];
        let mut request = self
            .client
            .post(endpoint)
            .header(ACCEPT, "application/json");
        match self.authentication {
            ClientAuthentication::Basic => {
                let credentials = format!(
                    "{}:{}",
                    form_urlencode(&self.client_id),
                    form_urlencode(&self.client_secret)
                );
                let mut value =
                    HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(credentials)))
                        .map_err(|_| "the client credentials cannot be sent".to_owned())?;
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
            ClientAuthentication::Post => {
                form.push(("client_id", &self.client_id));
                form.push(("client_secret", &self.client_secret));
            }
        }
        let body = discovery::send_within(request.form(&form), endpoint, self.request_timeout)
            .await
            .map_err(|error| {
                if error.status() == Some(StatusCode::UNAUTHORIZED) {
                    "the introspection endpoint refused this server's client credentials".to_owned()
                } else {
                    format!("the token could not be introspected: {error}")
                }
            })?;
        serde_json::from_slice(&body).map_err(|_| {
            format!(
                "the introspection endpoint {endpoint} answered with something other than a JSON \
                 object"
            )
        })
    }

    /// The token an introspection `answer` describes, if it is valid here.
    fn judge(&self, answer: Map<String, Value>) -> Result<AccessToken, TokenError> {
        match answer.get("active") {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => {
                return Err(TokenError::invalid(
                    "the token is not active (expired or revoked)",
                ));
            }
            _ => {
                return Err(TokenError::unavailable(
                    "the introspection endpoint did not say whether the token is active",
                ));
            }
        }
        if let (Some(expected), Some(iss)) = (&self.issuer, answer.get("iss")) {
            match iss.as_str() {
                Some(iss) if iss == expected => {}
                Some(iss) => {
                    return Err(TokenError::invalid(format!(
                        "the token was issued by {}, not {expected}",
                        shown(iss)
                    )));
                }
                None => {
                    return Err(TokenError::invalid(
                        "the token's issuer (iss) is not a string",
                    ));
                }
            }
        }
        discovery::check_audience(
            answer.get("aud"),
            &self.audiences,
            self.allow_missing_audience,
        )?;
        let now = seconds_now();
        match answer.get("exp").map(Value::as_f64) {
            None => {}
            Some(None) => {
                return Err(TokenError::invalid(
                    "the token's expiry (exp) is not a number",
                ));
            }
            Some(Some(exp)) if now >= exp => {
                return Err(TokenError::invalid("the token has expired"));
            }
            Some(Some(_)) => {}
        }
        match answer.get("nbf").map(Value::as_f64) {
            Some(Some(nbf)) if now < nbf => Err(TokenError::invalid("the token is not valid yet")),
            Some(None) => Err(TokenError::invalid(
                "the token's start of validity (nbf) is not a number",
            )),
            _ => Ok(AccessToken::from_claims(answer)),
        }
    }

    /// Caches `token`, the answer for the token hashed to `key`, for the cache's time (never
    /// past the token's expiry).
    fn remember(&self, key: CacheKey, token: &AccessToken) {
        let mut ttl = self.cache_ttl;
        if let Some(expiry) = token.expires_at() {
            match expiry.duration_since(SystemTime::now()) {
                Ok(left) => ttl = ttl.min(left),
                Err(_) => return,
            }
        }
        if let Some(until) = Instant::now().checked_add(ttl) {
            self.cache.insert(key, token, 0, until);
        }
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// Shows where and as whom tokens are introspected, never the client secret.
impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let endpoint = match &self.endpoint {
            Endpoint::Given(endpoint) => endpoint.as_str(),
            Endpoint::Discovered { found, .. } => found
                .get()
                .map_or("discovered from the issuer's metadata", String::as_str),
        };
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .field("client_authentication", &self.authentication)
            .field("audiences", &self.audiences)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// `text` encoded as `application/x-www-form-urlencoded` (RFC 6749 Appendix B): letters,
/// digits and `*-._` as they are, space as `+`, every other byte as `%XX`.
fn form_urlencode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                encoded.push(char::from(byte));
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verifier() -> IntrospectionVerifier {
        IntrospectionVerifier::new(
            "https://idp.example.com/introspect",
            "mcp-server",
            "s3cret: with spaces",
            "https://mcp.example.com/mcp",
        )
        .issuer("https://idp.example.com")
    }

    fn answer(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("the tests give objects"),
        }
    }

    #[test]
    fn debug_output_redacts_the_client_secret() {
        let shown = format!("{:?}", verifier());
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(
            shown,
            "IntrospectionVerifier { endpoint: \"https://idp.example.com/introspect\", \
             client_id: \"mcp-server\", client_secret: \"[redacted]\", client_authentication: \
             Basic, audiences: [\"https://mcp.example.com/mcp\"], issuer: \
             Some(\"https://idp.example.com\"), .. }"
        );
    }

    #[test]
    fn client_credentials_are_form_urlencoded() {
        assert_eq!(form_urlencode("mcp-server_1.x*"), "mcp-server_1.x*");
        assert_eq!(form_urlencode("a b:c+d/é%"), "a+b%3Ac%2Bd%2F%C3%A9%25");
    }

    #[test]
    fn answers_are_judged() {
        let v = verifier();
        let future = seconds_now() as i64 + 300;
        let token = v
            .judge(answer(json!({
                "active": true, "iss": "https://idp.example.com", "sub": "alice",
                "aud": "https://mcp.example.com/mcp", "scope": "a b", "exp": future,
            })))
            .unwrap();
        assert_eq!(token.subject(), Some("alice"));
        assert_eq!(token.scopes().collect::<Vec<_>>(), ["a", "b"]);
        let refused = |value: Value| v.judge(answer(value)).unwrap_err();
        assert_eq!(
            refused(json!({"active": false})),
            TokenError::invalid("the token is not active (expired or revoked)")
        );
        assert_eq!(
            refused(json!({"active": "yes"})),
            TokenError::unavailable(
                "the introspection endpoint did not say whether the token is active"
            )
        );
        assert_eq!(
            refused(json!({
                "active": true, "iss": "https://other", "aud": "https://mcp.example.com/mcp",
            })),
            TokenError::invalid(
                "the token was issued by https://other, not https://idp.example.com"
            )
        );
        assert_eq!(
            refused(json!({"active": true, "aud": "https://mcp.example.com/mcp", "exp": 1000})),
            TokenError::invalid("the token has expired")
        );
        assert_eq!(
            refused(json!({"active": true, "aud": "https://mcp.example.com/mcp", "nbf": future})),
            TokenError::invalid("the token is not valid yet")
        );
        assert_eq!(
            refused(json!({"active": true})),
            TokenError::invalid(
                "the token names no audience (aud), and this server accepts only tokens issued \
                 for https://mcp.example.com/mcp"
            )
        );
    }

    #[test]
    fn answers_are_never_cached_past_the_token_s_expiry() {
        let v = verifier();
        let token = AccessToken::new().with_subject("alice");
        v.remember([1; 32], &token);
        assert_eq!(v.cache.get(&[1; 32], 0), Some(token.clone()));
        let expired = token.with_expiry(SystemTime::now() - Duration::from_secs(1));
        v.remember([2; 32], &expired);
        assert_eq!(v.cache.get(&[2; 32], 0), None);
    }

    #[test]
    fn a_zero_ttl_turns_the_cache_off() {
        let v = verifier().cache_ttl(Duration::ZERO);
        v.remember([1; 32], &AccessToken::new());
        assert_eq!(v.cache.get(&[1; 32], 0), None);
    }
}
