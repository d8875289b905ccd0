//! Which era a POST belongs to, and the checks a 2026-07-28 POST passes before it is dispatched.
//!
//! One endpoint serves both eras (the "dual-era" server of the 2026-07-28 versioning page): a
//! POST that names a session, or that carries neither a 2026-07-28 `MCP-Protocol-Version` header
//! nor a protocol version in its `_meta`, follows the handshake era; any other is a 2026-07-28
//! request, served on its own. Such a request is refused, in this order, when
//!
//! 1. its `MCP-Protocol-Version` header is missing (`-32020`, HTTP 400);
//! 2. its params lack `_meta`, or `_meta` lacks the protocol version or the client capabilities
//!    (`-32602`, HTTP 400);
//! 3. the header and `_meta` name different versions (`-32020`, HTTP 400);
//! 4. the server does not speak that version (`-32022` with the supported versions, HTTP 400);
//! 5. its method is not one of the revision's client requests, or was removed by it (`-32601`,
//!    HTTP 404);
//! 6. its `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` headers disagree with the body (`-32020`,
//!    HTTP 400; see [`headers`](super::headers)).

use axum::http::{HeaderMap, StatusCode};
use mcp_core::jsonrpc::{Incoming, JsonRpcMessage, Params, RequestId};
use mcp_core::{Era, ErrorCode, ErrorObject, ProtocolVersion};
use serde_json::Value;

use super::handlers::{SESSION_HEADER, VERSION_HEADER, header_str};
use super::headers;
use crate::server::{McpServer, Reply, stateless};

/// Whether a POST is a 2026-07-28 request (see the module docs).
pub(crate) fn is_stateless(
    headers: &HeaderMap,
    header_version: Option<ProtocolVersion>,
    incoming: &Incoming,
) -> bool {
    if header_str(headers, SESSION_HEADER).is_some() {
        return false;
    }
    if header_version.is_some_and(|v| v.era() == Era::Stateless) {
        return true;
    }
    stateless::Meta::of(message_parts(incoming).and_then(|(_, _, params)| params)).is_stateless()
}

/// Whether a GET or DELETE comes from a 2026-07-28 client (no session, a 2026-07-28
/// `MCP-Protocol-Version` header): that revision has neither, so it gets 405.
pub(crate) fn is_stateless_client(headers: &HeaderMap) -> bool {
    header_str(headers, SESSION_HEADER).is_none()
        && header_str(headers, VERSION_HEADER)
            .and_then(ProtocolVersion::from_name)
            .is_some_and(|v| v.era() == Era::Stateless)
}

/// The HTTP status of a reply sent as a JSON body: a 2026-07-28 error the revision ties to a
/// status gets it (`-32601` 404; `-32020`, `-32021` and `-32022` 400), anything else 200.
pub(crate) fn status_of(reply: &Reply) -> StatusCode {
    let stateless = reply.version.era() == Era::Stateless;
    match reply.error_object().map(|e| e.code) {
        Some(ErrorCode::METHOD_NOT_FOUND) if stateless => StatusCode::NOT_FOUND,
        Some(
            ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        ) if stateless => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// A 2026-07-28 request that is refused before dispatch.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) status: StatusCode,
    /// The id of the request, when it has one.
    pub(crate) id: Option<RequestId>,
    pub(crate) error: Box<ErrorObject>,
}

/// The id (for requests), method and params of a single message.
fn message_parts(incoming: &Incoming) -> Option<(Option<&RequestId>, &str, Option<&Params>)> {
    match incoming {
        Incoming::Message(JsonRpcMessage::Request(request)) => Some((
            Some(&request.id),
            request.request.method.as_str(),
            request.request.params.as_ref(),
        )),
        Incoming::Message(JsonRpcMessage::Notification(notification)) => Some((
            None,
            notification.notification.method.as_str(),
            notification.notification.params.as_ref(),
        )),
        _ => None,
    }
}

/// Checks a 2026-07-28 POST (see the module docs for what and in which order). A request that
/// passes gets the revision it is answered in, for the dispatcher, which then need not read its
/// `_meta` again.
pub(crate) fn check(
    server: &McpServer,
    headers: &HeaderMap,
    incoming: &Incoming,
) -> Result<Option<ProtocolVersion>, Refused> {
    let Some((id, method, params)) = message_parts(incoming) else {
        return Ok(None);
    };
    let refuse = |status, error| Refused {
        status,
        id: id.cloned(),
        error: Box::new(error),
    };
    let bad = |error| refuse(StatusCode::BAD_REQUEST, error);
    let Some(header) = header_str(headers, VERSION_HEADER) else {
        return Err(bad(ErrorObject::header_mismatch(
            "Header mismatch: the MCP-Protocol-Version header is missing",
        )));
    };
    // The member `Mcp-Name` names and `_meta`, in one reading of the params.
    let (name, meta) = match (params, headers::name_field(method)) {
        (None, _) => (None, None),
        (Some(params), Some(field)) => params
            .members([field, "_meta"])
            .map_or((None, None), |[name, meta]| (name, meta)),
        (Some(params), None) => (None, params.members(["_meta"]).and_then(|[meta]| meta)),
    };
    let name = name.and_then(|name| serde_json::from_str::<String>(name.get()).ok());
    // Responses and notifications carry no per-request metadata.
    if id.is_none() {
        return headers::check_standard(headers, method, name.as_deref())
            .map(|()| None)
            .map_err(|e| bad(e.into()));
    }
    let requested = stateless::Meta::in_member(meta)
        .requested_version()
        .map_err(bad)?;
    if requested != header {
        return Err(bad(ErrorObject::header_mismatch(format!(
            "Header mismatch: MCP-Protocol-Version header value {header:?} does not match _meta value {requested:?}"
        ))));
    }
    let version = match stateless::check_version_and_method(
        &requested,
        method,
        server.supported_versions(),
    ) {
        Ok(version) => version,
        Err(error) => {
            let status = if error.code == ErrorCode::METHOD_NOT_FOUND {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::BAD_REQUEST
            };
            return Err(refuse(status, error));
        }
    };
    headers::check_standard(headers, method, name.as_deref()).map_err(|e| bad(e.into()))?;
    if method == "tools/call" {
        check_tool_params(server, headers, name.as_deref(), params).map_err(|e| bad(e.into()))?;
    }
    Ok(Some(version))
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against the tool's annotated arguments.
fn check_tool_params(
    server: &McpServer,
    headers: &HeaderMap,
    name: Option<&str>,
    params: Option<&Params>,
) -> Result<(), headers::HeaderMismatch> {
    let Some(tool) = name.and_then(|name| server.registered_tool(name)) else {
        // An unknown tool is the dispatcher's to report.
        return Ok(());
    };
    // A tool whose annotations are invalid is not listed, and its calls carry no param headers.
    let annotated = tool.header_params.as_deref().unwrap_or_default();
    if annotated.is_empty() {
        return Ok(());
    }
    let arguments = params.and_then(|p| p.member::<Value>("arguments"));
    headers::check_params(headers, annotated, arguments.as_ref())
}
