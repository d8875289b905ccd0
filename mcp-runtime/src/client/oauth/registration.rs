//! How the client becomes known to an authorization server it has no credentials for: its
//! client ID metadata document, when the server accepts them, else dynamic client
//! registration (RFC 7591).

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde::Deserialize;
use serde_json::json;

use super::config::OAuth;
use super::credentials::ClientCredentials;
use super::discovery::Discovered;
use super::{AuthError, Secret};
use crate::auth::discovery::send;

/// What an authorization server answers a registration (RFC 7591 §3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<Secret>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// The client's credentials at the authorization server of `discovered`, and the token
/// endpoint authentication method its registration names.
pub(crate) async fn register(
    http: &reqwest::Client,
    discovered: &Discovered,
    config: &OAuth,
    redirect_uri: &str,
) -> Result<(ClientCredentials, Option<String>), AuthError> {
    let metadata = &discovered.metadata;
    let issuer = &discovered.issuer;
    if let Some(document) = &config.metadata_document
        && metadata.client_id_metadata_document_supported
    {
        return Ok((
            ClientCredentials::public(document.clone()),
            Some("none".into()),
        ));
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(AuthError::RegistrationUnavailable {
            issuer: issuer.clone(),
        });
    };
    let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
    let supports = |method: &str| supported.is_none_or(|s| s.iter().any(|m| m == method));
    // A public client unless the server takes only confidential ones.
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| supports(m))
        .unwrap_or("client_secret_basic");
    let mut grant_types = vec!["authorization_code"];
    if config.offline_access {
        grant_types.push("refresh_token");
    }
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": application_type(redirect_uri),
    });
    let request = http
        .post(endpoint)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json")
        .body(body.to_string());
    let failed = |detail: String| AuthError::Registration {
        issuer: issuer.clone(),
        detail,
    };
    let answer = send(request, endpoint)
        .await
        .map_err(|error| failed(error.to_string()))?;
    let registered: Registered = serde_json::from_slice(&answer).map_err(|error| {
        failed(format!(
            "{endpoint} answered with something other than a client registration ({error})"
        ))
    })?;
    let credentials = match registered.client_secret {
        Some(secret) => ClientCredentials::with_secret(registered.client_id, secret),
        None => ClientCredentials::public(registered.client_id),
    };
    Ok((
        credentials.for_issuer(issuer.clone()),
        registered.token_endpoint_auth_method,
    ))
}

/// `native` for a redirect to the device itself (loopback, or an app's own scheme), `web`
/// otherwise (SEP-837).
fn application_type(redirect_uri: &str) -> &'static str {
    let Ok(url) = url::Url::parse(redirect_uri) else {
        return "native";
    };
    let loopback = matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    if url.scheme() == "https" && !loopback {
        "web"
    } else {
        "native"
    }
}

#[cfg(test)]
mod tests {
    use super::application_type;

    #[test]
    fn loopback_and_custom_schemes_are_native() {
        assert_eq!(application_type("http://127.0.0.1:8765/callback"), "native");
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("com.example.app:/callback"), "native");
        assert_eq!(application_type("https://app.example.com/callback"), "web");
    }
}
