//! The POST handler: what a client sends, admitted by the server, and the answer as one JSON
//! body or as an SSE stream of what the handlers send and then their replies.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::join_all;
use mcp_runtime_core::ProtocolVersion;
use mcp_runtime_core::headers::SESSION_HEADER;
use mcp_runtime_core::jsonrpc::{Incoming, JsonRpcMessage};
use tracing::Instrument;

use super::HttpState;
use super::extract::{AcceptsPost, AllowedHost, Authorized, JsonRpcPost, insufficient_scope};
use super::headers::{header_str, header_version};
use super::queue::{Queue, Reader, Weigh};
use super::response::{
    error_reply, json_response, refusal_status, refuse, retry_after, status_of, unavailable,
};
use super::routes::require_session;
use super::sessions::{ClientKey, Session, TooManySessions};
use super::shared;
use super::streams::{StreamEntry, sse_response};
use crate::handler::HttpRequest;
use crate::memory::EVENT_OVERHEAD;
use crate::server::{
    Admission, Answer, ConnectionState, Envelope, MessageSink, Outbound, PeerGone, Reply,
    SendFuture, ServerMode, SharedSink, busy, era_over_http, render_batch,
};
use crate::spans;

/// The POST handler: one message or a batch, admitted by the server, answered as JSON or as a
/// stream.
pub(crate) async fn post(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    authorized: Authorized,
    _: AcceptsPost,
    JsonRpcPost { parts, incoming }: JsonRpcPost,
) -> Response {
    // The POST in a span of its own, with the spans of its MCP messages inside.
    let span = spans::http_request(&parts.method, &parts.uri);
    #[cfg(feature = "otel")]
    crate::telemetry::continue_http_trace(&span, &parts.headers);
    let recorder = span.clone();
    let response = answer(http, authorized, HttpRequest::new(parts), incoming)
        .instrument(span)
        .await;
    spans::record_http_status(&recorder, response.status());
    response
}

/// What the POST of `request`, carrying `incoming`, is answered with.
async fn answer(
    http: Arc<HttpState>,
    authorized: Authorized,
    request: HttpRequest,
    incoming: Incoming,
) -> Response {
    let headers = &request.headers;
    // An unknown version is refused unless the request is of 2026-07-28, whose admission checks
    // the header against `_meta`.
    let named_version = header_version(headers);
    let header_version = named_version.clone().ok().flatten();
    let era = era_over_http(&request, header_version, Some(&incoming));
    if let (true, Err(name)) = (era.keeps_state(), &named_version) {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("Bad Request: unsupported MCP-Protocol-Version {name:?}"),
        );
    }
    let initialize = matches!(&incoming, Incoming::Message(JsonRpcMessage::Request(r)) if r.request.method == "initialize");
    let (connection, session, new_session) = match http.server.mode() {
        // A stateless-era request is served on its own, whatever the mode: it has no session.
        _ if !era.keeps_state() => (ConnectionState::transient(era.latest()), None, false),
        ServerMode::Stateful if initialize && header_str(headers, SESSION_HEADER).is_none() => {
            let principal = authorized.principal.clone();
            let client = match &principal {
                Some(principal) => Some(ClientKey::Principal(principal.clone())),
                None => request.client_address().map(ClientKey::Address),
            };
            match http
                .sessions
                .create(&http.server, &http.streams, principal, client)
                .await
            {
                Ok(session) => (session.connection.clone(), Some(session), true),
                Err(TooManySessions::InAll) => {
                    return refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Service Unavailable: too many sessions",
                    );
                }
                Err(TooManySessions::ForClient(max)) => {
                    return refuse(
                        StatusCode::TOO_MANY_REQUESTS,
                        format!(
                            "Too Many Requests: this client already has as many sessions as it \
                             may ({max}), each with a request in flight or an open stream; end \
                             one (DELETE) or use it, rather than opening another"
                        ),
                    );
                }
            }
        }
        ServerMode::Stateful => {
            match require_session(&http, headers, authorized.principal.as_ref()).await {
                Ok(session) => (session.connection.clone(), Some(session), false),
                Err(refused) => return refused.into_response(),
            }
        }
        _ => (
            ConnectionState::transient(header_version.unwrap_or(ProtocolVersion::V2025_03_26)),
            None,
            false,
        ),
    };
    // A session's request that the memory budget has no room for is refused before it is read
    // further (a batch's requests are refused one by one, with an error).
    if let Incoming::Message(JsonRpcMessage::Request(request)) = &incoming
        && !connection.make_room_for_request()
    {
        if let Some(session) = session.filter(|_| new_session) {
            http.sessions.end(&session.id, &http.streams).await;
        }
        let reply = busy(connection.version(), Some(request.id.clone()));
        return retry_after(
            error_reply(StatusCode::SERVICE_UNAVAILABLE, &reply),
            Duration::from_secs(1),
        );
    }
    let (queue, events) = Queue::new(http.options.stream_buffer, http.streams.pool().clone());
    let sink: SharedSink = Arc::new(PostSink {
        queue,
        connection: connection.clone(),
    });
    let admission = {
        let envelope = Envelope::bare().with_http_request(request.clone());
        let envelope = match authorized.token {
            Some(token) => envelope.authorized(token),
            None => envelope,
        };
        http.server
            .admit(incoming, &connection, Some(sink), envelope)
    };
    if let Some(refusal) = admission.refusal() {
        if let Some(session) = session.filter(|_| new_session) {
            http.sessions.end(&session.id, &http.streams).await;
        }
        if let (Some(scopes), Some(authorization)) =
            (admission.insufficient_scope(), &http.options.authorization)
        {
            return insufficient_scope(authorization, scopes, refusal);
        }
        return error_reply(refusal_status(refusal), refusal);
    }
    if admission.is_empty() {
        // A notification or a response: what it changed, or must travel to another instance,
        // is passed on before the client hears that it was taken.
        if let (Some(store), Some(session)) = (&http.options.session_store, &session) {
            shared::pass_on(store.as_ref(), &session.id, &connection).await;
        }
        return StatusCode::ACCEPTED.into_response();
    }
    // `initialize` is answered in one piece, so that its session id goes out only once it succeeded.
    let stream = http.options.always_stream && !new_session;
    let mut response = respond(
        &http,
        connection,
        session.clone(),
        admission,
        events,
        stream,
    )
    .await;
    if let (true, Some(session)) = (new_session, session) {
        if response.status().is_success() && session.connection.handshake().is_some() {
            if let Some(store) = &http.options.session_store
                && let Err(error) = shared::keep(&http, store.as_ref(), &session).await
            {
                http.sessions.end(&session.id, &http.streams).await;
                return unavailable(&error);
            }
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
    /// A message, rendered for the request's revision.
    Message(Arc<str>),
    Close(Duration),
}

impl Weigh for PostEvent {
    fn weight(&self) -> usize {
        EVENT_OVERHEAD
            + match self {
                PostEvent::Message(text) => text.len(),
                PostEvent::Close(_) => 0,
            }
    }
}

/// The sink of one POST: messages are rendered for the connection's revision as they are sent
/// (so that they are weighed in the memory budget while they wait), and go to its response
/// stream. The last handle dropped ends the queue: the handlers can send nothing more.
struct PostSink {
    queue: Arc<Queue<PostEvent>>,
    connection: Arc<ConnectionState>,
}

impl PostSink {
    /// `message` as the stream carries it; `None` (and a warning) when the revision cannot.
    fn render(&self, message: &Outbound) -> Option<PostEvent> {
        match message.render(self.connection.version()) {
            Ok(text) => Some(PostEvent::Message(Arc::from(text))),
            Err(error) => {
                tracing::warn!("dropped a message the request cannot carry: {error}");
                None
            }
        }
    }
}

impl Drop for PostSink {
    fn drop(&mut self) {
        self.queue.close();
    }
}

impl MessageSink for PostSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        match self.render(&message) {
            Some(event) => self.queue.try_push(event).map_err(|_| PeerGone),
            None => Ok(()),
        }
    }

    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        let event = self.render(&message);
        Box::pin(async move {
            match event {
                Some(event) => self.queue.push(event).await.map_err(|_| PeerGone),
                None => Ok(()),
            }
        })
    }

    fn close_stream(&self, retry: Duration) -> bool {
        self.queue.try_push(PostEvent::Close(retry)).is_ok()
    }
}

type Replies = Pin<Box<dyn Future<Output = Vec<Reply>> + Send>>;

/// Runs the requests the server admitted and answers: with one JSON body when they finish
/// without sending anything, otherwise (or when the server always streams) with an SSE stream
/// that carries what they send and then their replies. `events` carries what the handlers send.
async fn respond(
    http: &Arc<HttpState>,
    connection: Arc<ConnectionState>,
    session: Option<Arc<Session>>,
    admission: Admission,
    mut events: Reader<PostEvent>,
    always_stream: bool,
) -> Response {
    let batch = admission.is_batch();
    let (mut ready, mut running) = (Vec::new(), Vec::new());
    for answer in admission {
        match answer {
            Answer::Ready(reply) => ready.push(*reply),
            Answer::Running(work) => running.push(work),
        }
    }
    let mut work: Replies = match running.len() {
        0 => Box::pin(std::future::ready(Vec::new())),
        1 => {
            let run = running.pop().expect("one request runs");
            Box::pin(async move { run.await.into_iter().collect() })
        }
        _ => Box::pin(async move { join_all(running).await.into_iter().flatten().collect() }),
    };
    if let (Some(store), Some(session)) = (&http.options.session_store, &session) {
        // What the requests changed is saved before their replies go out.
        let (store, id, connection) = (store.clone(), session.id.clone(), connection.clone());
        work = Box::pin(async move {
            let replies = work.await;
            shared::pass_on(store.as_ref(), &id, &connection).await;
            replies
        });
    }
    if session.is_some() {
        // A session's requests finish even if the client goes away before they do: a
        // disconnection is not a cancellation. Without a session nothing could take the reply
        // later, so the requests run in this response's own task and stop with it.
        let task = crate::rt::spawn(work);
        work = Box::pin(async move { task.await.unwrap_or_default() });
    }
    if !always_stream {
        let mut replies = tokio::select! {
            finished = &mut work => finished,
            event = events.next() => match event {
                Some(event) => {
                    return stream_replies(http, &connection, session, events, work, Some(event), ready).await;
                }
                // Every sink is gone: the handlers can send nothing more.
                None => (&mut work).await,
            },
        };
        return match events.try_next() {
            // Nothing was sent: one JSON body.
            None => {
                replies.splice(0..0, ready);
                json_replies(replies, batch)
            }
            Some(event) => {
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
        (false, [reply]) => json_response(status_of(reply), reply.render()),
        _ => json_response(StatusCode::OK, render_batch(&replies)),
    }
}

/// Answers with an SSE stream fed by `events`, then `replies`.
async fn stream_replies(
    http: &Arc<HttpState>,
    connection: &Arc<ConnectionState>,
    session: Option<Arc<Session>>,
    events: Reader<PostEvent>,
    replies: Replies,
    first: Option<PostEvent>,
    ready: Vec<Reply>,
) -> Response {
    let version = connection.version();
    let entry = http.streams.open(session.as_ref().map(|s| s.id.as_str()));
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
    crate::rt::spawn(pump(http.clone(), entry, events, replies, first, ready));
    // Without a session, nothing can resume the stream: a client that closes it (the way a
    // 2026-07-28 client ends `subscriptions/listen`, or gives up on a call) cancels the requests.
    let on_close = session.is_none().then(|| {
        let connection = connection.clone();
        Box::new(move || connection.close()) as Box<dyn FnOnce() + Send>
    });
    sse_response(frames, on_close)
}

/// Moves what the handlers send, then their replies, into the stream; then lets go of it (the
/// store keeps its events for a client that resumes it).
async fn pump(
    http: Arc<HttpState>,
    entry: Arc<StreamEntry>,
    mut events: Reader<PostEvent>,
    mut replies: Replies,
    first: Option<PostEvent>,
    ready: Vec<Reply>,
) {
    let forward = |event: PostEvent, entry: Arc<StreamEntry>| async move {
        match event {
            PostEvent::Message(text) => entry.push(text).await,
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
            event = events.next(), if open => match event {
                Some(event) => forward(event, entry.clone()).await,
                None => open = false,
            },
            finished = &mut replies => break finished,
        }
    };
    while let Some(event) = events.try_next() {
        forward(event, entry.clone()).await;
    }
    for reply in finished {
        entry.push(Arc::from(reply.render())).await;
    }
    entry.finish().await;
    http.streams.forget(entry.id());
}
