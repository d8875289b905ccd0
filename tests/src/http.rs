//! Helpers for tests over Streamable HTTP: a server on a free loopback port, and an SSE reader.

use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use mcp_runtime::server::McpServer;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A server listening on `127.0.0.1` at a free port; shut down on drop.
pub struct TestHttpServer {
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The transport, to reach its sessions.
    pub transport: HttpTransport,
}

impl TestHttpServer {
    /// Serves `server` with `options`.
    pub async fn start(server: McpServer, options: HttpOptions) -> Self {
        Self::start_with(server, |_| options).await
    }

    /// Serves `server` with the options `options` makes for the endpoint's URL (which options
    /// such as authorization name).
    pub async fn start_with(server: McpServer, options: impl FnOnce(&str) -> HttpOptions) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
        let transport = HttpTransport::new(server, options(&url));
        tokio::spawn(transport.clone().serve(listener));
        TestHttpServer { url, transport }
    }
}

impl Drop for TestHttpServer {
    fn drop(&mut self) {
        self.transport.server().shutdown();
    }
}

/// The `GET` that opens (or, with `Last-Event-ID`, resumes) a session's standalone stream.
pub fn standalone_get(url: &str, session: &str, version: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", version)
}

/// One server-sent event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SseEvent {
    /// The `id` field.
    pub id: Option<String>,
    /// The `data` field (lines joined with `\n`).
    pub data: String,
    /// The `retry` field, in milliseconds.
    pub retry: Option<u64>,
    /// The `event` field (the event's type; `message` when absent).
    pub event: Option<String>,
}

impl SseEvent {
    /// The data as JSON (`None` for empty data).
    pub fn json(&self) -> Option<Value> {
        (!self.data.is_empty())
            .then(|| serde_json::from_str(&self.data).expect("event data is JSON"))
    }
}

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

/// Reads events from an SSE response as they arrive.
pub struct SseReader {
    body: Body,
    buffer: String,
}

impl SseReader {
    /// Reads the events of `response`.
    pub fn new(response: reqwest::Response) -> Self {
        SseReader {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }

    /// The next event (a `retry`-only block counts as an event), or `None` at the end of the
    /// stream or after `timeout` without one.
    pub async fn next(&mut self, timeout: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse_block(&block) {
                    return Some(event);
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.body.next())
                .await
                .ok()??;
            let chunk = chunk.ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Every event until the stream ends (or `timeout` passes without one).
    pub async fn all(&mut self, timeout: Duration) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while let Some(event) = self.next(timeout).await {
            events.push(event);
        }
        events
    }
}

/// One block of fields; `None` for a comment-only block (keep-alive).
fn parse_block(block: &str) -> Option<SseEvent> {
    let mut event = SseEvent::default();
    let mut data = Vec::new();
    let mut any = false;
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => {
                event.id = Some(value.to_owned());
                any = true;
            }
            "data" => {
                data.push(value.to_owned());
                any = true;
            }
            "retry" => {
                event.retry = value.parse().ok();
                any = true;
            }
            "event" => {
                event.event = Some(value.to_owned());
                any = true;
            }
            _ => {}
        }
    }
    event.data = data.join("\n");
    any.then_some(event)
}

/// The `WWW-Authenticate` of a response.
pub fn challenge(response: &reqwest::Response) -> Option<String> {
    let value = response.headers().get("www-authenticate")?;
    Some(value.to_str().expect("an ASCII challenge").to_owned())
}

/// The status, `WWW-Authenticate` and JSON body of a response.
pub async fn status_challenge_body(
    response: reqwest::Response,
) -> (reqwest::StatusCode, Option<String>, Value) {
    let challenge = challenge(&response);
    let status = response.status();
    (
        status,
        challenge,
        response.json().await.expect("a JSON body"),
    )
}

/// What an HTTP server answered a `tools/call` of `tool` with `arguments`, made with `token` in a
/// 2025-11-25 session that the token opened: the status and `WWW-Authenticate` of the call, or
/// of the `initialize` when that was refused.
pub async fn call_tool_with_token(
    url: &str,
    token: &str,
    tool: &str,
    arguments: Value,
) -> (u16, Option<String>) {
    let client = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let request = client
            .post(url)
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
    let answer = |response: &reqwest::Response| (response.status().as_u16(), challenge(response));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "token-check", "version": "1"}}});
    let opened = post(None, initialize).await.expect("initialize sent");
    let Some(session) = opened.headers().get("mcp-session-id") else {
        return answer(&opened);
    };
    let session = session.to_str().expect("ASCII").to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let acknowledged = post(Some(&session), initialized).await.expect("sent");
    assert_eq!(acknowledged.status(), 202, "notifications/initialized");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    answer(&post(Some(&session), call).await.expect("tools/call sent"))
}

/// A plain HTTP client.
pub fn client() -> reqwest::Client {
    reqwest::Client::new()
}

/// A POST of `body` to `url`, in `session` when given, accepting JSON and SSE.
pub fn post(url: &str, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let request = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    match session {
        Some(id) => request.header("mcp-session-id", id),
        None => request,
    }
}

/// An `initialize` request for `version`, declaring sampling and form elicitation.
pub fn initialize_body(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {"sampling": {}, "elicitation": {"form": {}}},
        "clientInfo": {"name": "http-test", "version": "1"}}})
}

/// Sends `initialize` for `version` to `url`: the id of the session it opened.
pub async fn initialize_session(url: &str, version: &str) -> String {
    let response = post(url, None, &initialize_body(version))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["result"]["protocolVersion"], version);
    session
}

/// Initializes a session and returns its id.
pub async fn open_session(url: &str, version: &str) -> String {
    let session = initialize_session(url, version).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(url, Some(&session), &initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    session
}

/// A `tools/call` of `name` with `arguments`.
pub fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// POSTs `body` and returns the status and the JSON answer.
pub async fn exchange(url: &str, session: Option<&str>, body: &Value) -> (StatusCode, Value) {
    json_body(post(url, session, body).send().await.unwrap()).await
}

/// The status and JSON body of `response`.
pub async fn json_body(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// A 2026-07-28 POST of the JSON-RPC `body` of `method` to `url`, with the revision's headers
/// (`MCP-Protocol-Version`, `Mcp-Method`).
pub fn post_2026_request(url: &str, method: &str, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(body.to_string())
}

/// Opens a 2026-07-28 `subscriptions/listen` stream (id `listen-1`) at `url` for the
/// `notifications` filter, declaring `capabilities`: the reader, past the acknowledgement.
pub async fn listen_2026(url: &str, notifications: Value, capabilities: Value) -> SseReader {
    let listen = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": {"notifications": notifications,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities}}});
    let response = post_2026_request(url, "subscriptions/listen", &listen)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut listening = SseReader::new(response);
    // Past the priming event, if the stream has one.
    let acknowledged = loop {
        let event = listening.next(Duration::from_secs(10)).await;
        if let Some(message) = event.expect("the acknowledgement").json() {
            break message;
        }
    };
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    listening
}
