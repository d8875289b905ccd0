//! The MCP messages the generator sends and the little it reads of the answers.
//!
//! Requests are built from templates: everything but the id is formatted once, and each request
//! splices its id into a reused buffer. Answers are parsed into [`Reply`], which keeps only what
//! classifying an answer needs (`id`, whether there is a `result` and its `isError`, whether
//! there is an `error`, whether it is a request or notification), so no `Value` tree is built.

use std::fmt;

use serde::de::{self, IgnoredAny, Visitor};
use serde::{Deserialize, Deserializer};

/// The revision of the stateless wire (no `initialize`, per-request `_meta`).
pub const STATELESS_VERSION: &str = "2026-07-28";
/// The revision the session wire initializes with unless told otherwise.
pub const SESSION_VERSION: &str = "2025-11-25";
/// The name the generator gives in `clientInfo`.
pub const CLIENT_NAME: &str = "mcp-bench";
/// The version the generator gives in `clientInfo`.
pub const CLIENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `initialize` request of the session wire asking for `version`, with id 0.
pub fn initialize_body(version: &str) -> String {
    let version = serde_json::Value::from(version);
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":{version},"capabilities":{{}},"clientInfo":{{"name":"{CLIENT_NAME}","version":"{CLIENT_VERSION}"}}}}}}"#
    )
}

/// The `notifications/initialized` notification of the session wire.
pub const INITIALIZED_BODY: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The id of the `initialize` request.
pub const INITIALIZE_ID: u64 = 0;

/// A `tools/call` request with everything but the id formatted in advance.
#[derive(Clone, Debug)]
pub struct CallTemplate {
    /// `{"jsonrpc":"2.0","id":`
    prefix: &'static [u8],
    /// `,"method":"tools/call","params":{...}}`
    suffix: Vec<u8>,
}

impl CallTemplate {
    /// Builds the template for calling `tool` with `arguments` (a JSON object, compact).
    ///
    /// With `stateless`, the params carry the `_meta` of revision 2026-07-28 (protocol version,
    /// client capabilities and client info); otherwise they carry only the name and arguments.
    /// With `tasks` too, the capabilities declare the tasks extension, so that a tool that may
    /// run as a task answers with one.
    pub fn new(tool: &str, arguments: &serde_json::Value, stateless: bool, tasks: bool) -> Self {
        let name = serde_json::Value::from(tool).to_string();
        let capabilities = if tasks {
            r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#
        } else {
            "{}"
        };
        let meta = if stateless {
            format!(
                r#","_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientCapabilities":{capabilities},"io.modelcontextprotocol/clientInfo":{{"name":"{CLIENT_NAME}","version":"{CLIENT_VERSION}"}}}}"#
            )
        } else {
            String::new()
        };
        let suffix = format!(
            r#","method":"tools/call","params":{{"name":{name},"arguments":{arguments}{meta}}}}}"#
        );
        CallTemplate {
            prefix: br#"{"jsonrpc":"2.0","id":"#,
            suffix: suffix.into_bytes(),
        }
    }

    /// Writes the request with `id` into `buf` (cleared first), without a line end.
    pub fn write(&self, id: u64, buf: &mut Vec<u8>) {
        buf.clear();
        self.append(id, buf);
    }

    /// Appends the request with `id` to `buf`, without a line end.
    pub fn append(&self, id: u64, buf: &mut Vec<u8>) {
        use std::io::Write as _;
        buf.extend_from_slice(self.prefix);
        // Writing a number into a Vec cannot fail.
        let _ = write!(buf, "{id}");
        buf.extend_from_slice(&self.suffix);
    }
}

/// The parts of a JSON-RPC message the generator looks at.
#[derive(Debug, Default, Deserialize)]
pub struct Reply {
    /// The id when it is a non-negative integer; `None` when absent, null or of another kind.
    #[serde(default, deserialize_with = "numeric_id")]
    pub id: Option<u64>,
    /// Present on requests and notifications, which are not answers.
    #[serde(default)]
    pub method: Option<IgnoredAny>,
    /// The result, if any.
    #[serde(default)]
    pub result: Option<CallResult>,
    /// The JSON-RPC error, if any.
    #[serde(default)]
    pub error: Option<IgnoredAny>,
}

/// The part of a result the generator looks at.
#[derive(Debug, Default, Deserialize)]
pub struct CallResult {
    /// `isError` of a `tools/call` result.
    #[serde(default, rename = "isError")]
    pub is_error: Option<bool>,
}

impl Reply {
    /// Parses one JSON-RPC message; `None` if it is not a JSON object of the expected shape.
    pub fn parse(bytes: &[u8]) -> Option<Reply> {
        serde_json::from_slice(bytes).ok()
    }

    /// Whether this is an answer (not a request or notification).
    pub fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }

    /// The verdict on an answer: a JSON-RPC error, a tool error (`isError: true`), or success.
    pub fn verdict(&self) -> Result<(), ErrorKind> {
        match (&self.error, &self.result) {
            (Some(_), _) => Err(ErrorKind::RpcError),
            (None, Some(result)) if result.is_error == Some(true) => Err(ErrorKind::ToolError),
            (None, Some(_)) => Ok(()),
            (None, None) => Err(ErrorKind::NoResponse),
        }
    }
}

/// Accepts any JSON value as an id, keeping it only when it is a non-negative integer.
fn numeric_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct IdVisitor;

    impl<'de> Visitor<'de> for IdVisitor {
        type Value = Option<u64>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON-RPC id")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(u64::try_from(v).ok())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    deserializer.deserialize_any(IdVisitor)
}

/// Why a request counts as failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// The connection failed while sending the request or reading the answer.
    Transport,
    /// The HTTP status was not 2xx.
    Status,
    /// No answer with the request's id (empty body, unparsable body, other ids only).
    NoResponse,
    /// The answer was a JSON-RPC error.
    RpcError,
    /// The answer was a `tools/call` result with `isError: true`.
    ToolError,
    /// Connecting failed (not a request: counted apart).
    Connect,
    /// Opening the session (`initialize`, `notifications/initialized`) failed (counted apart).
    Initialize,
}

impl ErrorKind {
    /// Every kind, in report order.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Transport,
        ErrorKind::Status,
        ErrorKind::NoResponse,
        ErrorKind::RpcError,
        ErrorKind::ToolError,
        ErrorKind::Connect,
        ErrorKind::Initialize,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Transport => "transport",
            ErrorKind::Status => "status",
            ErrorKind::NoResponse => "no_response",
            ErrorKind::RpcError => "rpc_error",
            ErrorKind::ToolError => "tool_error",
            ErrorKind::Connect => "connect",
            ErrorKind::Initialize => "initialize",
        }
    }

    /// Whether this kind is a failed request (as opposed to a failed connect or session open).
    pub fn is_request_error(self) -> bool {
        !matches!(self, ErrorKind::Connect | ErrorKind::Initialize)
    }

    /// Its index in [`ErrorKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Calls `on_event` with the data of each event of a `text/event-stream` body, in order, until
/// it returns `true`; returns whether it did.
///
/// `data:` lines of an event are joined with `\n`; comments, other fields and events whose data
/// is empty (such as priming events, which carry only an event id) are skipped. Lines may end in
/// `\n`, `\r\n` or `\r`. An event cut off by the end of the body (no blank line after it) is
/// still delivered: the body has been read to its end, so nothing more is coming.
pub fn sse_events(body: &[u8], mut on_event: impl FnMut(&[u8]) -> bool) -> bool {
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut rest = body;
    loop {
        let line = match next_line(rest) {
            Some((line, after)) => {
                rest = after;
                Some(line)
            }
            None => None,
        };
        match line {
            Some([]) | None => {
                if has_data && !data.is_empty() && on_event(&data) {
                    return true;
                }
                data.clear();
                has_data = false;
                if line.is_none() {
                    return false;
                }
            }
            Some([b':', ..]) => {}
            Some(line) => {
                let (field, value) = match line.iter().position(|&b| b == b':') {
                    Some(colon) => {
                        let value = &line[colon + 1..];
                        (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                    }
                    None => (line, &[][..]),
                };
                if field == b"data" {
                    if has_data {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(value);
                    has_data = true;
                }
            }
        }
    }
}

/// Splits off the first line of `buf` (without its end); `None` when `buf` is empty.
fn next_line(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    if buf.is_empty() {
        return None;
    }
    match buf.iter().position(|&b| b == b'\n' || b == b'\r') {
        None => Some((buf, &[])),
        Some(end) => {
            let skip = if buf[end] == b'\r' && buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            Some((&buf[..end], &buf[end + skip..]))
        }
    }
}

/// Judges an HTTP answer to the request with `id`.
///
/// Fails with [`ErrorKind::Status`] when the status is not 2xx. A `text/event-stream` body is
/// searched for the first event holding the answer with `id`; any other body must be that
/// answer. Then the answer must be a result without `isError: true`.
pub fn classify_http(
    status: u16,
    content_type: &[u8],
    body: &[u8],
    id: u64,
) -> Result<(), ErrorKind> {
    if !(200..300).contains(&status) {
        return Err(ErrorKind::Status);
    }
    if is_event_stream(content_type) {
        let mut verdict = Err(ErrorKind::NoResponse);
        sse_events(body, |data| match Reply::parse(data) {
            Some(reply) if reply.is_response() && reply.id == Some(id) => {
                verdict = reply.verdict();
                true
            }
            _ => false,
        });
        verdict
    } else {
        match Reply::parse(body) {
            Some(reply) if reply.is_response() && reply.id == Some(id) => reply.verdict(),
            // An error the server could not tie to a request (say, a parse error) has a null id.
            Some(reply) if reply.is_response() && reply.id.is_none() && reply.error.is_some() => {
                Err(ErrorKind::RpcError)
            }
            _ => Err(ErrorKind::NoResponse),
        }
    }
}

/// Whether a `Content-Type` value is `text/event-stream` (parameters allowed, case ignored).
fn is_event_stream(content_type: &[u8]) -> bool {
    const SSE: &[u8] = b"text/event-stream";
    content_type.len() >= SSE.len() && content_type[..SSE.len()].eq_ignore_ascii_case(SSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSE: &[u8] = b"text/event-stream";
    const JSON: &[u8] = b"application/json";

    fn events(body: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        sse_events(body, |data| {
            out.push(String::from_utf8(data.to_vec()).unwrap());
            false
        });
        out
    }

    #[test]
    fn sse_skips_priming_events_and_comments() {
        let body = b"id: 1\ndata:\n\n: keep-alive\n\nevent: message\nid: 2\ndata: {\"a\":1}\n\n";
        assert_eq!(events(body), vec![r#"{"a":1}"#.to_owned()]);
    }

    #[test]
    fn sse_joins_data_lines_and_handles_line_ends() {
        let body = b"data: one\r\ndata:two\r\n\r\ndata: three\rdata\r\rdata: cut off";
        assert_eq!(
            events(body),
            vec![
                "one\ntwo".to_owned(),
                "three\n".to_owned(),
                "cut off".to_owned()
            ]
        );
    }

    #[test]
    fn sse_stops_when_asked() {
        let mut seen = 0;
        let found = sse_events(b"data: a\n\ndata: b\n\ndata: c\n\n", |data| {
            seen += 1;
            data == b"b"
        });
        assert!(found);
        assert_eq!(seen, 2);
    }

    #[test]
    fn sse_response_after_priming_event() {
        let body = concat!(
            "id: 0\ndata: \n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3\"}],\"isError\":false}}\n\n",
        );
        assert_eq!(classify_http(200, SSE, body.as_bytes(), 7), Ok(()));
        assert_eq!(classify_http(200, SSE, body.as_bytes(), 6), Ok(()));
        assert_eq!(
            classify_http(200, SSE, body.as_bytes(), 8),
            Err(ErrorKind::NoResponse)
        );
        assert_eq!(
            classify_http(200, b"Text/Event-Stream; charset=utf-8", body.as_bytes(), 7),
            Ok(())
        );
    }

    #[test]
    fn sse_tool_error_and_rpc_error() {
        let tool_error = b"id: a\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"isError\":true}}\n\n";
        assert_eq!(
            classify_http(200, SSE, tool_error, 3),
            Err(ErrorKind::ToolError)
        );
        let rpc_error = b"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Unknown tool\"}}\n\n";
        assert_eq!(
            classify_http(200, SSE, rpc_error, 3),
            Err(ErrorKind::RpcError)
        );
    }

    #[test]
    fn json_classification() {
        let ok = br#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}}"#;
        assert_eq!(classify_http(200, JSON, ok, 42), Ok(()));
        assert_eq!(classify_http(200, JSON, ok, 41), Err(ErrorKind::NoResponse));
        assert_eq!(classify_http(500, JSON, ok, 42), Err(ErrorKind::Status));
        assert_eq!(classify_http(404, JSON, b"", 42), Err(ErrorKind::Status));
        assert_eq!(
            classify_http(202, JSON, b"", 42),
            Err(ErrorKind::NoResponse)
        );
        assert_eq!(
            classify_http(200, JSON, b"not json", 42),
            Err(ErrorKind::NoResponse)
        );

        let is_error = br#"{"jsonrpc":"2.0","id":42,"result":{"content":[],"isError":true}}"#;
        assert_eq!(
            classify_http(200, JSON, is_error, 42),
            Err(ErrorKind::ToolError)
        );
        let not_error = br#"{"jsonrpc":"2.0","id":42,"result":{"content":[],"isError":false}}"#;
        assert_eq!(classify_http(200, JSON, not_error, 42), Ok(()));
        let rpc_error = br#"{"jsonrpc":"2.0","id":42,"error":{"code":-32601,"message":"nope"}}"#;
        assert_eq!(
            classify_http(200, JSON, rpc_error, 42),
            Err(ErrorKind::RpcError)
        );
        let null_id = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#;
        assert_eq!(
            classify_http(200, JSON, null_id, 42),
            Err(ErrorKind::RpcError)
        );
        let string_id = br#"{"jsonrpc":"2.0","id":"42","result":{}}"#;
        assert_eq!(
            classify_http(200, JSON, string_id, 42),
            Err(ErrorKind::NoResponse)
        );
        let request = br#"{"jsonrpc":"2.0","id":42,"method":"ping","result":{}}"#;
        assert_eq!(
            classify_http(200, JSON, request, 42),
            Err(ErrorKind::NoResponse)
        );
    }

    #[test]
    fn reply_fields() {
        let reply =
            Reply::parse(br#"{"jsonrpc":"2.0","id":-1,"result":{"isError":null}}"#).unwrap();
        assert_eq!(reply.id, None);
        assert!(reply.is_response());
        assert_eq!(reply.verdict(), Ok(()));
        let notification =
            Reply::parse(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#)
                .unwrap();
        assert!(!notification.is_response());
        assert_eq!(notification.verdict(), Err(ErrorKind::NoResponse));
    }

    #[test]
    fn call_bodies() {
        let args = serde_json::json!({"a": 1, "b": 2});
        let mut buf = b"stale".to_vec();
        CallTemplate::new("add", &args, true, false).write(17, &mut buf);
        assert_eq!(
            std::str::from_utf8(&buf).unwrap(),
            r#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}}"#
        );
        CallTemplate::new("add", &args, false, false).write(1, &mut buf);
        assert_eq!(
            std::str::from_utf8(&buf).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#
        );
        assert_eq!(
            initialize_body(SESSION_VERSION),
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}"#
        );
        for body in [initialize_body(SESSION_VERSION).as_str(), INITIALIZED_BODY] {
            serde_json::from_str::<serde_json::Value>(body).unwrap();
        }
    }
}
