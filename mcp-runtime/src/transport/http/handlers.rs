//! The POST, GET and DELETE handlers of the MCP endpoint.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::join_all;
use mcp_core::jsonrpc::{
    self, Incoming, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcRequest, RequestId,
};
use mcp_core::{ErrorObject, ProtocolVersion, render};
use tokio::sync::mpsc;

use super::sessions::Session;
use super::streams::{StreamEntry, sse_response};
use super::{HttpState, era};
use crate::server::{
    ConnectionState, MessageSink, Outbound, PeerGone, Reply, RequestTask, ServerMode, SharedSink,
};

/// The header that carries the session id.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
/// The header that carries the protocol revision.
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";

/// An HTTP error whose body is a JSON-RPC error response.
pub(crate) fn error_response(
    status: StatusCode,
    id: Option<RequestId>,
    error: ErrorObject,
    version: ProtocolVersion,
) -> Response {
    let body = render::to_string(&JsonRpcErrorResponse::new(id, error), version)
        .expect("protocol messages always serialize");
    json_response(status, body)
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A request refused before it reaches the server: an HTTP status and a JSON-RPC
/// `invalid request` error with `message`.
struct Refusal {
    status: StatusCode,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        refuse(self.status, self.message)
    }
}

fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    error_response(
        status,
        None,
        ErrorObject::invalid_request(message),
        ProtocolVersion::LATEST_HANDSHAKE,
    )
}

/// Whether the `Accept` header admits `media` (`type/subtype`), directly or by wildcard.
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|value| {
            value.split(',').any(|item| {
                let item = item.split(';').next().unwrap_or_default().trim();
                item.eq_ignore_ascii_case(media)
                    || item == "*/*"
                    || item
                        .strip_suffix("/*")
                        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(kind))
            })
        })
}

pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// The revision named in `MCP-Protocol-Version`: `Ok(None)` when absent, `Err` when unknown.
fn header_version(headers: &HeaderMap) -> Result<Option<ProtocolVersion>, String> {
    match header_str(headers, VERSION_HEADER) {
        None => Ok(None),
        Some(name) => ProtocolVersion::from_name(name)
            .map(Some)
            .ok_or_else(|| name.to_owned()),
    }
}

/// The refusal of a request with a bad `Host` or `Origin`, which every handler checks before
/// anything else.
fn bad_host(http: &HttpState, headers: &HeaderMap) -> Option<Response> {
    let (status, message) = http.options.host_policy.check(headers).err()?;
    Some(refuse(status, message))
}

/// The session a request names: 400 without the header, 404 for an unknown or ended session.
fn require_session(http: &HttpState, headers: &HeaderMap) -> Result<Arc<Session>, Refusal> {
    let Some(id) = header_str(headers, SESSION_HEADER) else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        ));
    };
    http.sessions.get(id).ok_or_else(|| {
        Refusal::new(
            StatusCode::NOT_FOUND,
            "Session not found: start a new one with initialize",
        )
    })
}

/// What arrived in a POST body.
struct Posted {
    requests: Vec<JsonRpcRequest>,
    others: Vec<JsonRpcMessage>,
    /// Answers to entries that are not valid messages (batches only).
    invalid: Vec<Reply>,
    batch: bool,
}

fn is_initialize(incoming: &Incoming) -> bool {
    matches!(incoming, Incoming::Message(JsonRpcMessage::Request(r)) if r.request.method == "initialize")
}

/// Splits what was posted; a batch from a peer not speaking 2025-03-26 is refused.
fn split(incoming: Incoming, version: ProtocolVersion) -> Result<Posted, Refusal> {
    let (entries, batch) = match incoming {
        Incoming::Message(message) => (vec![Ok(message)], false),
        Incoming::Batch(entries) if version.accepts_batches() => (entries, true),
        Incoming::Batch(_) => {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "JSON-RPC batches are accepted only from peers speaking 2025-03-26 (this one speaks {version})"
                ),
            ));
        }
        _ => (Vec::new(), false),
    };
    let mut posted = Posted {
        requests: Vec::new(),
        others: Vec::new(),
        invalid: Vec::new(),
        batch,
    };
    for entry in entries {
        match entry {
            Ok(JsonRpcMessage::Request(request))
                if batch && request.request.method == "initialize" =>
            {
                posted.invalid.push(Reply::error(
                    version,
                    Some(request.id),
                    ErrorObject::invalid_request("initialize must not be part of a batch"),
                ));
            }
            Ok(JsonRpcMessage::Request(request)) => posted.requests.push(request),
            Ok(other) => posted.others.push(other),
            Err(error) => posted.invalid.push(Reply::error(
                version,
                error.id().cloned(),
                ErrorObject::from(&error),
            )),
        }
    }
    Ok(posted)
}

/// The POST handler: one message or a batch.
pub(crate) async fn post(State(http): State<Arc<HttpState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    if let Some(refusal) = bad_host(&http, &headers) {
        return refusal;
    }
    if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        );
    }
    let json_body = header_str(&headers, header::CONTENT_TYPE.as_str()).is_some_and(|ct| {
        ct.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("application/json")
    });
    if !json_body {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    // An unknown version is refused below, once the body tells which era the request is of.
    let named_version = header_version(&headers);
    let header_version = named_version.clone().ok().flatten();
    let limit = http.options.body_limit;
    let body = match axum::body::to_bytes(body, limit).await {
        Ok(body) => body,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload Too Large: the body exceeds the limit of {limit} bytes"),
            );
        }
    };
    let incoming = match jsonrpc::parse(&body) {
        Ok(incoming) => incoming,
        Err(error) => {
            let version = header_version.unwrap_or(ProtocolVersion::V2025_03_26);
            return error_response(
                StatusCode::BAD_REQUEST,
                error.id().cloned(),
                ErrorObject::from(&error),
                version,
            );
        }
    };

    let stateless = era::is_stateless(&headers, header_version, &incoming);
    if let (false, Err(name)) = (stateless, &named_version) {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("Bad Request: unsupported MCP-Protocol-Version {name:?}"),
        );
    }
    let checked = match stateless.then(|| era::check(&http.server, &headers, &incoming)) {
        Some(Err(refusal)) => {
            return error_response(
                refusal.status,
                refusal.id,
                *refusal.error,
                ProtocolVersion::V2026_07_28,
            );
        }
        Some(Ok(checked)) => checked,
        None => None,
    };
    let (connection, session, new_session) = match http.server.mode() {
        // A 2026-07-28 request is served on its own, whatever the mode: that era has no session.
        _ if stateless => (
            ConnectionState::transient(ProtocolVersion::V2026_07_28),
            None,
            false,
        ),
        ServerMode::Stateful
            if is_initialize(&incoming) && header_str(&headers, SESSION_HEADER).is_none() =>
        {
            match http.sessions.create(&http.server, &http.streams).await {
                Ok(session) => (session.connection.clone(), Some(session), true),
                Err(_) => {
                    return refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Service Unavailable: too many sessions",
                    );
                }
            }
        }
        ServerMode::Stateful => match require_session(&http, &headers) {
            Ok(session) => (session.connection.clone(), Some(session), false),
            Err(refusal) => return refusal.into_response(),
        },
        _ => (
            ConnectionState::transient(header_version.unwrap_or(ProtocolVersion::V2025_03_26)),
            None,
            false,
        ),
    };
    let mut posted = match split(incoming, connection.version()) {
        Ok(posted) => posted,
        Err(refusal) => return refusal.into_response(),
    };
    for message in std::mem::take(&mut posted.others) {
        http.server.handle(message, &connection, None).await;
    }
    if posted.requests.is_empty() && posted.invalid.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    // `initialize` is answered in one piece, so that its session id goes out only once it succeeded.
    let stream = http.options.always_stream && !new_session;
    let mut response = respond(&http, connection, session.clone(), posted, checked, stream).await;
    if let (true, Some(session)) = (new_session, session) {
        if response.status().is_success() && session.connection.handshake().is_some() {
            if let Ok(value) = HeaderValue::from_str(&session.id) {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
        } else {
            // `initialize` failed: the session never started.
            http.sessions.end(&session.id, &http.streams).await;
        }
    }
    response
}

/// What the handlers of one POST send while they run.
enum PostEvent {
    Message(Box<Outbound>),
    Close(Duration),
}

/// The sink of one POST: messages go to its response stream.
struct PostSink(mpsc::UnboundedSender<PostEvent>);

impl MessageSink for PostSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        self.0
            .send(PostEvent::Message(Box::new(message)))
            .map_err(|_| PeerGone)
    }

    fn close_stream(&self, retry: Duration) -> bool {
        self.0.send(PostEvent::Close(retry)).is_ok()
    }
}

type Replies = Pin<Box<dyn Future<Output = Vec<Reply>> + Send>>;

/// Runs the requests of a POST (those of a 2026-07-28 POST `checked` by [`era::check`]) and
/// answers: with one JSON body when they finish without sending anything, otherwise (or when the
/// server always streams) with an SSE stream that carries what they send and then their replies.
async fn respond(
    http: &Arc<HttpState>,
    connection: Arc<ConnectionState>,
    session: Option<Arc<Session>>,
    posted: Posted,
    checked: Option<ProtocolVersion>,
    always_stream: bool,
) -> Response {
    let Posted {
        requests,
        invalid: mut ready,
        batch,
        ..
    } = posted;
    let (tx, mut events) = mpsc::unbounded_channel();
    let sink: SharedSink = Arc::new(PostSink(tx));
    let mut running = Vec::new();
    for request in requests {
        match http
            .server
            .start_checked_request(request, &connection, Some(sink.clone()), checked)
        {
            RequestTask::Answered(reply) => ready.push(*reply),
            RequestTask::Running(run) => running.push(run),
        }
    }
    drop(sink);
    let mut work: Replies = match running.len() {
        0 => Box::pin(std::future::ready(Vec::new())),
        1 => {
            let run = running.pop().expect("one request runs");
            Box::pin(async move { run.await.into_iter().collect() })
        }
        _ => Box::pin(async move { join_all(running).await.into_iter().flatten().collect() }),
    };
    if session.is_some() {
        // A session's requests finish even if the client goes away before they do: a
        // disconnection is not a cancellation. Without a session nothing could take the reply
        // later, so the requests run in this response's own task and stop with it.
        let task = tokio::spawn(work);
        work = Box::pin(async move { task.await.unwrap_or_default() });
    }
    if !always_stream {
        let mut replies = tokio::select! {
            finished = &mut work => finished,
            event = events.recv() => match event {
                Some(event) => {
                    return stream_replies(http, &connection, session, events, work, Some(event), ready).await;
                }
                // Every sink is gone: the handlers can send nothing more.
                None => (&mut work).await,
            },
        };
        return match events.try_recv() {
            // Nothing was sent: one JSON body.
            Err(_) => {
                replies.splice(0..0, ready);
                json_replies(replies, batch)
            }
            Ok(event) => {
                let done: Replies = Box::pin(std::future::ready(replies));
                stream_replies(http, &connection, session, events, done, Some(event), ready).await
            }
        };
    }
    stream_replies(http, &connection, session, events, work, None, ready).await
}

fn json_replies(replies: Vec<Reply>, batch: bool) -> Response {
    match (batch, replies.as_slice()) {
        (_, []) => StatusCode::ACCEPTED.into_response(),
        (false, [reply]) => json_response(era::status_of(reply), reply.render()),
        _ => {
            let parts: Vec<String> = replies.iter().map(Reply::render).collect();
            json_response(StatusCode::OK, format!("[{}]", parts.join(",")))
        }
    }
}

/// Answers with an SSE stream fed by `events`, then `replies`.
async fn stream_replies(
    http: &Arc<HttpState>,
    connection: &Arc<ConnectionState>,
    session: Option<Arc<Session>>,
    events: mpsc::UnboundedReceiver<PostEvent>,
    replies: Replies,
    first: Option<PostEvent>,
    ready: Vec<Reply>,
) -> Response {
    let version = connection.version();
    let entry = http.streams.open(session.is_some());
    if let Some(session) = &session {
        let forgotten = session.remember_stream(entry.id());
        http.streams.close(&forgotten).await;
    }
    let priming = (version >= ProtocolVersion::V2025_11_25).then_some(http.options.retry);
    let frames = match entry.attach(None, priming).await {
        Ok(frames) => frames,
        Err(_) => {
            return refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "a new stream is already attached",
            );
        }
    };
    tokio::spawn(pump(entry, events, replies, first, ready, version));
    // Without a session, nothing can resume the stream: a client that closes it (the way a
    // 2026-07-28 client ends `subscriptions/listen`, or gives up on a call) cancels the requests.
    let on_close = session.is_none().then(|| {
        let connection = connection.clone();
        Box::new(move || connection.close()) as Box<dyn FnOnce() + Send>
    });
    sse_response(frames, on_close)
}

/// Moves what the handlers send, then their replies, into the stream.
async fn pump(
    entry: Arc<StreamEntry>,
    mut events: mpsc::UnboundedReceiver<PostEvent>,
    mut replies: Replies,
    first: Option<PostEvent>,
    ready: Vec<Reply>,
    version: ProtocolVersion,
) {
    let forward = |event: PostEvent, entry: Arc<StreamEntry>| async move {
        match event {
            PostEvent::Message(message) => match message.render(version) {
                Ok(text) => entry.push(Arc::from(text)).await,
                Err(error) => tracing::warn!("dropped a message the request cannot carry: {error}"),
            },
            PostEvent::Close(retry) => entry.detach(retry).await,
        }
    };
    for reply in ready {
        entry.push(Arc::from(reply.render())).await;
    }
    if let Some(event) = first {
        forward(event, entry.clone()).await;
    }
    let mut open = true;
    let finished = loop {
        tokio::select! {
            biased;
            event = events.recv(), if open => match event {
                Some(event) => forward(event, entry.clone()).await,
                None => open = false,
            },
            finished = &mut replies => break finished,
        }
    };
    while let Ok(event) = events.try_recv() {
        forward(event, entry.clone()).await;
    }
    for reply in finished {
        entry.push(Arc::from(reply.render())).await;
    }
    entry.finish().await;
}

/// The GET handler: the standalone SSE stream, or the resumption of a stream after
/// `Last-Event-ID`.
pub(crate) async fn get(State(http): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Some(refusal) = bad_host(&http, &headers) {
        return refusal;
    }
    if !accepts(&headers, "text/event-stream") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the client must accept text/event-stream",
        );
    }
    if era::is_stateless_client(&headers) {
        return method_not_allowed("2026-07-28 has no standalone stream: use subscriptions/listen");
    }
    if http.server.mode() != ServerMode::Stateful {
        return method_not_allowed("this server is stateless: it has no standalone stream");
    }
    let session = match require_session(&http, &headers) {
        Ok(session) => session,
        Err(refusal) => return refusal.into_response(),
    };
    let version = session.connection.version();
    let priming = (version >= ProtocolVersion::V2025_11_25).then_some(http.options.retry);
    let resumed = header_str(&headers, "last-event-id")
        .and_then(|last| http.streams.find(last))
        .filter(|(entry, _)| session.owns_stream(entry.id()));
    let attached = match resumed {
        Some((entry, seq)) => entry.attach(Some(seq), priming).await,
        None => session.standalone.attach(None, priming).await,
    };
    match attached {
        Ok(frames) => sse_response(frames, None),
        Err(_) => refuse(
            StatusCode::CONFLICT,
            "Conflict: this stream is already open",
        ),
    }
}

fn method_not_allowed(message: &str) -> Response {
    let mut response = refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("Method Not Allowed: {message}"),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// The DELETE handler: ends a session.
pub(crate) async fn delete(State(http): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Some(refusal) = bad_host(&http, &headers) {
        return refusal;
    }
    if era::is_stateless_client(&headers) || http.server.mode() != ServerMode::Stateful {
        return method_not_allowed("this server is stateless: it has no sessions");
    }
    let Some(id) = header_str(&headers, SESSION_HEADER) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        );
    };
    if http.sessions.end(id, &http.streams).await {
        StatusCode::OK.into_response()
    } else {
        refuse(StatusCode::NOT_FOUND, "Session not found")
    }
}

/// Answers anything else.
pub(crate) async fn other_method(
    State(http): State<Arc<HttpState>>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = bad_host(&http, &headers) {
        return refusal;
    }
    let mut response = refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method Not Allowed: use POST, GET or DELETE",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}
