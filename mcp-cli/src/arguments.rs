//! Tool and prompt arguments from the command line: `key=value` pairs, each value typed by the
//! tool's input schema (`a=2` is the number 2 when `a` is a number, the string "2" when it is a
//! string), or one JSON object.

use anyhow::{Context, bail};
use mcp_runtime::protocol::schema::CompiledSchema;
use serde_json::{Map, Value};

/// The arguments `items` give for a tool whose input schema is `schema`: one JSON object
/// (`{"a": 1}`), or `key=value` pairs.
pub fn tool_arguments(items: &[String], schema: &Map<String, Value>) -> anyhow::Result<Value> {
    if let [only] = items
        && only.trim_start().starts_with('{')
    {
        let value: Value = serde_json::from_str(only)
            .with_context(|| format!("the arguments {only:?} are not a JSON object"))?;
        return Ok(value);
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut arguments = Map::new();
    for item in items {
        let (key, text) = pair(item)?;
        let kind = properties
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        arguments.insert(key.to_owned(), typed(key, text, kind)?);
    }
    Ok(Value::Object(arguments))
}

/// Checks the `arguments` of `tool` against its input `schema` before they are sent, so that a
/// mistake (a missing argument, a value out of range) is said in one line. A schema this side
/// cannot compile is left to the server to apply.
pub fn check_tool_arguments(
    tool: &str,
    arguments: &Value,
    schema: &Map<String, Value>,
) -> anyhow::Result<()> {
    let Ok(compiled) = CompiledSchema::compile(schema) else {
        return Ok(());
    };
    compiled.validate(arguments).map_err(|violation| {
        anyhow::anyhow!(
            "the arguments of {tool} break its input schema: {violation} (mcp inspect shows the \
             schema)"
        )
    })
}

/// The `key=value` pairs of a prompt's arguments (all strings).
pub fn prompt_arguments(items: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|item| pair(item).map(|(k, v)| (k.to_owned(), v.to_owned())))
        .collect()
}

fn pair(item: &str) -> anyhow::Result<(&str, &str)> {
    match item.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        _ => bail!("{item:?} is not an argument: write name=value, or one JSON object"),
    }
}

/// `text` as a value of the JSON Schema type `kind`.
fn typed(key: &str, text: &str, kind: Option<&str>) -> anyhow::Result<Value> {
    let wrong = |what: &str| anyhow::anyhow!("argument {key}: {text:?} is not {what}");
    Ok(match kind {
        Some("string") => Value::String(text.to_owned()),
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| wrong("an integer"))?,
        // A whole number stays one (`11`, not `11.0`), as a client written by hand would send it.
        Some("number") => match text.parse::<i64>() {
            Ok(whole) => Value::from(whole),
            Err(_) => {
                let number: f64 = text.parse().map_err(|_| wrong("a number"))?;
                serde_json::Number::from_f64(number)
                    .map(Value::Number)
                    .ok_or_else(|| wrong("a finite number"))?
            }
        },
        Some("boolean") => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(wrong("true or false")),
        },
        Some("array" | "object") => serde_json::from_str(text)
            .map_err(|_| wrong(&format!("JSON ({} expected)", kind.unwrap_or_default())))?,
        // Untyped: JSON when it reads as JSON, else a string.
        _ => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_follow_the_schema() {
        let schema = json!({"properties": {
            "a": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"},
            "b": {"type": "boolean"}, "tags": {"type": "array"}
        }});
        let schema = schema.as_object().unwrap();
        let arguments = tool_arguments(
            &strings(&["a=2", "x=1.5", "s=2", "b=true", "tags=[\"x\"]", "free=3"]),
            schema,
        )
        .unwrap();
        assert_eq!(
            arguments,
            json!({"a": 2, "x": 1.5, "s": "2", "b": true, "tags": ["x"], "free": 3})
        );
        assert_eq!(
            tool_arguments(&strings(&["{\"a\": 1}"]), schema).unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            tool_arguments(&strings(&["a=two"]), schema)
                .unwrap_err()
                .to_string(),
            "argument a: \"two\" is not an integer"
        );
        assert_eq!(
            tool_arguments(&strings(&["oops"]), schema)
                .unwrap_err()
                .to_string(),
            "\"oops\" is not an argument: write name=value, or one JSON object"
        );
        // A whole number for a number stays whole.
        assert_eq!(
            tool_arguments(&strings(&["x=3"]), schema).unwrap(),
            json!({"x": 3})
        );
    }

    #[test]
    fn arguments_are_checked_against_the_schema_before_they_are_sent() {
        let schema = json!({
            "type": "object",
            "properties": {"count": {"type": "integer", "maximum": 10}},
            "required": ["count"]
        });
        let schema = schema.as_object().unwrap();
        let check = |arguments: Value| {
            check_tool_arguments("links", &arguments, schema).map_err(|e| e.to_string())
        };
        assert_eq!(check(json!({"count": 3})), Ok(()));
        assert_eq!(
            check(json!({})),
            Err(
                "the arguments of links break its input schema: \"count\" is a required \
                 property (mcp inspect shows the schema)"
                    .into()
            )
        );
        assert_eq!(
            check(json!({"count": 11})),
            Err(
                "the arguments of links break its input schema: count: 11 is greater than the \
                 maximum of 10 (mcp inspect shows the schema)"
                    .into()
            )
        );
        // A schema that does not compile here is the server's to apply.
        let broken = json!({"type": 12});
        assert!(check_tool_arguments("links", &json!({}), broken.as_object().unwrap()).is_ok());
    }
}
