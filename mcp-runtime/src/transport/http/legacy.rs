//! The HTTP+SSE transport of 2024-11-05, which Streamable HTTP replaced and which older clients
//! still speak, served beside the MCP endpoint when [`HttpOptions::legacy_sse`] asks:
//!
//! - `GET …/sse` opens a connection: an event stream whose first event, `endpoint`, names the
//!   URI to POST messages to (`…/messages?sessionId=ID`), and whose `message` events carry the
//!   server's messages;
//! - `POST …/messages?sessionId=ID` takes one message (or a batch) and answers 202 Accepted; the
//!   answers go on the stream.
//!
//! Each connection is served as stdio is ([`serve_lines`]), over an in-memory pipe: the POSTed
//! messages are its input lines, its output lines the stream's events. The pipe's buffer bounds
//! what a connection holds; a POST waits while it is full. The connection ends when the stream
//! closes, or when the client has POSTed nothing for the session idle timeout
//! ([`HttpOptions::session_idle_timeout`](super::HttpOptions::session_idle_timeout)). Connections
//! count against the sessions' caps, in all and per client address
//! ([`HttpOptions::max_sessions_per_client`](super::HttpOptions::max_sessions_per_client)). Both
//! routes check `Host` and `Origin` as the MCP endpoint does. A server with
//! authorization does not serve this transport: the scopes of each tool are checked against the
//! token of each request, and a connection's messages carry none.
//!
//! [`HttpOptions::legacy_sse`]: super::HttpOptions::legacy_sse
//! [`serve_lines`]: crate::transport::lines::serve_lines

use crate::rt::Instant;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{OriginalUri, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use parking_lot::Mutex;
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};

use super::HttpState;
use super::extract::{AllowedHost, json_body};
use super::response::refuse;
use crate::random::random_id;
use crate::transport::lines::{LineOptions, serve_lines};

/// How many bytes of messages a connection holds in each direction before its writer waits.
const PIPE_BUFFER: usize = 64 * 1024;

/// The open connections, by session id.
#[derive(Default)]
pub(crate) struct LegacyConnections {
    open: Mutex<HashMap<String, Arc<Connection>>>,
}

/// One connection: where its POSTed messages go, who opened it, when it last got one.
struct Connection {
    input: tokio::sync::Mutex<WriteHalf<DuplexStream>>,
    client: Option<IpAddr>,
    active: Mutex<Instant>,
}

impl Connection {
    /// Waits until the connection has been idle for `timeout` (its client POSTed nothing).
    async fn idle(&self, timeout: Duration) {
        loop {
            let deadline = *self.active.lock() + timeout;
            if Instant::now() >= deadline {
                return;
            }
            crate::rt::sleep_until(deadline).await;
        }
    }
}

/// Forgets a connection when its stream is dropped.
struct Opened {
    http: Arc<HttpState>,
    id: String,
}

impl Drop for Opened {
    fn drop(&mut self) {
        self.http.legacy.open.lock().remove(&self.id);
    }
}

/// `GET …/sse`: a new connection, and its event stream.
pub(crate) async fn open(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    OriginalUri(uri): OriginalUri,
    request: Request,
) -> Response {
    let client = crate::handler::caller::client_address(request.extensions());
    let (connections, of_client) = {
        let open = http.legacy.open.lock();
        let of_client = open
            .values()
            .filter(|c| c.client.is_some() && c.client == client);
        (open.len(), of_client.count())
    };
    if connections + http.sessions.len() >= http.options.max_sessions {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many sessions; retry later",
        );
    }
    if let Some(max) = http.options.max_sessions_per_client
        && of_client >= max
    {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "Too Many Requests: this client already has the most connections one may have \
                 ({max}); close one first"
            ),
        );
    }
    let id = random_id::<16>();
    let (ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
    let (their_input, their_output) = tokio::io::split(theirs);
    let options = LineOptions::default().max_message_size(http.options.body_limit);
    crate::rt::spawn(serve_lines(
        http.server.clone(),
        their_input,
        their_output,
        options,
    ));
    let (output, input) = tokio::io::split(ours);
    let connection = Arc::new(Connection {
        input: tokio::sync::Mutex::new(input),
        client,
        active: Mutex::new(Instant::now()),
    });
    http.legacy
        .open
        .lock()
        .insert(id.clone(), connection.clone());
    let idle_timeout = http.options.session_idle_timeout;
    // The messages URI sits beside the stream's: `/sse` → `/messages`.
    let path = uri.path();
    let base = path.strip_suffix("sse").unwrap_or(path);
    let endpoint = named_event("endpoint", &format!("{base}messages?sessionId={id}"));
    let opened = Opened {
        http: http.clone(),
        id,
    };
    // Each line the connection writes is one message; the stream ends with the connection, or
    // once the client has been idle too long, and dropping it (the client went away) forgets
    // the connection, whose input then ends.
    let messages = futures_util::stream::unfold(
        (BufReader::new(output).lines(), opened, connection),
        move |(mut lines, opened, connection)| async move {
            let line = tokio::select! {
                line = lines.next_line() => line.ok().flatten()?,
                () = connection.idle(idle_timeout) => return None,
            };
            let event = named_event("message", &line);
            Some((Ok::<_, std::io::Error>(event), (lines, opened, connection)))
        },
    );
    let events = futures_util::stream::once(async move { Ok(endpoint) }).chain(messages);
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(events),
    )
        .into_response()
}

/// The `sessionId` of a POST.
#[derive(Deserialize)]
pub(crate) struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

/// `POST …/messages?sessionId=ID`: one message (or a batch) for the connection.
pub(crate) async fn post(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    Query(query): Query<SessionQuery>,
    request: Request,
) -> Response {
    let Some(id) = query.session_id else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the sessionId query parameter is required",
        );
    };
    let connection = http.legacy.open.lock().get(&id).cloned();
    let Some(connection) = connection else {
        return refuse(
            StatusCode::NOT_FOUND,
            "Session not found: open a new one with GET on the SSE endpoint",
        );
    };
    *connection.active.lock() = Instant::now();
    let (parts, body) = request.into_parts();
    let (body, _held) = match json_body(&http, &parts.headers, body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let Some(line) = one_line(body) else {
        return refuse(StatusCode::BAD_REQUEST, "Bad Request: the body is not JSON");
    };
    let mut input = connection.input.lock().await;
    if input.write_all(&line).await.is_err() {
        return refuse(
            StatusCode::NOT_FOUND,
            "Session not found: the connection ended",
        );
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

/// `body`, a JSON text, on one line and ended by a newline, as the line transport reads it; `None`
/// when it is not JSON. Checked without building it (the line transport parses it), and put on
/// one line in place: in JSON a line break can only be whitespace between tokens (one inside a
/// string is escaped), so a space stands for it.
fn one_line(mut body: Vec<u8>) -> Option<Vec<u8>> {
    serde_json::from_slice::<serde::de::IgnoredAny>(&body).ok()?;
    for byte in &mut body {
        if matches!(*byte, b'\n' | b'\r') {
            *byte = b' ';
        }
    }
    body.push(b'\n');
    Some(body)
}

/// An event named `event` with `data` (one line).
fn named_event(event: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}
