//! The client's Streamable HTTP transport (cargo feature `client-http`): every message is a
//! POST; the answer is a JSON body, or an SSE stream carrying what the server sends about the
//! request before its response. The session id the server hands out at `initialize` goes on
//! every later request; a stream that closes before the response is resumed with a GET and
//! `Last-Event-ID` after the server's `retry`. 2026-07-28 requests carry the `Mcp-Method` and
//! `Mcp-Name` headers their body mirrors.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_core::ErrorObject;
use mcp_core::jsonrpc::RequestId;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio::sync::mpsc;

use super::peer::Peer;

const SESSION_HEADER: &str = "mcp-session-id";
/// How often a stream that closed before its response is resumed.
const MAX_RESUMPTIONS: usize = 5;

/// The HTTP side of a client connection.
pub(crate) struct HttpChannel {
    client: reqwest::Client,
    url: String,
    session: Mutex<Option<String>>,
}

impl HttpChannel {
    /// A channel to the MCP endpoint at `url`.
    pub(crate) fn new(url: String) -> Self {
        HttpChannel {
            client: reqwest::Client::new(),
            url,
            session: Mutex::new(None),
        }
    }

    fn session(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Carries the peer's outgoing messages, each in its own POST, until the peer is gone; then
    /// ends the session.
    pub(crate) async fn drive(
        self: Arc<Self>,
        peer: Weak<Peer>,
        mut lines: mpsc::UnboundedReceiver<String>,
    ) {
        while let Some(line) = lines.recv().await {
            // A request's POST may stay open for the length of the call, so each runs on its
            // own; notifications and responses are answered at once and go out in order.
            if line_is_request(&line) {
                let (channel, peer) = (self.clone(), peer.clone());
                tokio::spawn(async move { channel.post(line, peer).await });
            } else {
                self.post(line, peer.clone()).await;
            }
        }
        if let Some(session) = self.session() {
            let _ = self
                .client
                .delete(&self.url)
                .header(SESSION_HEADER, session)
                .send()
                .await;
        }
    }

    /// The headers of a POST of `message` for `peer`'s revision.
    fn headers(&self, message: &Value, peer: &Peer) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let version = peer.version();
        if let Ok(value) = HeaderValue::from_str(version.as_str()) {
            headers.insert("mcp-protocol-version", value);
        }
        if let Some(session) = self.session().and_then(|s| HeaderValue::from_str(&s).ok()) {
            headers.insert(SESSION_HEADER, session);
        }
        if version.era() == mcp_core::Era::Modern
            && let Some(method) = message.get("method").and_then(Value::as_str)
        {
            if let Ok(value) = HeaderValue::from_str(method) {
                headers.insert("mcp-method", value);
            }
            let field = match method {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" => Some("uri"),
                _ => None,
            };
            let name = field
                .and_then(|f| message["params"].get(f))
                .and_then(Value::as_str);
            if let Some(value) = name.and_then(|n| HeaderValue::from_str(n).ok()) {
                headers.insert("mcp-name", value);
            }
        }
        headers
    }

    /// POSTs `line` and delivers what comes back.
    async fn post(&self, line: String, peer: Weak<Peer>) {
        let Some(live) = peer.upgrade() else { return };
        let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_some())
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let headers = self.headers(&message, &live);
        drop(live);
        let response = match self
            .client
            .post(&self.url)
            .headers(headers)
            .body(line)
            .send()
            .await
        {
            Ok(response) => response,
            Err(error) => return fail(&peer, id.as_ref(), format!("the POST failed: {error}")),
        };
        if let Some(session) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(session.to_owned());
        }
        let status = response.status();
        let streamed = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        if streamed {
            self.follow(response, &peer, id.as_ref()).await;
            return;
        }
        let body = response.text().await.unwrap_or_default();
        if body.trim().is_empty() {
            if !status.is_success() {
                fail(&peer, id.as_ref(), format!("the server answered {status}"));
            }
            return;
        }
        match peer.upgrade() {
            Some(peer) if serde_json::from_str::<Value>(&body).is_ok() => peer.deliver(&body),
            _ => fail(
                &peer,
                id.as_ref(),
                format!("the server answered {status}: {body}"),
            ),
        }
    }

    /// Delivers the events of an SSE `response`; when it closes before the response to `id`,
    /// resumes it with a GET after the server's `retry`, sending `Last-Event-ID`.
    async fn follow(
        &self,
        mut response: reqwest::Response,
        peer: &Weak<Peer>,
        id: Option<&RequestId>,
    ) {
        let mut last_event = None;
        let mut retry = Duration::from_secs(1);
        for _ in 0..=MAX_RESUMPTIONS {
            read_events(response, peer, &mut last_event, &mut retry).await;
            let waiting = id.is_some_and(|id| peer.upgrade().is_some_and(|p| p.is_pending(id)));
            let Some(last) = last_event.clone().filter(|_| waiting) else {
                return;
            };
            tokio::time::sleep(retry).await;
            let mut get = self
                .client
                .get(&self.url)
                .header(ACCEPT, "text/event-stream")
                .header("last-event-id", last);
            if let Some(session) = self.session() {
                get = get.header(SESSION_HEADER, session);
            }
            if let Some(live) = peer.upgrade() {
                get = get.header("mcp-protocol-version", live.version().as_str());
            }
            response = match get.send().await {
                Ok(response) if response.status().is_success() => response,
                Ok(response) => {
                    return fail(
                        peer,
                        id,
                        format!("resuming the stream failed: {}", response.status()),
                    );
                }
                Err(error) => {
                    return fail(peer, id, format!("resuming the stream failed: {error}"));
                }
            };
        }
        fail(
            peer,
            id,
            "the stream kept closing before the response".into(),
        );
    }
}

/// Reads the events of `response`, delivering their data, and noting the last event id and the
/// `retry` the server asked for.
async fn read_events(
    response: reqwest::Response,
    peer: &Weak<Peer>,
    last_event: &mut Option<String>,
    retry: &mut Duration,
) {
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut data = String::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find('\n') {
            let line: String = buffer.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !data.is_empty()
                    && let Some(peer) = peer.upgrade()
                {
                    peer.deliver(&data);
                }
                data.clear();
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" => {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(value);
                }
                "id" => *last_event = Some(value.to_owned()),
                "retry" => {
                    if let Ok(ms) = value.parse() {
                        *retry = Duration::from_millis(ms);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether the JSON-RPC message `line` is a request (it has both a method and an id).
fn line_is_request(line: &str) -> bool {
    serde_json::from_str::<Value>(line)
        .is_ok_and(|m| m.get("method").is_some() && m.get("id").is_some())
}

fn fail(peer: &Weak<Peer>, id: Option<&RequestId>, reason: String) {
    if let (Some(peer), Some(id)) = (peer.upgrade(), id) {
        peer.fail(id, ErrorObject::internal_error(reason));
    }
}
