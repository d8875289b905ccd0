//! [`ResourceServer`]: the server as an OAuth 2.1 protected resource, its metadata and its
//! challenges.

use std::sync::Arc;
use std::time::Duration;

use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use serde_json::{Value, json};

use super::{AccessToken, TokenError, TokenVerifier, joined, scope_list};

/// Where the protected resource metadata lives, before the endpoint's path (RFC 9728 §3).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// How long a client is asked to wait after a `503` (its `Retry-After`), and how long the SDK's
/// verifiers answer with a failure to reach the authorization server before they try it again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What a `503` tells the client: nothing of the authorization server's URLs or errors, which go
/// to the server's log.
const UNAVAILABLE: &str = "Service Unavailable: the authorization server is unavailable, so the \
                           access token could not be verified; retry later";

/// The server as an OAuth 2.1 protected resource: its canonical URI, how tokens are verified,
/// the authorization servers that issue them, and the scopes it requires.
///
/// With a `ResourceServer` in its options
/// ([`HttpOptions::authorization`](crate::transport::http::HttpOptions::authorization)), the
/// Streamable HTTP transport serves only requests that carry a valid access token, the way the
/// MCP authorization specification asks of a *resource server*:
///
/// - the protected resource metadata (RFC 9728) tells clients which authorization servers issue
///   tokens for this server and which scopes it knows; it is served at
///   `/.well-known/oauth-protected-resource` followed by the endpoint's path, and at
///   `/.well-known/oauth-protected-resource` itself;
/// - every request must carry `Authorization: Bearer <token>` (never a token in the query
///   string). Without a usable token it gets `401` with
///   `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`, and with a token the
///   [`TokenVerifier`] refuses, the same with `error="invalid_token"` and a description of what
///   was wrong;
/// - a token that lacks a scope the server requires, or that the tool, prompt or resource called
///   requires, gets `403` with `error="insufficient_scope"` and every scope the request needs,
///   so that the client can ask for them (step-up authorization);
/// - a token the verifier cannot judge ([`TokenError::Unavailable`]: the authorization server
///   cannot be reached) gets `503` with `Retry-After: 5` and a message that says only that; what
///   went wrong goes to the server's log (`tracing`, at the `warn` level).
///
/// The token's audience must be this server: the verifier checks it against the canonical URI
/// given here (RFC 8707), so a token minted for another resource is refused, never passed on.
///
/// ```no_run
/// # #[cfg(feature = "auth")]
/// # async fn run(server: mcp_runtime::server::McpServer) -> std::io::Result<()> {
/// use mcp_runtime::auth::{JwtVerifier, ResourceServer};
/// use mcp_runtime::transport::http::HttpOptions;
///
/// let issuer = "https://auth.example.com/realms/mcp";
/// let resource = "https://mcp.example.com/mcp";
/// let authorization = ResourceServer::new(resource, JwtVerifier::new(issuer, resource))
///     .authorization_server(issuer)
///     .require_scopes(["mcp"]);
/// let options = HttpOptions::default().authorization(authorization);
/// mcp_runtime::transport::http::serve_http(server, "127.0.0.1:8000", options).await
/// # }
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    resource: String,
    /// The path of the resource's metadata: the well-known prefix and the endpoint's path.
    metadata_path: String,
    /// The absolute URL of that metadata.
    metadata_url: String,
    verifier: Arc<dyn TokenVerifier>,
    authorization_servers: Vec<String>,
    required_scopes: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    implied: Vec<(String, Vec<String>)>,
    resource_name: Option<String>,
    documentation: Option<String>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

/// How a request's credentials were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No bearer token in the `Authorization` header: `401` with a plain challenge.
    NoToken,
    /// A token in the query string: `401`, `error="invalid_request"`.
    TokenInQuery,
    /// A token the server does not accept: `401`, `error="invalid_token"`.
    InvalidToken(String),
    /// The verifier could not decide: `503`, with `Retry-After` (the reason goes to the log
    /// only).
    Unavailable(String),
    /// A token without the scopes the request needs: `403`, `error="insufficient_scope"`.
    InsufficientScope(Vec<String>),
}

/// A URI that cannot serve where it was given: the canonical URI of a [`ResourceServer`], or the
/// issuer of a `JwtVerifier` (cargo feature `auth`). The message says which and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidUri(String);

impl InvalidUri {
    /// The error for `message`, which says which URI is wrong and what to give instead.
    pub(crate) fn new(message: String) -> Self {
        InvalidUri(message)
    }
}

impl ResourceServer {
    /// The protected resource at `resource`, its canonical URI (the absolute URL clients use
    /// for the MCP endpoint, such as `https://mcp.example.com/mcp`: the audience tokens must be
    /// issued for), whose tokens `verifier` checks.
    ///
    /// # Panics
    ///
    /// When `resource` is not an absolute `http` or `https` URL without a query or fragment;
    /// [`try_new`](Self::try_new) returns that error instead (for a URI read from a command line
    /// or a file).
    pub fn new(resource: impl Into<String>, verifier: impl TokenVerifier) -> Self {
        Self::try_new(resource, verifier).unwrap_or_else(|error| panic!("{error}"))
    }

    /// [`new`](Self::new), or why `resource` cannot be the canonical URI of an MCP endpoint.
    pub fn try_new(
        resource: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, InvalidUri> {
        let resource = resource.into();
        let uri: Uri = resource.parse().map_err(|error| {
            InvalidUri::new(format!(
                "the resource URI {resource:?} does not parse ({error}): give the absolute URL \
                 of the MCP endpoint, such as https://mcp.example.com/mcp"
            ))
        })?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return Err(InvalidUri::new(format!(
                "the resource URI {resource:?} is not absolute: give the absolute URL of the MCP \
                 endpoint, such as https://mcp.example.com/mcp"
            )));
        };
        if !matches!(scheme, "http" | "https") || uri.query().is_some() || resource.contains('#') {
            return Err(InvalidUri::new(format!(
                "the resource URI {resource:?} must be an http or https URL without a query or \
                 fragment (RFC 8707 §2), such as https://mcp.example.com/mcp"
            )));
        }
        let path = uri.path().trim_end_matches('/');
        let metadata_path = format!("{WELL_KNOWN}{path}");
        let metadata_url = format!("{scheme}://{authority}{metadata_path}");
        Ok(ResourceServer {
            resource,
            metadata_path,
            metadata_url,
            verifier: Arc::new(verifier),
            authorization_servers: Vec::new(),
            required_scopes: Vec::new(),
            scopes_supported: None,
            implied: Vec::new(),
            resource_name: None,
            documentation: None,
        })
    }

    /// The protected resource at `resource` whose tokens are JWTs of `issuer`, checked against
    /// the keys its metadata names ([`JwtVerifier`](super::JwtVerifier)); `issuer` is the
    /// authorization server the metadata names.
    #[cfg(feature = "auth")]
    pub fn jwt(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        let (issuer, resource) = (issuer.into(), resource.into());
        let verifier = super::JwtVerifier::new(issuer.clone(), resource.clone());
        ResourceServer::new(resource, verifier).authorization_server(issuer)
    }

    /// Adds `issuer` to the authorization servers the metadata names (`authorization_servers`):
    /// where clients get tokens for this server.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.authorization_servers.contains(&issuer) {
            self.authorization_servers.push(issuer);
        }
        self
    }

    /// Scopes every request needs, whatever it asks for (none by default: each tool, prompt or
    /// resource says what it needs).
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scope_list(scopes);
        self
    }

    /// The `scopes_supported` of the metadata, and the scopes a `401` challenge names when the
    /// server requires none. By default: the scopes the server requires, then those its tools,
    /// prompts and resources declare.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = Some(scope_list(scopes));
        self
    }

    /// Declares that a token granted `broad` may do what `narrower` allow (a scope hierarchy,
    /// which the specification asks servers to honour): `implied_scopes("notes:admin",
    /// ["notes:read", "notes:write"])`.
    pub fn implied_scopes<S: Into<String>>(
        mut self,
        broad: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied.push((broad.into(), scope_list(narrower)));
        self
    }

    /// The human-readable name of the resource in its metadata (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page documenting the resource for developers (`resource_documentation`).
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.documentation = Some(url.into());
        self
    }

    /// The canonical URI of the resource.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The URL of the protected resource metadata, as `WWW-Authenticate` names it.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The paths the metadata is served at: the path-suffixed one (RFC 9728 §3.1), and the
    /// root one when that differs.
    pub(crate) fn metadata_paths(&self) -> Vec<&str> {
        let mut paths = vec![self.metadata_path.as_str()];
        if self.metadata_path != WELL_KNOWN {
            paths.push(WELL_KNOWN);
        }
        paths
    }

    /// The scopes the metadata lists: those given, or those required and `declared` (what the
    /// tools, prompts and resources need).
    fn supported(&self, declared: impl FnOnce() -> Vec<String>) -> Vec<String> {
        match &self.scopes_supported {
            Some(scopes) => scopes.clone(),
            None => scope_list(self.required_scopes.iter().cloned().chain(declared())),
        }
    }

    /// The protected resource metadata document (RFC 9728 §2); `declared` lists the scopes the
    /// server's tools, prompts and resources need.
    pub(crate) fn metadata(&self, declared: impl FnOnce() -> Vec<String>) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
        });
        let scopes = self.supported(declared);
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        document["bearer_methods_supported"] = json!(["header"]);
        if let Some(name) = &self.resource_name {
            document["resource_name"] = json!(name);
        }
        if let Some(url) = &self.documentation {
            document["resource_documentation"] = json!(url);
        }
        document
    }

    /// The caller's verified token: the bearer token of `parts`, verified, with the scopes its
    /// scopes imply, and granted what the server requires.
    pub(crate) async fn authenticate(&self, parts: &Parts) -> Result<AccessToken, Refusal> {
        if parts.uri.query().is_some_and(has_access_token) {
            return Err(Refusal::TokenInQuery);
        }
        let token = bearer_token(&parts.headers)?;
        let mut verified = match self.verifier.verify(token).await {
            Ok(verified) => verified,
            Err(TokenError::Invalid(reason)) => return Err(Refusal::InvalidToken(reason)),
            Err(TokenError::Unavailable(reason)) => return Err(Refusal::Unavailable(reason)),
        };
        let implied: Vec<String> = self
            .implied
            .iter()
            .filter(|(broad, _)| verified.has_scope(broad))
            .flat_map(|(_, narrower)| narrower.iter().cloned())
            .collect();
        verified.add_scopes(implied);
        if !super::grants_all(&verified, &self.required_scopes) {
            return Err(Refusal::InsufficientScope(self.required_scopes.clone()));
        }
        Ok(verified)
    }

    /// The scopes a `403` for a request needing `needed` names: every scope the request needs,
    /// the server's required ones included.
    pub(crate) fn needed_with_required(&self, needed: &[String]) -> Vec<String> {
        scope_list(self.required_scopes.iter().chain(needed).cloned())
    }

    /// The status, header (`WWW-Authenticate`, or `Retry-After` for a `503`) and message of
    /// `refusal`; `declared` lists the scopes the server's tools, prompts and resources need (for
    /// the scope a `401` names).
    pub(crate) fn challenge(
        &self,
        refusal: &Refusal,
        declared: impl FnOnce() -> Vec<String>,
    ) -> (StatusCode, Option<(HeaderName, HeaderValue)>, String) {
        let metadata = format!("resource_metadata=\"{}\"", self.metadata_url);
        let scope = || {
            let scopes = if self.required_scopes.is_empty() {
                self.supported(declared)
            } else {
                self.required_scopes.clone()
            };
            if scopes.is_empty() {
                String::new()
            } else {
                format!(", scope=\"{}\"", joined(&scopes))
            }
        };
        let (status, value, message) = match refusal {
            Refusal::NoToken => (
                StatusCode::UNAUTHORIZED,
                format!("Bearer {metadata}{}", scope()),
                "Unauthorized: this server needs an access token, sent as `Authorization: Bearer \
                 <token>`; its metadata says where to get one"
                    .to_owned(),
            ),
            Refusal::TokenInQuery => {
                let reason = "access tokens must be sent in the Authorization header, never in the query string";
                (
                    StatusCode::UNAUTHORIZED,
                    format!(
                        "Bearer error=\"invalid_request\", error_description=\"{reason}\", {metadata}{}",
                        scope()
                    ),
                    format!("Unauthorized: {reason}"),
                )
            }
            Refusal::InvalidToken(reason) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", {metadata}{}",
                    quotable(reason),
                    scope()
                ),
                format!("Unauthorized: {reason}"),
            ),
            Refusal::Unavailable(_) => {
                let retry_after = HeaderValue::from(RETRY_AFTER.as_secs());
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some((header::RETRY_AFTER, retry_after)),
                    UNAVAILABLE.to_owned(),
                );
            }
            Refusal::InsufficientScope(scopes) => {
                let needs = match scopes.len() {
                    1 => format!("the scope {}", joined(scopes)),
                    _ => format!("the scopes {}", joined(scopes)),
                };
                let granted = if scopes.len() == 1 { "it" } else { "them all" };
                (
                    StatusCode::FORBIDDEN,
                    format!(
                        "Bearer error=\"insufficient_scope\", scope=\"{}\", {metadata}, error_description=\"this request needs {needs}\"",
                        joined(scopes)
                    ),
                    format!(
                        "Forbidden: this request needs {needs}, and the access token was not granted {granted}"
                    ),
                )
            }
        };
        // Every part is ASCII without control characters: the scopes are words, the URL parsed
        // and the reason made quotable.
        let challenge = HeaderValue::from_str(&value).ok();
        (
            status,
            challenge.map(|value| (header::WWW_AUTHENTICATE, value)),
            message,
        )
    }
}

/// The bearer token of the `Authorization` header: [`Refusal::NoToken`] when there is none (or
/// another scheme), an invalid token when the header is malformed.
fn bearer_token(headers: &HeaderMap) -> Result<&str, Refusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(match headers.contains_key(header::AUTHORIZATION) {
            true => malformed("the request has more than one Authorization header"),
            false => Refusal::NoToken,
        });
    };
    let Ok(value) = value.to_str() else {
        return Err(malformed("the Authorization header is not ASCII"));
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Refusal::NoToken);
    }
    let token = token.trim();
    // RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    let body = token.trim_end_matches('=');
    let b64token = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !b64token {
        return Err(malformed(
            "the Authorization header is malformed: expected `Bearer <token>`",
        ));
    }
    Ok(token)
}

fn malformed(reason: &str) -> Refusal {
    Refusal::InvalidToken(reason.to_owned())
}

/// Whether a query string has an `access_token` parameter (RFC 6750 §2.3, which MCP forbids).
fn has_access_token(query: &str) -> bool {
    query
        .split('&')
        .any(|pair| pair.split('=').next() == Some("access_token"))
}

/// `text` as RFC 6750 allows in `error_description`: printable ASCII without `"` and `\`.
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            c if c == ' ' || c.is_ascii_graphic() => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(resource: &str) -> ResourceServer {
        let refuse_all = |_: String| async { Err(TokenError::invalid("no")) };
        ResourceServer::new(resource, refuse_all)
    }

    #[test]
    fn the_metadata_lives_under_the_endpoints_path_and_at_the_root() {
        let rs = server("https://mcp.example.com/api/mcp");
        assert_eq!(
            rs.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp"
        );
        assert_eq!(
            rs.metadata_paths(),
            [
                "/.well-known/oauth-protected-resource/api/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let root = server("https://mcp.example.com");
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            root.metadata_paths(),
            ["/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    #[should_panic(expected = "must be an http or https URL without a query or fragment")]
    fn a_resource_with_a_fragment_is_refused() {
        server("https://mcp.example.com/mcp#x");
    }

    #[test]
    #[should_panic(expected = "is not absolute")]
    fn a_relative_resource_is_refused() {
        server("/mcp");
    }

    #[test]
    fn try_new_says_what_is_wrong_with_the_resource() {
        let refuse = |_: String| async { Err(TokenError::invalid("no")) };
        let error = |resource: &str| {
            ResourceServer::try_new(resource, refuse)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("mcp.example.com:80"),
            "the resource URI \"mcp.example.com:80\" is not absolute: give the absolute URL of \
             the MCP endpoint, such as https://mcp.example.com/mcp"
        );
        assert_eq!(
            error("ftp://mcp.example.com/mcp"),
            "the resource URI \"ftp://mcp.example.com/mcp\" must be an http or https URL \
             without a query or fragment (RFC 8707 §2), such as https://mcp.example.com/mcp"
        );
        assert_eq!(
            error("https://mcp example/"),
            "the resource URI \"https://mcp example/\" does not parse (invalid uri character): \
             give the absolute URL of the MCP endpoint, such as https://mcp.example.com/mcp"
        );
        assert!(ResourceServer::try_new("https://mcp.example.com/mcp", refuse).is_ok());
    }

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn bearer_tokens_are_read_as_rfc_6750_says() {
        assert_eq!(
            bearer_token(&headers(&["Bearer abc.DEF-_~+/=="])),
            Ok("abc.DEF-_~+/==")
        );
        assert_eq!(bearer_token(&headers(&["bearer  xyz "])), Ok("xyz"));
        assert_eq!(bearer_token(&headers(&[])), Err(Refusal::NoToken));
        assert_eq!(
            bearer_token(&headers(&["Basic dXNlcjpwYXNz"])),
            Err(Refusal::NoToken)
        );
        let bad = malformed("the Authorization header is malformed: expected `Bearer <token>`");
        assert_eq!(bearer_token(&headers(&["Bearer"])), Err(bad.clone()));
        assert_eq!(bearer_token(&headers(&["Bearer a b"])), Err(bad.clone()));
        assert_eq!(bearer_token(&headers(&["Bearer ==="])), Err(bad));
        assert_eq!(
            bearer_token(&headers(&["Bearer a", "Bearer b"])),
            Err(malformed(
                "the request has more than one Authorization header"
            ))
        );
    }

    #[test]
    fn query_tokens_are_found_and_descriptions_quoted() {
        assert!(has_access_token("a=1&access_token=x"));
        assert!(!has_access_token("my_access_token=x"));
        assert_eq!(quotable("say \"hi\" \\ é\n"), "say 'hi' / ??");
    }
}
