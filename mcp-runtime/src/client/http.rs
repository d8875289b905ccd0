//! The client's Streamable HTTP transport (cargo feature `client-http`): every message is a
//! POST; the answer is a JSON body, or an SSE stream carrying what the server sends about the
//! request before its response.
//!
//! On the handshake revisions the session id the server hands out at `initialize` goes on every
//! later request, a `404` on it means the server forgot the session (the client then opens a
//! fresh one), and a stream that closes before its response is resumed with a GET and
//! `Last-Event-ID` after the server's `retry`. On 2026-07-28 requests carry the `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-{Name}` headers their body mirrors, and a request is cancelled by
//! closing its stream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::meta::keys;
use mcp_runtime_core::{Era, ErrorObject};
use parking_lot::Mutex;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::peer::{Failure, Peer};
use super::tools::ToolCache;
use crate::sse::Decoder;
use mcp_runtime_core::headers::{
    METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER, encode_header_value, name_field,
};

/// The longest server-sent event the client reads; a longer one drops its stream.
const MAX_EVENT: usize = 64 * 1024 * 1024;
/// How often a stream that closed before its response is resumed.
const MAX_RESUMPTIONS: usize = 5;
/// How long the requests after the handshake wait for the server to answer the standalone GET.
const STANDALONE_WAIT: Duration = Duration::from_secs(5);

/// The HTTP side of a client connection.
pub(crate) struct HttpChannel {
    client: reqwest::Client,
    url: String,
    tools: Arc<ToolCache>,
    session: Mutex<Option<String>>,
    /// The POSTs of the requests still waiting, to abort when they are cancelled.
    inflight: Mutex<HashMap<RequestId, AbortHandle>>,
    /// The task following the standalone GET stream.
    standalone: Mutex<Option<AbortHandle>>,
    /// Whether the server answered a POST with success yet, and the 4xx status of a POST it
    /// refused before: what tells a server of the old HTTP+SSE transport.
    accepted: AtomicBool,
    refused: AtomicU16,
    /// Gets and presents the OAuth tokens, when the server is protected.
    #[cfg(feature = "client-auth")]
    auth: Option<super::oauth::Authorizer>,
}

impl HttpChannel {
    /// A channel to the MCP endpoint at `url` through `client`; `tools` gives the header
    /// annotations of the tools; `oauth` says how to authorize, when the server is protected.
    pub(crate) fn new(
        url: String,
        tools: Arc<ToolCache>,
        client: reqwest::Client,
        #[cfg(feature = "client-auth")] oauth: Option<super::oauth::OAuth>,
    ) -> Self {
        HttpChannel {
            #[cfg(feature = "client-auth")]
            auth: oauth
                .map(|oauth| super::oauth::Authorizer::new(oauth, url.clone(), client.clone())),
            client,
            url,
            tools,
            session: Mutex::new(None),
            inflight: Mutex::new(HashMap::new()),
            standalone: Mutex::new(None),
            accepted: AtomicBool::new(false),
            refused: AtomicU16::new(0),
        }
    }

    /// The 4xx status the server refused the POSTs with, when it accepted none: the spec's
    /// sign of a server of the HTTP+SSE transport of 2024-11-05 (backwards compatibility).
    pub(crate) fn refused_every_post(&self) -> Option<StatusCode> {
        if self.accepted.load(Ordering::Acquire) {
            return None;
        }
        StatusCode::from_u16(self.refused.load(Ordering::Acquire)).ok()
    }

    /// Sends the request `build` makes, with the connection's credentials; when the server
    /// refuses them and the authorizer can do something about it (new tokens, more scope, a
    /// DPoP nonce), builds and sends it again.
    async fn send(
        &self,
        peer: &Weak<Peer>,
        method: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, Failure> {
        #[cfg(feature = "client-auth")]
        if let Some(auth) = &self.auth {
            let mut attempts = super::oauth::Attempts::default();
            loop {
                let presented = auth
                    .credentials(method, &self.url)
                    .await
                    .map_err(Failure::Authorization)?;
                let mut request = build();
                for (name, value) in &presented.headers {
                    request = request.header(name, value);
                }
                let response = request.send().await.map_err(transport_failure)?;
                let status = response.status();
                if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
                    return Ok(response);
                }
                // The user may take a while at the authorization server: requests wait for
                // them rather than time out.
                let _busy = peer.upgrade().map(|peer| peer.authorizing());
                let again = auth
                    .refused(
                        status,
                        response.headers(),
                        &self.url,
                        &presented,
                        &mut attempts,
                    )
                    .await
                    .map_err(Failure::Authorization)?;
                if !again {
                    return Ok(response);
                }
            }
        }
        let _ = (peer, method);
        build().send().await.map_err(transport_failure)
    }

    fn session(&self) -> Option<String> {
        self.session.lock().clone()
    }

    /// Carries the peer's outgoing messages, each in its own POST, until the peer is gone; then
    /// ends the session.
    pub(crate) async fn drive(
        self: Arc<Self>,
        peer: Weak<Peer>,
        mut lines: mpsc::UnboundedReceiver<String>,
    ) {
        while let Some(line) = lines.recv().await {
            let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            let method = message.get("method").and_then(Value::as_str);
            let id = message
                .get("id")
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
            match (method, id) {
                // A request's POST may stay open for the length of the call, so each runs on
                // its own task, which a cancellation aborts.
                (Some(_), Some(id)) => {
                    let (channel, waiting) = (self.clone(), peer.clone());
                    let key = id.clone();
                    let task = tokio::spawn(async move {
                        channel.post(line, message, Some(id.clone()), waiting).await;
                        channel.inflight.lock().remove(&id);
                    });
                    self.inflight.lock().insert(key, task.abort_handle());
                }
                (Some("notifications/cancelled"), None) => {
                    let cancelled = message["params"]
                        .get("requestId")
                        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
                    if let Some(task) = cancelled.and_then(|id| self.inflight.lock().remove(&id)) {
                        task.abort();
                    }
                    // On 2026-07-28 closing the stream is the cancellation; before, the server
                    // hears of it in a notification.
                    let handshake = peer
                        .upgrade()
                        .is_some_and(|p| p.version().era() == Era::Handshake);
                    if handshake {
                        self.post(line, message, None, peer.clone()).await;
                    }
                }
                // After the handshake, what the server sends outside of any request comes on
                // the standalone stream.
                (Some("notifications/initialized"), None) => {
                    self.post(line, message, None, peer.clone()).await;
                    let (opened, answered) = oneshot::channel();
                    let task = tokio::spawn(self.clone().listen(peer.clone(), opened));
                    let previous = self.standalone.lock().replace(task.abort_handle());
                    if let Some(previous) = previous {
                        previous.abort();
                    }
                    // What follows goes out once the server has answered the GET: a server that
                    // sends something on its standalone stream while it handles the next request
                    // (an elicitation its tool makes without naming the request, say) then has
                    // the stream to send it on, instead of dropping it.
                    let _ = crate::rt::timeout(STANDALONE_WAIT, answered).await;
                }
                // Notifications and responses are answered at once and go out in order.
                _ => self.post(line, message, None, peer.clone()).await,
            }
        }
        for (_, task) in self.inflight.lock().drain() {
            task.abort();
        }
        if let Some(task) = self.standalone.lock().take() {
            task.abort();
        }
        if let Some(session) = self.session() {
            let _ = self
                .send(&peer, "DELETE", || {
                    self.client
                        .delete(&self.url)
                        .header(SESSION_HEADER, &session)
                })
                .await;
        }
    }

    /// Follows the standalone GET stream of a handshake-era session, reconnecting after the
    /// server's `retry` with `Last-Event-ID` when it closes, until the peer is gone; a server
    /// that offers no such stream (`405`, or any other refusal) is left alone.
    /// `opened` is told once the server has answered the first GET, whatever it answered.
    async fn listen(self: Arc<Self>, peer: Weak<Peer>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut last_event: Option<String> = None;
        let mut retry = Duration::from_secs(1);
        let mut failures = 0;
        loop {
            let Some(live) = peer.upgrade() else { return };
            let version = live.version();
            drop(live);
            let session = self.session();
            let answer = self
                .send(&peer, "GET", || {
                    let mut get = self
                        .client
                        .get(&self.url)
                        .header(ACCEPT, "text/event-stream")
                        .header(VERSION_HEADER, version.as_str());
                    if let Some(session) = &session {
                        get = get.header(SESSION_HEADER, session);
                    }
                    if let Some(last) = &last_event {
                        get = get.header("last-event-id", last);
                    }
                    get
                })
                .await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match answer {
                Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                    failures = 0;
                    read_events(response, &peer, None, &mut last_event, &mut retry).await;
                }
                Ok(response) => {
                    let status = response.status();
                    tracing::debug!(%status, "the server offers no standalone stream");
                    return;
                }
                Err(error) => {
                    failures += 1;
                    tracing::debug!(?error, "the standalone stream could not be opened");
                    if failures >= MAX_RESUMPTIONS {
                        return;
                    }
                }
            }
            crate::rt::sleep(retry).await;
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
            headers.insert(VERSION_HEADER, value);
        }
        if let Some(session) = self.session().and_then(|s| HeaderValue::from_str(&s).ok()) {
            headers.insert(SESSION_HEADER, session);
        }
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return headers;
        };
        // The trace context of `_meta` (SEP-414) also in the headers, for HTTP's own tracing.
        let meta = &message["params"]["_meta"];
        for key in [keys::TRACEPARENT, keys::TRACESTATE] {
            if let Some(value) = meta[key]
                .as_str()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                headers.insert(key, value);
            }
        }
        if version.era() != Era::Stateless {
            return headers;
        }
        let mut add = |name: &str, value: &str| {
            let value = encode_header_value(value);
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        };
        add(METHOD_HEADER, method);
        let params = &message["params"];
        let Some(field) = name_field(method) else {
            return headers;
        };
        if let Some(name) = params.get(field).and_then(Value::as_str) {
            add(NAME_HEADER, name);
            if method == "tools/call" {
                let arguments = params.get("arguments").unwrap_or(&Value::Null);
                for (header, value) in self.tools.param_headers(name, arguments) {
                    add(&header, &value);
                }
            }
        }
        headers
    }

    /// POSTs `line` (`message`, which is request `id` if it has one) and delivers what comes
    /// back.
    async fn post(&self, line: String, message: Value, id: Option<RequestId>, peer: Weak<Peer>) {
        let Some(live) = peer.upgrade() else { return };
        let headers = self.headers(&message, &live);
        let handshake = live.version().era() == Era::Handshake;
        drop(live);
        let sent_session = headers.contains_key(SESSION_HEADER);
        let id = id.as_ref();
        // Shared, not copied, when the request goes again with a new token.
        let body = bytes::Bytes::from(line);
        let response = match self
            .send(&peer, "POST", || {
                self.client
                    .post(&self.url)
                    .headers(headers.clone())
                    .body(body.clone())
            })
            .await
        {
            Ok(response) => response,
            Err(failure) => return fail_with(&peer, id, failure),
        };
        let status = response.status();
        if status.is_success() {
            self.accepted.store(true, Ordering::Release);
        } else if status.is_client_error() {
            self.refused.store(status.as_u16(), Ordering::Release);
        }
        // Only an answer the server accepted hands out a session: some servers (the Python
        // SDK's) put a fresh id on the 400 they answer a 2026-07-28 probe with, a session that
        // never existed.
        if let Some(session) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .filter(|_| status.is_success())
        {
            *self.session.lock() = Some(session.to_owned());
        }
        if status == StatusCode::NOT_FOUND && sent_session && handshake {
            // The server forgot the session: a request goes again after a fresh handshake. A
            // notification is lost; the session is kept, so that the next request finds it
            // forgotten too and renews it, rather than going out without one.
            if let (Some(peer), Some(id)) = (peer.upgrade(), id) {
                *self.session.lock() = None;
                peer.fail(id, Failure::SessionExpired);
            }
            return;
        }
        if is_event_stream(&response) {
            return self.follow(response, &peer, id, handshake).await;
        }
        // Kept for an error message only: a shared handle, not a copy, on every answer.
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .cloned();
        let body = response.text().await.unwrap_or_default();
        let Some(live) = peer.upgrade() else { return };
        let json = serde_json::from_str::<Value>(&body).ok();
        if let Some(value) = &json {
            // An error the server could not tie to a request (`"id": null`) is this request's.
            let untied = value.get("error").is_some() && value.get("id").is_none_or(Value::is_null);
            match (untied, id) {
                (true, Some(id)) => {
                    match serde_json::from_value::<ErrorObject>(value["error"].clone()) {
                        Ok(error) => live.fail(id, Failure::Server(error)),
                        Err(_) => live.deliver(&body, Some(id)),
                    }
                }
                _ => live.deliver(&body, id),
            }
        }
        if id.is_some_and(|id| live.is_pending(id)) {
            let content_type = content_type.as_ref().and_then(|v| v.to_str().ok());
            let detail = unexpected_answer(
                status,
                content_type.unwrap_or_default(),
                &body,
                json.as_ref(),
                &self.url,
            );
            fail(&peer, id, detail);
        }
    }

    /// Delivers the events of an SSE `response`; when it closes before the response to `id`,
    /// resumes it (handshake revisions) with a GET after the server's `retry`, sending
    /// `Last-Event-ID`.
    async fn follow(
        &self,
        mut response: reqwest::Response,
        peer: &Weak<Peer>,
        id: Option<&RequestId>,
        resumable: bool,
    ) {
        let mut last_event = None;
        let mut retry = Duration::from_secs(1);
        for _ in 0..=MAX_RESUMPTIONS {
            read_events(response, peer, id, &mut last_event, &mut retry).await;
            let waiting = id.is_some_and(|id| peer.upgrade().is_some_and(|p| p.is_pending(id)));
            if !waiting {
                return;
            }
            let Some(last) = last_event.clone().filter(|_| resumable) else {
                return fail(peer, id, "the stream closed before the response".into());
            };
            crate::rt::sleep(retry).await;
            let session = self.session();
            let version = peer.upgrade().map(|live| live.version());
            let resumed = self
                .send(peer, "GET", || {
                    let mut get = self
                        .client
                        .get(&self.url)
                        .header(ACCEPT, "text/event-stream")
                        .header("last-event-id", &last);
                    if let Some(session) = &session {
                        get = get.header(SESSION_HEADER, session);
                    }
                    if let Some(version) = version {
                        get = get.header(VERSION_HEADER, version.as_str());
                    }
                    get
                })
                .await;
            response = match resumed {
                Ok(response) if response.status().is_success() => response,
                Ok(response) => {
                    let status = response.status();
                    return fail(peer, id, format!("resuming the stream failed: {status}"));
                }
                Err(failure) => return fail_with(peer, id, failure),
            };
        }
        fail(
            peer,
            id,
            "the stream kept closing before the response".into(),
        );
    }
}

/// Whether `response` is an SSE stream.
fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"))
}

/// Reads the events of `response`, delivering their data, and noting the last event id and the
/// `retry` the server asked for; stops when the stream ends or breaks (an event over
/// [`MAX_EVENT`] breaks it), or once request `until` has its answer.
async fn read_events(
    response: reqwest::Response,
    peer: &Weak<Peer>,
    until: Option<&RequestId>,
    last_event: &mut Option<String>,
    retry: &mut Duration,
) {
    let mut stream = response.bytes_stream();
    let mut decoder = Decoder::new(MAX_EVENT);
    while let Some(Ok(chunk)) = stream.next().await {
        let events = decoder.feed(&chunk);
        if let Some(id) = decoder.last_event_id() {
            *last_event = Some(id.to_owned());
        }
        if let Some(asked) = decoder.retry() {
            *retry = asked;
        }
        let events = match events {
            Ok(events) => events,
            Err(error) => {
                tracing::warn!("dropped an SSE stream of the server: {error}");
                return;
            }
        };
        for event in events {
            if event.data.is_empty() {
                continue;
            }
            let Some(peer) = peer.upgrade() else { return };
            peer.deliver(&event.data, until);
            if until.is_some_and(|id| !peer.is_pending(id)) {
                return;
            }
        }
    }
}

/// Fails request `id`, if there is one, for a reason of the transport.
fn fail(peer: &Weak<Peer>, id: Option<&RequestId>, reason: String) {
    fail_with(peer, id, Failure::Transport(reason));
}

/// Fails request `id`, if there is one, with `failure`.
fn fail_with(peer: &Weak<Peer>, id: Option<&RequestId>, failure: Failure) {
    if let (Some(peer), Some(id)) = (peer.upgrade(), id) {
        peer.fail(id, failure);
    }
}

/// The failure of a request that could not be sent.
fn transport_failure(error: reqwest::Error) -> Failure {
    let mut detail = format!("the request failed: {error}");
    // reqwest's message leaves out the cause ("connection refused"): name it.
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    Failure::Transport(detail)
}

/// Longest part of an unexpected body quoted in an error.
const QUOTED_BODY: usize = 200;

/// Says, on one line, what came back instead of an answer to a request: nothing, a JSON
/// document that is not one, or something that is not MCP at all (an HTML error page, say).
/// When the URL is probably not the server's MCP endpoint (no such path or method, or an answer
/// that is not MCP), it says so.
fn unexpected_answer(
    status: StatusCode,
    content_type: &str,
    body: &str,
    json: Option<&Value>,
    url: &str,
) -> String {
    let hint = format!("check that {url} is the server's MCP endpoint");
    let no_endpoint = matches!(
        status,
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED | StatusCode::NOT_IMPLEMENTED
    );
    if body.trim().is_empty() {
        return match no_endpoint {
            true => format!("the server answered {status} without a response: {hint}"),
            false => format!("the server answered {status} without a response"),
        };
    }
    if let Some(value) = json {
        return format!(
            "the server answered {status}: {}",
            quoted(&value.to_string())
        );
    }
    let what = if content_type.starts_with("text/html") {
        "an HTML page".to_owned()
    } else {
        format!("\"{}\"", quoted(body))
    };
    format!("the server answered {status} with {what}, not MCP: {hint}")
}

/// `text` on one line (runs of whitespace become one space), cut to [`QUOTED_BODY`] chars.
fn quoted(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(QUOTED_BODY) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unexpected_answer_is_told_on_one_line() {
        let url = "http://127.0.0.1:8000/";
        let status = StatusCode::NOT_IMPLEMENTED;
        let page = "<!DOCTYPE HTML>\n<html>\n<body>Unsupported method</body>\n</html>\n";
        assert_eq!(
            unexpected_answer(status, "text/html;charset=utf-8", page, None, url),
            "the server answered 501 Not Implemented with an HTML page, not MCP: check that \
             http://127.0.0.1:8000/ is the server's MCP endpoint"
        );
        assert_eq!(
            unexpected_answer(
                StatusCode::NOT_FOUND,
                "text/plain",
                "404 page\n  not found\n",
                None,
                url
            ),
            "the server answered 404 Not Found with \"404 page not found\", not MCP: check that \
             http://127.0.0.1:8000/ is the server's MCP endpoint"
        );
        let json = serde_json::json!({"hello": "world"});
        assert_eq!(
            unexpected_answer(
                StatusCode::OK,
                "application/json",
                "{\n \"hello\": \"world\"\n}",
                Some(&json),
                url
            ),
            "the server answered 200 OK: {\"hello\":\"world\"}"
        );
        assert_eq!(
            unexpected_answer(StatusCode::BAD_GATEWAY, "", " \n", None, url),
            "the server answered 502 Bad Gateway without a response"
        );
        assert_eq!(
            unexpected_answer(StatusCode::NOT_FOUND, "", "", None, url),
            "the server answered 404 Not Found without a response: check that \
             http://127.0.0.1:8000/ is the server's MCP endpoint"
        );
        let long = "x".repeat(500);
        let told = unexpected_answer(StatusCode::OK, "text/plain", &long, None, url);
        assert!(
            told.contains(&format!("\"{}…\"", "x".repeat(QUOTED_BODY))),
            "{told}"
        );
    }
}
