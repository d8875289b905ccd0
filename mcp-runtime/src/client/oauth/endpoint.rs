//! The token endpoint: every grant the client uses, how it authenticates there, and DPoP.
//!
//! The authorization code, refresh token and client credentials grants go through the
//! `oauth2` crate; the two grants it does not know, the JWT bearer grant (RFC 7523 §2.1) and
//! token exchange (RFC 8693), are forms posted here and read with its response types. Every
//! request goes through [`TokenEndpoint::send`], which adds a DPoP proof when the tokens are
//! bound to a key, and sends it again once with the nonce when the server asks for one
//! (`use_dpop_nonce`, RFC 9449 §8).

use std::borrow::Cow;

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthorizationCode, ClientId, ClientSecret, HttpRequest, HttpResponse,
    PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};

use super::credentials::{ClientCredentials, EnterpriseIdp, unix_now};
use super::dpop::{DpopKey, Nonces};
use super::{AuthError, Secret, Tokens};
use crate::auth::discovery::MAX_DOCUMENT;

/// The grant type of RFC 7523 §2.1.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The grant type of RFC 8693.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The client assertion type of RFC 7523 §2.2.
const CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How a client authenticates at the token endpoint (RFC 7591 §2, RFC 7523 §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    /// `client_secret_basic`: the id and secret in an `Authorization: Basic` header.
    Basic,
    /// `client_secret_post`: the id and secret in the form.
    Post,
    /// `none`: the id alone in the form.
    None,
    /// `private_key_jwt`: a signed assertion in the form.
    PrivateKeyJwt,
}

impl AuthMethod {
    /// The method a client with `credentials` uses at an authorization server that supports
    /// `supported` (all of them when it does not say), unless its registration named one.
    pub(crate) fn choose(
        credentials: &ClientCredentials,
        registered: Option<&str>,
        supported: Option<&[String]>,
    ) -> AuthMethod {
        let has_secret = credentials.secret.is_some();
        match registered {
            Some("client_secret_basic") if has_secret => return AuthMethod::Basic,
            Some("client_secret_post") if has_secret => return AuthMethod::Post,
            Some("none") => return AuthMethod::None,
            Some("private_key_jwt") if credentials.key.is_some() => {
                return AuthMethod::PrivateKeyJwt;
            }
            _ => {}
        }
        let supports = |method: &str| supported.is_none_or(|s| s.iter().any(|m| m == method));
        if credentials.key.is_some() {
            AuthMethod::PrivateKeyJwt
        } else if !has_secret {
            AuthMethod::None
        } else if supports("client_secret_basic") {
            AuthMethod::Basic
        } else if supports("client_secret_post") {
            AuthMethod::Post
        } else {
            AuthMethod::Basic
        }
    }

    /// The registered name of the method.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AuthMethod::Basic => "client_secret_basic",
            AuthMethod::Post => "client_secret_post",
            AuthMethod::None => "none",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }
}

/// The token endpoint of one authorization server, for one client.
pub(crate) struct TokenEndpoint<'a> {
    pub(crate) http: &'a reqwest::Client,
    /// The authorization server's issuer identifier (the audience of client assertions).
    pub(crate) issuer: &'a str,
    pub(crate) url: &'a str,
    pub(crate) client: &'a ClientCredentials,
    pub(crate) method: AuthMethod,
    /// The key the tokens are bound to, when they are (DPoP).
    pub(crate) dpop: Option<&'a DpopKey>,
    pub(crate) nonces: &'a Nonces,
}

impl TokenEndpoint<'_> {
    /// Exchanges an authorization `code` (RFC 6749 §4.1.3, with PKCE's `verifier` and RFC
    /// 8707's `resource`).
    pub(crate) async fn authorization_code(
        &self,
        code: String,
        verifier: PkceCodeVerifier,
        redirect_uri: &str,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let client = self.oauth2_client()?;
        let redirect = RedirectUrl::new(redirect_uri.to_owned()).map_err(|error| {
            AuthError::Configuration {
                detail: format!("the redirect URI {redirect_uri:?} is not a URL: {error}"),
            }
        })?;
        let mut request = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .set_redirect_uri(Cow::Owned(redirect))
            .add_extra_param("resource", resource);
        for (name, value) in self.assertion_params()? {
            request = request.add_extra_param(name, value);
        }
        let response = request.request_async(&Sender(self)).await;
        self.issued(response, scope)
    }

    /// Refreshes with `refresh_token` (RFC 6749 §6); the new tokens keep it when the
    /// authorization server does not rotate it.
    pub(crate) async fn refresh(
        &self,
        refresh_token: &Secret,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let client = self.oauth2_client()?;
        let token = RefreshToken::new(refresh_token.expose().to_owned());
        let mut request = client
            .exchange_refresh_token(&token)
            .add_extra_param("resource", resource);
        for (name, value) in self.assertion_params()? {
            request = request.add_extra_param(name, value);
        }
        let response = request.request_async(&Sender(self)).await;
        let mut tokens = self.issued(response, scope)?;
        tokens
            .refresh_token
            .get_or_insert_with(|| refresh_token.clone());
        Ok(tokens)
    }

    /// The client credentials grant (RFC 6749 §4.4).
    pub(crate) async fn client_credentials(
        &self,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let client = self.oauth2_client()?;
        let mut request = client
            .exchange_client_credentials()
            .add_extra_param("resource", resource);
        if let Some(scope) = scope {
            request = request.add_scopes(scope.split_whitespace().map(|s| Scope::new(s.into())));
        }
        for (name, value) in self.assertion_params()? {
            request = request.add_extra_param(name, value);
        }
        let response = request.request_async(&Sender(self)).await;
        self.issued(response, scope)
    }

    /// The JWT bearer grant (RFC 7523 §2.1) with `assertion`.
    pub(crate) async fn jwt_bearer(
        &self,
        assertion: &Secret,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion.expose().to_owned()),
            ("resource", resource.to_owned()),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope.to_owned()));
        }
        let body = self.post_form(form).await?;
        self.issued(parse(body), scope)
    }

    /// The `oauth2` client for this endpoint and client.
    fn oauth2_client(
        &self,
    ) -> Result<
        BasicClient<
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointSet,
        >,
        AuthError,
    > {
        let url = TokenUrl::new(self.url.to_owned()).map_err(|error| AuthError::Discovery {
            server: self.issuer.to_owned(),
            detail: format!("the token endpoint {:?} is not a URL: {error}", self.url),
        })?;
        let mut client = BasicClient::new(ClientId::new(self.client.client_id.clone()))
            .set_token_uri(url)
            .set_auth_type(match self.method {
                AuthMethod::Basic => AuthType::BasicAuth,
                _ => AuthType::RequestBody,
            });
        if matches!(self.method, AuthMethod::Basic | AuthMethod::Post)
            && let Some(secret) = &self.client.secret
        {
            client = client.set_client_secret(ClientSecret::new(secret.expose().to_owned()));
        }
        Ok(client)
    }

    /// The client assertion parameters of `private_key_jwt`.
    fn assertion_params(&self) -> Result<Vec<(&'static str, String)>, AuthError> {
        if self.method != AuthMethod::PrivateKeyJwt {
            return Ok(Vec::new());
        }
        let Some(assertion) = self.client.assertion(self.issuer)? else {
            return Ok(Vec::new());
        };
        Ok(vec![
            ("client_assertion_type", CLIENT_ASSERTION.to_owned()),
            ("client_assertion", assertion.expose().to_owned()),
        ])
    }

    /// POSTs `form` with the client's authentication: the answer.
    async fn post_form(&self, mut form: Vec<(&str, String)>) -> Result<HttpResponse, AuthError> {
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri(self.url)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(http::header::ACCEPT, "application/json");
        let id = self.client.client_id.clone();
        match self.method {
            AuthMethod::Basic => {
                let secret = self.client.secret.as_ref().map_or("", Secret::expose);
                request = request.header(AUTHORIZATION, basic_authorization(&id, secret));
            }
            AuthMethod::Post => {
                form.push(("client_id", id));
                if let Some(secret) = &self.client.secret {
                    form.push(("client_secret", secret.expose().to_owned()));
                }
            }
            AuthMethod::None => form.push(("client_id", id)),
            AuthMethod::PrivateKeyJwt => {
                form.push(("client_id", id));
                form.extend(self.assertion_params()?);
            }
        }
        let body = form_urlencoded(&form);
        let request = request
            .body(body.into_bytes())
            .map_err(|error| self.unreachable(error))?;
        self.send(request)
            .await
            .map_err(|error| self.unreachable(error))
    }

    /// Sends `request` to the authorization server, with a DPoP proof when the tokens are
    /// bound to a key; once more with the server's nonce when it asks for one.
    pub(crate) async fn send(&self, request: HttpRequest) -> Result<HttpResponse, SendError> {
        let mut response = self.send_once(&request).await?;
        if self.dpop.is_some() && asks_for_nonce(&response) {
            response = self.send_once(&request).await?;
        }
        Ok(response)
    }

    async fn send_once(&self, request: &HttpRequest) -> Result<HttpResponse, SendError> {
        let url = request.uri().to_string();
        let mut builder = self
            .http
            .request(request.method().clone(), &url)
            .headers(request.headers().clone())
            .body(request.body().clone());
        if let Some(key) = self.dpop {
            let proof = key
                .proof(
                    request.method().as_str(),
                    &url,
                    None,
                    self.nonces.get(&url).as_deref(),
                )
                .map_err(|error| SendError(error.to_string()))?;
            builder = builder.header("dpop", proof);
        }
        let mut answer =
            crate::rt::timeout(crate::auth::discovery::REQUEST_TIMEOUT, builder.send())
                .await
                .map_err(|_| SendError(format!("{url} did not answer in time")))?
                .map_err(|error| SendError(format!("{url} could not be reached: {error}")))?;
        self.nonces.remember(&url, answer.headers());
        let mut response = http::Response::builder().status(answer.status());
        if let Some(headers) = response.headers_mut() {
            *headers = answer.headers().clone();
        }
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|error| SendError(format!("reading the answer of {url} failed: {error}")))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(SendError(format!("the answer of {url} is too large")));
            }
            body.extend_from_slice(&chunk);
        }
        response
            .body(body)
            .map_err(|error| SendError(error.to_string()))
    }

    /// The tokens of a token response, or the error it carries.
    fn issued(
        &self,
        response: Result<BasicTokenResponse, RequestTokenError<SendError, BasicErrorResponse>>,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let response = response.map_err(|error| match error {
            RequestTokenError::ServerResponse(error) => AuthError::Token {
                issuer: self.issuer.to_owned(),
                error: error.error().as_ref().to_owned(),
                description: error.error_description().cloned(),
            },
            RequestTokenError::Request(error) => AuthError::Unreachable {
                detail: format!("the token request failed: {}", error.0),
            },
            RequestTokenError::Parse(_, _) => AuthError::Unreachable {
                detail: format!(
                    "the token endpoint {} answered with something other than a token \
                     response",
                    self.url
                ),
            },
            RequestTokenError::Other(detail) => AuthError::Unreachable {
                detail: format!("the token endpoint {} answered: {detail}", self.url),
            },
        })?;
        let dpop = response.token_type().as_ref().eq_ignore_ascii_case("dpop");
        let granted = response.scopes().map(|scopes| {
            scopes
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        });
        Ok(Tokens {
            access_token: Secret::new(response.access_token().secret().clone()),
            token_type: if dpop { "DPoP" } else { "Bearer" }.to_owned(),
            refresh_token: response
                .refresh_token()
                .map(|t| Secret::new(t.secret().clone())),
            expires_at: response
                .expires_in()
                .map(|d| unix_now().saturating_add(d.as_secs())),
            scope: granted.or_else(|| scope.map(str::to_owned)),
        })
    }

    fn unreachable(&self, error: impl std::fmt::Display) -> AuthError {
        AuthError::Unreachable {
            detail: format!("the token request to {} failed: {error}", self.url),
        }
    }
}

/// Exchanges the user's ID token at the enterprise identity provider for an identity
/// assertion authorization grant for `audience` (the MCP server's authorization server) and
/// `resource` (RFC 8693, SEP-990).
pub(crate) async fn exchange_id_token(
    http: &reqwest::Client,
    idp: &EnterpriseIdp,
    audience: &str,
    resource: &str,
    scope: Option<&str>,
    nonces: &Nonces,
) -> Result<Secret, AuthError> {
    let id_token = idp.id_token.current().await?;
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE.to_owned()),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag".to_owned(),
        ),
        ("audience", audience.to_owned()),
        ("resource", resource.to_owned()),
        ("subject_token", id_token.expose().to_owned()),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token".to_owned(),
        ),
    ];
    if let Some(scope) = scope {
        form.push(("scope", scope.to_owned()));
    }
    let endpoint = TokenEndpoint {
        http,
        issuer: &idp.token_endpoint,
        url: &idp.token_endpoint,
        client: &idp.client,
        method: AuthMethod::choose(&idp.client, None, None),
        dpop: None,
        nonces,
    };
    let answer = endpoint.post_form(form).await?;
    #[derive(serde::Deserialize)]
    struct Exchanged {
        access_token: Secret,
        #[serde(default)]
        issued_token_type: Option<String>,
    }
    if answer.status() != http::StatusCode::OK {
        return Err(token_error(&idp.token_endpoint, &answer));
    }
    let exchanged: Exchanged =
        serde_json::from_slice(answer.body()).map_err(|_| AuthError::Unreachable {
            detail: format!(
                "the identity provider's token endpoint {} answered with something other than \
                 a token exchange response",
                idp.token_endpoint
            ),
        })?;
    if exchanged
        .issued_token_type
        .as_deref()
        .is_some_and(|t| t != "urn:ietf:params:oauth:token-type:id-jag")
    {
        return Err(AuthError::Unreachable {
            detail: format!(
                "the identity provider issued a {:?}, not an identity assertion grant (ID-JAG)",
                exchanged.issued_token_type.unwrap_or_default()
            ),
        });
    }
    Ok(exchanged.access_token)
}

/// The token response in `answer` (as `oauth2` reads one).
fn parse(
    answer: HttpResponse,
) -> Result<BasicTokenResponse, RequestTokenError<SendError, BasicErrorResponse>> {
    if answer.status() != http::StatusCode::OK {
        return Err(
            match serde_json::from_slice::<BasicErrorResponse>(answer.body()) {
                Ok(error) => RequestTokenError::ServerResponse(error),
                Err(_) => RequestTokenError::Other(format!("{}", answer.status())),
            },
        );
    }
    serde_json::from_slice(answer.body())
        .map_err(|_| RequestTokenError::Other("an answer that is not a token response".into()))
}

/// The error of a refused token request at `url`.
fn token_error(url: &str, answer: &HttpResponse) -> AuthError {
    match serde_json::from_slice::<BasicErrorResponse>(answer.body()) {
        Ok(error) => AuthError::Token {
            issuer: url.to_owned(),
            error: error.error().as_ref().to_owned(),
            description: error.error_description().cloned(),
        },
        Err(_) => AuthError::Unreachable {
            detail: format!("{url} answered {}", answer.status()),
        },
    }
}

/// Whether the authorization server refused a request for want of a DPoP nonce it has just
/// given (RFC 9449 §8).
fn asks_for_nonce(response: &HttpResponse) -> bool {
    response.status() == http::StatusCode::BAD_REQUEST
        && response.headers().contains_key("dpop-nonce")
        && serde_json::from_slice::<serde_json::Value>(response.body())
            .is_ok_and(|body| body["error"] == "use_dpop_nonce")
}

/// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
fn basic_authorization(id: &str, secret: &str) -> HeaderValue {
    use base64::Engine;
    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!(
        "{}:{}",
        encode(id),
        encode(secret)
    ));
    let mut value = HeaderValue::from_str(&format!("Basic {credentials}"))
        .expect("base64 is a valid header value");
    value.set_sensitive(true);
    value
}

/// `form` as `application/x-www-form-urlencoded`.
fn form_urlencoded(form: &[(&str, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish()
}

/// How `oauth2` sends through a [`TokenEndpoint`].
struct Sender<'a, 'b>(&'a TokenEndpoint<'b>);

impl<'c> oauth2::AsyncHttpClient<'c> for Sender<'_, '_> {
    type Error = SendError;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<HttpResponse, SendError>> + Send + 'c>,
    >;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(self.0.send(request))
    }
}

/// A request to the authorization server that failed on the way.
#[derive(Debug)]
pub(crate) struct SendError(String);

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SendError {}
