//! The official TypeScript client drives `notes-server` under authorization: it meets the 401,
//! finds the test authorization server through the protected resource metadata, gets a token with
//! the client-credentials grant for the server's canonical URI, and uses the tools and resources
//! its scopes allow. The authorization server runs in this test, with keys it generated.

use std::process::Command;

use serde_json::{Value, json};
use tests::authorization_server::AuthorizationServer;
use tests::interop::{HttpExample, interop_script, node};

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_gets_a_token_and_drives_an_authorized_session() {
    let issuer = AuthorizationServer::start().await;
    let server = HttpExample::start(
        "notes-server",
        &["--http", "127.0.0.1:0", "--auth-issuer", issuer.issuer()],
    );
    let (client_id, secret) = issuer.client_credentials();
    let mut command = Command::new(node());
    command.arg(interop_script("auth_client.mjs")).args([
        &server.url,
        issuer.issuer(),
        &client_id,
        &secret,
    ]);
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "auth_client.mjs failed:\n{stderr}");
    let transcript: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("auth_client.mjs printed no JSON ({e}):\n{stderr}"));

    assert_eq!(
        transcript["tools"],
        json!([
            "add",
            "add_note",
            "search_notes",
            "delete_note",
            "word_count",
            "summarize_note"
        ])
    );
    let added =
        json!({"id": 3, "title": "Authorized", "body": "Written with a token.", "tags": ["auth"]});
    assert_eq!(transcript["added"]["structuredContent"], added);
    assert_eq!(
        transcript["search"]["structuredContent"],
        json!({"notes": [added]})
    );
    assert_eq!(
        transcript["read"]["contents"],
        json!([{"uri": "notes://3", "mimeType": "text/markdown",
            "text": "# Authorized\n\nWritten with a token.\n\nTags: auth\n"}])
    );
    // The scopes the server's 401 asked for.
    assert_eq!(transcript["scope"], "notes:read notes:write");
    // 401, the metadata named in the challenge, the issuer's metadata, the token, the retry.
    let exchanges: Vec<&str> = transcript["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        &exchanges[..5],
        [
            "POST /mcp 401",
            "GET /.well-known/oauth-protected-resource/mcp 200",
            "GET /.well-known/oauth-authorization-server 200",
            "POST /token 200",
            "POST /mcp 200",
        ]
    );
    assert!(
        exchanges[5..]
            .iter()
            .all(|e| e.ends_with(" 200") || e.ends_with(" 202")),
        "{exchanges:?}"
    );
    // The server fetched the issuer's keys once, through its metadata.
    assert_eq!(issuer.jwks_fetches(), 1);
}

/// `notes-server --auth-issuer --introspection-client`, as an operator runs it: JWTs and opaque
/// tokens of the issuer, each judged the way it should be.
#[tokio::test(flavor = "multi_thread")]
async fn notes_server_judges_jwts_and_introspected_tokens() {
    let issuer = AuthorizationServer::start().await;
    let (client, secret) = issuer.introspection_client();
    let mut command = Command::new(tests::interop::example_binary("notes-server"));
    command
        .args(["--http", "127.0.0.1:0", "--auth-issuer", issuer.issuer()])
        .args(["--introspection-client", &client])
        .env("NOTES_INTROSPECTION_SECRET", &secret);
    let server = HttpExample::spawn(command);
    let url = server.url.clone();
    let post = |token: &str, session: Option<&str>, body: Value| {
        let request = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(token)
            .body(body.to_string());
        match session {
            Some(id) => request
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", "2025-11-25"),
            None => request,
        }
        .send()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "operator", "version": "1"}}});
    // The status of a tools/call of search_notes in a session the token opened (or of the
    // initialize, when that is refused).
    let search = |token: String| {
        let (post, initialize) = (&post, initialize.clone());
        async move {
            let opened = post(&token, None, initialize).await.unwrap();
            let Some(id) = opened.headers().get("mcp-session-id") else {
                return opened.status().as_u16();
            };
            let id = id.to_str().unwrap().to_owned();
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            post(&token, Some(&id), initialized).await.unwrap();
            let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search_notes", "arguments": {"text": "rust"}}});
            post(&token, Some(&id), call)
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    let jwt = issuer
        .token()
        .audience(url.as_str())
        .scope("notes:read")
        .sign();
    let reader = json!({"sub": "bob", "scope": "notes:read", "aud": url});
    let active = issuer.opaque_token(reader.clone());
    let revoked = issuer.opaque_token(reader);
    issuer.revoke(&revoked);
    let other = issuer
        .token()
        .audience("https://other.test/mcp")
        .scope("notes:read")
        .sign();
    let unscoped = issuer
        .token()
        .audience(url.as_str())
        .scope("profile")
        .sign();
    assert_eq!(search(jwt).await, 200);
    assert_eq!(search(active).await, 200);
    assert_eq!(search(revoked).await, 401);
    assert_eq!(search(other).await, 401);
    assert_eq!(search(unscoped).await, 403);
    assert_eq!(search("opaque-and-unknown".into()).await, 401);
}
