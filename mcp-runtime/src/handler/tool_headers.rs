//! The `x-mcp-header` annotations of tool input schemas (2026-07-28, SEP-2243): the arguments
//! a client mirrors into `Mcp-Param-{Name}` HTTP headers, so that proxies can route on them. A
//! server checks the headers against the arguments (see the HTTP transport); a tool whose
//! annotations break the rules is left out of `tools/list`.

use serde_json::{Map, Value};

/// Why an `x-mcp-header` annotation is invalid (the tool is then left out of `tools/list`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid x-mcp-header annotation at {path}: {reason}")]
pub(crate) struct InvalidHeaderAnnotation {
    path: String,
    reason: &'static str,
}

/// A tool argument mirrored into a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The `{Name}` of `Mcp-Param-{Name}`.
    pub(crate) name: String,
    /// The property names leading to the argument, from the arguments object.
    pub(crate) path: Vec<String>,
}

impl HeaderParam {
    /// The argument this header mirrors, if `arguments` give it a value other than `null`.
    pub(crate) fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.path
            .iter()
            .try_fold(arguments, |value, key| value.get(key))
            .filter(|value| !value.is_null())
    }
}

/// The text of an argument mirrored into a header: a string as it is, an integer in decimal, a
/// boolean as `true` or `false`; `None` for anything else.
#[cfg_attr(not(feature = "client-http"), allow(dead_code))]
pub(crate) fn header_text(value: &Value) -> Option<String> {
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
#[cfg_attr(not(feature = "client-http"), allow(dead_code))]
pub(crate) fn encode_header_value(text: &str) -> String {
    use base64::Engine;
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel = text.starts_with("=?base64?") && text.ends_with("?=");
    if visible && !padded && !sentinel {
        text.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
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
pub(crate) fn header_params(
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
    use serde_json::json;

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
