//! Tools: their definitions, listing them, and calling them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonObject;
use crate::content::ContentBlock;
use crate::implementation::Icon;
use crate::input::InputResponses;
use crate::meta::{RequestMeta, ResultMeta};
use crate::render::{self, skip};
use crate::result::ResultType;
use crate::tasks::TaskMetadata;
use crate::version::ProtocolVersion;

/// A tool the client can call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Its programmatic name, unique on the server.
    pub name: String,
    /// A display name (2025-06-18; before that, [`ToolAnnotations::title`]).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments: an object schema.
    pub input_schema: JsonObject,
    /// The JSON Schema of its `structuredContent` (2025-06-18). Revisions before 2026-07-28 only
    /// accept object schemas; another schema is left out for them, as is the structured content it
    /// describes.
    #[serde(default, skip_serializing_if = "skip_output_schema")]
    pub output_schema: Option<JsonObject>,
    /// Hints about its behaviour (2025-03-26).
    #[serde(default, skip_serializing_if = "skip::since_2025_03_26")]
    pub annotations: Option<ToolAnnotations>,
    /// How it may be run (2025-11-25 tasks).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub execution: Option<ToolExecution>,
    /// Icons for a user interface (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl Tool {
    /// The tool `name` taking arguments described by `input_schema`.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
        }
    }
}

/// Whether a schema is one that revisions before 2026-07-28 accept as an output schema.
fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

fn skip_output_schema(schema: &Option<JsonObject>) -> bool {
    match schema {
        None => true,
        Some(schema) => {
            let target = render::target();
            target < ProtocolVersion::V2025_06_18
                || (target < ProtocolVersion::V2026_07_28 && !is_object_schema(schema))
        }
    }
}

/// Hints about a tool's behaviour. Clients must not trust them from untrusted servers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// A tool that changes its environment may destroy things (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It reaches outside, to an open world of entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// How a tool may be run (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether a call may or must run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

/// Whether a tool call may run as a task (2025-11-25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Calls never run as tasks (the default).
    #[default]
    Forbidden,
    /// Calls may run as tasks.
    Optional,
    /// Calls must run as tasks.
    Required,
}

crate::result::paginated_result! {
    /// The result of `tools/list`.
    ListToolsResult, "tools", tools: Tool, "tools"
}

/// The params of `tools/call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The tool to call.
    pub name: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Run the call as a task (2025-11-25 tasks).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub task: Option<TaskMetadata>,
    /// Answers to the input requests of an earlier round (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub input_responses: Option<InputResponses>,
    /// The state the server handed out with its input requests (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl CallToolRequestParams {
    /// Call `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Option<JsonObject>) -> Self {
        CallToolRequestParams {
            name: name.into(),
            arguments,
            task: None,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }
}

/// The result of `tools/call`.
///
/// A tool that fails reports it here with `is_error: Some(true)` and the failure in `content`, so
/// that the model sees it; JSON-RPC errors are for protocol problems (an unknown tool, malformed
/// params).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// What the tool produced, as content blocks.
    pub content: Vec<ContentBlock>,
    /// What the tool produced, as JSON conforming to its output schema (2025-06-18). Revisions
    /// before 2026-07-28 only accept objects; another value is left out for them.
    #[serde(default, skip_serializing_if = "skip_structured_content")]
    pub structured_content: Option<Value>,
    /// The call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Complete (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl CallToolResult {
    /// A successful result holding `content`.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..CallToolResult::default()
        }
    }

    /// A failed result whose text is `message`.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..CallToolResult::default()
        }
    }

    /// A successful result with `structured` content and its JSON text as a text block (which is
    /// what clients without structured-output support read).
    pub fn structured(structured: Value) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(structured.to_string())],
            structured_content: Some(structured),
            ..CallToolResult::default()
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// Structured content may only be sent from 2025-06-18 on, and before 2026-07-28 only as an object.
fn skip_structured_content(content: &Option<Value>) -> bool {
    match content {
        None => true,
        Some(value) => {
            let target = render::target();
            target < ProtocolVersion::V2025_06_18
                || (target < ProtocolVersion::V2026_07_28 && !value.is_object())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_value;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn tool_fields_follow_the_version() {
        let mut tool = Tool::new("add", object(json!({"type": "object", "properties": {}})));
        tool.title = Some("Add".into());
        tool.output_schema = Some(object(json!({"type": "object"})));
        tool.annotations = Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        });
        tool.execution = Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
        });
        tool.icons = Some(vec![Icon::new("https://example.com/i.png")]);
        let keys = |v: ProtocolVersion| -> Vec<String> {
            to_value(&tool, v)
                .unwrap()
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(keys(ProtocolVersion::V2024_11_05), ["name", "inputSchema"]);
        assert_eq!(
            keys(ProtocolVersion::V2025_03_26),
            ["name", "inputSchema", "annotations"]
        );
        assert_eq!(
            keys(ProtocolVersion::V2025_06_18),
            [
                "name",
                "title",
                "inputSchema",
                "outputSchema",
                "annotations"
            ]
        );
        assert_eq!(
            keys(ProtocolVersion::V2025_11_25),
            [
                "name",
                "title",
                "inputSchema",
                "outputSchema",
                "annotations",
                "execution",
                "icons"
            ]
        );
        assert_eq!(
            keys(ProtocolVersion::V2026_07_28),
            [
                "name",
                "title",
                "inputSchema",
                "outputSchema",
                "annotations",
                "icons"
            ]
        );
    }

    #[test]
    fn non_object_output_only_for_2026_07_28() {
        let mut tool = Tool::new("list", object(json!({"type": "object"})));
        tool.output_schema = Some(object(
            json!({"type": "array", "items": {"type": "string"}}),
        ));
        assert!(
            to_value(&tool, ProtocolVersion::V2025_11_25)
                .unwrap()
                .get("outputSchema")
                .is_none()
        );
        assert!(
            to_value(&tool, ProtocolVersion::V2026_07_28)
                .unwrap()
                .get("outputSchema")
                .is_some()
        );

        let result = CallToolResult::structured(json!(["a", "b"]));
        assert_eq!(
            to_value(&result, ProtocolVersion::V2025_11_25).unwrap(),
            json!({"content": [{"type": "text", "text": "[\"a\",\"b\"]"}]})
        );
        assert_eq!(
            to_value(&result, ProtocolVersion::V2026_07_28).unwrap(),
            json!({"content": [{"type": "text", "text": "[\"a\",\"b\"]"}],
                   "structuredContent": ["a", "b"], "resultType": "complete"})
        );
    }

    #[test]
    fn error_results() {
        let result = CallToolResult::error("division by zero");
        assert!(result.is_error());
        assert_eq!(
            to_value(&result, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true})
        );
    }
}
