//! [`AuthorizationServerMetadata`]: what an OAuth authorization server publishes about itself
//! (RFC 8414), and how the verifiers find it from the issuer alone.
//!
//! The module also holds what the two verifiers share: bounded fetches of the authorization
//! server's documents, and the comparison of resource identifiers ([`same_resource`]) that
//! audiences are checked with ([`check_audience`]).

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use reqwest::header::ACCEPT;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::TokenError;

/// The most a document of the authorization server (metadata, JWKS, introspection answer) may
/// weigh.
pub(crate) const MAX_DOCUMENT: usize = 1024 * 1024;

/// How long a request to the authorization server may take, the answer read in full.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the verifiers of a resource server wait for the authorization server, by default:
/// less than [`REQUEST_TIMEOUT`], since a client's request waits with them.
pub(crate) const VERIFIER_TIMEOUT: Duration = Duration::from_secs(5);

/// The metadata of an OAuth 2.0 authorization server (RFC 8414 §2), or of an OpenID provider,
/// as far as a resource server reads it. Every other member is kept in
/// [`other`](Self::other).
///
/// An issuer identifier (`https://idp.example.com`, `https://idp.example.com/realms/acme`) is
/// all a resource server needs to be told: the issuer's metadata names its signing keys
/// (`jwks_uri`) and its introspection endpoint, and [`discover`](Self::discover) finds it.
///
/// ```no_run
/// use mcp_runtime::auth::AuthorizationServerMetadata;
///
/// # async fn run() -> Result<(), mcp_runtime::auth::TokenError> {
/// let client = reqwest::Client::new();
/// let metadata = AuthorizationServerMetadata::discover(&client, "https://idp.example.com").await?;
/// println!("keys at {:?}", metadata.jwks_uri);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier: the `iss` of the tokens the server issues.
    pub issuer: String,
    /// Where the server publishes its public signing keys, as a JSON Web Key Set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The token introspection endpoint (RFC 7662).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_endpoint: Option<String>,
    /// The token endpoint, where clients get tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The authorization endpoint, where users grant access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// The scopes the server knows, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Every other member of the document, as published.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl AuthorizationServerMetadata {
    /// Finds and reads the metadata of the authorization server whose issuer identifier is
    /// `issuer`, in the places where the issuers in use put it:
    ///
    /// 1. `{origin}/.well-known/oauth-authorization-server{path}`, RFC 8414's place;
    /// 2. `{origin}/.well-known/openid-configuration{path}`, the same insertion for OpenID
    ///    Connect;
    /// 3. `{issuer}/.well-known/openid-configuration`, OpenID Connect Discovery's append, where
    ///    Keycloak (`https://host/realms/acme`) and most OpenID providers publish it.
    ///
    /// They are asked at once, and the first document that arrives naming `issuer` exactly is
    /// used (RFC 8414 §3.3): a document naming another issuer is not, since anyone able to serve
    /// a document on one of those paths could otherwise point the server at keys of their
    /// choosing.
    ///
    /// Each fetch is bounded (10 seconds, 1 MiB), and so is the discovery, the places being
    /// asked together. When no place holds a usable document, the error is
    /// [`TokenError::Unavailable`] and names every URL tried and what each answered.
    pub async fn discover(client: &reqwest::Client, issuer: &str) -> Result<Self, TokenError> {
        find(client, issuer, REQUEST_TIMEOUT)
            .await
            .map_err(TokenError::unavailable)
    }
}

/// [`AuthorizationServerMetadata::discover`] with each fetch bounded to `timeout`: the metadata,
/// or why none was found (naming every URL tried and what each answered).
pub(crate) async fn find(
    client: &reqwest::Client,
    issuer: &str,
    timeout: Duration,
) -> Result<AuthorizationServerMetadata, String> {
    let urls = discovery_urls(issuer).map_err(|reason| {
        format!("cannot discover the metadata of the authorization server {issuer:?}: {reason}")
    })?;
    let reads = urls.iter().enumerate().map(|(place, url)| async move {
        (place, read_metadata(client, url, issuer, timeout).await)
    });
    let mut pending: FuturesUnordered<_> = reads.collect();
    let mut failures = vec![String::new(); urls.len()];
    while let Some((place, read)) = pending.next().await {
        match read {
            Ok(metadata) => return Ok(metadata),
            Err(failure) => failures[place] = failure,
        }
    }
    Err(format!(
        "found no metadata of the authorization server {issuer}: {}",
        failures.join("; ")
    ))
}

/// The metadata of `issuer` at `url`, or what `url` answered instead.
async fn read_metadata(
    client: &reqwest::Client,
    url: &str,
    issuer: &str,
    timeout: Duration,
) -> Result<AuthorizationServerMetadata, String> {
    let body = fetch_within(client, url, "application/json", timeout)
        .await
        .map_err(|failure| failure.to_string())?;
    match serde_json::from_slice::<AuthorizationServerMetadata>(&body) {
        Ok(metadata) if metadata.issuer == issuer => Ok(metadata),
        Ok(metadata) => Err(format!(
            "{url} describes the issuer {}, not {issuer}",
            shown(&metadata.issuer)
        )),
        Err(_) => Err(format!(
            "{url} answered with something other than authorization server metadata"
        )),
    }
}

/// Where the metadata of `issuer` may be, in the order they are tried (see the module docs).
pub(crate) fn discovery_urls(issuer: &str) -> Result<Vec<String>, String> {
    let url = reqwest::Url::parse(issuer).map_err(|_| "it is not a URL".to_owned())?;
    if !matches!(url.scheme(), "https" | "http") || !url.has_host() {
        return Err("it is not an http(s) URL".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("an issuer identifier has no query or fragment (RFC 8414 §2)".into());
    }
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
    ];
    urls.dedup();
    Ok(urls)
}

/// Why a document could not be fetched.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// The server could not be reached, or took too long.
    Unreachable(String),
    /// The server answered with this status.
    Status(reqwest::StatusCode, String),
    /// The answer was larger than [`MAX_DOCUMENT`].
    TooLarge(String),
}

impl FetchError {
    /// The status the server answered, if it answered.
    pub(crate) fn status(&self) -> Option<reqwest::StatusCode> {
        match self {
            FetchError::Status(status, _) => Some(*status),
            _ => None,
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Unreachable(reason) => f.write_str(reason),
            FetchError::Status(status, url) => write!(f, "{url} answered {status}"),
            FetchError::TooLarge(url) => write!(
                f,
                "the answer of {url} is larger than {} KiB",
                MAX_DOCUMENT / 1024
            ),
        }
    }
}

#[cfg(feature = "client-auth")]
/// `GET url` asking for `accept`: the body of a successful answer, read within
/// [`REQUEST_TIMEOUT`] and [`MAX_DOCUMENT`].
pub(crate) async fn fetch(
    client: &reqwest::Client,
    url: &str,
    accept: &str,
) -> Result<Bytes, FetchError> {
    fetch_within(client, url, accept, REQUEST_TIMEOUT).await
}

/// [`fetch`], read within `timeout`.
pub(crate) async fn fetch_within(
    client: &reqwest::Client,
    url: &str,
    accept: &str,
    timeout: Duration,
) -> Result<Bytes, FetchError> {
    send_within(client.get(url).header(ACCEPT, accept), url, timeout).await
}

#[cfg(feature = "client-auth")]
/// Sends `request` (to `url`, named in errors): the body of a successful answer, read within
/// [`REQUEST_TIMEOUT`] and [`MAX_DOCUMENT`].
pub(crate) async fn send(request: reqwest::RequestBuilder, url: &str) -> Result<Bytes, FetchError> {
    send_within(request, url, REQUEST_TIMEOUT).await
}

/// [`send`], the answer read within `timeout`.
pub(crate) async fn send_within(
    request: reqwest::RequestBuilder,
    url: &str,
    timeout: Duration,
) -> Result<Bytes, FetchError> {
    let exchange = async {
        let response = request.send().await.map_err(|error| {
            FetchError::Unreachable(format!("{url} could not be reached: {}", reason(&error)))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status(status, url.to_owned()));
        }
        if response
            .content_length()
            .is_some_and(|length| length > MAX_DOCUMENT as u64)
        {
            return Err(FetchError::TooLarge(url.to_owned()));
        }
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await.transpose().map_err(|error| {
            FetchError::Unreachable(format!(
                "reading the answer of {url} failed: {}",
                reason(&error)
            ))
        })? {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(FetchError::TooLarge(url.to_owned()));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(body))
    };
    #[cfg(target_family = "wasm")]
    let exchange = send_wrapper::SendWrapper::new(exchange);
    crate::rt::timeout(timeout, exchange)
        .await
        .unwrap_or_else(|_| {
            Err(FetchError::Unreachable(format!(
                "{url} did not answer within {} seconds",
                timeout.as_secs_f64()
            )))
        })
}

/// What went wrong with a request, in a few words, without the URL (the caller names it).
fn reason(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "it did not answer in time".to_owned()
    } else if is_connect(error) {
        "the connection failed".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether `error` is a failure to connect (which WebAssembly's fetch does not tell apart).
fn is_connect(error: &reqwest::Error) -> bool {
    #[cfg(not(target_family = "wasm"))]
    return error.is_connect();
    #[cfg(target_family = "wasm")]
    {
        let _ = error;
        false
    }
}

/// Whether the resource identifiers `a` and `b` name the same resource (RFC 8707 §2), as
/// `aud` values are compared: exactly, except that the scheme and the host are compared
/// regardless of case, and an empty path equals `/` (`HTTP://Example.com/` is
/// `http://example.com`). Nothing else is normalised: not ports, not percent-encoding, not a
/// trailing `/` after a path.
pub(crate) fn same_resource(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (split_uri(a), split_uri(b)) {
        (Some(x), Some(y)) => {
            x.scheme.eq_ignore_ascii_case(y.scheme)
                && x.userinfo == y.userinfo
                && x.host.eq_ignore_ascii_case(y.host)
                && x.rest == y.rest
        }
        _ => false,
    }
}

/// Checks the audience `aud` of a token (a string or a list of strings) against the resource
/// identifiers `accepted`, of which it must name one. A token without an audience is refused
/// unless `missing_ok`.
pub(crate) fn check_audience(
    aud: Option<&Value>,
    accepted: &[String],
    missing_ok: bool,
) -> Result<(), TokenError> {
    let audiences: Vec<&str> = match aud {
        None => Vec::new(),
        Some(Value::String(aud)) => vec![aud.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()
            .ok_or_else(not_strings)?,
        Some(_) => return Err(not_strings()),
    };
    let ours = accepted.join(" or ");
    if audiences.is_empty() {
        return if missing_ok {
            Ok(())
        } else {
            Err(TokenError::invalid(format!(
                "the token names no audience (aud), and this server accepts only tokens issued \
                 for {ours}"
            )))
        };
    }
    if audiences
        .iter()
        .any(|aud| accepted.iter().any(|ours| same_resource(aud, ours)))
    {
        return Ok(());
    }
    const LISTED: usize = 5;
    let mut theirs: Vec<String> = audiences.iter().take(LISTED).map(|a| shown(a)).collect();
    if audiences.len() > LISTED {
        theirs.push(format!("and {} more", audiences.len() - LISTED));
    }
    Err(TokenError::invalid(format!(
        "the token was issued for another resource (its audience is {}), not for {ours}",
        theirs.join(", ")
    )))
}

fn not_strings() -> TokenError {
    TokenError::invalid("the token's audience (aud) is neither a string nor a list of strings")
}

/// A `scheme://authority/rest` URI, cut into its parts.
struct UriParts<'a> {
    scheme: &'a str,
    userinfo: Option<&'a str>,
    /// The host and port.
    host: &'a str,
    /// The path, query and fragment, with a lone `/` path taken away.
    rest: &'a str,
}

fn split_uri(uri: &str) -> Option<UriParts<'_>> {
    let (scheme, after) = uri.split_once("://")?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let (userinfo, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (Some(userinfo), host),
        None => (None, authority),
    };
    // An empty path and `/` are the same: `http://a/?q` is `http://a?q`.
    let rest = match rest.strip_prefix('/') {
        Some(tail) if tail.is_empty() || tail.starts_with(['?', '#']) => tail,
        _ => rest,
    };
    Some(UriParts {
        scheme,
        userinfo,
        host,
        rest,
    })
}

/// `value`, from a peer, as it may appear in an error: at most 100 characters, without control
/// characters.
pub(crate) fn shown(value: &str) -> String {
    const MAX: usize = 100;
    let mut text: String = value
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if value.chars().count() > MAX {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_differ_only_in_scheme_and_host_case_and_an_empty_path() {
        for (a, b) in [
            ("HTTP://Example.com/", "http://example.com"),
            ("https://MCP.example.com/mcp", "https://mcp.example.com/mcp"),
            ("https://a.example/?x=1", "https://a.example?x=1"),
            ("api://mcp-server", "API://mcp-server"),
            ("urn:example:mcp", "urn:example:mcp"),
        ] {
            assert!(same_resource(a, b), "{a} = {b}");
            assert!(same_resource(b, a), "{b} = {a}");
        }
        for (a, b) in [
            ("https://example.com/mcp/", "https://example.com/mcp"),
            ("https://example.com/MCP", "https://example.com/mcp"),
            ("https://example.com:443/mcp", "https://example.com/mcp"),
            ("https://example.com/a%2Fb", "https://example.com/a/b"),
            ("http://example.com/mcp", "https://example.com/mcp"),
            ("https://example.com.evil/mcp", "https://example.com/mcp"),
            ("https://user@example.com/", "https://USER@example.com/"),
            ("urn:example:mcp", "URN:example:mcp"),
            ("https://example.com", ""),
        ] {
            assert!(!same_resource(a, b), "{a} != {b}");
            assert!(!same_resource(b, a), "{b} != {a}");
        }
    }

    #[test]
    fn the_audience_must_name_this_server() {
        let ours = [
            "https://mcp.example.com/mcp".to_owned(),
            "api://mcp".to_owned(),
        ];
        let check = |aud: Value| check_audience(Some(&aud), &ours, false);
        assert_eq!(
            check(serde_json::json!("HTTPS://MCP.example.com/mcp")),
            Ok(())
        );
        assert_eq!(check(serde_json::json!(["other", "api://mcp"])), Ok(()));
        assert_eq!(
            check(serde_json::json!(["https://a", "https://b"])),
            Err(TokenError::invalid(
                "the token was issued for another resource (its audience is https://a, \
                 https://b), not for https://mcp.example.com/mcp or api://mcp"
            ))
        );
        let many: Vec<String> = (0..7).map(|i| format!("r{i}")).collect();
        assert_eq!(
            check(serde_json::json!(many)),
            Err(TokenError::invalid(
                "the token was issued for another resource (its audience is r0, r1, r2, r3, r4, \
                 and 2 more), not for https://mcp.example.com/mcp or api://mcp"
            ))
        );
        assert_eq!(
            check(serde_json::json!(["api://mcp", 3])),
            Err(TokenError::invalid(
                "the token's audience (aud) is neither a string nor a list of strings"
            ))
        );
        let missing = TokenError::invalid(
            "the token names no audience (aud), and this server accepts only tokens issued for \
             https://mcp.example.com/mcp or api://mcp",
        );
        assert_eq!(check_audience(None, &ours, false), Err(missing.clone()));
        assert_eq!(check(serde_json::json!([])), Err(missing));
        assert_eq!(check_audience(None, &ours, true), Ok(()));
    }

    #[test]
    fn discovery_tries_rfc_8414_then_both_openid_connect_places() {
        assert_eq!(
            discovery_urls("https://idp.example.com").unwrap(),
            [
                "https://idp.example.com/.well-known/oauth-authorization-server",
                "https://idp.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            discovery_urls("https://idp.example.com/").unwrap(),
            [
                "https://idp.example.com/.well-known/oauth-authorization-server",
                "https://idp.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            discovery_urls("http://127.0.0.1:8080/realms/acme/").unwrap(),
            [
                "http://127.0.0.1:8080/.well-known/oauth-authorization-server/realms/acme",
                "http://127.0.0.1:8080/.well-known/openid-configuration/realms/acme",
                "http://127.0.0.1:8080/realms/acme/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn issuers_that_cannot_be_discovered_say_why() {
        assert_eq!(
            discovery_urls("idp.example.com").unwrap_err(),
            "it is not a URL"
        );
        assert_eq!(
            discovery_urls("ftp://idp.example.com").unwrap_err(),
            "it is not an http(s) URL"
        );
        assert_eq!(
            discovery_urls("https://idp.example.com/?tenant=a").unwrap_err(),
            "an issuer identifier has no query or fragment (RFC 8414 §2)"
        );
    }

    #[test]
    fn metadata_keeps_what_it_does_not_name() {
        let metadata: AuthorizationServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://idp.example.com",
            "jwks_uri": "https://idp.example.com/jwks",
            "code_challenge_methods_supported": ["S256"],
        }))
        .unwrap();
        assert_eq!(metadata.issuer, "https://idp.example.com");
        assert_eq!(
            metadata.jwks_uri.as_deref(),
            Some("https://idp.example.com/jwks")
        );
        assert_eq!(metadata.introspection_endpoint, None);
        assert_eq!(
            metadata.other["code_challenge_methods_supported"],
            serde_json::json!(["S256"])
        );
    }

    #[test]
    fn peer_values_are_shown_short_and_printable() {
        assert_eq!(shown("https://idp"), "https://idp");
        assert_eq!(shown("a\nb"), "a?b");
        assert_eq!(shown(&"x".repeat(150)), format!("{}…", "x".repeat(100)));
    }
}
