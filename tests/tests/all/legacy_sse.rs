//! The HTTP+SSE transport of 2024-11-05 (`HttpOptions::legacy_sse`), beside Streamable HTTP: the
//! `endpoint` event, answers as `message` events, and what a POST is refused for. The official
//! TypeScript client's `SSEClientTransport` drives the whole notes scenario over it in
//! `interop_clients.rs`.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::json;
use tests::http::{SseReader, TestHttpServer, client, initialize_body};

/// Add two integers.
#[mcp_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A server with the old transport, and the base URL its routes hang from.
async fn start(options: HttpOptions) -> (TestHttpServer, String) {
    let server = McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .build()
        .unwrap();
    let http = TestHttpServer::start(server, options).await;
    let base = http.url.strip_suffix("/mcp").unwrap().to_owned();
    (http, base)
}

/// Opens a connection: its stream, and the messages URI of its `endpoint` event.
async fn open(base: &str) -> (SseReader, String) {
    let response = client().get(format!("{base}/sse")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = SseReader::new(response);
    let endpoint = events.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    assert!(
        endpoint.data.starts_with("/messages?sessionId="),
        "{endpoint:?}"
    );
    let id = endpoint.data.trim_start_matches("/messages?sessionId=");
    assert_eq!(id.len(), 32, "128 random bits, in hex");
    (events, format!("{base}{}", endpoint.data))
}

fn send(uri: &str, body: &serde_json::Value) -> reqwest::RequestBuilder {
    client()
        .post(uri)
        .header("content-type", "application/json")
        .json(body)
}

#[tokio::test]
async fn a_connection_answers_on_its_stream() {
    let (_http, base) = start(HttpOptions::default().legacy_sse(true)).await;
    let (mut events, messages) = open(&base).await;
    let accepted = send(&messages, &initialize_body("2024-11-05"))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    assert_eq!(accepted.text().await.unwrap(), "Accepted");
    let answer = events.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(answer.event.as_deref(), Some("message"));
    let answer = answer.json().unwrap();
    assert_eq!(answer["id"], 0);
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send(&messages, &initialized).send().await.unwrap().status(),
        StatusCode::ACCEPTED
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}});
    send(&messages, &call).send().await.unwrap();
    let answer = events
        .next(Duration::from_secs(5))
        .await
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}]}})
    );
    // The stream closed, the connection is forgotten.
    drop(events);
    let mut gone = StatusCode::ACCEPTED;
    for _ in 0..100 {
        gone = send(&messages, &call).send().await.unwrap().status();
        if gone == StatusCode::NOT_FOUND {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(gone, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn posts_are_refused_with_the_status_that_says_why() {
    let options = HttpOptions::default().legacy_sse(true).body_limit(1024);
    let (_http, base) = start(options).await;
    let (_events, messages) = open(&base).await;
    let status = |request: reqwest::RequestBuilder| async move {
        let response = request.send().await.unwrap();
        (response.status(), response.text().await.unwrap())
    };
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(
        status(send(&format!("{base}/messages"), &ping)).await.0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        status(send(&format!("{base}/messages?sessionId=unknown"), &ping))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    let not_json = client()
        .post(&messages)
        .header("content-type", "application/json")
        .body("{not json");
    assert_eq!(status(not_json).await.0, StatusCode::BAD_REQUEST);
    let text = client()
        .post(&messages)
        .header("content-type", "text/plain")
        .body("{}");
    assert_eq!(status(text).await.0, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let big =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "y".repeat(2048)}});
    assert_eq!(
        status(send(&messages, &big)).await.0,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    let foreign = send(&messages, &ping).header("origin", "http://evil.example");
    assert_eq!(status(foreign).await.0, StatusCode::FORBIDDEN);
    let foreign_stream = client()
        .get(format!("{base}/sse"))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign_stream.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn the_old_transport_is_served_only_when_asked() {
    let (_http, base) = start(HttpOptions::default()).await;
    let response = client().get(format!("{base}/sse")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn connections_count_against_the_sessions_cap() {
    let (_http, base) = start(HttpOptions::default().legacy_sse(true).max_sessions(1)).await;
    let (_first, _) = open(&base).await;
    let second = client().get(format!("{base}/sse")).send().await.unwrap();
    assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn a_server_with_authorization_does_not_serve_the_old_transport() {
    use mcp_runtime::auth::{AccessToken, ResourceServer, TokenError};
    let verifier = |_token: String| async { Err::<AccessToken, _>(TokenError::invalid("no")) };
    let (_http, base) = start_with_authorization(verifier).await;
    let response = client().get(format!("{base}/sse")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    async fn start_with_authorization<V>(verifier: V) -> (TestHttpServer, String)
    where
        V: mcp_runtime::auth::TokenVerifier + 'static,
    {
        let server = McpServer::from_module(server_info!(), module_path!())
            .build()
            .unwrap();
        let http = TestHttpServer::start_with(server, |url| {
            let resource = ResourceServer::try_new(url, verifier).unwrap();
            HttpOptions::default()
                .legacy_sse(true)
                .authorization(resource)
        })
        .await;
        let base = http.url.strip_suffix("/mcp").unwrap().to_owned();
        (http, base)
    }
}

#[tokio::test]
async fn our_client_speaks_the_old_transport_to_our_server() {
    let (_http, base) = start(HttpOptions::default().legacy_sse(true)).await;
    let client = mcp_runtime::client::McpClient::builder(server_info!())
        .connect_sse(format!("{base}/sse"))
        .await
        .unwrap();
    let sum: i64 = client
        .call_tool_as("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum, 5);
    client.close().await.unwrap();
    // `connect_http` at the SSE endpoint: the POSTs get 405, and the client falls back to GET.
    let client = mcp_runtime::client::McpClient::builder(server_info!())
        .connect_http(format!("{base}/sse"))
        .await
        .unwrap();
    let sum: i64 = client
        .call_tool_as("add", json!({"a": 4, "b": 5}))
        .await
        .unwrap();
    assert_eq!(sum, 9);
    client.close().await.unwrap();
    // Where nothing is served, the GET fails too: the error is the POST's.
    let refused = mcp_runtime::client::McpClient::builder(server_info!())
        .connect_http(format!("{base}/nothing-here"))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("404"), "{refused}");
}

#[tokio::test]
async fn a_message_written_over_several_lines_is_one_message() {
    let (_http, base) = start(HttpOptions::default().legacy_sse(true)).await;
    let (mut events, messages) = open(&base).await;
    let pretty = "{\r\n  \"jsonrpc\": \"2.0\",\n  \"id\": 3,\n  \"method\": \"ping\"\n}";
    let accepted = client()
        .post(&messages)
        .header("content-type", "application/json")
        .body(pretty)
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    let answer = events
        .next(Duration::from_secs(5))
        .await
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

#[tokio::test]
async fn a_client_may_keep_as_many_connections_as_the_cap_per_client() {
    let options = HttpOptions::default()
        .legacy_sse(true)
        .max_sessions_per_client(1);
    let (_http, base) = start(options).await;
    let (_events, _messages) = open(&base).await;
    let refused = client().get(format!("{base}/sse")).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "Too Many Requests: this client already has the most connections one may have (1); \
         close one first"
    );
}

#[tokio::test]
async fn a_connection_idle_for_the_session_timeout_ends() {
    let options = HttpOptions::default()
        .legacy_sse(true)
        .session_idle_timeout(Duration::from_millis(300));
    let (_http, base) = start(options).await;
    let (mut events, messages) = open(&base).await;
    // Nothing is POSTed: the stream ends, and the connection is gone.
    assert!(events.next(Duration::from_secs(30)).await.is_none());
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let gone = send(&messages, &ping).send().await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}
