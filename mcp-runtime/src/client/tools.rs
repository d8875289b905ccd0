//! What the client remembers of the server's tools from `tools/list`: the arguments each one
//! mirrors into `Mcp-Param-{Name}` headers (2026-07-28 over HTTP, SEP-2243), its output
//! schema, against which structured results are checked, and whether it runs as a task
//! (2025-11-25's `execution.taskSupport`), and whether an app may call it (MCP Apps). Schemas are kept exactly as the server sent them; a
//! `$ref` is never fetched.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use mcp_runtime_core::JsonObject;
use mcp_runtime_core::schema::CompiledSchema;
use mcp_runtime_core::tools::{CallToolResult, TaskSupport, Tool};
use parking_lot::Mutex;
use serde_json::Value;

use mcp_runtime_core::headers::{HeaderParam, header_params};

/// One tool as the last `tools/list` described it.
struct KnownTool {
    headers: Vec<HeaderParam>,
    output_schema: Option<JsonObject>,
    /// Whether its calls may or must run as tasks (2025-11-25).
    task_support: TaskSupport,
    /// Whether an app may call it (MCP Apps: its visibility names the app, or it has none).
    for_app: bool,
    /// The output schema compiled on first use (`None` when it does not compile).
    compiled: OnceLock<Option<CompiledSchema>>,
}

/// The tools of the server, by name.
#[derive(Default)]
pub(crate) struct ToolCache {
    tools: Mutex<HashMap<String, Arc<KnownTool>>>,
}

impl ToolCache {
    /// Remembers a page of `tools/list`. With `check_headers` (2026-07-28), a tool whose
    /// `x-mcp-header` annotations break the rules is left out of the page, as the spec asks of
    /// clients, and logged.
    pub(crate) fn remember(&self, tools: Vec<Tool>, check_headers: bool) -> Vec<Tool> {
        let mut known = self.tools.lock();
        let mut kept = Vec::with_capacity(tools.len());
        for tool in tools {
            let headers = match header_params(&tool.input_schema) {
                Ok(headers) => headers,
                Err(error) if check_headers => {
                    tracing::warn!(tool = %tool.name, %error, "left out a tool with an invalid header annotation");
                    known.remove(&tool.name);
                    continue;
                }
                Err(_) => Vec::new(),
            };
            known.insert(
                tool.name.clone(),
                Arc::new(KnownTool {
                    headers,
                    output_schema: tool.output_schema.clone(),
                    task_support: tool
                        .execution
                        .as_ref()
                        .and_then(|e| e.task_support)
                        .unwrap_or_default(),
                    for_app: tool.is_for_app(),
                    compiled: OnceLock::new(),
                }),
            );
            kept.push(tool);
        }
        kept
    }

    /// The `Mcp-Param-{Name}` headers of a call of `name` with `arguments`: header name and
    /// the argument's text, still to be encoded (see `encode_header_value`).
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    pub(crate) fn param_headers(&self, name: &str, arguments: &Value) -> Vec<(String, String)> {
        let Some(tool) = self.tools.lock().get(name).cloned() else {
            return Vec::new();
        };
        tool.headers
            .iter()
            .filter_map(|param| {
                let text = mcp_runtime_core::headers::header_text(param.value_in(arguments)?)?;
                Some((format!("Mcp-Param-{}", param.name), text))
            })
            .collect()
    }

    /// Whether calls of `name` may or must run as tasks, as the last `tools/list` said; `None`
    /// for a tool not listed.
    pub(crate) fn task_support(&self, name: &str) -> Option<TaskSupport> {
        self.tools.lock().get(name).map(|tool| tool.task_support)
    }

    /// Whether an app may call `name` (MCP Apps), as the last `tools/list` said; `None` for a
    /// tool not listed.
    pub(crate) fn for_app(&self, name: &str) -> Option<bool> {
        self.tools.lock().get(name).map(|tool| tool.for_app)
    }

    /// Checks the structured content of `result` against the output schema of tool `name`,
    /// when `tools/list` gave one: a successful result must carry conforming structured
    /// content. A schema that does not compile (an unresolvable `$ref`, say) checks nothing.
    pub(crate) fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), String> {
        let Some(tool) = self.tools.lock().get(name).cloned() else {
            return Ok(());
        };
        let Some(schema) = &tool.output_schema else {
            return Ok(());
        };
        if result.is_error == Some(true) {
            return Ok(());
        }
        let compiled = tool.compiled.get_or_init(|| {
            CompiledSchema::compile(schema)
                .inspect_err(|error| tracing::warn!(tool = name, %error, "the output schema does not compile; results are not checked"))
                .ok()
        });
        let Some(compiled) = compiled else {
            return Ok(());
        };
        let Some(structured) = &result.structured_content else {
            return Err(format!(
                "tool {name} has an output schema but returned no structured content"
            ));
        };
        compiled.validate(structured).map_err(|violation| {
            format!("the structured content of {name} breaks its output schema: {violation}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn invalid_annotations_leave_the_tool_out_and_valid_ones_become_headers() {
        let cache = ToolCache::default();
        let kept = cache.remember(
            vec![
                tool(
                    json!({"name": "ok", "inputSchema": {"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "n": {"type": "integer", "x-mcp-header": "N"},
                    "note": {"type": "string"}}}}),
                ),
                tool(
                    json!({"name": "bad", "inputSchema": {"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": ""}}}}),
                ),
            ],
            true,
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "ok");
        assert_eq!(
            cache.param_headers("ok", &json!({"region": "Hello, 世界", "n": 3, "note": "x"})),
            [
                ("Mcp-Param-Region".to_owned(), "Hello, 世界".to_owned()),
                ("Mcp-Param-N".to_owned(), "3".to_owned()),
            ]
        );
        assert_eq!(
            cache.param_headers("ok", &json!({"region": null})),
            Vec::<(String, String)>::new()
        );
        let handshake = ToolCache::default();
        assert_eq!(
            handshake
                .remember(
                    vec![tool(json!({"name": "bad", "inputSchema": {"properties": {
                        "a": {"type": "string", "x-mcp-header": ""}}}}))],
                    false
                )
                .len(),
            1
        );
    }

    #[test]
    fn the_task_support_of_each_listed_tool_is_remembered() {
        let cache = ToolCache::default();
        cache.remember(
            vec![
                tool(json!({"name": "plain", "inputSchema": {"type": "object"}})),
                tool(json!({"name": "maybe", "inputSchema": {"type": "object"},
                    "execution": {"taskSupport": "optional"}})),
                tool(json!({"name": "always", "inputSchema": {"type": "object"},
                    "execution": {"taskSupport": "required"}})),
            ],
            false,
        );
        assert_eq!(
            ["plain", "maybe", "always", "unknown"].map(|name| cache.task_support(name)),
            [
                Some(TaskSupport::Forbidden),
                Some(TaskSupport::Optional),
                Some(TaskSupport::Required),
                None
            ]
        );
    }

    #[test]
    fn structured_content_is_checked_against_the_output_schema() {
        let cache = ToolCache::default();
        cache.remember(
            vec![tool(
                json!({"name": "sum", "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"total": {"type": "integer"}},
                    "required": ["total"]}}),
            )],
            false,
        );
        let result = |value: Value| -> CallToolResult { serde_json::from_value(value).unwrap() };
        assert_eq!(
            cache.check_output(
                "sum",
                &result(json!({"content": [], "structuredContent": {"total": 3}}))
            ),
            Ok(())
        );
        assert_eq!(
            cache.check_output(
                "sum",
                &result(json!({"content": [], "structuredContent": {"total": "3"}}))
            ),
            Err(
                "the structured content of sum breaks its output schema: total: \"3\" is not of type \"integer\""
                    .into()
            )
        );
        assert_eq!(
            cache.check_output("sum", &result(json!({"content": []}))),
            Err("tool sum has an output schema but returned no structured content".into())
        );
        assert_eq!(
            cache.check_output("sum", &result(json!({"content": [], "isError": true}))),
            Ok(())
        );
        assert_eq!(
            cache.check_output("other", &result(json!({"content": []}))),
            Ok(())
        );
    }
}
