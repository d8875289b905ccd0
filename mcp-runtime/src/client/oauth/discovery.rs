//! Discovery: from a server's `401` to the authorization server that issues its tokens.
//!
//! The protected resource metadata (RFC 9728) is read at the URL the challenge names, else at
//! `/.well-known/oauth-protected-resource` with the server's path appended, else at the root;
//! its `resource` must describe the server. Its first authorization server's metadata is read
//! as RFC 8414 then OpenID Connect discovery, in the order the MCP specification gives for
//! issuers with and without a path, and its `issuer` must be exactly the one it was fetched
//! for. A server that publishes no resource metadata is taken, as the 2025-03-26 revision
//! says, as its own authorization server: metadata at its origin, else the default endpoints.

use serde::Deserialize;
use url::Url;

use super::AuthError;
use super::challenge::Challenge;
use crate::auth::discovery::{FetchError, discovery_urls, fetch};

/// The protected resource metadata, as far as the client reads it (RFC 9728 §2).
#[derive(Debug, Deserialize)]
struct ResourceMetadata {
    resource: String,
    #[serde(default)]
    authorization_servers: Vec<String>,
    #[serde(default)]
    scopes_supported: Option<Vec<String>>,
}

/// The authorization server's metadata, as far as the client reads it (RFC 8414 §2, with the
/// members of RFC 9207, RFC 9449 and the client ID metadata document draft).
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct ServerMetadata {
    #[serde(default)]
    pub(crate) issuer: String,
    #[serde(default)]
    pub(crate) authorization_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) token_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub(crate) dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether the server lists `scope` among its scopes.
    pub(crate) fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|s| s == scope))
    }

    /// Whether the server accepts DPoP proofs signed with ES256.
    pub(crate) fn supports_dpop(&self) -> bool {
        self.dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256"))
    }
}

/// What discovery found for a server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The resource identifier to name in `resource` parameters, exactly as published.
    pub(crate) resource: String,
    /// The scopes the resource metadata lists, if it does.
    pub(crate) resource_scopes: Option<Vec<String>>,
    /// The authorization server's issuer identifier.
    pub(crate) issuer: String,
    /// Its metadata (for a server without any, the default endpoints).
    pub(crate) metadata: ServerMetadata,
    /// Whether the metadata was published, rather than assumed.
    pub(crate) published: bool,
}

/// Finds the authorization server of the MCP server at `server`, from its `challenge`.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &str,
    challenge: Option<&Challenge>,
) -> Result<Discovered, AuthError> {
    let failed = |detail: String| AuthError::Discovery {
        server: server.to_owned(),
        detail,
    };
    let server_url = Url::parse(server).map_err(|_| failed("it is not a URL".into()))?;
    let mut tried = Vec::new();
    let mut only_missing = true;
    let mut candidates = Vec::new();
    if let Some(url) = challenge.and_then(Challenge::resource_metadata) {
        candidates.push(url.to_owned());
    }
    candidates.extend(resource_metadata_urls(&server_url));
    candidates.dedup();
    for url in &candidates {
        let body = match fetch(http, url, "application/json").await {
            Ok(body) => body,
            Err(error) => {
                only_missing &= is_missing(&error);
                tried.push(error.to_string());
                continue;
            }
        };
        let metadata: ResourceMetadata = match serde_json::from_slice(&body) {
            Ok(metadata) => metadata,
            Err(error) => {
                only_missing = false;
                tried.push(format!(
                    "{url} is not protected resource metadata ({error})"
                ));
                continue;
            }
        };
        if !resource_matches(&server_url, &metadata.resource) {
            return Err(AuthError::ResourceMismatch {
                server: server.to_owned(),
                published: metadata.resource,
            });
        }
        let Some(issuer) = metadata.authorization_servers.first() else {
            return Err(failed(format!(
                "{url} names no authorization server (`authorization_servers` is empty)"
            )));
        };
        let found =
            authorization_server_metadata(http, issuer)
                .await
                .map_err(|error| match error {
                    Lookup::Mismatch(detail) => AuthError::IssuerMismatch { detail },
                    Lookup::NotFound(detail) => failed(detail),
                })?;
        return Ok(Discovered {
            resource: metadata.resource,
            resource_scopes: metadata.scopes_supported,
            issuer: issuer.clone(),
            metadata: found,
            published: true,
        });
    }
    if !only_missing {
        return Err(failed(format!(
            "found no protected resource metadata: {}",
            tried.join("; ")
        )));
    }
    legacy(http, &server_url, server).await
}

/// The 2025-03-26 way, for a server without protected resource metadata: the server's origin
/// is its authorization server.
async fn legacy(
    http: &reqwest::Client,
    server_url: &Url,
    server: &str,
) -> Result<Discovered, AuthError> {
    let origin = server_url.origin().ascii_serialization();
    let url = format!("{origin}/.well-known/oauth-authorization-server");
    let (metadata, published) = match fetch(http, &url, "application/json").await {
        Ok(body) => {
            let metadata: ServerMetadata =
                serde_json::from_slice(&body).map_err(|error| AuthError::Discovery {
                    server: server.to_owned(),
                    detail: format!("{url} is not authorization server metadata ({error})"),
                })?;
            if metadata.issuer != origin {
                return Err(AuthError::IssuerMismatch {
                    detail: mismatch(&url, &origin, &metadata.issuer),
                });
            }
            (metadata, true)
        }
        Err(error) if is_missing(&error) => (
            ServerMetadata {
                issuer: origin.clone(),
                authorization_endpoint: Some(format!("{origin}/authorize")),
                token_endpoint: Some(format!("{origin}/token")),
                registration_endpoint: Some(format!("{origin}/register")),
                ..ServerMetadata::default()
            },
            false,
        ),
        Err(error) => {
            return Err(AuthError::Discovery {
                server: server.to_owned(),
                detail: format!(
                    "the server publishes no protected resource metadata, and its \
                     authorization server metadata could not be read: {error}"
                ),
            });
        }
    };
    Ok(Discovered {
        resource: server.to_owned(),
        resource_scopes: None,
        issuer: origin,
        metadata,
        published,
    })
}

/// Why the metadata of an authorization server could not be used.
enum Lookup {
    /// A document describes another issuer.
    Mismatch(String),
    /// No place holds a document.
    NotFound(String),
}

/// The metadata of the authorization server `issuer`, from the first place that has it.
async fn authorization_server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<ServerMetadata, Lookup> {
    let urls = discovery_urls(issuer).map_err(|reason| {
        Lookup::NotFound(format!(
            "the authorization server {issuer:?} is unusable: {reason}"
        ))
    })?;
    let mut tried = Vec::new();
    for url in &urls {
        let body = match fetch(http, url, "application/json").await {
            Ok(body) => body,
            Err(error) => {
                tried.push(error.to_string());
                continue;
            }
        };
        match serde_json::from_slice::<ServerMetadata>(&body) {
            Ok(metadata) if metadata.issuer == issuer => return Ok(metadata),
            Ok(metadata) => {
                return Err(Lookup::Mismatch(mismatch(url, issuer, &metadata.issuer)));
            }
            Err(error) => tried.push(format!(
                "{url} is not authorization server metadata ({error})"
            )),
        }
    }
    Err(Lookup::NotFound(format!(
        "found no metadata of the authorization server {issuer}: {}",
        tried.join("; ")
    )))
}

/// What is wrong with metadata fetched at `url` for `expected` that names `found` as its
/// issuer.
fn mismatch(url: &str, expected: &str, found: &str) -> String {
    format!(
        "the authorization server metadata at {url} names the issuer {found:?}, not \
         {expected:?}; refusing to use it (RFC 8414 §3.3)"
    )
}

/// Whether a fetch failed because there is nothing there (a 4xx), rather than on the way.
fn is_missing(error: &FetchError) -> bool {
    error.status().is_some_and(|s| s.is_client_error())
}

/// Where the protected resource metadata of `server` may be: with the server's path
/// appended, then at the root (RFC 9728 §3.1).
fn resource_metadata_urls(server: &Url) -> Vec<String> {
    let origin = server.origin().ascii_serialization();
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::with_capacity(2);
    if !path.is_empty() {
        urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// Whether the resource metadata's `resource` describes `server`: the same origin, and a path
/// that is the server's or one of its ancestors (a server at `/mcp` may publish its origin as
/// the resource).
pub(crate) fn resource_matches(server: &Url, resource: &str) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.origin() != server.origin() || resource.fragment().is_some() {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = server.path();
    path == prefix || path.starts_with(&format!("{prefix}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_is_looked_up_with_the_path_first() {
        let server = Url::parse("https://h.example/api/mcp").unwrap();
        assert_eq!(
            resource_metadata_urls(&server),
            [
                "https://h.example/.well-known/oauth-protected-resource/api/mcp",
                "https://h.example/.well-known/oauth-protected-resource"
            ]
        );
        let root = Url::parse("https://h.example/").unwrap();
        assert_eq!(
            resource_metadata_urls(&root),
            ["https://h.example/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn a_resource_matches_the_server_or_an_ancestor_on_the_same_origin() {
        let server = Url::parse("http://localhost:8080/mcp").unwrap();
        for resource in [
            "http://localhost:8080/mcp",
            "http://localhost:8080",
            "http://LOCALHOST:8080/",
            "http://localhost:8080/mcp/",
        ] {
            assert!(resource_matches(&server, resource), "{resource}");
        }
        for resource in [
            "https://evil.example.com/mcp",
            "http://localhost:8081/mcp",
            "https://localhost:8080/mcp",
            "http://localhost:8080/mc",
            "http://localhost:8080/mcp/other",
            "http://localhost:8080/mcp#x",
            "not a url",
        ] {
            assert!(!resource_matches(&server, resource), "{resource}");
        }
    }
}
