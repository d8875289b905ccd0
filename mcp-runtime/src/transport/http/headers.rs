//! What the HTTP transport reads from request headers: the media types a client accepts, the
//! revision it names, the era a request belongs to, and the headers a 2026-07-28 request mirrors
//! (which [`mcp_core::headers`] checks, through [`Mirrored`]).
//!
//! One endpoint serves both eras (the "dual-era" server of the 2026-07-28 versioning page): a
//! POST that names a session, or that carries neither a 2026-07-28 `MCP-Protocol-Version` header
//! nor a protocol version in its `_meta`, follows the handshake era; any other is a 2026-07-28
//! request, served on its own, whose headers the server checks when it admits it.

use axum::http::{HeaderMap, HeaderValue};
use mcp_core::headers::{RequestHeaders, SESSION_HEADER, VERSION_HEADER, visible_text};
use mcp_core::jsonrpc::{Incoming, JsonRpcMessage};
use mcp_core::stateless::StatelessMeta;
use mcp_core::{Era, ProtocolVersion};

/// A request's headers, as [`mcp_core::headers`] reads them.
pub(crate) struct Mirrored<'a>(pub(crate) &'a HeaderMap);

impl RequestHeaders for Mirrored<'_> {
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.0.get(name).map(HeaderValue::as_bytes)
    }
}

/// The value of header `name`, trimmed, when it is visible ASCII.
pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|value| visible_text(value.as_bytes()))
        .map(str::trim)
}

/// Whether the `Accept` header admits `media` (`type/subtype`), directly or by wildcard.
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(axum::http::header::ACCEPT)
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

/// The revision named in `MCP-Protocol-Version`: `Ok(None)` when absent, `Err` when unknown.
pub(crate) fn header_version(headers: &HeaderMap) -> Result<Option<ProtocolVersion>, String> {
    match header_str(headers, VERSION_HEADER) {
        None => Ok(None),
        Some(name) => ProtocolVersion::from_name(name)
            .map(Some)
            .ok_or_else(|| name.to_owned()),
    }
}

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
    let params = match incoming {
        Incoming::Message(JsonRpcMessage::Request(request)) => request.request.params.as_ref(),
        Incoming::Message(JsonRpcMessage::Notification(notification)) => {
            notification.notification.params.as_ref()
        }
        _ => None,
    };
    StatelessMeta::of(params).is_stateless()
}

/// Whether a GET or DELETE comes from a 2026-07-28 client (no session, a 2026-07-28
/// `MCP-Protocol-Version` header): that revision has neither, so it gets 405.
pub(crate) fn is_stateless_client(headers: &HeaderMap) -> bool {
    header_str(headers, SESSION_HEADER).is_none()
        && header_str(headers, VERSION_HEADER)
            .and_then(ProtocolVersion::from_name)
            .is_some_and(|v| v.era() == Era::Stateless)
}
