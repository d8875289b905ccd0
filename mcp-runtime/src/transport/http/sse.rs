//! The `text/event-stream` encoding of what the transport sends on an SSE response.
//!
//! Public for transports built on another HTTP stack, and for the benchmarks.
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::transport::http::sse;
//!
//! assert_eq!(sse::encode_event("s:1", r#"{"jsonrpc":"2.0"}"#), "id: s:1\ndata: {\"jsonrpc\":\"2.0\"}\n\n");
//! assert_eq!(sse::encode_retry(Duration::from_millis(1500)), "retry: 1500\n\n");
//! ```

use std::time::Duration;

use axum::body::Bytes;

/// The comment the transport sends to keep an idle stream open.
pub const KEEP_ALIVE_COMMENT: &[u8] = b":\n\n";

/// One event with its `id`. Each line of `data` (split at `\r\n`, `\n` or `\r`, as an event-stream
/// parser splits) gets its own `data:` field; empty `data` still gets one `data:` line, since
/// clients dispatch only events that have one (a priming event, SEP-1699).
pub fn encode_event(id: &str, data: &str) -> Bytes {
    let mut text = String::with_capacity(id.len() + data.len() + 16);
    text.push_str("id: ");
    text.push_str(id);
    text.push('\n');
    let mut rest = data;
    loop {
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        text.push_str("data: ");
        text.push_str(&rest[..end]);
        text.push('\n');
        rest = &rest[end..];
        rest = rest
            .strip_prefix("\r\n")
            .or_else(|| rest.strip_prefix(['\r', '\n']))
            .unwrap_or(rest);
        if rest.is_empty() {
            break;
        }
    }
    text.push('\n');
    Bytes::from(text)
}

/// The `retry` field: how long a client waits before it reconnects to a closed stream.
pub fn encode_retry(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_have_one_data_field_per_line() {
        assert_eq!(encode_event("s:0", ""), "id: s:0\ndata: \n\n");
        assert_eq!(encode_event("s:1", "{}"), "id: s:1\ndata: {}\n\n");
        assert_eq!(encode_event("s:2", "a\nb"), "id: s:2\ndata: a\ndata: b\n\n");
        assert_eq!(
            encode_event("s:3", "a\r\nb\rc\n"),
            "id: s:3\ndata: a\ndata: b\ndata: c\n\n"
        );
        assert_eq!(encode_retry(Duration::from_millis(1500)), "retry: 1500\n\n");
    }
}
