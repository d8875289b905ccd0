//! The client's OAuth authorization end to end, against the SDK's own resource server and the
//! test authorization server (both on `127.0.0.1`): dynamic client registration, the
//! authorization code flow with PKCE, `offline_access` with `prompt=consent`, step-up
//! authorization, refresh-token rotation, a token store that outlives the client, the client
//! credentials grant, a refused client, and a pre-registered one where registration is off.

use mcp_runtime::auth::ResourceServer;
use mcp_runtime::client::oauth::{
    AuthError, ClientCredentials, FileTokenStore, Headless, MemoryTokenStore, OAuth, TokenStore,
};
use mcp_runtime::client::{ClientError, McpClient};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpOptions;
use serde_json::{Value, json};
use tests::authorization_server::{AuthorizationServer, Options};
use tests::http::TestHttpServer;

/// Where the authorization server sends the user back: a name only, nothing listens there
/// (the headless user agent reads the redirect without following it).
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// Reads the notes.
#[mcp_tool(scopes = "notes:read")]
async fn read_notes(#[ctx] token: AccessToken) -> String {
    format!("notes of {}", token.subject().unwrap_or("nobody"))
}

/// Writes a note.
#[mcp_tool(scopes = "notes:write")]
async fn write_note() -> &'static str {
    "written"
}

fn server() -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap()
}

/// A server whose tokens are JWTs of `issuer`, for itself as the audience: every request needs
/// `notes:read` (so a `401` asks for that alone), `write_note` needs `notes:write` besides.
async fn notes_server(issuer: &AuthorizationServer) -> TestHttpServer {
    let issuer = issuer.issuer().to_owned();
    TestHttpServer::start_with(server(), |url| {
        HttpOptions::default().authorization(
            ResourceServer::jwt(issuer, url)
                .require_scopes(["notes:read"])
                .scopes_supported(["notes:read", "notes:write"]),
        )
    })
    .await
}

/// An authorization server with the authorization code flow, set up as `options` says besides.
async fn code_flow_issuer(options: Options) -> AuthorizationServer {
    AuthorizationServer::start_with(options.code_flow()).await
}

/// The authorization code flow through a headless user agent, registering as `e2e test`.
fn code_flow() -> OAuth {
    OAuth::authorization_code(Headless::new(REDIRECT_URI)).client_name("e2e test")
}

/// A client connected to `url`, authorizing as `oauth` says.
async fn connect(oauth: OAuth, url: &str) -> McpClient {
    match McpClient::builder(Implementation::new("e2e", "1.0.0"))
        .oauth(oauth)
        .connect_http(url)
        .await
    {
        Ok(client) => client,
        Err(error) => panic!("the client did not connect: {error}"),
    }
}

/// The text of the result of calling `name`.
async fn call(client: &McpClient, name: &str) -> String {
    let result = client
        .call_tool(name, json!({}))
        .await
        .unwrap_or_else(|error| panic!("calling {name} failed: {error}"));
    assert_eq!(result.is_error, None, "{name}");
    result.content[0].as_text().unwrap_or_default().to_owned()
}

/// The scopes of a space-separated `scope`, sorted.
fn scopes(scope: Option<&str>) -> Vec<&str> {
    let mut scopes: Vec<&str> = scope.unwrap_or_default().split(' ').collect();
    scopes.sort_unstable();
    scopes
}

/// The protected resource metadata of the server at `url`.
async fn resource_metadata(url: &str) -> Value {
    let document = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    reqwest::get(document).await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn a_user_authorizes_a_registered_client_with_pkce() {
    let issuer = code_flow_issuer(Options::default()).await;
    let http = notes_server(&issuer).await;
    let store = MemoryTokenStore::new();
    let client = connect(code_flow().token_store(store.clone()), &http.url).await;

    let mut tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    tools.sort();
    assert_eq!(tools, ["read_notes", "write_note"]);
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");

    // One registration, one authorization for the resource the metadata publishes, one code
    // exchanged.
    let published = resource_metadata(&http.url).await;
    assert_eq!(published["resource"], json!(http.url));
    assert_eq!(published["authorization_servers"], json!([issuer.issuer()]));
    assert_eq!(issuer.registrations(), 1);
    let requests = issuer.authorization_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].resource.as_deref(), Some(http.url.as_str()));
    assert_eq!(requests[0].scope.as_deref(), Some("notes:read"));
    assert_eq!(requests[0].redirect_uri, REDIRECT_URI);
    assert_eq!(issuer.token_requests("authorization_code"), 1);
    assert_eq!(issuer.token_requests("refresh_token"), 0);

    // The store keeps the registration and the tokens under the server's URL. The client
    // registered as a public client (`none`), which the authorization server offers.
    let record = store
        .load(&http.url)
        .await
        .unwrap()
        .expect("a stored record");
    assert_eq!(record.issuer, issuer.issuer());
    assert_eq!(record.client.client_id, requests[0].client_id);
    assert_eq!(record.client.client_secret, None);
    assert_eq!(
        record.client.token_endpoint_auth_method.as_deref(),
        Some("none")
    );
    let tokens = record.tokens.expect("stored tokens");
    assert_eq!(tokens.token_type, "Bearer");
    assert_eq!(tokens.scope.as_deref(), Some("notes:read"));
    assert!(tokens.refresh_token.is_some());
}

#[tokio::test]
async fn offline_access_is_asked_with_prompt_consent_where_the_authorization_server_offers_it() {
    // The authorization server lists offline_access: the client asks for it, and for the
    // user's consent, without which OpenID providers issue no refresh token.
    let issuer = code_flow_issuer(Options::default().scopes_supported([
        "notes:read",
        "notes:write",
        "offline_access",
    ]))
    .await;
    let http = notes_server(&issuer).await;
    let asked = |issuer: &AuthorizationServer| {
        issuer
            .authorization_requests()
            .into_iter()
            .map(|request| (request.scope, request.prompt))
            .collect::<Vec<_>>()
    };
    let client = connect(code_flow(), &http.url).await;
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    // A step-up keeps offline_access, and the consent with it.
    assert_eq!(call(&client, "write_note").await, "written");
    // A client that wants no refresh token asks for neither.
    let without = connect(code_flow().offline_access(false), &http.url).await;
    assert_eq!(call(&without, "read_notes").await, "notes of user-1");
    let consent = Some("consent".to_owned());
    assert_eq!(
        asked(&issuer),
        [
            (Some("notes:read offline_access".into()), consent.clone()),
            (
                Some("notes:read notes:write offline_access".into()),
                consent
            ),
            (Some("notes:read".into()), None),
        ]
    );

    // An authorization server that does not list it: neither.
    let issuer = code_flow_issuer(Options::default()).await;
    let http = notes_server(&issuer).await;
    let client = connect(code_flow(), &http.url).await;
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    assert_eq!(asked(&issuer), [(Some("notes:read".into()), None)]);
}

#[tokio::test]
async fn a_call_needing_more_scope_asks_again_for_the_union() {
    let issuer = code_flow_issuer(Options::default()).await;
    let http = notes_server(&issuer).await;
    let client = connect(code_flow(), &http.url).await;
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    assert_eq!(issuer.authorization_requests().len(), 1);

    // 403 insufficient_scope: the client asks for notes:write as well as what it held.
    assert_eq!(call(&client, "write_note").await, "written");
    let requests = issuer.authorization_requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(scopes(requests[0].scope.as_deref()), ["notes:read"]);
    assert_eq!(
        scopes(requests[1].scope.as_deref()),
        ["notes:read", "notes:write"]
    );
    assert_eq!(requests[1].client_id, requests[0].client_id);
    assert_eq!(requests[1].resource.as_deref(), Some(http.url.as_str()));
    assert_eq!(issuer.registrations(), 1);
    assert_eq!(issuer.token_requests("authorization_code"), 2);

    // The new token serves both tools.
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    assert_eq!(call(&client, "write_note").await, "written");
    assert_eq!(issuer.authorization_requests().len(), 2);
}

#[tokio::test]
async fn short_lived_tokens_are_refreshed_with_rotation_then_reauthorized_when_revoked() {
    // Tokens that live 5 s are within the client's refresh margin (30 s) as soon as they are
    // issued: every request refreshes them first.
    let issuer = code_flow_issuer(Options::default().access_token_lifetime(5)).await;
    let http = notes_server(&issuer).await;
    let client = connect(code_flow(), &http.url).await;
    assert_eq!(issuer.authorization_requests().len(), 1);
    let refreshed = issuer.token_requests("refresh_token");

    for _ in 0..3 {
        assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    }
    // One refresh per call, each presenting the refresh token issued last: an old one would
    // have been refused (`invalid_grant`), and the client would have had to authorize again.
    assert_eq!(issuer.token_requests("refresh_token"), refreshed + 3);
    assert_eq!(issuer.authorization_requests().len(), 1);
    assert_eq!(issuer.token_requests("authorization_code"), 1);

    // The refresh tokens are revoked: the refresh fails, and the client authorizes afresh,
    // with the registration it has.
    issuer.revoke_refresh_tokens();
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    assert_eq!(issuer.authorization_requests().len(), 2);
    assert_eq!(issuer.token_requests("authorization_code"), 2);
    assert_eq!(issuer.registrations(), 1);
    // The revoked refresh token was tried once, before the new authorization; the request
    // sent again with the new tokens refreshed them first, as every request does here.
    assert_eq!(issuer.token_requests("refresh_token"), refreshed + 5);
}

/// A directory of its own under the system's temporary directory, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> Self {
        let name = format!("mcp-client-oauth-{:016x}", rand::random::<u64>());
        TempDir(std::env::temp_dir().join(name))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_file_token_store_keeps_the_authorization_across_clients() {
    // Confidential clients only: the store keeps a client secret too.
    let issuer =
        code_flow_issuer(Options::default().token_endpoint_auth_methods(["client_secret_basic"]))
            .await;
    let http = notes_server(&issuer).await;
    let dir = TempDir::new();
    let path = dir.0.join("tokens.json");

    let first = connect(
        code_flow().token_store(FileTokenStore::new(&path)),
        &http.url,
    )
    .await;
    assert_eq!(call(&first, "read_notes").await, "notes of user-1");
    first.close().await.unwrap();
    assert_eq!(issuer.registrations(), 1);
    assert_eq!(issuer.authorization_requests().len(), 1);

    // A second client with the same file: no registration, no authorization, no token request.
    let second = connect(
        code_flow().token_store(FileTokenStore::new(&path)),
        &http.url,
    )
    .await;
    assert_eq!(call(&second, "read_notes").await, "notes of user-1");
    second.close().await.unwrap();
    assert_eq!(issuer.registrations(), 1);
    assert_eq!(issuer.authorization_requests().len(), 1);
    assert_eq!(issuer.token_requests("authorization_code"), 1);
    assert_eq!(issuer.token_requests("refresh_token"), 0);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // What the file holds, printed, shows no secret.
    let store = FileTokenStore::new(&path);
    let loaded = store.load(&http.url).await.unwrap();
    let record = loaded.clone().expect("a stored record");
    assert_eq!(record.issuer, issuer.issuer());
    assert_eq!(
        record.client.token_endpoint_auth_method.as_deref(),
        Some("client_secret_basic")
    );
    assert_eq!(
        record.client.client_id,
        issuer.authorization_requests()[0].client_id
    );
    let tokens = record.tokens.expect("stored tokens");
    let secrets = [
        record.client.client_secret.expect("a client secret"),
        tokens.access_token,
        tokens.refresh_token.expect("a refresh token"),
    ];
    let printed = format!("{loaded:?}");
    for secret in &secrets {
        assert!(!secret.expose().is_empty());
        assert!(!printed.contains(secret.expose()), "{printed}");
    }
    assert_eq!(
        printed.matches("Secret([redacted])").count(),
        3,
        "{printed}"
    );

    drop(dir);
    assert!(!path.exists());
}

#[tokio::test]
async fn a_service_authorizes_with_client_credentials() {
    let issuer = AuthorizationServer::start().await;
    let http = notes_server(&issuer).await;
    let (client_id, secret) = issuer.client_credentials();
    let oauth = OAuth::client_credentials(ClientCredentials::with_secret(client_id, secret));
    let client = connect(oauth, &http.url).await;

    assert_eq!(call(&client, "read_notes").await, "notes of test-client");
    assert_eq!(issuer.token_requests("client_credentials"), 1);
    assert_eq!(issuer.authorization_requests().len(), 0);
    assert_eq!(issuer.registrations(), 0);
}

#[tokio::test]
async fn a_client_with_a_wrong_secret_is_refused_without_showing_it() {
    let issuer = code_flow_issuer(Options::default()).await;
    let http = notes_server(&issuer).await;
    let (client_id, _secret) = issuer.register_client(REDIRECT_URI, "client_secret_basic");
    let wrong = "wrong-secret-4f1d9c";
    let oauth =
        code_flow().pre_registered(ClientCredentials::with_secret(client_id.clone(), wrong));

    let connected = McpClient::builder(Implementation::new("e2e", "1.0.0"))
        .oauth(oauth)
        .connect_http(http.url.as_str())
        .await;
    let error = match connected {
        Ok(_) => panic!("a client with a wrong secret connected"),
        Err(error) => error,
    };
    // The first request, `server/discover`, needed a token; the token endpoint refused the
    // client.
    let issuer_url = issuer.issuer();
    let description = "the client did not authenticate as it registered (client_secret_basic)";
    assert_eq!(
        error,
        ClientError::Authorization {
            method: "server/discover",
            error: AuthError::Token {
                issuer: issuer_url.to_owned(),
                error: "invalid_client".into(),
                description: Some(description.into()),
            },
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "server/discover: the authorization server {issuer_url} refused the token request: \
             invalid_client ({description})"
        )
    );
    // The secret the client holds shows neither in the message nor in the debug output.
    let shown = format!("{error} / {error:?}");
    assert!(!shown.contains(wrong), "{shown}");

    // The user approved; the code exchange was refused; the client registered nothing.
    let requests = issuer.authorization_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].client_id, client_id);
    assert_eq!(issuer.token_requests("authorization_code"), 1);
    assert_eq!(issuer.registrations(), 0);
}

#[tokio::test]
async fn an_authorization_server_without_registration_needs_a_pre_registered_client() {
    let issuer = code_flow_issuer(Options::default().without_registration()).await;
    let http = notes_server(&issuer).await;
    let error = match McpClient::builder(Implementation::new("e2e", "1.0.0"))
        .oauth(code_flow())
        .connect_http(http.url.as_str())
        .await
    {
        Ok(_) => panic!("a client without credentials connected"),
        Err(error) => error,
    };
    let issuer_url = issuer.issuer().to_owned();
    assert_eq!(
        error.to_string(),
        format!(
            "server/discover: the authorization server {issuer_url} offers no dynamic client \
             registration: register the client there and give its credentials to \
             OAuth::pre_registered"
        )
    );
    assert_eq!(
        error,
        ClientError::Authorization {
            method: "server/discover",
            error: AuthError::RegistrationUnavailable { issuer: issuer_url },
        }
    );
    assert_eq!(issuer.authorization_requests().len(), 0);

    // Registered by hand, the client signs in.
    let (client_id, secret) = issuer.register_client(REDIRECT_URI, "client_secret_basic");
    let client = connect(
        code_flow().pre_registered(ClientCredentials::with_secret(client_id.clone(), secret)),
        &http.url,
    )
    .await;
    assert_eq!(call(&client, "read_notes").await, "notes of user-1");
    assert_eq!(issuer.authorization_requests()[0].client_id, client_id);
    assert_eq!(issuer.registrations(), 0);
}
