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
