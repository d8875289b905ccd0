//! The responses the transport writes itself: JSON bodies, and refusals with an HTTP status.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_runtime_core::{ErrorCode, ErrorObject, ProtocolVersion};

use crate::server::Reply;

/// A response with a JSON body.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
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

/// An HTTP error whose body is `reply`, a JSON-RPC error response.
pub(crate) fn error_reply(status: StatusCode, reply: &Reply) -> Response {
    json_response(status, reply.render())
}

/// A request refused before it reaches the server: an HTTP status and a JSON-RPC
/// `invalid request` error with `message`.
pub(crate) fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    let error = ErrorObject::invalid_request(message);
    error_reply(
        status,
        &Reply::error(ProtocolVersion::LATEST_HANDSHAKE, None, error),
    )
}

/// `response` with `Retry-After`: come back after `delay` (whole seconds, at least one).
pub(crate) fn retry_after(mut response: Response, delay: std::time::Duration) -> Response {
    let seconds = delay.as_secs().max(1);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// A request that needed the session store while it could not be reached: 503, and a JSON-RPC
/// internal error saying so.
pub(crate) fn unavailable(error: &crate::store::SessionStoreError) -> Response {
    let error = ErrorObject::internal_error(format!("{error}; try again shortly"));
    error_reply(
        StatusCode::SERVICE_UNAVAILABLE,
        &Reply::error(ProtocolVersion::LATEST_HANDSHAKE, None, error),
    )
}

/// The HTTP status of a reply sent as a JSON body: the one its era ties to its error code
/// ([`Era::http_status`](mcp_runtime_core::Era::http_status)), else 200.
pub(crate) fn status_of(reply: &Reply) -> StatusCode {
    reply
        .error_object()
        .and_then(|e| StatusCode::from_u16(reply.version.era().http_status(e.code)).ok())
        .unwrap_or(StatusCode::OK)
}

/// The HTTP status of a message the server refused as a whole: 404 for a method the revision
/// does not have, 400 for anything else.
pub(crate) fn refusal_status(reply: &Reply) -> StatusCode {
    match reply.error_object().map(|e| e.code) {
        Some(ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    }
}
