//! The GET, DELETE and other handlers of the MCP endpoint (POST has [`post`](super::post) to
//! itself): the standalone stream, its resumption, and the end of a session.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_core::ProtocolVersion;
use mcp_core::headers::SESSION_HEADER;

use super::HttpState;
use super::extract::{AcceptsStream, AllowedHost};
use super::headers::{header_str, is_stateless_client};
use super::response::refuse;
use super::sessions::Session;
use super::streams::sse_response;
use crate::server::ServerMode;

/// A request the transport refuses: its status, and what the JSON-RPC error says.
pub(crate) struct Refused(StatusCode, &'static str);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        refuse(self.0, self.1)
    }
}

/// The session a request names: 400 without the header, 404 for an unknown or ended session.
pub(crate) fn require_session(
    http: &HttpState,
    headers: &HeaderMap,
) -> Result<Arc<Session>, Refused> {
    let Some(id) = header_str(headers, SESSION_HEADER) else {
        return Err(Refused(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        ));
    };
    http.sessions.get(id).ok_or(Refused(
        StatusCode::NOT_FOUND,
        "Session not found: start a new one with initialize",
    ))
}

/// The GET handler: the standalone SSE stream, or the resumption of a stream after
/// `Last-Event-ID`.
pub(crate) async fn get(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    _: AcceptsStream,
    headers: HeaderMap,
) -> Response {
    if is_stateless_client(&headers) {
        return method_not_allowed("2026-07-28 has no standalone stream: use subscriptions/listen");
    }
    if http.server.mode() != ServerMode::Stateful {
        return method_not_allowed("this server is stateless: it has no standalone stream");
    }
    let session = match require_session(&http, &headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
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
pub(crate) async fn delete(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    headers: HeaderMap,
) -> Response {
    if is_stateless_client(&headers) || http.server.mode() != ServerMode::Stateful {
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
pub(crate) async fn other_method(_: AllowedHost) -> Response {
    let mut response = refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method Not Allowed: use POST, GET or DELETE",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}
