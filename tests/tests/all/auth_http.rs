//! The Streamable HTTP transport as an OAuth 2.1 protected resource, with a verifier of fixed
//! tokens: the challenges of `401` and `403` (status, `WWW-Authenticate` and body exactly), the
//! protected resource metadata, scopes per tool, prompt and resource, lists that hide what a token
//! may not use, the caller and the HTTP request in handlers, and sessions and `requestState`
//! bound to the token's principal (issuer, subject and client). `auth_jwt.rs` runs the token
//! kinds of a real issuer through it.

use mcp_runtime::auth::{ResourceServer, TokenError};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{TestHttpServer, status_challenge_body};

/// Who is calling, and with what.
#[mcp_tool]
async fn whoami(#[ctx] token: AccessToken) -> String {
    format!(
        "{} via {} with {}",
        token.subject().unwrap_or("nobody"),
        token.client_id().unwrap_or("no client"),
        token.scopes().collect::<Vec<_>>().join(",")
    )
}

/// Writes a note.
#[mcp_tool(scopes = "notes:write")]
async fn write_note(text: String) -> String {
    format!("wrote {text}")
}

/// Reads the notes.
#[mcp_tool(scopes = "notes:read")]
async fn read_notes() -> &'static str {
    "no notes"
}

/// Deletes everything.
#[mcp_tool(scopes = "notes:write notes:admin")]
async fn purge() -> &'static str {
    "purged"
}

/// A prompt for readers.
#[mcp_prompt(scopes = "notes:read")]
async fn summary() -> String {
    "Summarize the notes.".into()
}

/// The secret note.
#[mcp_resource(uri = "notes://secret", scopes = "notes:admin")]
async fn secret() -> &'static str {
    "the secret"
}

/// A note by number.
#[mcp_resource(uri = "notes://n/{id}", scopes = "notes:read")]
async fn numbered(id: String) -> String {
    format!("note {id}")
}

/// What a layer of the application put on the request.
#[derive(Clone)]
struct Tenant(&'static str);

/// The HTTP request as the handler sees it.
#[mcp_tool]
async fn http_seen(
    #[ctx] request: HttpRequest,
    #[ctx] tenant: Option<HttpExtension<Tenant>>,
) -> String {
    let trace = request.headers.get("x-trace").and_then(|v| v.to_str().ok());
    format!(
        "{} {} trace={} tenant={}",
        request.method,
        request.uri.path(),
        trace.unwrap_or("none"),
        tenant.map_or("none", |HttpExtension(t)| t.0)
    )
}

/// A letter.
#[derive(Elicit)]
struct Letter {
    /// A letter.
    letter: String,
}

/// Asks twice; the first answer travels in the `requestState`.
#[mcp_tool]
async fn two_letters(ctx: RequestContext) -> Result<String, ToolError> {
    let first = ctx.elicit::<Letter>("First?").await?;
    let second = ctx.elicit::<Letter>("Second?").await?;
    let letter = |answer: mcp_runtime::elicit::ElicitOutcome<Letter>| {
        answer
            .accepted()
            .map_or_else(|| "-".to_owned(), |l| l.letter)
    };
    Ok(format!("{}{}", letter(first), letter(second)))
}

/// The verifier of the tests: fixed tokens, of two issuers the server trusts.
async fn verify(token: String) -> Result<AccessToken, TokenError> {
    let user = |sub: &str, scopes: &[&str]| {
        Ok(AccessToken::new()
            .with_issuer("https://idp.test")
            .with_subject(sub)
            .with_client_id("test-client")
            .with_scopes(scopes.iter().copied()))
    };
    let alice = || user("alice", &["notes:read", "notes:write"]);
    match token.as_str() {
        "alice-read" => user("alice", &["notes:read"]),
        "alice-write" => alice(),
        // Alice's `sub` from the other issuer, and alice through another client.
        "alice-elsewhere" => alice().map(|t| t.with_issuer("https://other-idp.test")),
        "alice-other-app" => alice().map(|t| t.with_client_id("other-app")),
        "bob-write" => user("bob", &["notes:read", "notes:write"]),
        "admin" => user("carol", &["notes:admin"]),
        "plain" => user("dave", &[]),
        "down" => Err(TokenError::unavailable("the issuer did not answer")),
        _ => Err(TokenError::invalid("the token is \"unknown\" here")),
    }
}

fn server(hide: bool) -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .hide_unauthorized(hide)
        .build()
        .unwrap()
}

async fn start(authorization: impl FnOnce(ResourceServer) -> ResourceServer) -> TestHttpServer {
    start_server(server(false), authorization).await
}

async fn start_server(
    server: McpServer,
    authorization: impl FnOnce(ResourceServer) -> ResourceServer,
) -> TestHttpServer {
    TestHttpServer::start_with(server, |url| {
        let resource = ResourceServer::new(url, verify).authorization_server("https://idp.test");
        HttpOptions::default().authorization(authorization(resource))
    })
    .await
}

fn origin(url: &str) -> &str {
    url.strip_suffix("/mcp").unwrap()
}

fn post(
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request
}

/// Sends `request` and reads the status, challenge and body of the response.
async fn exchange(request: reqwest::RequestBuilder) -> (StatusCode, Option<String>, Value) {
    status_challenge_body(request.send().await.expect("the request is sent")).await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"}}})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

fn refusal(message: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": message}})
}

/// Opens a session with `token` and returns its id.
async fn open_session(url: &str, token: &str) -> String {
    let response = post(url, Some(token), None, &initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(url, Some(token), Some(&id), &initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    id
}

/// A tool's text result in a session.
async fn call_text(
    url: &str,
    token: &str,
    session: &str,
    name: &str,
    arguments: Value,
) -> (StatusCode, Value) {
    let response = post(url, Some(token), Some(session), &call(1, name, arguments))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn requests_without_a_usable_token_get_401_with_the_metadata_and_scopes() {
    let http = start(|rs| rs).await;
    let url = &http.url;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", origin(url));
    let plain = format!(
        "Bearer resource_metadata=\"{metadata}\", scope=\"notes:write notes:read notes:admin\""
    );
    let no_token = refusal(
        "Unauthorized: this server needs an access token, sent as `Authorization: Bearer <token>`; its metadata says where to get one",
    );

    // No token at all, and a scheme that is not Bearer.
    let (status, challenge, body) = exchange(post(url, None, None, &initialize())).await;
    assert_eq!(
        (status, challenge.as_deref(), &body),
        (StatusCode::UNAUTHORIZED, Some(plain.as_str()), &no_token)
    );
    let basic = post(url, None, None, &initialize()).header("authorization", "Basic YTpi");
    let (status, challenge, body) = exchange(basic).await;
    assert_eq!(
        (status, challenge.as_deref(), &body),
        (StatusCode::UNAUTHORIZED, Some(plain.as_str()), &no_token)
    );

    // A malformed header.
    let malformed =
        post(url, None, None, &initialize()).header("authorization", "Bearer two words");
    let (status, challenge, body) = exchange(malformed).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge.as_deref(),
        Some(format!("Bearer error=\"invalid_token\", error_description=\"the Authorization header is malformed: expected `Bearer <token>`\", resource_metadata=\"{metadata}\", scope=\"notes:write notes:read notes:admin\"").as_str())
    );
    assert_eq!(
        body,
        refusal("Unauthorized: the Authorization header is malformed: expected `Bearer <token>`")
    );

    // A token the verifier refuses: its reason, quotable, in the challenge.
    let (status, challenge, body) = exchange(post(url, Some("forged"), None, &initialize())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge.as_deref(),
        Some(format!("Bearer error=\"invalid_token\", error_description=\"the token is 'unknown' here\", resource_metadata=\"{metadata}\", scope=\"notes:write notes:read notes:admin\"").as_str())
    );
    assert_eq!(body, refusal("Unauthorized: the token is \"unknown\" here"));

    // A token in the query string is refused, even beside a good header.
    let query = post(
        &format!("{url}?access_token=alice-read"),
        Some("alice-read"),
        None,
        &initialize(),
    );
    let (status, challenge, body) = exchange(query).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge.as_deref(),
        Some(format!("Bearer error=\"invalid_request\", error_description=\"access tokens must be sent in the Authorization header, never in the query string\", resource_metadata=\"{metadata}\", scope=\"notes:write notes:read notes:admin\"").as_str())
    );
    assert_eq!(
        body,
        refusal(
            "Unauthorized: access tokens must be sent in the Authorization header, never in the query string"
        )
    );

    // A verifier that cannot decide: 503, no challenge, a time to retry after, and nothing of
    // what the verifier said (that goes to the log).
    let response = post(url, Some("down"), None, &initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["retry-after"], "5");
    let (status, challenge, body) = status_challenge_body(response).await;
    assert_eq!((status, challenge), (StatusCode::SERVICE_UNAVAILABLE, None));
    assert_eq!(
        body,
        refusal(
            "Service Unavailable: the authorization server is unavailable, so the access token could not be verified; retry later"
        )
    );

    // GET and DELETE need the token too.
    let get = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::UNAUTHORIZED);
    let delete = reqwest::Client::new()
        .delete(url)
        .header("mcp-session-id", "x")
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        delete.headers()["www-authenticate"].to_str().unwrap(),
        plain
    );
}

#[tokio::test]
async fn the_metadata_documents_name_the_resource_its_issuers_and_scopes() {
    let http = start(|rs| {
        rs.resource_name("Notes")
            .documentation("https://docs.test/notes")
    })
    .await;
    let expected = json!({
        "resource": http.url,
        "authorization_servers": ["https://idp.test"],
        "scopes_supported": ["notes:write", "notes:read", "notes:admin"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Notes",
        "resource_documentation": "https://docs.test/notes",
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = reqwest::get(format!("{}{path}", origin(&http.url)))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        assert_eq!(response.json::<Value>().await.unwrap(), expected, "{path}");
    }

    // Given scopes and required ones: the metadata lists the given ones, the challenge the
    // required ones.
    let http = start(|rs| {
        rs.require_scopes(["mcp"])
            .scopes_supported(["mcp", "notes:read"])
    })
    .await;
    let document: Value = reqwest::get(format!(
        "{}/.well-known/oauth-protected-resource",
        origin(&http.url)
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(document["scopes_supported"], json!(["mcp", "notes:read"]));
    let (status, challenge, _) = exchange(post(&http.url, None, None, &initialize())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
            origin(&http.url)
        )
    );
    // A token without the server's required scope: 403 naming it.
    let (status, challenge, body) =
        exchange(post(&http.url, Some("alice-read"), None, &initialize())).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", error_description=\"this request needs the scope mcp\"",
            origin(&http.url)
        )
    );
    assert_eq!(
        body,
        refusal(
            "Forbidden: this request needs the scope mcp, and the access token was not granted it"
        )
    );
}

#[tokio::test]
async fn the_endpoint_and_its_metadata_work_mounted_at_another_path() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/api/v1/mcp");
    let options = HttpOptions::default().authorization(
        ResourceServer::new(resource.clone(), verify).authorization_server("https://idp.test"),
    );
    let transport = HttpTransport::new(server(false), options);
    let app = axum::Router::new()
        .nest("/api/v1/mcp", transport.router())
        .merge(transport.metadata_router());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let document: Value = reqwest::get(format!(
        "{base}/.well-known/oauth-protected-resource/api/v1/mcp"
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(document["resource"], json!(resource));
    let (status, challenge, _) = exchange(post(&resource, None, None, &initialize())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(challenge.unwrap().starts_with(&format!(
        "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/api/v1/mcp\""
    )));
    let session = open_session(&resource, "alice-read").await;
    let (status, answer) =
        call_text(&resource, "alice-read", &session, "read_notes", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "no notes"}])
    );
}

#[tokio::test]
async fn a_call_without_the_scopes_of_its_target_gets_403_naming_them_all() {
    let http = start(|rs| rs).await;
    let url = &http.url;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", origin(url));
    let session = open_session(url, "alice-read").await;

    // Allowed: the token has notes:read.
    let (status, answer) = call_text(url, "alice-read", &session, "read_notes", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "no notes"}])
    );

    // Step-up: notes:write is missing.
    let response = post(
        url,
        Some("alice-read"),
        Some(&session),
        &call(2, "write_note", json!({"text": "hi"})),
    )
    .send()
    .await
    .unwrap();
    let (status, challenge, body) = status_challenge_body(response).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{metadata}\", error_description=\"this request needs the scope notes:write\""
        )
    );
    assert_eq!(
        body,
        refusal(
            "Forbidden: calling tool `write_note` needs the scope notes:write, and the access token was not granted it"
        )
    );

    // Every scope the call needs, in one challenge.
    let response = post(
        url,
        Some("alice-write"),
        Some(&session),
        &call(3, "purge", json!({})),
    )
    .send()
    .await
    .unwrap();
    let (status, challenge, body) = status_challenge_body(response).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge.unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write notes:admin\", resource_metadata=\"{metadata}\", error_description=\"this request needs the scopes notes:write notes:admin\""
        )
    );
    assert_eq!(
        body,
        refusal(
            "Forbidden: calling tool `purge` needs the scopes notes:write notes:admin, and the access token was not granted them all"
        )
    );

    // Prompts, resources (direct and by template) and completions are checked the same way.
    let denied = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    for (token, message, scope, expected) in [
        (
            "plain",
            denied("prompts/get", json!({"name": "summary"})),
            "notes:read",
            "getting prompt `summary`",
        ),
        (
            "alice-read",
            denied("resources/read", json!({"uri": "notes://secret"})),
            "notes:admin",
            "resources/read of `notes://secret`",
        ),
        (
            "plain",
            denied("resources/read", json!({"uri": "notes://n/4"})),
            "notes:read",
            "resources/read of `notes://n/4`",
        ),
        (
            "plain",
            denied(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "summary"}, "argument": {"name": "x", "value": ""}}),
            ),
            "notes:read",
            "completing prompt `summary`",
        ),
    ] {
        let session = open_session(url, token).await;
        let (status, challenge, body) =
            exchange(post(url, Some(token), Some(&session), &message)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{expected}");
        assert!(challenge.unwrap().starts_with(&format!(
            "Bearer error=\"insufficient_scope\", scope=\"{scope}\""
        )));
        assert_eq!(
            body,
            refusal(&format!(
                "Forbidden: {expected} needs the scope {scope}, and the access token was not granted it"
            ))
        );
    }
    let session = open_session(url, "alice-read").await;
    let read = denied("resources/read", json!({"uri": "notes://n/4"}));
    let response = post(url, Some("alice-read"), Some(&session), &read)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["result"]["contents"][0]["text"], "note 4");
}

#[tokio::test]
async fn a_broad_scope_implies_the_narrower_ones() {
    let http = start(|rs| rs.implied_scopes("notes:admin", ["notes:read", "notes:write"])).await;
    let session = open_session(&http.url, "admin").await;
    let (status, answer) = call_text(&http.url, "admin", &session, "purge", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "purged"}])
    );
    let (_, answer) = call_text(&http.url, "admin", &session, "whoami", json!({})).await;
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "carol via test-client with notes:admin,notes:read,notes:write"}])
    );
}

#[tokio::test]
async fn lists_hide_what_the_token_may_not_use_when_asked() {
    let names = |answer: &Value, list: &str, key: &str| -> Vec<String> {
        answer["result"][list]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item[key].as_str().unwrap().to_owned())
            .collect()
    };
    let list = |id: i64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method});
    for (hide, tools, resources) in [
        (
            true,
            vec!["whoami", "read_notes", "http_seen", "two_letters"],
            Vec::<&str>::new(),
        ),
        (
            false,
            vec![
                "whoami",
                "write_note",
                "read_notes",
                "purge",
                "http_seen",
                "two_letters",
            ],
            vec!["notes://secret"],
        ),
    ] {
        let http = start_server(server(hide), |rs| rs).await;
        let session = open_session(&http.url, "alice-read").await;
        let send = |body: Value| post(&http.url, Some("alice-read"), Some(&session), &body).send();
        let answer: Value = send(list(1, "tools/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(names(&answer, "tools", "name"), tools, "hide: {hide}");
        let answer: Value = send(list(2, "resources/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            names(&answer, "resources", "uri"),
            resources,
            "hide: {hide}"
        );
        let answer: Value = send(list(3, "resources/templates/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            names(&answer, "resourceTemplates", "uriTemplate"),
            ["notes://n/{id}"]
        );
        let answer: Value = send(list(4, "prompts/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(names(&answer, "prompts", "name"), ["summary"]);
    }
}

#[tokio::test]
async fn handlers_see_the_caller_and_the_http_request_with_its_extensions() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let options = HttpOptions::default().authorization(ResourceServer::new(url.clone(), verify));
    let transport = HttpTransport::new(server(false), options);
    // The application's own layer, which the handler reads through `HttpExtension`.
    let app =
        axum::Router::new()
            .nest("/mcp", transport.router())
            .layer(axum::middleware::from_fn(
                |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
                    request.extensions_mut().insert(Tenant("acme"));
                    next.run(request).await
                },
            ));
    tokio::spawn(async move { axum::serve(listener, app).await });

    let session = open_session(&url, "bob-write").await;
    let (_, answer) = call_text(&url, "bob-write", &session, "whoami", json!({})).await;
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "bob via test-client with notes:read,notes:write"}])
    );
    let response = post(
        &url,
        Some("bob-write"),
        Some(&session),
        &call(2, "http_seen", json!({})),
    )
    .header("x-trace", "t-42")
    .send()
    .await
    .unwrap();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "POST /mcp trace=t-42 tenant=acme"}])
    );

    // The same over 2026-07-28, without a session.
    let mut body = call(3, "http_seen", json!({}));
    body["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let response = post(&url, Some("bob-write"), None, &body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "http_seen")
        .header("x-trace", "t-43")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "POST /mcp trace=t-43 tenant=acme"}])
    );
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let http = start(|rs| rs).await;
    let url = &http.url;
    let session = open_session(url, "alice-read").await;
    let not_found = refusal("Session not found: start a new one with initialize");

    // Another subject presenting alice's session id is refused as if it did not exist.
    let (status, _, body) = exchange(post(
        url,
        Some("bob-write"),
        Some(&session),
        &call(1, "read_notes", json!({})),
    ))
    .await;
    assert_eq!((status, body), (StatusCode::NOT_FOUND, not_found.clone()));
    let get = reqwest::Client::new()
        .get(url)
        .bearer_auth("bob-write")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::NOT_FOUND);
    let delete = reqwest::Client::new()
        .delete(url)
        .bearer_auth("bob-write")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::NOT_FOUND);
    assert_eq!(http.transport.session_count(), 1);

    // So is alice's `sub` from another issuer, or alice through another client.
    for other in ["alice-elsewhere", "alice-other-app"] {
        let (status, _, body) = exchange(post(
            url,
            Some(other),
            Some(&session),
            &call(1, "read_notes", json!({})),
        ))
        .await;
        assert_eq!(
            (status, body),
            (StatusCode::NOT_FOUND, not_found.clone()),
            "{other}"
        );
        let delete = reqwest::Client::new()
            .delete(url)
            .bearer_auth(other)
            .header("mcp-session-id", &session)
            .send()
            .await
            .unwrap();
        assert_eq!(delete.status(), StatusCode::NOT_FOUND, "{other}");
    }
    assert_eq!(http.transport.session_count(), 1);

    // Another token of the same subject (a refreshed one, with more scopes) may use it.
    let (status, answer) = call_text(
        url,
        "alice-write",
        &session,
        "write_note",
        json!({"text": "x"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "wrote x"}])
    );
    let delete = reqwest::Client::new()
        .delete(url)
        .bearer_auth("alice-read")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::OK);
    assert_eq!(http.transport.session_count(), 0);
}

#[tokio::test]
async fn a_request_state_minted_for_one_principal_is_refused_to_another() {
    let http = start(|rs| rs).await;
    let url = &http.url;
    let stateless = |id: i64, extra: Value| {
        let mut body = call(id, "two_letters", json!({}));
        body["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
        for (key, value) in extra.as_object().unwrap() {
            body["params"][key] = value.clone();
        }
        body
    };
    let send = |token: &'static str, body: Value| {
        post(url, Some(token), None, &body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "two_letters")
            .send()
    };
    let accept = |letter: &str| json!({"action": "accept", "content": {"letter": letter}});

    let answer: Value = send("alice-read", stateless(1, json!({})))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["result"]["resultType"], "input_required");
    let answers = json!({"inputResponses": {"elicitation/create#1": accept("a")}});
    let answer: Value = send("alice-read", stateless(2, answers))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let state = answer["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let last =
        json!({"requestState": state, "inputResponses": {"elicitation/create#2": accept("b")}});

    // Bob cannot complete alice's call with her state, nor can alice's `sub` from another
    // issuer, nor alice through another client.
    for other in ["bob-write", "alice-elsewhere", "alice-other-app"] {
        let answer: Value = send(other, stateless(3, last.clone()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            answer["error"],
            json!({"code": -32602, "message": "requestState was issued to another client"}),
            "{other}"
        );
    }
    // Alice can, with another token of hers.
    let answer: Value = send("alice-write", stateless(4, last))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer["result"],
        json!({"resultType": "complete", "content": [{"type": "text", "text": "ab"}],
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tests", "version": "0.1.0"}}})
    );
}

#[tokio::test]
async fn a_batch_is_refused_whole_when_one_of_its_calls_lacks_a_scope() {
    let http = start(|rs| rs).await;
    let url = &http.url;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"}}});
    let response = post(url, Some("alice-read"), None, &init)
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let batch = json!([
        call(1, "read_notes", json!({})),
        call(2, "write_note", json!({"text": "x"})),
        call(3, "purge", json!({}))
    ]);
    let response = post(url, Some("alice-read"), None, &batch)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-03-26")
        .send()
        .await
        .unwrap();
    let (status, challenge, body) = status_challenge_body(response).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        challenge
            .unwrap()
            .starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:write notes:admin\"")
    );
    // A 2025-03-26 error names its (absent) id as null.
    let message = "Forbidden: calling tool `write_note` and calling tool `purge` need the scopes notes:write notes:admin, and the access token was not granted them all";
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}})
    );
}

#[tokio::test]
async fn a_tool_registered_at_run_time_carries_its_scopes() {
    let server = server(false);
    let http = start_server(server.clone(), |rs| rs).await;
    let tool = ToolDefinition::new("rotate_keys", serde_json::Map::new(), |_, _| async {
        "rotated"
    })
    .scopes(["notes:admin"]);
    assert_eq!(tool.required_scopes(), ["notes:admin"]);
    server.add_tool(tool).unwrap();
    let session = open_session(&http.url, "alice-write").await;
    let (status, challenge, body) = exchange(post(
        &http.url,
        Some("alice-write"),
        Some(&session),
        &call(1, "rotate_keys", json!({})),
    ))
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        challenge
            .unwrap()
            .starts_with("Bearer error=\"insufficient_scope\", scope=\"notes:admin\"")
    );
    assert_eq!(
        body,
        refusal(
            "Forbidden: calling tool `rotate_keys` needs the scope notes:admin, and the access token was not granted it"
        )
    );
    let session = open_session(&http.url, "admin").await;
    let (status, answer) = call_text(&http.url, "admin", &session, "rotate_keys", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "rotated"}])
    );
}

#[tokio::test]
async fn the_cap_on_sessions_per_client_counts_each_principal_apart() {
    let http = TestHttpServer::start_with(server(false), |url| {
        let resource = ResourceServer::new(url, verify).authorization_server("https://idp.test");
        HttpOptions::default()
            .authorization(resource)
            .max_sessions_per_client(1)
    })
    .await;
    let url = &http.url;
    let first = open_session(url, "alice-write").await;
    // Alice's second session ends her first, idle, one; nobody else's.
    let bob = open_session(url, "bob-write").await;
    let second = open_session(url, "alice-write").await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, _, _) = exchange(post(url, Some("alice-write"), Some(&first), &ping)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = exchange(post(url, Some("bob-write"), Some(&bob), &ping)).await;
    assert_eq!(status, StatusCode::OK);
    // While a client reads its stream, the session is busy: Alice gets 429...
    let stream = reqwest::Client::new()
        .get(url)
        .bearer_auth("alice-write")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &second)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let (status, _, body) = exchange(post(url, Some("alice-write"), None, &initialize())).await;
    assert_eq!(
        (status, body),
        (
            StatusCode::TOO_MANY_REQUESTS,
            refusal(
                "Too Many Requests: this client already has as many sessions as it may (1), each \
                 with a request in flight or an open stream; end one (DELETE) or use it, rather \
                 than opening another"
            )
        )
    );
    // ... but the same `sub` of another issuer, or through another client, is another client.
    for token in ["alice-elsewhere", "alice-other-app"] {
        let (status, _, _) = exchange(post(url, Some(token), None, &initialize())).await;
        assert_eq!(status, StatusCode::OK, "{token}");
    }
    drop(stream);
}
