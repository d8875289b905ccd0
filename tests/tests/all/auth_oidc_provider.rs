//! `notes-server` under authorization against an authorization server that no one here wrote:
//! panva's `oidc-provider`, a certified OpenID Provider (`interop/oidc_provider.mjs` runs it on
//! loopback with keys it generates). The official TypeScript client drives a session with its
//! tokens; then tokens of every kind are tried: the provider's own JWTs (RFC 9068, minted for the
//! resource the client names, RFC 8707) and opaque tokens (introspected, RFC 7662), and forged
//! ones signed with the provider's key. Last, the provider rotates its key.
//!
//! Then the SDK's own client signs in there in the authorization code flow, as a user would in a
//! browser, and gets the refresh token a strict OpenID provider grants only to a request that
//! asks `offline_access` with `prompt=consent` (OpenID Connect Core §11).

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};
use tests::http::call_tool_with_token;
use tests::interop::{
    HttpExample, assert_notes_session_under_authorization, example_binary, interop_script, node,
    typescript_auth_session,
};

/// `interop/oidc_provider.mjs`, killed on drop.
struct OidcProvider {
    child: Child,
    commands: ChildStdin,
    answers: Lines<BufReader<ChildStdout>>,
    issuer: String,
}

impl OidcProvider {
    fn start() -> Self {
        let mut child = Command::new(node())
            .arg(interop_script("oidc_provider.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs");
        let commands = child.stdin.take().expect("stdin is piped");
        let answers = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
        let mut provider = OidcProvider {
            child,
            commands,
            answers,
            issuer: String::new(),
        };
        let started = provider.answer();
        provider.issuer = started["issuer"].as_str().expect("an issuer").to_owned();
        provider
    }

    fn answer(&mut self) -> Value {
        let line = self
            .answers
            .next()
            .expect("oidc_provider.mjs answers")
            .expect("its stdout reads");
        serde_json::from_str(&line).expect("oidc_provider.mjs prints JSON")
    }

    fn command(&mut self, command: &str) -> Value {
        writeln!(self.commands, "{command}").expect("oidc_provider.mjs reads commands");
        self.answer()
    }

    /// An access token of the client-credentials grant, for `resource` with `scope`.
    async fn token(&self, client: (&str, &str), resource: &str, scope: &str) -> String {
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client.0, Some(client.1))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", resource),
                ("scope", scope),
            ])
            .send()
            .await
            .expect("the token endpoint answers");
        let status = response.status();
        let answer: Value = response.json().await.expect("a token response");
        assert_eq!(status, 200, "the token request of {}: {answer}", client.0);
        assert_eq!(answer["token_type"], "Bearer");
        assert_eq!(answer["scope"], scope);
        answer["access_token"].as_str().expect("a token").to_owned()
    }

    /// Revokes `token` (RFC 7009), as its client.
    async fn revoke(&self, client: (&str, &str), token: &str) {
        let response = reqwest::Client::new()
            .post(format!("{}/token/revocation", self.issuer))
            .basic_auth(client.0, Some(client.1))
            .form(&[("token", token)])
            .send()
            .await
            .expect("the revocation endpoint answers");
        assert_eq!(response.status(), 200);
    }
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const AGENT: (&str, &str) = ("agent", "agent-secret");
const OPAQUE_AGENT: (&str, &str) = ("opaque-agent", "opaque-secret");

/// The challenge of a token refused for `reason`.
fn refused(url: &str, reason: &str) -> (u16, Option<String>) {
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    (
        401,
        Some(format!(
            "Bearer error=\"invalid_token\", error_description=\"{reason}\", \
             resource_metadata=\"{metadata}\", scope=\"notes:read notes:write\""
        )),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn notes_server_serves_the_tokens_of_a_certified_openid_provider() {
    let mut provider = OidcProvider::start();
    let issuer = provider.issuer.clone();
    let mut command = Command::new(example_binary("notes-server"));
    command
        .args(["--http", "127.0.0.1:0", "--auth-issuer", &issuer])
        .args(["--introspection-client", "notes-server"])
        .env("NOTES_INTROSPECTION_SECRET", "notes-secret");
    let server = HttpExample::spawn(command);
    let url = server.url.clone();

    // The official client: 401, the metadata, the provider's metadata, a token for this
    // server, the session.
    let transcript = typescript_auth_session(
        &url,
        &issuer,
        AGENT.0,
        AGENT.1,
        Some("notes:read notes:write"),
    )
    .await;
    assert_notes_session_under_authorization(&transcript);

    let call = |token: String, tool: &'static str| {
        let url = url.clone();
        async move {
            let arguments = match tool {
                "add_note" => json!({"title": "t", "body": "b"}),
                _ => json!({"text": "rust"}),
            };
            call_tool_with_token(&url, &token, tool, arguments).await
        }
    };
    let ok = (200, None);

    // The provider's JWTs: for this server, with a scope too few, for another resource.
    let reader = provider.token(AGENT, &url, "notes:read").await;
    assert_eq!(call(reader.clone(), "search_notes").await, ok);
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        call(reader, "add_note").await,
        (
            403,
            Some(format!(
                "Bearer error=\"insufficient_scope\", scope=\"notes:write\", \
                 resource_metadata=\"{metadata}\", \
                 error_description=\"this request needs the scope notes:write\""
            ))
        )
    );
    let elsewhere = provider
        .token(AGENT, "https://other.invalid/mcp", "notes:read")
        .await;
    assert_eq!(
        call(elsewhere, "search_notes").await,
        refused(
            &url,
            &format!(
                "the token was issued for another resource (its audience is \
                 https://other.invalid/mcp), not for {url}"
            )
        )
    );

    // Its opaque tokens, introspected: one in force, one revoked.
    let opaque = provider.token(OPAQUE_AGENT, &url, "notes:read").await;
    assert_eq!(opaque.split('.').count(), 1, "an opaque token: {opaque}");
    assert_eq!(call(opaque, "search_notes").await, ok);
    let revoked = provider.token(OPAQUE_AGENT, &url, "notes:read").await;
    provider.revoke(OPAQUE_AGENT, &revoked).await;
    assert_eq!(
        call(revoked, "search_notes").await,
        refused(&url, "the token is not active (expired or revoked)")
    );

    // Forged tokens, signed with the provider's key where a signature is needed.
    let forged = provider.command(&format!("forge {url}"));
    let token = |kind: &str| forged[kind].as_str().expect(kind).to_owned();
    assert_eq!(call(token("good"), "search_notes").await, ok);
    for (kind, reason) in [
        ("expired", "the token has expired".to_owned()),
        ("not_yet_valid", "the token is not valid yet".to_owned()),
        (
            "wrong_issuer",
            format!("the token was issued by https://issuer.invalid, not {issuer}"),
        ),
        (
            "wrong_audience",
            format!(
                "the token was issued for another resource (its audience is \
                 https://other.invalid/mcp), not for {url}"
            ),
        ),
        (
            "alg_none",
            "the token is signed with alg none, which this server does not accept".to_owned(),
        ),
        (
            "hs256_public_key",
            "the token is signed with alg HS256, which this server does not accept".to_owned(),
        ),
        (
            "bad_signature",
            "the token's signature does not verify".to_owned(),
        ),
        (
            "unknown_kid",
            "no key of the issuer has kid 'next'".to_owned(),
        ),
    ] {
        assert_eq!(
            call(token(kind), "search_notes").await,
            refused(&url, &reason),
            "{kind}"
        );
    }

    // The provider rotates to a new key (ES256 this time): its tokens are served, the server
    // having fetched the new key set, and the retired key no longer verifies anything. The
    // server fetches the keys again for a token naming a key it does not hold once a second
    // (its refetch interval) has passed since its last fetch, which the unknown kid above may
    // just have caused: within that second, such a token is refused at once.
    assert_eq!(provider.command("rotate"), json!({"rotated": "next"}));
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let rotated = provider.token(AGENT, &url, "notes:read").await;
    assert_eq!(call(rotated, "search_notes").await, ok);
    assert_eq!(call(token("unknown_kid"), "search_notes").await, ok);
    assert_eq!(
        call(token("good"), "search_notes").await,
        refused(&url, "no key of the issuer has kid 'first'")
    );
}

/// Reads the notes, for the signed-in user.
#[mcp_runtime::prelude::mcp_tool(scopes = "notes:read")]
async fn read_notes(#[ctx] token: mcp_runtime::prelude::AccessToken) -> String {
    format!("notes of {}", token.subject().unwrap_or("nobody"))
}

/// Where the provider sends the browser back: a name only, the browser stops there.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// A browser on the provider's pages, for a user who approves at once (the provider's sign-in
/// pages approve by themselves: see `oidc_provider.mjs`): it follows the redirects with the
/// cookies they set (by path, as browsers keep them), and stops at the one to the client.
#[derive(Clone, Default)]
struct Browser {
    /// The authorization URLs it was sent to.
    visited: std::sync::Arc<std::sync::Mutex<Vec<mcp_runtime::client::oauth::Url>>>,
}

impl Browser {
    async fn visit(
        &self,
        url: &mcp_runtime::client::oauth::Url,
    ) -> Result<mcp_runtime::client::oauth::Url, String> {
        use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};

        self.visited.lock().unwrap().push(url.clone());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        // (name, path) → value.
        let mut cookies: std::collections::BTreeMap<(String, String), String> = Default::default();
        let mut current = url.clone();
        for _ in 0..10 {
            let sent: Vec<String> = cookies
                .iter()
                .filter(|((_, path), _)| current.path().starts_with(path.as_str()))
                .map(|((name, _), value)| format!("{name}={value}"))
                .collect();
            let response = http
                .get(current.clone())
                .header(COOKIE, sent.join("; "))
                .send()
                .await
                .map_err(|error| error.to_string())?;
            for set in response.headers().get_all(SET_COOKIE) {
                let set = set.to_str().map_err(|error| error.to_string())?;
                let mut parts = set.split(';').map(str::trim);
                let (name, value) = parts
                    .next()
                    .unwrap_or_default()
                    .split_once('=')
                    .unwrap_or_default();
                let path = parts
                    .find_map(|part| part.strip_prefix("path="))
                    .unwrap_or("/");
                let key = (name.to_owned(), path.to_owned());
                if value.is_empty() {
                    cookies.remove(&key);
                } else {
                    cookies.insert(key, value.to_owned());
                }
            }
            let Some(location) = response.headers().get(LOCATION) else {
                return Err(format!(
                    "{} answered {}: {}",
                    current.path(),
                    response.status(),
                    response.text().await.unwrap_or_default()
                ));
            };
            let next = current
                .join(location.to_str().map_err(|error| error.to_string())?)
                .map_err(|error| error.to_string())?;
            if next.as_str().starts_with(REDIRECT_URI) {
                return Ok(next);
            }
            current = next;
        }
        Err("more than 10 redirects".into())
    }
}

impl mcp_runtime::client::oauth::UserAgent for Browser {
    fn redirect_uri(&self) -> String {
        REDIRECT_URI.into()
    }

    fn authorize<'a>(
        &'a self,
        url: &'a mcp_runtime::client::oauth::Url,
    ) -> mcp_runtime::client::oauth::BoxFuture<
        'a,
        Result<mcp_runtime::client::oauth::Url, mcp_runtime::client::oauth::AuthError>,
    > {
        Box::pin(async move {
            self.visit(url)
                .await
                .map_err(|detail| mcp_runtime::client::oauth::AuthError::Authorization { detail })
        })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_gets_and_uses_the_refresh_tokens_of_a_strict_openid_provider() {
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::client::McpClient;
    use mcp_runtime::client::oauth::{MemoryTokenStore, OAuth, TokenStore};
    use mcp_runtime::prelude::*;
    use mcp_runtime::transport::http::HttpOptions;
    use tests::http::TestHttpServer;

    let provider = OidcProvider::start();
    let issuer = provider.issuer.clone();
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let http = TestHttpServer::start_with(server, |url| {
        HttpOptions::default()
            .authorization(ResourceServer::jwt(issuer.clone(), url).require_scopes(["notes:read"]))
    })
    .await;
    let browser = Browser::default();
    let store = MemoryTokenStore::new();
    let client = McpClient::builder(server_info!())
        .oauth(
            OAuth::authorization_code(browser.clone())
                .client_name("e2e test")
                .token_store(store.clone()),
        )
        .connect_http(http.url.as_str())
        .await
        .unwrap_or_else(|error| panic!("the client did not connect: {error}"));
    let call = || async {
        let result = client.call_tool("read_notes", json!({})).await.unwrap();
        result.content[0].as_text().unwrap_or_default().to_owned()
    };
    assert_eq!(call().await, "notes of user-1");

    // The client registered itself, and the user signed in once, asked for offline_access and
    // their consent: the provider issued a refresh token.
    let tokens = || async {
        let record = store
            .load(&http.url)
            .await
            .unwrap()
            .expect("a stored record");
        assert_eq!(record.issuer, issuer);
        record.tokens.expect("tokens")
    };
    let first = tokens().await;
    let first_refresh = first.refresh_token.expect("a refresh token");
    assert_eq!(first.token_type, "Bearer");
    assert_eq!(first.scope.as_deref(), Some("notes:read"));
    let visited = browser.visited.lock().unwrap().clone();
    assert_eq!(visited.len(), 1);
    let query: std::collections::BTreeMap<String, String> =
        visited[0].query_pairs().into_owned().collect();
    assert_eq!(
        (
            query["scope"].as_str(),
            query.get("prompt").map(String::as_str)
        ),
        ("notes:read offline_access", Some("consent"))
    );
    assert_eq!(query["resource"], http.url);

    // Its access tokens live 10 s, within the client's refresh margin: the next call refreshes
    // them first, without the user. The provider rotates the refresh token of a public client.
    assert_eq!(call().await, "notes of user-1");
    assert_eq!(browser.visited.lock().unwrap().len(), 1);
    let second = tokens().await;
    let second_refresh = second.refresh_token.expect("a refresh token");
    assert_ne!(second_refresh.expose(), first_refresh.expose());
    assert_eq!(second.scope.as_deref(), Some("notes:read"));
    client.close().await.unwrap();
}
