//! The official TypeScript client drives `notes-server` under authorization: it meets the 401,
//! finds the test authorization server through the protected resource metadata, gets a token with
//! the client-credentials grant for the server's canonical URI, and uses the tools and resources
//! its scopes allow. The authorization server runs in this test, with keys it generated.

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tests::authorization_server::AuthorizationServer;
use tests::http::call_tool_with_token;
use tests::interop::{
    HttpExample, assert_notes_session_under_authorization, typescript_auth_session,
};

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_gets_a_token_and_drives_an_authorized_session() {
    let issuer = AuthorizationServer::start().await;
    let server = HttpExample::start(
        "notes-server",
        &["--http", "127.0.0.1:0", "--auth-issuer", issuer.issuer()],
    );
    let (client_id, secret) = issuer.client_credentials();
    let transcript =
        typescript_auth_session(&server.url, issuer.issuer(), &client_id, &secret, None).await;

    assert_notes_session_under_authorization(&transcript);
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
    // The status of a tools/call of search_notes in a session the token opened (or of the
    // initialize, when that is refused).
    let search = |token: String| {
        let url = url.clone();
        async move {
            call_tool_with_token(&url, &token, "search_notes", json!({"text": "rust"}))
                .await
                .0
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

/// `notes-server --leeway --max-key-age`: the clock skew allowed, and how long the issuer's keys
/// are used before they are fetched again, which bounds how long a key the issuer withdrew is
/// still trusted (10 minutes by default).
#[tokio::test(flavor = "multi_thread")]
async fn notes_server_takes_the_leeway_and_the_age_of_the_keys() {
    let issuer = AuthorizationServer::start().await;
    let start = |flags: &[&str]| {
        let mut args = vec!["--http", "127.0.0.1:0", "--auth-issuer", issuer.issuer()];
        args.extend_from_slice(flags);
        HttpExample::start("notes-server", &args)
    };
    let strict = start(&["--leeway", "10", "--max-key-age", "1"]);
    let lenient = start(&[]);
    let search = |url: String, token: String| async move {
        call_tool_with_token(&url, &token, "search_notes", json!({"text": "rust"})).await
    };
    let metadata = |url: &str| url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let refused = |url: &str, reason: &str| {
        (
            401,
            Some(format!(
                "Bearer error=\"invalid_token\", error_description=\"{reason}\", \
                 resource_metadata=\"{}\", scope=\"notes:read notes:write\"",
                metadata(url)
            )),
        )
    };

    let token = |server: &HttpExample| {
        issuer
            .token()
            .audience(server.url.as_str())
            .scope("notes:read")
    };

    // Expired 30 seconds ago: within the default leeway of 60 seconds, beyond one of 10.
    let late = |server| token(server).expires_in(-30).sign();
    assert_eq!(
        search(strict.url.clone(), late(&strict)).await,
        refused(&strict.url, "the token has expired")
    );
    assert_eq!(
        search(lenient.url.clone(), late(&lenient)).await,
        (200, None)
    );

    // Tokens of the issuer's key, accepted by both; then the issuer withdraws that key.
    let (for_strict, for_lenient) = (token(&strict).sign(), token(&lenient).sign());
    assert_eq!(
        search(strict.url.clone(), for_strict.clone()).await,
        (200, None)
    );
    assert_eq!(
        search(lenient.url.clone(), for_lenient.clone()).await,
        (200, None)
    );
    let kid = issuer.rsa_kid();
    issuer.rotate_keys().await;
    // Once a second has passed, the strict server's keys are too old: it fetches them again,
    // and the withdrawn key is no longer trusted. The other server uses the keys it has for 10
    // minutes: the withdrawn key still verifies there.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        search(strict.url.clone(), for_strict).await,
        refused(
            &strict.url,
            &format!("no key of the issuer has kid '{kid}'")
        )
    );
    assert_eq!(search(lenient.url.clone(), for_lenient).await, (200, None));
}
