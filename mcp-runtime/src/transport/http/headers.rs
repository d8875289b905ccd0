//! What the HTTP transport reads from request headers: the media types a client accepts and the
//! revision it names. The era a request belongs to is the server's to say, from the headers the
//! transport hands it ([`era_over_http`](crate::server::era_over_http), through [`Headers`]).

use axum::http::{HeaderMap, HeaderValue};
use mcp_runtime_core::ProtocolVersion;
use mcp_runtime_core::headers::{RequestHeaders, VERSION_HEADER, visible_text};

/// A request's headers, as [`mcp_runtime_core::headers`] reads them.
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

/// What the `Accept` header admits of the two media types the endpoint answers with, directly
/// or by wildcard (`*/*`, `application/*`, `text/*`); parameters (`;q=0.9`) are ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Accepted {
    /// `application/json`.
    pub(crate) json: bool,
    /// `text/event-stream`.
    pub(crate) event_stream: bool,
}

/// Reads the `Accept` headers once, range by range (every request has one: this is on every
/// request's path, so it compares bytes rather than building strings).
pub(crate) fn accepted(headers: &HeaderMap) -> Accepted {
    let mut accepted = Accepted::default();
    for value in headers.get_all(axum::http::header::ACCEPT) {
        for item in value.as_bytes().split(|b| *b == b',') {
            let range = item.split(|b| *b == b';').next().unwrap_or_default();
            let range = range.trim_ascii();
            let is = |media: &[u8]| range.eq_ignore_ascii_case(media);
            if range == b"*/*" {
                accepted.json = true;
                accepted.event_stream = true;
            } else if is(b"application/json") || is(b"application/*") {
                accepted.json = true;
            } else if is(b"text/event-stream") || is(b"text/*") {
                accepted.event_stream = true;
            }
        }
    }
    accepted
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

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted_by(values: &[&str]) -> (bool, bool) {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                axum::http::header::ACCEPT,
                HeaderValue::from_str(value).unwrap(),
            );
        }
        let accepted = accepted(&headers);
        (accepted.json, accepted.event_stream)
    }

    #[test]
    fn accept_ranges_are_read_with_wildcards_cases_and_parameters() {
        assert_eq!(accepted_by(&[]), (false, false));
        assert_eq!(
            accepted_by(&["application/json, text/event-stream"]),
            (true, true)
        );
        assert_eq!(
            accepted_by(&["Application/JSON;q=0.9", " text/event-stream ; q=1"]),
            (true, true)
        );
        assert_eq!(accepted_by(&["*/*"]), (true, true));
        assert_eq!(accepted_by(&["application/*"]), (true, false));
        assert_eq!(accepted_by(&["text/*, image/png"]), (false, true));
        assert_eq!(
            accepted_by(&["text/html, application/jsonx"]),
            (false, false)
        );
        assert_eq!(accepted_by(&["*/json"]), (false, false));
    }
}
