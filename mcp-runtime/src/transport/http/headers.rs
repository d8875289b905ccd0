//! What the HTTP transport reads from request headers: the media types a client accepts and the
//! revision it names. The era a request belongs to is the server's to say, from the headers the
//! transport hands it ([`era_over_http`](crate::server::era_over_http), through [`Headers`]).

use axum::http::{HeaderMap, HeaderValue};
use mcp_core::ProtocolVersion;
use mcp_core::headers::{RequestHeaders, VERSION_HEADER, visible_text};

/// A request's headers, as [`mcp_core::headers`] reads them.
pub(crate) struct Headers<'a>(pub(crate) &'a HeaderMap);

impl RequestHeaders for Headers<'_> {
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
