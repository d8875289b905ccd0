//! Every kind of token of a real issuer, through the whole HTTP stack: the test authorization
//! server (keys generated at start, RFC 8414 metadata, JWKS, introspection) issues them, and a
//! server with `ResourceServer::jwt` (or an `IntrospectionVerifier`) answers each with the exact
//! status, `WWW-Authenticate` and body; a server trusting two issuers keeps the sessions of the
//! same `sub` of each apart.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use mcp_runtime::auth::{
    Algorithm, IntrospectionVerifier, JwtVerifier, ResourceServer, TokenVerifier,
};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::authorization_server::{AuthorizationServer, TOKEN_CLIENT};
use tests::http::{TestHttpServer, status_challenge_body};

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

/// Without sessions: each request below is a sessionless 2025-03-26 `tools/call`.
fn server() -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .stateless()
        .build()
        .unwrap()
}

/// A server whose tokens are JWTs of `issuer`.
async fn jwt_server(issuer: &AuthorizationServer) -> TestHttpServer {
    let issuer = issuer.issuer().to_owned();
    TestHttpServer::start_with(server(), |url| {
        HttpOptions::default().authorization(ResourceServer::jwt(issuer, url))
    })
    .await
}

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

/// A stateless 2025-03-26 `tools/call` of `name` with `token`: status, challenge, body.
async fn send(url: &str, token: &str, name: &str) -> (StatusCode, Option<String>, Value) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(token)
        .body(call(name).to_string())
        .send()
        .await
        .unwrap();
    status_challenge_body(response).await
}

/// What a server at `url` answers to a token it refuses for `reason`.
fn refused(url: &str, reason: &str) -> (StatusCode, Option<String>, Value) {
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let description = reason.replace('"', "'");
    (
        StatusCode::UNAUTHORIZED,
        Some(format!(
            "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{metadata}\", scope=\"notes:read notes:write\""
        )),
        json!({"jsonrpc": "2.0", "error": {"code": -32600,
            "message": format!("Unauthorized: {reason}")}}),
    )
}

fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn tokens_of_every_kind_get_the_answer_they_deserve() {
    let issuer = AuthorizationServer::start().await;
    let http = jwt_server(&issuer).await;
    let url = &http.url;
    let token = || issuer.token().audience(url.as_str()).scope("notes:read");

    // Valid tokens, RSA and EC.
    for signed in [token().sign(), token().alg(Algorithm::ES256).sign()] {
        let (status, challenge, body) = send(url, &signed, "read_notes").await;
        assert_eq!((status, challenge), (StatusCode::OK, None));
        assert_eq!(text(&body), "notes of alice");
    }
    let cases = [
        (
            token().signed_by_stranger(),
            "the token's signature does not verify".to_owned(),
        ),
        (
            token().issuer("https://evil.test").sign(),
            format!(
                "the token was issued by https://evil.test, not {}",
                issuer.issuer()
            ),
        ),
        (
            issuer
                .token()
                .audience("https://other.test/mcp")
                .scope("notes:read")
                .sign(),
            format!(
                "the token was issued for another resource (its audience is https://other.test/mcp), not for {url}"
            ),
        ),
        (
            token().expires_in(-120).sign(),
            "the token has expired".to_owned(),
        ),
        (
            token().not_before_in(300).sign(),
            "the token is not valid yet".to_owned(),
        ),
        (
            token().unsigned_alg_none(),
            "the token is signed with alg none, which this server does not accept".to_owned(),
        ),
        (
            token().hs256_with_public_key(),
            "the token is signed with alg HS256, which this server does not accept".to_owned(),
        ),
        (
            token().typ("id_token").sign(),
            "the token is of type id_token, not an access token (at+jwt)".to_owned(),
        ),
        (
            token().kid("no-such-key").sign(),
            "no key of the issuer has kid \"no-such-key\"".to_owned(),
        ),
        ("not.a.jwt".to_owned(), "the token is not a JWT".to_owned()),
    ];
    for (signed, reason) in cases {
        assert_eq!(
            send(url, &signed, "read_notes").await,
            refused(url, &reason),
            "{reason}"
        );
    }

    // Within the leeway (60 s), a token just expired is still accepted.
    let (status, _, _) = send(url, &token().expires_in(-30).sign(), "read_notes").await;
    assert_eq!(status, StatusCode::OK);

    // A missing scope: 403, step-up; with it, 200.
    let (status, challenge, body) = send(url, &token().sign(), "write_note").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{}\", error_description=\"this request needs the scope notes:write\"",
            url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        )
    );
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
            "message": "Forbidden: calling tool `write_note` needs the scope notes:write, and the access token was not granted it"}})
    );
    let writer = issuer
        .token()
        .audience(url.as_str())
        .scope("notes:read notes:write")
        .sign();
    let (status, _, body) = send(url, &writer, "write_note").await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "written"));
}

#[tokio::test]
async fn keys_the_issuer_rotates_in_are_fetched_when_a_token_names_one() {
    let issuer = AuthorizationServer::start().await;
    let http = jwt_server(&issuer).await;
    let url = &http.url;
    let token = || issuer.token().audience(url.as_str()).scope("notes:read");
    let (status, _, _) = send(url, &token().sign(), "read_notes").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(issuer.jwks_fetches(), 1);

    // The issuer rotates its keys: a token with the new kid makes the server fetch them again,
    // once the refetch interval (1 second by default) has passed since the last fetch (within
    // it, the keys were just fetched, and a token naming another is refused at once).
    let old = token().sign();
    issuer.rotate_keys().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, _, body) = send(url, &token().sign(), "read_notes").await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "notes of alice"));
    assert_eq!(issuer.jwks_fetches(), 2);
    // The retired key is gone from the server's keys too.
    let kid = jsonwebtoken::decode_header(&old).unwrap().kid.unwrap();
    assert_eq!(
        send(url, &old, "read_notes").await,
        refused(url, &format!("no key of the issuer has kid \"{kid}\""))
    );
}

/// Tokens naming keys the issuer never had, right after the server fetched its keys, are
/// refused at once: they neither make the server fetch the keys again nor wait for the refetch
/// interval to pass.
#[tokio::test]
async fn a_flood_of_unknown_kids_right_after_a_fetch_is_refused_at_once() {
    let issuer = AuthorizationServer::start().await;
    let issuer_url = issuer.issuer().to_owned();
    let http = TestHttpServer::start_with(server(), |url| {
        // An interval no test outlasts: the refetch slot stays closed.
        let verifier = JwtVerifier::new(issuer_url.clone(), url)
            .min_refetch_interval(Duration::from_secs(3600));
        HttpOptions::default()
            .authorization(ResourceServer::new(url, verifier).authorization_server(issuer_url))
    })
    .await;
    let url = &http.url;
    let token = || issuer.token().audience(url.as_str()).scope("notes:read");
    let (status, _, _) = send(url, &token().sign(), "read_notes").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(issuer.jwks_fetches(), 1);

    let kids: Vec<String> = (0..50).map(|i| format!("made-up-{i}")).collect();
    let tokens: Vec<String> = kids.iter().map(|kid| token().kid(kid).sign()).collect();
    let answers = join_all(tokens.iter().map(|t| send(url, t, "read_notes"))).await;
    for (kid, answer) in kids.iter().zip(answers) {
        assert_eq!(
            answer,
            refused(url, &format!("no key of the issuer has kid \"{kid}\""))
        );
    }
    assert_eq!(issuer.jwks_fetches(), 1);
    // The keys in hand still serve.
    let (status, _, body) = send(url, &token().subject("bob").sign(), "read_notes").await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "notes of bob"));
    assert_eq!(issuer.jwks_fetches(), 1);
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let issuer = AuthorizationServer::start().await;
    let (client, secret) = issuer.introspection_client();
    let issuer_url = issuer.issuer().to_owned();
    let http = TestHttpServer::start_with(server(), |url| {
        let verifier = IntrospectionVerifier::discover(issuer_url.clone(), client, secret, url);
        HttpOptions::default()
            .authorization(ResourceServer::new(url, verifier).authorization_server(issuer_url))
    })
    .await;
    let url = &http.url;
    let active = issuer.opaque_token(json!({"sub": "bob", "scope": "notes:read", "aud": url}));
    let (status, _, body) = send(url, &active, "read_notes").await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "notes of bob"));
    // Cached: a second call asks the issuer nothing more.
    let asked = issuer.introspections();
    let (status, _, _) = send(url, &active, "read_notes").await;
    assert_eq!((status, issuer.introspections()), (StatusCode::OK, asked));

    let revoked = issuer.opaque_token(json!({"sub": "bob", "scope": "notes:read", "aud": url}));
    issuer.revoke(&revoked);
    for inactive in [revoked.as_str(), "never-issued"] {
        assert_eq!(
            send(url, inactive, "read_notes").await,
            refused(url, "the token is not active (expired or revoked)")
        );
    }
    let elsewhere = issuer.opaque_token(json!({"sub": "bob", "scope": "notes:read",
        "aud": "https://other.test/mcp"}));
    assert_eq!(
        send(url, &elsewhere, "read_notes").await,
        refused(
            url,
            &format!(
                "the token was issued for another resource (its audience is https://other.test/mcp), not for {url}"
            )
        )
    );
}

/// A POST of `body` with `token`, in `session` if given; its status and body.
async fn post_in_session(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> (StatusCode, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(token)
        .body(body.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, _, body) = status_challenge_body(response).await;
    (status, session, body)
}

#[tokio::test]
async fn the_same_sub_of_two_trusted_issuers_or_two_clients_shares_no_session() {
    let (first, second) = (
        AuthorizationServer::start().await,
        AuthorizationServer::start().await,
    );
    let issuers = [first.issuer().to_owned(), second.issuer().to_owned()];
    let server = McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .build()
        .unwrap();
    let http = TestHttpServer::start_with(server, |url| {
        // A token of either issuer is good.
        let verifiers = Arc::new(issuers.map(|issuer| JwtVerifier::new(issuer, url)));
        let either = move |token: String| {
            let verifiers = verifiers.clone();
            async move {
                match verifiers[0].verify(&token).await {
                    Ok(verified) => Ok(verified),
                    Err(_) => verifiers[1].verify(&token).await,
                }
            }
        };
        HttpOptions::default().authorization(ResourceServer::new(url, either))
    })
    .await;
    let url = &http.url;
    let alice = |issuer: &AuthorizationServer, client: &str| {
        issuer
            .token()
            .audience(url.as_str())
            .scope("notes:read")
            .client_id(client)
            .sign()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"}}});
    let (status, session, _) =
        post_in_session(url, &alice(&first, TOKEN_CLIENT), None, &initialize).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session id");

    // Alice of the other issuer, and alice through another client, are told it does not exist.
    let not_found = json!({"jsonrpc": "2.0", "error": {"code": -32600,
        "message": "Session not found: start a new one with initialize"}});
    for other in [alice(&second, TOKEN_CLIENT), alice(&first, "other-app")] {
        let (status, _, body) =
            post_in_session(url, &other, Some(&session), &call("read_notes")).await;
        assert_eq!((status, body), (StatusCode::NOT_FOUND, not_found.clone()));
    }
    // Another token of hers from the same issuer and client uses it.
    let (status, _, body) = post_in_session(
        url,
        &alice(&first, TOKEN_CLIENT),
        Some(&session),
        &call("read_notes"),
    )
    .await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "notes of alice"));
    assert_eq!(http.transport.session_count(), 1);
}
