//! The HTTP headers of MCP requests, and the arguments a 2026-07-28 request mirrors into them
//! (SEP-2243).
//!
//! Over Streamable HTTP a client names its protocol revision in `MCP-Protocol-Version` and its
//! session (handshake era) in `Mcp-Session-Id`. A 2026-07-28 request also repeats parts of its
//! body in headers, so that a proxy can route it without reading the body: its method in
//! `Mcp-Method`; the tool, prompt or resource it names in `Mcp-Name` (see [`name_field`]); and each
//! argument whose schema carries an `x-mcp-header` annotation in `Mcp-Param-{Name}` (see
//! [`header_params`]).
//!
//! A server must refuse (HTTP 400, `-32020` header mismatch) a request whose headers are missing
//! or disagree with its body ([`check_standard`], [`check_params`]), so that a proxy routing on
//! the headers and the server executing the body always see the same request. Header names are
//! compared case-insensitively, values exactly (integers numerically); a value that is not plain
//! visible ASCII is sent Base64-encoded as `=?base64?…?=` ([`encode_header_value`]).
//! (SEP-2243 names the code `-32001`; the 2026-07-28 schema, which this follows, has
//! `HeaderMismatch` at `-32020`.)
//!
//! This module reads headers through [`RequestHeaders`] and does no I/O: the HTTP transport
//! implements it over its header map.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::error::HeaderMismatch;

/// The header that carries the protocol revision.
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// The header that carries the session id (handshake era).
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The header naming the method (2026-07-28).
pub const METHOD_HEADER: &str = "mcp-method";
/// The header naming the tool, prompt or resource (2026-07-28).
pub const NAME_HEADER: &str = "mcp-name";
/// The prefix of the headers that mirror tool arguments (2026-07-28).
pub const PARAM_PREFIX: &str = "mcp-param-";

/// The headers of a received request, looked up by lowercase name.
pub trait RequestHeaders {
    /// The raw value of the header `name` (lowercase), if the request has it.
    fn get(&self, name: &str) -> Option<&[u8]>;
}

/// The error of a header that disagrees with the body, or of a required one that is missing or
/// malformed: `detail` says which.
fn mismatch(detail: String) -> HeaderMismatch {
    HeaderMismatch(format!("Header mismatch: {detail}"))
}

/// The value of header `name`, trimmed; `Err` when it is not visible ASCII.
fn header<'a>(
    headers: &'a dyn RequestHeaders,
    name: &str,
) -> Result<Option<&'a str>, HeaderMismatch> {
    match headers.get(name) {
        None => Ok(None),
        Some(value) => visible_text(value)
            .map(|v| Some(v.trim_matches([' ', '\t'])))
            .ok_or_else(|| mismatch(format!("the {name} header has invalid characters"))),
    }
}

/// The text of a header value made of visible ASCII, spaces and tabs (what HTTP's `to_str`
/// accepts); `None` for anything else.
pub fn visible_text(value: &[u8]) -> Option<&str> {
    value
        .iter()
        .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
        .then(|| std::str::from_utf8(value).ok())
        .flatten()
}

/// The value of header `name`, trimmed, when it is visible ASCII; `None` when it is absent or is
/// not.
pub fn text<'a>(headers: &'a dyn RequestHeaders, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(visible_text).map(str::trim)
}

/// Decodes a header value: `=?base64?…?=` is the Base64 of the UTF-8 value, anything else is
/// the value itself.
fn decode<'a>(name: &str, value: &'a str) -> Result<Cow<'a, str>, HeaderMismatch> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Ok(Cow::Borrowed(value));
    };
    STANDARD
        .decode(encoded)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map(Cow::Owned)
        .ok_or_else(|| mismatch(format!("the {name} header is not valid Base64 of UTF-8")))
}

/// The member of a request's params that its `Mcp-Name` header repeats: the `name` of a
/// `tools/call` or `prompts/get`, the `uri` of a `resources/read`, the `taskId` of the tasks
/// extension's `tasks/get`, `tasks/update` and `tasks/cancel` (so that a load balancer can route
/// a task's requests to the instance that holds it).
pub fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The value of the member [`name_field`] names, in a decoded request: what `Mcp-Name` must
/// repeat.
pub fn name_of(request: &crate::messages::ClientRequest) -> Option<&str> {
    use crate::messages::ClientRequest;
    match request {
        ClientRequest::CallTool(p) => Some(&p.name),
        ClientRequest::GetPrompt(p) => Some(&p.name),
        ClientRequest::ReadResource(p) => Some(&p.uri),
        ClientRequest::GetTask(p) | ClientRequest::CancelTask(p) => Some(&p.task_id),
        ClientRequest::UpdateTask(p) => Some(&p.task_id),
        _ => None,
    }
}

/// Checks `Mcp-Method` (every request and notification) and `Mcp-Name` (`tools/call`,
/// `prompts/get`, `resources/read`, `tasks/get`, `tasks/update`, `tasks/cancel`) against the body's `method` and the params' member that
/// [`name_field`] names, `body` (when a string).
pub fn check_standard(
    headers: &dyn RequestHeaders,
    method: &str,
    body: Option<&str>,
) -> Result<(), HeaderMismatch> {
    let sent = header(headers, METHOD_HEADER)?
        .ok_or_else(|| mismatch("the Mcp-Method header is missing".into()))?;
    let sent = decode("Mcp-Method", sent)?;
    if sent != method {
        return Err(mismatch(format!(
            "Mcp-Method header value {sent:?} does not match body value {method:?}"
        )));
    }
    if name_field(method).is_none() {
        return Ok(());
    }
    let sent = header(headers, NAME_HEADER)?
        .ok_or_else(|| mismatch(format!("the Mcp-Name header is missing for {method}")))?;
    let sent = decode("Mcp-Name", sent)?;
    if Some(sent.as_ref()) != body {
        return Err(mismatch(format!(
            "Mcp-Name header value {sent:?} does not match body value {:?}",
            body.unwrap_or_default()
        )));
    }
    Ok(())
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its `arguments`: an argument
/// given a non-null value needs its header, with the same value.
pub fn check_params(
    headers: &dyn RequestHeaders,
    params: &[HeaderParam],
    arguments: Option<&Map<String, Value>>,
) -> Result<(), HeaderMismatch> {
    for param in params {
        let value = arguments.and_then(|args| param.value_in_object(args));
        let header_name = format!("{PARAM_PREFIX}{}", param.name.to_ascii_lowercase());
        let display = format!("Mcp-Param-{}", param.name);
        let sent = header(headers, &header_name)?;
        let Some(value) = value else { continue };
        let sent = sent.ok_or_else(|| mismatch(format!("the {display} header is missing")))?;
        let sent = decode(&display, sent)?;
        let matches = match value {
            Value::String(s) => sent == s.as_str(),
            Value::Bool(b) => sent == b.to_string(),
            Value::Number(n) => sent.parse::<f64>().ok() == n.as_f64(),
            _ => false,
        };
        if !matches {
            return Err(mismatch(format!(
                "{display} header value {sent:?} does not match body value {value}"
            )));
        }
    }
    Ok(())
}

/// Why an `x-mcp-header` annotation is invalid (a server with such a tool refuses to start, and a
/// client refuses to call it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid x-mcp-header annotation at {path}: {reason}")]
pub struct InvalidHeaderAnnotation {
    path: String,
    reason: &'static str,
}

/// A tool argument mirrored into a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
    /// The property names leading to the argument, from the arguments object.
    pub path: Vec<String>,
}

impl HeaderParam {
    /// The argument this header mirrors, if `arguments` give it a value other than `null`.
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.value_in_object(arguments.as_object()?)
    }

    /// The value at the annotated property's path in the `arguments` object, if present and not
    /// `null`.
    pub fn value_in_object<'a>(&self, arguments: &'a Map<String, Value>) -> Option<&'a Value> {
        let (first, rest) = self.path.split_first()?;
        rest.iter()
            .try_fold(arguments.get(first)?, |value, key| value.get(key))
            .filter(|value| !value.is_null())
    }
}

/// The text of an argument mirrored into a header: a string as it is, an integer in decimal, a
/// boolean as `true` or `false`; `None` for anything else.
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => Some(match number.as_f64() {
            Some(f) if f.fract() == 0.0 && number.is_f64() && f.abs() < 9.0e15 => {
                format!("{}", f as i64)
            }
            _ => number.to_string(),
        }),
        _ => None,
    }
}

/// `text` as a header value: as it is when it is plain visible ASCII (spaces inside allowed),
/// otherwise, or when it looks like the sentinel itself, `=?base64?{Base64 of UTF-8}?=`.
pub fn encode_header_value(text: &str) -> String {
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel = text.starts_with("=?base64?") && text.ends_with("?=");
    if visible && !padded && !sentinel {
        text.to_owned()
    } else {
        let encoded = STANDARD.encode(text);
        format!("=?base64?{encoded}?=")
    }
}

/// Whether `c` is a `tchar` of RFC 9110 (what a header field name is made of).
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The arguments a tool's `inputSchema` mirrors into headers, at any depth of `properties`;
/// `Err` when an annotation breaks a rule of SEP-2243 (empty, not a header token, not unique
/// case-insensitively, or on a property that is not a string, an integer or a boolean).
pub fn header_params(
    input_schema: &Map<String, Value>,
) -> Result<Vec<HeaderParam>, InvalidHeaderAnnotation> {
    fn walk(
        schema: &Map<String, Value>,
        path: &mut Vec<String>,
        found: &mut Vec<HeaderParam>,
    ) -> Result<(), InvalidHeaderAnnotation> {
        let invalid = |path: &[String], reason| InvalidHeaderAnnotation {
            path: format!("/{}", path.join("/")),
            reason,
        };
        if let Some(annotation) = schema.get("x-mcp-header") {
            let name = annotation
                .as_str()
                .ok_or_else(|| invalid(path, "the name is not a string"))?;
            if name.is_empty() {
                return Err(invalid(path, "the name is empty"));
            }
            if !name.chars().all(is_tchar) {
                return Err(invalid(path, "the name is not an HTTP header token"));
            }
            if !matches!(
                schema.get("type").and_then(Value::as_str),
                Some("string" | "integer" | "boolean")
            ) {
                return Err(invalid(
                    path,
                    "the property is not a string, integer or boolean",
                ));
            }
            if found.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
                return Err(invalid(path, "the name is used twice"));
            }
            found.push(HeaderParam {
                name: name.to_owned(),
                path: path.clone(),
            });
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, sub) in properties {
                if let Value::Object(sub) = sub {
                    path.push(key.clone());
                    walk(sub, path, found)?;
                    path.pop();
                }
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut found)?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorObject;
    use serde_json::Map;
    use serde_json::json;

    #[test]
    fn a_decoded_request_names_what_its_name_field_names() {
        use crate::messages::ClientRequest;
        for method in [
            "tools/call",
            "prompts/get",
            "resources/read",
            "tasks/get",
            "tasks/cancel",
            "tasks/update",
            "tasks/result",
            "tools/list",
        ] {
            let field = name_field(method);
            let params = serde_json::json!({"name": "n", "uri": "u", "taskId": "t"});
            let request =
                ClientRequest::decode(method, Some(&crate::jsonrpc::Params::from_value(&params)))
                    .unwrap();
            let expected = field.map(|field| params[field].as_str().unwrap());
            assert_eq!(name_of(&request), expected, "{method}");
        }
    }

    /// Headers as received, their names lowercased.
    struct Headers(Vec<(String, String)>);

    impl RequestHeaders for Headers {
        fn get(&self, name: &str) -> Option<&[u8]> {
            self.0
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_bytes())
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        Headers(
            pairs
                .iter()
                .map(|(n, v)| (n.to_ascii_lowercase(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn standard_headers_must_match_the_body() {
        let call = json!({"name": "echo", "arguments": {}});
        let ok = |pairs: &[(&str, &str)], method: &str, params: &Value| {
            let name = name_field(method).and_then(|field| params.get(field)?.as_str());
            check_standard(&headers(pairs), method, name)
        };
        assert_eq!(
            ok(&[("Mcp-Method", "tools/list")], "tools/list", &json!({})),
            Ok(())
        );
        assert_eq!(
            ok(&[("MCP-METHOD", "tools/list")], "tools/list", &json!({})),
            Ok(())
        );
        assert_eq!(
            ok(
                &[("mcp-method", "tools/call"), ("mcp-name", "  echo  ")],
                "tools/call",
                &call
            ),
            Ok(())
        );
        assert_eq!(
            ok(&[("mcp-method", "TOOLS/LIST")], "tools/list", &json!({})),
            Err(mismatch(
                "Mcp-Method header value \"TOOLS/LIST\" does not match body value \"tools/list\""
                    .into()
            ))
        );
        assert_eq!(
            ok(&[], "tools/list", &json!({})),
            Err(mismatch("the Mcp-Method header is missing".into()))
        );
        assert_eq!(
            ok(&[("mcp-method", "tools/call")], "tools/call", &call),
            Err(mismatch(
                "the Mcp-Name header is missing for tools/call".into()
            ))
        );
        assert_eq!(
            ok(
                &[("mcp-method", "tools/call"), ("mcp-name", "wrong")],
                "tools/call",
                &call
            ),
            Err(mismatch(
                "Mcp-Name header value \"wrong\" does not match body value \"echo\"".into()
            ))
        );
        let read = json!({"uri": "file:///a%20b.txt"});
        assert_eq!(
            ok(
                &[
                    ("mcp-method", "resources/read"),
                    ("mcp-name", "file:///a%20b.txt")
                ],
                "resources/read",
                &read
            ),
            Ok(())
        );
        // An encoded name is decoded first.
        let encoded = format!("=?base64?{}?=", STANDARD.encode("echo"));
        assert_eq!(
            ok(
                &[("mcp-method", "tools/call"), ("mcp-name", &encoded)],
                "tools/call",
                &call
            ),
            Ok(())
        );
        let error = ErrorObject::from(mismatch("x".into()));
        assert_eq!(error.code, crate::ErrorCode(-32020));
    }

    #[test]
    fn param_headers_must_match_the_arguments() {
        let params = header_params(&schema(json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "on": {"type": "boolean", "x-mcp-header": "On"}
        }})))
        .unwrap();
        let check = |pairs: &[(&str, &str)], arguments: Value| {
            check_params(&headers(pairs), &params, arguments.as_object())
        };
        assert_eq!(
            check(
                &[
                    ("mcp-param-region", "Hello"),
                    ("mcp-param-n", "42.0"),
                    ("mcp-param-on", "true")
                ],
                json!({"region": "Hello", "n": 42, "on": true})
            ),
            Ok(())
        );
        // Null or absent arguments need no header.
        assert_eq!(check(&[], json!({"region": null})), Ok(()));
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVsbG8=?=")],
                json!({"region": "Hello"})
            ),
            Ok(())
        );
        // Without both markers a value is a literal.
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVsbG8=")],
                json!({"region": "=?base64?SGVsbG8="})
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVsbG8?=")],
                json!({"region": "Hello"})
            ),
            Err(mismatch(
                "the Mcp-Param-Region header is not valid Base64 of UTF-8".into()
            ))
        );
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVs!!!bG8=?=")],
                json!({"region": "Hello"})
            ),
            Err(mismatch(
                "the Mcp-Param-Region header is not valid Base64 of UTF-8".into()
            ))
        );
        assert_eq!(
            check(&[], json!({"region": "test-value"})),
            Err(mismatch("the Mcp-Param-Region header is missing".into()))
        );
        assert_eq!(
            check(&[("mcp-param-n", "41")], json!({"n": 42})),
            Err(mismatch(
                "Mcp-Param-N header value \"41\" does not match body value 42".into()
            ))
        );
    }

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn values_are_encoded_as_the_spec_shows() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("a b"), "a b");
        assert_eq!(
            encode_header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            encode_header_value("line1\nline2"),
            "=?base64?bGluZTEKbGluZTI=?="
        );
        assert_eq!(encode_header_value("a\tb"), "=?base64?YQli?=");
        assert_eq!(
            encode_header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(header_text(&json!(42)), Some("42".into()));
        assert_eq!(header_text(&json!(-7)), Some("-7".into()));
        assert_eq!(header_text(&json!(3.0)), Some("3".into()));
        assert_eq!(header_text(&json!(false)), Some("false".into()));
        assert_eq!(header_text(&json!("x")), Some("x".into()));
        assert_eq!(header_text(&json!(["x"])), None);
        let param = HeaderParam {
            name: "Shard".into(),
            path: vec!["target".into(), "shard".into()],
        };
        assert_eq!(
            param.value_in(&json!({"target": {"shard": 4}})),
            Some(&json!(4))
        );
        assert_eq!(param.value_in(&json!({"target": {"shard": null}})), None);
        assert_eq!(param.value_in(&json!({"target": 1})), None);
    }

    #[test]
    fn annotations_are_collected_at_any_depth_and_checked() {
        let params = header_params(&schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "target": {"type": "object", "properties": {
                "shard": {"type": "integer", "x-mcp-header": "Shard"}}}
        }})))
        .unwrap();
        assert_eq!(
            params,
            [
                HeaderParam {
                    name: "Region".into(),
                    path: vec!["region".into()]
                },
                HeaderParam {
                    name: "Shard".into(),
                    path: vec!["target".into(), "shard".into()]
                },
            ]
        );
        let reason = |schema_value: Value| {
            header_params(&schema(schema_value))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            reason(json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}})),
            "invalid x-mcp-header annotation at /a: the name is empty"
        );
        assert_eq!(
            reason(json!({"properties": {"a": {"type": "string", "x-mcp-header": "Has Space"}}})),
            "invalid x-mcp-header annotation at /a: the name is not an HTTP header token"
        );
        assert_eq!(
            reason(json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}})),
            "invalid x-mcp-header annotation at /a: the property is not a string, integer or boolean"
        );
        assert_eq!(
            reason(json!({"properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "REGION"}}})),
            "invalid x-mcp-header annotation at /b: the name is used twice"
        );
    }
}
