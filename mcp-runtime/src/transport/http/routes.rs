//! The routes of the transport besides POST (which has [`post`](super::post) to itself): on the
//! MCP endpoint, GET (the standalone stream and its resumption), DELETE (the end of a session)
//! and 405 for any other method; and the protected resource metadata of an OAuth resource server.
//! Also the session lookup that POST shares.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_runtime_core::ProtocolVersion;
use mcp_runtime_core::headers::SESSION_HEADER;

use super::HttpState;
use super::extract::{AcceptsStream, AllowedHost, Authorized};
use super::headers::{Headers, header_str, header_version};
use super::response::{json_response, refuse, unavailable};
use super::sessions::Session;
use super::shared;
use super::streams::{Streams, sse_response};
use crate::auth::Principal;
use crate::server::authorization::declared_scopes;
use crate::server::{ServerMode, era_over_http};
use crate::store::SessionStoreError;

/// A request the transport refuses: its status and what the JSON-RPC error says, or the session
/// store's failure.
pub(crate) enum Refused {
    Status(StatusCode, &'static str),
    Unavailable(SessionStoreError),
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self {
            Refused::Status(status, message) => refuse(status, message),
            Refused::Unavailable(error) => unavailable(&error),
        }
    }
}

/// The session a request names: 400 without the header, 404 for an unknown or ended session,
/// or for one that another caller opened (sessions are bound to the [`Principal`] of the access
/// token that opened them, its issuer, subject and client: a session id presented by anyone else
/// is as good as unknown). When the instances share sessions, the store says whether it lives
/// (503 when it cannot be reached).
pub(crate) async fn require_session(
    http: &HttpState,
    headers: &HeaderMap,
    principal: Option<&Principal>,
) -> Result<Arc<Session>, Refused> {
    let Some(id) = header_str(headers, SESSION_HEADER) else {
        return Err(Refused::Status(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        ));
    };
    let found = match &http.options.session_store {
        None => http.sessions.get(id),
        Some(store) => shared::load(http, store.as_ref(), id)
            .await
            .map_err(Refused::Unavailable)?,
    };
    match found {
        Some(session) if session.principal.as_ref() == principal => Ok(session),
        Some(_) => {
            tracing::warn!("refused a session id presented by a caller other than its own");
            Err(Refused::Status(StatusCode::NOT_FOUND, SESSION_NOT_FOUND))
        }
        None => Err(Refused::Status(StatusCode::NOT_FOUND, SESSION_NOT_FOUND)),
    }
}

const SESSION_NOT_FOUND: &str = "Session not found: start a new one with initialize";

/// The GET handler: the standalone SSE stream, or the resumption of a stream after
/// `Last-Event-ID`.
pub(crate) async fn get(
    State(http): State<Arc<HttpState>>,
    _: AllowedHost,
    authorized: Authorized,
    _: AcceptsStream,
    headers: HeaderMap,
) -> Response {
    if stateless_client(&headers) {
        return method_not_allowed("2026-07-28 has no standalone stream: use subscriptions/listen");
    }
    if http.server.mode() != ServerMode::Stateful {
        return method_not_allowed("this server is stateless: it has no standalone stream");
    }
    let session = match require_session(&http, &headers, authorized.principal.as_ref()).await {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let version = session.connection.version();
    let priming = (version >= ProtocolVersion::V2025_11_25).then_some(http.options.retry);
    let last = header_str(&headers, "last-event-id");
    let resumed = last
        .and_then(|last| http.streams.find(last))
        .filter(|(entry, _)| session.owns_stream(entry.id()));
    let attached = match resumed {
        Some((entry, seq)) => entry.attach(Some(seq), priming).await,
        None => {
            // A stream that finished, or that another instance wrote: what the store kept of it.
            if let Some((stream, seq)) = last.and_then(Streams::parse_event_id)
                && let Some(frames) = http
                    .streams
                    .replay(
                        &session.id,
                        stream,
                        session.owns_stream(stream),
                        seq,
                        priming,
                    )
                    .await
            {
                return sse_response(frames, None);
            }
            session.standalone.attach(None, priming).await
        }
    };
    match attached {
        Ok(frames) => sse_response(frames.until(http.server.shutdown_token().clone()), None),
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
    authorized: Authorized,
    headers: HeaderMap,
) -> Response {
    if stateless_client(&headers) || http.server.mode() != ServerMode::Stateful {
        return method_not_allowed("this server is stateless: it has no sessions");
    }
    let session = match require_session(&http, &headers, authorized.principal.as_ref()).await {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let ended = match &http.options.session_store {
        Some(store) => match shared::end_everywhere(&http, store.as_ref(), &session.id).await {
            Ok(ended) => ended,
            Err(error) => return unavailable(&error),
        },
        None => http.sessions.end(&session.id, &http.streams).await,
    };
    if ended {
        StatusCode::OK.into_response()
    } else {
        refuse(StatusCode::NOT_FOUND, SESSION_NOT_FOUND)
    }
}

/// The protected resource metadata (RFC 9728), readable from any origin.
pub(crate) async fn resource_metadata(State(http): State<Arc<HttpState>>) -> Response {
    let Some(authorization) = &http.options.authorization else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let document = authorization.metadata(|| declared_scopes(&http.server));
    let mut response = json_response(StatusCode::OK, document.to_string());
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
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

/// Whether a GET or DELETE comes from a client of the stateless era (no session, a stateless-era
/// `MCP-Protocol-Version`), as the server decides: that era has neither a standalone stream nor
/// sessions to end.
fn stateless_client(headers: &HeaderMap) -> bool {
    let named = header_version(headers).ok().flatten();
    !era_over_http(&Headers(headers), named, None).keeps_state()
}
