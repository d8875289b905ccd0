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
//! closes. Both routes check `Host` and `Origin` as the MCP endpoint does. A server with
//! authorization does not serve this transport: the scopes of each tool are checked against the
//! token of each request, and a connection's messages carry none.
//!
//! [`HttpOptions::legacy_sse`]: super::HttpOptions::legacy_sse
//! [`serve_lines`]: crate::transport::lines::serve_lines

use std::collections::HashMap;
use std::sync::Arc;

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
use super::streams::random_id;
use crate::transport::lines::{LineOptions, serve_lines};

/// How many bytes of messages a connection holds in each direction before its writer waits.
const PIPE_BUFFER: usize = 64 * 1024;

/// The open connections, by session id.
#[derive(Default)]
pub(crate) struct LegacyConnections {
    open: Mutex<HashMap<String, Arc<Connection>>>,
}

/// One connection: where its POSTed messages go.
struct Connection {
    input: tokio::sync::Mutex<WriteHalf<DuplexStream>>,
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
) -> Response {
    let connections = http.legacy.open.lock().len();
    if connections + http.sessions.len() >= http.options.max_sessions {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many sessions; retry later",
        );
    }
    let id = random_id(16);
    let (ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
    let (their_input, their_output) = tokio::io::split(theirs);
    let options = LineOptions::default().max_message_size(http.options.body_limit);
    tokio::spawn(serve_lines(
        http.server.clone(),
        their_input,
        their_output,
        options,
    ));
    let (output, input) = tokio::io::split(ours);
    http.legacy.open.lock().insert(
        id.clone(),
        Arc::new(Connection {
            input: tokio::sync::Mutex::new(input),
        }),
    );
    // The messages URI sits beside the stream's: `/sse` → `/messages`.
    let path = uri.path();
    let base = path.strip_suffix("sse").unwrap_or(path);
    let endpoint = named_event("endpoint", &format!("{base}messages?sessionId={id}"));
    let opened = Opened {
        http: http.clone(),
        id,
    };
    // Each line the connection writes is one message; the stream ends with the connection,
    // and dropping it (the client went away) forgets the connection, whose input then ends.
    let messages = futures_util::stream::unfold(
        (BufReader::new(output).lines(), opened),
        |(mut lines, opened)| async move {
            let line = lines.next_line().await.ok().flatten()?;
            let event = named_event("message", &line);
            Some((Ok::<_, std::io::Error>(event), (lines, opened)))
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
