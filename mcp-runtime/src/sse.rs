//! Server-sent events, the `text/event-stream` format of Streamable HTTP's streams: the encoder the
//! server writes with, and the [`Decoder`] the client reads with.
//!
//! Public for transports built on another HTTP stack, and for the benchmarks and fuzz targets.
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::sse::{self, Decoder};
//!
//! let bytes = sse::encode_event("s:1", r#"{"jsonrpc":"2.0"}"#);
//! assert_eq!(bytes, "id: s:1\ndata: {\"jsonrpc\":\"2.0\"}\n\n");
//! assert_eq!(sse::encode_retry(Duration::from_millis(1500)), "retry: 1500\n\n");
//!
//! let mut decoder = Decoder::new(1024);
//! let events = decoder.feed(&bytes).unwrap();
//! assert_eq!(events[0].data, r#"{"jsonrpc":"2.0"}"#);
//! assert_eq!(decoder.last_event_id(), Some("s:1"));
//! ```

use std::time::Duration;

use bytes::Bytes;

/// The comment the transport sends to keep an idle stream open.
pub const KEEP_ALIVE_COMMENT: &[u8] = b":\n\n";

/// One event with its `id`. Each line of `data` (split at `\r\n`, `\n` or `\r`, as an event-stream
/// parser splits) gets its own `data:` field; empty `data` still gets one `data:` line, since
/// clients dispatch only events that have one (a priming event, SEP-1699).
pub fn encode_event(id: &str, data: &str) -> Bytes {
    encode(Some(id), data)
}

/// One event without an id, as [`encode_event`] writes data: the client's last event id stays
/// the one before (the transport sends an event so when it could not keep it for resumption).
pub fn encode_data(data: &str) -> Bytes {
    encode(None, data)
}

fn encode(id: Option<&str>, data: &str) -> Bytes {
    let mut text = String::with_capacity(id.map_or(0, str::len) + data.len() + 16);
    if let Some(id) = id {
        text.push_str("id: ");
        text.push_str(id);
        text.push('\n');
    }
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

/// An event read from a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Event {
    /// The `event` field (`None` for the default type, `message`).
    pub event: Option<String>,
    /// The `data` fields, joined with `\n`.
    pub data: String,
    /// The last event id of the stream when the event was dispatched.
    pub id: Option<String>,
}

/// An event (or a line) is longer than the decoder's limit: the stream must be dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a server-sent event exceeds the limit of {limit} bytes")]
pub struct EventTooLong {
    /// The limit, in bytes.
    pub limit: usize,
}

/// Reads `text/event-stream` bytes as they arrive, in chunks of any size, by the WHATWG
/// event-stream rules: lines end at `\r\n`, `\n` or `\r`; a leading byte-order mark is skipped;
/// comments (`:`) and unknown fields are ignored; `data` fields accumulate until a blank line
/// dispatches the event; an `id` with a NUL is ignored; `retry` counts only when all digits.
/// Invalid UTF-8 becomes U+FFFD.
///
/// What it keeps between chunks (an unfinished line, the data of an unfinished event) is bounded
/// by the limit given to [`new`](Self::new): a peer cannot make it grow without end.
#[derive(Clone, Debug)]
pub struct Decoder {
    limit: usize,
    line: Vec<u8>,
    /// A `\r` ended the last chunk: a `\n` opening the next one belongs to it.
    after_cr: bool,
    started: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

impl Decoder {
    /// A decoder refusing events (and lines) longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Decoder {
            limit,
            line: Vec::new(),
            after_cr: false,
            started: false,
            event: None,
            data: String::new(),
            has_data: false,
            last_event_id: None,
            retry: None,
        }
    }

    /// The id of the last event seen (what a client sends in `Last-Event-ID` to resume).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection delay the stream asked for, if it did.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Reads `chunk` and returns the events it completed, in order. After an error the decoder
    /// must not be fed again.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<Vec<Event>, EventTooLong> {
        let mut events = Vec::new();
        if self.after_cr {
            self.after_cr = false;
            chunk = chunk.strip_prefix(b"\n").unwrap_or(chunk);
        }
        while let Some(end) = chunk.iter().position(|b| matches!(b, b'\r' | b'\n')) {
            self.extend_line(&chunk[..end])?;
            let line = std::mem::take(&mut self.line);
            self.line_ended(&line, &mut events)?;
            self.line = line;
            self.line.clear();
            let rest = &chunk[end + 1..];
            chunk = match (chunk[end], rest.first()) {
                (b'\r', Some(b'\n')) => &rest[1..],
                (b'\r', None) => {
                    self.after_cr = true;
                    rest
                }
                _ => rest,
            };
        }
        self.extend_line(chunk)?;
        Ok(events)
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), EventTooLong> {
        if self.line.len() + bytes.len() > self.limit {
            return Err(EventTooLong { limit: self.limit });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_ended(&mut self, line: &[u8], events: &mut Vec<Event>) -> Result<(), EventTooLong> {
        let mut line = line;
        if !self.started {
            self.started = true;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(events);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(EventTooLong { limit: self.limit });
                }
                self.data.push_str(&value);
                self.data.push('\n');
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            b"id" if !value.contains('\0') => self.last_event_id = Some(value.into_owned()),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // More digits than a u64 holds mean "forever": the longest delay there is.
                let ms = value.parse().unwrap_or(u64::MAX);
                self.retry = Some(Duration::from_millis(ms));
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, events: &mut Vec<Event>) {
        let event = self.event.take();
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        events.push(Event {
            event,
            data,
            id: self.last_event_id.clone(),
        });
    }
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

    fn decode_in(chunks: &[&[u8]]) -> (Vec<Event>, Decoder) {
        let mut decoder = Decoder::new(64);
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(decoder.feed(chunk).unwrap());
        }
        (out, decoder)
    }

    fn event(event: Option<&str>, data: &str, id: &str) -> Event {
        Event {
            event: event.map(str::to_owned),
            data: data.to_owned(),
            id: Some(id.to_owned()),
        }
    }

    #[test]
    fn the_decoder_follows_the_event_stream_rules_whatever_the_chunks() {
        let stream: &[u8] = "\u{feff}: comment\r\nid: a:1\r\ndata: {\"x\":\r\ndata:1}\r\n\r\nevent: ping\nretry: 250\ndata\n\nid\ndata: \u{e9}\rid: b\0c\r\r\nretry: 9x\n"
            .as_bytes();
        let expected = vec![
            event(None, "{\"x\":\n1}", "a:1"),
            event(Some("ping"), "", "a:1"),
            event(None, "\u{e9}", ""),
        ];
        let (whole, decoder) = decode_in(&[stream]);
        assert_eq!(whole, expected);
        assert_eq!(decoder.retry(), Some(Duration::from_millis(250)));
        assert_eq!(decoder.last_event_id(), Some(""));
        // Split at every byte, a `\r\n` and the two bytes of `é` fall into different chunks.
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(decode_in(&bytes).0, expected);
    }

    #[test]
    fn the_decoder_refuses_what_exceeds_its_limit() {
        let mut decoder = Decoder::new(8);
        assert_eq!(decoder.feed(b"data: 12").unwrap(), vec![]);
        assert_eq!(decoder.feed(b"3"), Err(EventTooLong { limit: 8 }));
        let mut decoder = Decoder::new(12);
        decoder.feed(b"data: 1234\ndata: 5\n").unwrap();
        assert_eq!(
            decoder.feed(b"data: 67890\n"),
            Err(EventTooLong { limit: 12 })
        );
    }
}
