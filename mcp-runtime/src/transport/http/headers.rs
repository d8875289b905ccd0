//! The HTTP headers that 2026-07-28 requests mirror from their body (SEP-2243): `Mcp-Method`,
//! `Mcp-Name`, and the `Mcp-Param-{Name}` headers of tool arguments whose schema carries an
//! `x-mcp-header` annotation.
//!
//! A server must refuse (HTTP 400, `-32020` header mismatch) a request whose headers are missing
//! or disagree with its body, so that a proxy routing on the headers and the server executing the
//! body always see the same request. Header names are compared case-insensitively, values
//! exactly (integers numerically); a value may be sent Base64-encoded as `=?base64?…?=`.
//! (SEP-2243 names the code `-32001`; the 2026-07-28 schema, which this follows, has
//! `HeaderMismatch` at `-32020`.)

use std::borrow::Cow;

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcp_core::ErrorObject;

use crate::handler::tool_headers::HeaderParam;
use serde_json::Value;

/// The header naming the method.
pub(crate) const METHOD_HEADER: &str = "mcp-method";
/// The header naming the tool, prompt or resource.
pub(crate) const NAME_HEADER: &str = "mcp-name";
/// The prefix of the headers that mirror tool arguments.
const PARAM_PREFIX: &str = "mcp-param-";

/// A header disagrees with the body, or a required one is missing or malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Header mismatch: {0}")]
pub(crate) struct HeaderMismatch(String);

impl From<HeaderMismatch> for ErrorObject {
    fn from(error: HeaderMismatch) -> Self {
        ErrorObject::header_mismatch(error.to_string())
    }
}

/// The value of header `name`, trimmed; `Err` when it is not visible ASCII.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, HeaderMismatch> {
    match headers.get(name) {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .map(|v| Some(v.trim_matches([' ', '\t'])))
            .map_err(|_| HeaderMismatch(format!("the {name} header has invalid characters"))),
    }
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
        .ok_or_else(|| HeaderMismatch(format!("the {name} header is not valid Base64 of UTF-8")))
}

/// The member of a request's params that its `Mcp-Name` header repeats: the `name` of a
/// `tools/call` or `prompts/get`, the `uri` of a `resources/read`.
pub(crate) fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// Checks `Mcp-Method` (every request and notification) and `Mcp-Name` (`tools/call`,
/// `prompts/get`, `resources/read`) against the body's `method` and the params' member that
/// [`name_field`] names, `body` (when a string).
pub(crate) fn check_standard(
    headers: &HeaderMap,
    method: &str,
    body: Option<&str>,
) -> Result<(), HeaderMismatch> {
    let sent = header(headers, METHOD_HEADER)?
        .ok_or_else(|| HeaderMismatch("the Mcp-Method header is missing".into()))?;
    let sent = decode("Mcp-Method", sent)?;
    if sent != method {
        return Err(HeaderMismatch(format!(
            "Mcp-Method header value {sent:?} does not match body value {method:?}"
        )));
    }
    if name_field(method).is_none() {
        return Ok(());
    }
    let sent = header(headers, NAME_HEADER)?
        .ok_or_else(|| HeaderMismatch(format!("the Mcp-Name header is missing for {method}")))?;
    let sent = decode("Mcp-Name", sent)?;
    if Some(sent.as_ref()) != body {
        return Err(HeaderMismatch(format!(
            "Mcp-Name header value {sent:?} does not match body value {:?}",
            body.unwrap_or_default()
        )));
    }
    Ok(())
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its `arguments`: an argument
/// given a non-null value needs its header, with the same value.
pub(crate) fn check_params(
    headers: &HeaderMap,
    params: &[HeaderParam],
    arguments: Option<&Value>,
) -> Result<(), HeaderMismatch> {
    for param in params {
        let value = arguments.and_then(|args| param.value_in(args));
        let header_name = format!("{PARAM_PREFIX}{}", param.name);
        let display = format!("Mcp-Param-{}", param.name);
        let sent = header(headers, &header_name)?;
        let Some(value) = value else { continue };
        let sent =
            sent.ok_or_else(|| HeaderMismatch(format!("the {display} header is missing")))?;
        let sent = decode(&display, sent)?;
        let matches = match value {
            Value::String(s) => sent == s.as_str(),
            Value::Bool(b) => sent == b.to_string(),
            Value::Number(n) => sent.parse::<f64>().ok() == n.as_f64(),
            _ => false,
        };
        if !matches {
            return Err(HeaderMismatch(format!(
                "{display} header value {sent:?} does not match body value {value}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::tool_headers::header_params;
    use axum::http::HeaderValue;
    use serde_json::Map;
    use serde_json::json;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
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
            Err(HeaderMismatch(
                "Mcp-Method header value \"TOOLS/LIST\" does not match body value \"tools/list\""
                    .into()
            ))
        );
        assert_eq!(
            ok(&[], "tools/list", &json!({})),
            Err(HeaderMismatch("the Mcp-Method header is missing".into()))
        );
        assert_eq!(
            ok(&[("mcp-method", "tools/call")], "tools/call", &call),
            Err(HeaderMismatch(
                "the Mcp-Name header is missing for tools/call".into()
            ))
        );
        assert_eq!(
            ok(
                &[("mcp-method", "tools/call"), ("mcp-name", "wrong")],
                "tools/call",
                &call
            ),
            Err(HeaderMismatch(
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
        let error = ErrorObject::from(HeaderMismatch("x".into()));
        assert_eq!(error.code, mcp_core::ErrorCode(-32020));
    }

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
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
            check_params(&headers(pairs), &params, Some(&arguments))
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
            Err(HeaderMismatch(
                "the Mcp-Param-Region header is not valid Base64 of UTF-8".into()
            ))
        );
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVs!!!bG8=?=")],
                json!({"region": "Hello"})
            ),
            Err(HeaderMismatch(
                "the Mcp-Param-Region header is not valid Base64 of UTF-8".into()
            ))
        );
        assert_eq!(
            check(&[], json!({"region": "test-value"})),
            Err(HeaderMismatch(
                "the Mcp-Param-Region header is missing".into()
            ))
        );
        assert_eq!(
            check(&[("mcp-param-n", "41")], json!({"n": 42})),
            Err(HeaderMismatch(
                "Mcp-Param-N header value \"41\" does not match body value 42".into()
            ))
        );
    }
}
