//! One scenario, four ways: a client that reaches a server on the line transport of stdio (in
//! process) or over Streamable HTTP, in a session of 2025-11-25 or with 2026-07-28 requests
//! without one. Tests that must hold on every transport and era run their scenario through
//! [`Peer`] for each of [`WAYS`].

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::TestClient;
use crate::http::{SseReader, TestHttpServer, open_session, post};

/// How a test reaches the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Stdio2025,
    Stdio2026,
    Http2025,
    Http2026,
}

pub const WAYS: [Way; 4] = [Way::Stdio2025, Way::Stdio2026, Way::Http2025, Way::Http2026];

impl Way {
    /// Whether requests go as 2026-07-28 requests, without a session.
    pub fn is_2026(self) -> bool {
        matches!(self, Way::Stdio2026 | Way::Http2026)
    }
}

/// A client of one server, one way.
pub struct Peer {
    way: Way,
    server: McpServer,
    stdio: Option<TestClient>,
    http: Option<(Arc<TestHttpServer>, Option<String>)>,
    next_id: i64,
}

impl Peer {
    /// A client of `server`, reaching it `way` (over HTTP, on a server of its own).
    pub async fn open(server: McpServer, way: Way) -> Peer {
        let http = match way {
            Way::Http2025 | Way::Http2026 => Some(Arc::new(
                TestHttpServer::start(server.clone(), HttpOptions::default()).await,
            )),
            _ => None,
        };
        Peer::to(server, http, way).await
    }

    /// Another client of the same server (a connection, or a session, of its own).
    pub async fn another(&self) -> Peer {
        Peer::to(
            self.server.clone(),
            self.http.as_ref().map(|h| h.0.clone()),
            self.way,
        )
        .await
    }

    async fn to(server: McpServer, http: Option<Arc<TestHttpServer>>, way: Way) -> Peer {
        let (stdio, http) = match (way, http) {
            (Way::Stdio2025, _) => {
                let client = TestClient::initialized(
                    server.clone(),
                    ProtocolVersion::V2025_11_25,
                    json!({}),
                )
                .await;
                (Some(client), None)
            }
            (Way::Stdio2026, _) => {
                let mut client = TestClient::connect(server.clone());
                client.expect_version(ProtocolVersion::V2026_07_28);
                (Some(client), None)
            }
            (Way::Http2025, Some(http)) => {
                let session = open_session(&http.url, "2025-11-25").await;
                (None, Some((http, Some(session))))
            }
            (_, http) => (None, Some((http.expect("an HTTP server"), None))),
        };
        Peer {
            way,
            server,
            stdio,
            http,
            next_id: 100,
        }
    }

    /// `method` with `params`: its result (without the `serverInfo` and `resultType` of a
    /// 2026-07-28 result) or its error.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.exchange(method, params).await.0
    }

    /// `method` with `params`: its outcome, and the notifications that came before it.
    pub async fn exchange(
        &mut self,
        method: &str,
        mut params: Value,
    ) -> (Result<Value, Value>, Vec<Value>) {
        if self.way.is_2026() {
            let meta = params
                .as_object_mut()
                .unwrap()
                .entry("_meta")
                .or_insert_with(|| json!({}));
            meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        }
        self.next_id += 1;
        let (outcome, notifications) = match (&mut self.stdio, &self.http) {
            (Some(client), _) => {
                let outcome = client.request(method, params.clone()).await;
                (outcome, client.take_notifications())
            }
            (None, Some((http, session))) => {
                let body = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                    "params": params});
                let mut request = post(&http.url, session.as_deref(), &body);
                if self.way.is_2026() {
                    request = request
                        .header("mcp-protocol-version", "2026-07-28")
                        .header("mcp-method", method);
                    let name = params.get("name").or_else(|| params.get("uri"));
                    if let Some(name) = name.and_then(Value::as_str) {
                        request = request.header("mcp-name", name);
                    }
                }
                let response = request.send().await.unwrap();
                assert_eq!(response.status(), StatusCode::OK, "{method}");
                let (replies, notifications): (Vec<Value>, Vec<Value>) = messages(response)
                    .await
                    .into_iter()
                    .partition(|m| m.get("id").is_some());
                let [reply] = <[Value; 1]>::try_from(replies).expect("one reply");
                let outcome = match reply.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(reply["result"].clone()),
                };
                (outcome, notifications)
            }
            _ => unreachable!("a peer has a transport"),
        };
        let outcome = outcome.map(|mut result| {
            let object = result.as_object_mut().unwrap();
            object.remove("resultType");
            if let Some(meta) = object.get_mut("_meta").and_then(Value::as_object_mut) {
                meta.remove("io.modelcontextprotocol/serverInfo");
                if meta.is_empty() {
                    object.remove("_meta");
                }
            }
            result
        });
        (outcome, notifications)
    }

    /// `tools/call` of `tool` with `arguments`, as [`request`](Self::request).
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Value> {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }
}

/// The JSON-RPC messages of a response: its JSON body, or the events of its SSE stream.
pub async fn messages(response: reqwest::Response) -> Vec<Value> {
    let streamed = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream");
    if !streamed {
        return vec![response.json().await.unwrap()];
    }
    SseReader::new(response)
        .all(Duration::from_secs(10))
        .await
        .iter()
        .filter_map(|event| event.json())
        .collect()
}
