//! The HTTP transport as a function (`HttpTransport::handle`): `http::Request` in, `http::Response`
//! out, with no listener, hyper or socket between the test and the server, as a serverless
//! platform calls it.

use std::time::Duration;

use http::{HeaderMap, Method, StatusCode};
use mcp_runtime::auth::{HostPolicy, JwtVerifier, ResourceServer};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::result::CacheHint;
use mcp_runtime::server::caching::CachedList;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use serde_json::{Value, json};
use tests::authorization_server::AuthorizationServer;

/// The weather in a city, as data.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Weather {
    city: String,
    celsius: i64,
}

/// The weather in `city` (structured output).
#[mcp_tool]
async fn weather(city: String) -> Json<Weather> {
    Json(Weather {
        celsius: i64::try_from(city.len()).unwrap_or_default() * 2,
        city,
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Name {
    /// Your name
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Place {
    /// Your city
    city: String,
}

/// Greets the user by the name and city it asks for, one round each.
#[mcp_tool]
async fn hello(ctx: RequestContext) -> Result<String, ToolError> {
    let name = ctx.elicit::<Name>("What is your name?").await?;
    let name = name
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    let place = ctx.elicit::<Place>("Where are you?").await?;
    let city = place
        .accepted()
        .map_or_else(|| "nowhere".to_owned(), |p| p.city);
    Ok(format!("Hello, {name} of {city}!"))
}

/// Who the caller's verified token speaks for.
#[mcp_tool]
async fn whoami(#[ctx] token: AccessToken) -> String {
    format!(
        "{} via {}",
        token.subject().unwrap_or("nobody"),
        token.issuer().unwrap_or("no issuer")
    )
}

/// A motto.
#[mcp_resource(uri = "edge://motto", mime_type = "text/plain")]
async fn motto() -> &'static str {
    "scale to zero"
}

/// A haiku about `topic`.
#[mcp_prompt]
async fn haiku(topic: String) -> String {
    format!("Write a haiku about {topic}.")
}

fn builder() -> McpServerBuilder {
    McpServer::from_module(server_info!(), module_path!()).cache_hint(
        CachedList::Tools,
        CacheHint::public(Duration::from_secs(300)),
    )
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "edge-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}})
}

/// A 2026-07-28 request `id` of `method` with `params` and the revision's `_meta`.
fn request(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// One HTTP exchange through `handle`: status, headers and the JSON answer (`Null` when the
/// body is empty).
async fn send(
    transport: &HttpTransport,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, HeaderMap, Value) {
    let mut request = http::Request::builder()
        .method(method)
        .uri("https://edge.example/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if !headers.iter().any(|(name, _)| *name == "host") {
        request = request.header("host", "localhost");
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    let response = transport.handle(request.body(body).unwrap()).await;
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let json = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes)))
    };
    (parts.status, parts.headers, json)
}

/// A 2026-07-28 POST of `body` with the version header and `mcp` (the `Mcp-*` headers).
async fn post_2026(
    transport: &HttpTransport,
    mcp: &[(&str, &str)],
    body: &Value,
) -> (StatusCode, Value) {
    let mut headers = vec![("mcp-protocol-version", "2026-07-28")];
    headers.extend_from_slice(mcp);
    let (status, _, answer) = send(transport, Method::POST, &headers, Some(body)).await;
    (status, answer)
}

#[tokio::test]
async fn a_stateless_server_answers_2026_requests_as_a_function() {
    let transport = HttpTransport::new(
        builder().stateless().build().unwrap(),
        HttpOptions::default(),
    );

    let (status, answer) = post_2026(
        &transport,
        &[("mcp-method", "server/discover")],
        &request(1, "server/discover", json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert_eq!(result["capabilities"]["tools"], json!({}));

    // Tools, with the caching hint the builder set.
    let (status, answer) = post_2026(
        &transport,
        &[("mcp-method", "tools/list")],
        &request(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let tools: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["weather", "hello", "whoami"]);
    assert_eq!(answer["result"]["ttlMs"], 300_000);
    assert_eq!(answer["result"]["cacheScope"], "public");

    // A call with structured output.
    let (status, answer) = post_2026(
        &transport,
        &[("mcp-method", "tools/call"), ("mcp-name", "weather")],
        &request(
            3,
            "tools/call",
            json!({"name": "weather", "arguments": {"city": "Oslo"}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["id"], 3);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"city": "Oslo", "celsius": 8})
    );
    assert_eq!(answer["result"]["resultType"], "complete");

    // A resource and a prompt.
    let (status, answer) = post_2026(
        &transport,
        &[
            ("mcp-method", "resources/read"),
            ("mcp-name", "edge://motto"),
        ],
        &request(4, "resources/read", json!({"uri": "edge://motto"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["contents"],
        json!([{"uri": "edge://motto", "mimeType": "text/plain", "text": "scale to zero"}])
    );
    let (status, answer) = post_2026(
        &transport,
        &[("mcp-method", "prompts/get"), ("mcp-name", "haiku")],
        &request(
            5,
            "prompts/get",
            json!({"name": "haiku", "arguments": {"topic": "rain"}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Write a haiku about rain."}}])
    );

    // The Mcp-* headers must match the body.
    let (status, answer) = post_2026(
        &transport,
        &[("mcp-method", "tools/call"), ("mcp-name", "hello")],
        &request(
            6,
            "tools/call",
            json!({"name": "weather", "arguments": {"city": "Oslo"}}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32020, "message":
            "Header mismatch: Mcp-Name header value \"hello\" does not match body value \"weather\""}})
    );

    // The revision has no standalone stream and no session to end.
    for method in [Method::GET, Method::DELETE] {
        let (status, _, _) = send(
            &transport,
            method,
            &[("mcp-protocol-version", "2026-07-28")],
            None,
        )
        .await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    }
    assert_eq!(transport.session_count(), 0);
}

#[tokio::test]
async fn host_and_origin_are_checked_before_anything_else() {
    let options = HttpOptions::default().host_policy(HostPolicy::hosts(["edge.example"]));
    let transport = HttpTransport::new(builder().stateless().build().unwrap(), options);
    let body = request(1, "server/discover", json!({}));
    let discover = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    // Without a host of its own, `send` names `localhost`, which this policy does not allow.
    let (status, _, answer) = send(&transport, Method::POST, &discover, Some(&body)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(answer["error"]["code"], -32600);
    let mut allowed = discover.to_vec();
    allowed.push(("host", "edge.example"));
    let (status, _, answer) = send(&transport, Method::POST, &allowed, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    allowed.push(("origin", "https://evil.example"));
    let (status, _, _) = send(&transport, Method::POST, &allowed, Some(&body)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_input_required_round_travels_in_sealed_request_state() {
    let transport = HttpTransport::new(
        builder().stateless().build().unwrap(),
        HttpOptions::default(),
    );
    let headers = [("mcp-method", "tools/call"), ("mcp-name", "hello")];
    let call = |id: i64, extra: Value| {
        let mut params = json!({"name": "hello", "arguments": {}});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        request(id, "tools/call", params)
    };

    let (status, answer) = post_2026(&transport, &headers, &call(1, json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({"elicitation/create#1": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "What is your name?", "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Your name"}},
                "required": ["name"]}}}})
    );
    // Round 2: the name travels to round 3 in the state the server sealed.
    let answers = json!({"inputResponses": {"elicitation/create#1":
        {"action": "accept", "content": {"name": "Ada"}}}});
    let (status, answer) = post_2026(&transport, &headers, &call(2, answers)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["resultType"], "input_required");
    assert_eq!(
        answer["result"]["inputRequests"]["elicitation/create#2"]["params"]["message"],
        "Where are you?"
    );
    let state = answer["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let place =
        json!({"elicitation/create#2": {"action": "accept", "content": {"city": "London"}}});
    let (status, answer) = post_2026(
        &transport,
        &headers,
        &call(3, json!({"requestState": state, "inputResponses": place})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(
        answer["result"]["content"],
        json!([{"type": "text", "text": "Hello, Ada of London!"}])
    );
    // A state changed on the way, or not sealed by the server, is refused.
    for (forged, message) in [
        (format!("{state}x"), "requestState integrity check failed"),
        ("forged".to_owned(), "requestState is malformed"),
    ] {
        let extra = json!({"requestState": forged, "inputResponses": place});
        let (_, answer) = post_2026(&transport, &headers, &call(4, extra)).await;
        assert_eq!(answer["error"], json!({"code": -32602, "message": message}));
    }
}

/// A 2025-11-25 `initialize`.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "edge-test", "version": "1"}}})
}

#[tokio::test]
async fn a_stateless_2025_server_answers_handshake_clients_without_sessions() {
    let transport = HttpTransport::new(
        builder().stateless().build().unwrap(),
        HttpOptions::default(),
    );
    let (status, headers, answer) = send(&transport, Method::POST, &[], Some(&initialize())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    assert!(!headers.contains_key("mcp-session-id"));

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "weather", "arguments": {"city": "Rome"}}});
    let version = [("mcp-protocol-version", "2025-11-25")];
    let (status, _, answer) = send(&transport, Method::POST, &version, Some(&call)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"city": "Rome", "celsius": 8})
    );
    assert_eq!(transport.session_count(), 0);
}

#[tokio::test]
async fn a_stateful_server_keeps_its_sessions_between_calls() {
    let transport = HttpTransport::new(
        builder().stateful().build().unwrap(),
        HttpOptions::default(),
    );
    let (status, headers, _) = send(&transport, Method::POST, &[], Some(&initialize())).await;
    assert_eq!(status, StatusCode::OK);
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    assert_eq!(transport.session_ids(), std::slice::from_ref(&session));

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"});
    let in_session = [
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session.as_str()),
    ];
    let (status, _, answer) = send(&transport, Method::POST, &in_session, Some(&list)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["prompts"][0]["name"], "haiku");
    let (status, _, _) = send(
        &transport,
        Method::POST,
        &[("mcp-protocol-version", "2025-11-25")],
        Some(&list),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _, _) = send(&transport, Method::DELETE, &in_session, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(transport.session_count(), 0);
}

#[tokio::test]
async fn a_jwt_is_verified_inside_the_function_against_keys_it_was_given() {
    let issuer = AuthorizationServer::start().await;
    let resource = "https://edge.example/mcp";
    // The keys are given, not fetched: the function needs no HTTP client.
    let verifier = JwtVerifier::new(issuer.issuer(), resource).jwks(issuer.jwks());
    let options = HttpOptions::default().authorization(
        ResourceServer::new(resource, verifier).authorization_server(issuer.issuer()),
    );
    let transport = HttpTransport::new(builder().stateless().build().unwrap(), options);
    let body = request(1, "tools/call", json!({"name": "whoami", "arguments": {}}));
    let mcp = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "whoami"),
    ];

    let (status, headers, _) = send(&transport, Method::POST, &mcp, Some(&body)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        headers["www-authenticate"],
        "Bearer resource_metadata=\"https://edge.example/.well-known/oauth-protected-resource/mcp\""
    );

    let token = issuer.token().audience(resource).subject("ada").sign();
    let bearer = format!("Bearer {token}");
    let mut authorized = mcp.to_vec();
    authorized.push(("authorization", bearer.as_str()));
    let (status, _, answer) = send(&transport, Method::POST, &authorized, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        format!("ada via {}", issuer.issuer())
    );

    // A token for another resource is refused.
    let other = issuer.token().audience("https://other.example/mcp").sign();
    let bearer = format!("Bearer {other}");
    let mut wrong = mcp.to_vec();
    wrong.push(("authorization", bearer.as_str()));
    let (status, _, _) = send(&transport, Method::POST, &wrong, Some(&body)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The protected resource metadata is served by the same function.
    let request =
        http::Request::get("https://edge.example/.well-known/oauth-protected-resource/mcp")
            .header("host", "localhost")
            .body(String::new())
            .unwrap();
    let response = transport.handle(request).await;
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    let document: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(document["resource"], resource);
    assert_eq!(document["authorization_servers"], json!([issuer.issuer()]));
}
