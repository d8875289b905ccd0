//! `tools/list` and `tools/call`.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use mcp_runtime_core::params::PaginatedRequestParams;

use mcp_runtime_core::messages::{ClientRequest, ServerResult};
use std::sync::Arc;

use mcp_runtime_core::tools::{CallToolResult, ListToolsResult};
use mcp_runtime_core::{ErrorObject, JsonObject};
use serde_json::Value;

use super::McpServer;
use super::caching::CachedList;
use super::list::{Listing, list};
use super::panics::panic_message;
use super::registry::RegisteredTool;
use super::request::{Listed, Lists, McpRequest, TargetKind};
use crate::handler::ClientRequestError;
use crate::handler::RequestContext;

/// `tools/list`: one page of the tools. The tools only an app's page calls (MCP Apps) are left
/// out for a client whose host renders no apps: its model would see tools nothing else calls.
pub(super) fn list_tools(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
    lists: Lists<'_>,
) -> Result<ServerResult, ErrorObject> {
    let catalog = &server.inner.registry.tools;
    let no_apps = catalog.any(|t| t.app_only) && !ctx.client_capabilities().renders_apps();
    let keep = |t: &RegisteredTool| {
        !((no_apps && t.app_only) || lists.hide(Listed::Tool(&t.definition.tool)))
    };
    let listing = Listing::new(server, ctx, keep, u8::from(no_apps));
    list::<ListToolsResult, _, _>(
        server,
        ctx,
        catalog,
        listing,
        params,
        CachedList::Tools,
        |t| t.definition.tool.clone(),
    )
}

/// The checks of a `tools/call` before its layers run: the client capabilities the tool needs,
/// and its arguments against its input schema. The answer to give instead of running it, when
/// one fails: a tool error, or on 2026-07-28 the error that names the capabilities to declare.
pub(super) fn check(request: &mut McpRequest) -> Option<Result<ServerResult, ErrorObject>> {
    let parts = &mut *request.parts;
    let server = &parts.server;
    let ctx = &parts.ctx;
    let (TargetKind::Tool(tool), ClientRequest::CallTool(params)) =
        (&parts.target.kind, &mut *parts.params)
    else {
        return None;
    };
    let name = &params.name;
    if let Some(required) = &tool.definition.required_capabilities
        && let Some(missing) = required.first_missing(ctx.client_capabilities())
    {
        // The stateless era has an error for it (-32021), which tells the client what to declare.
        if let Some(error) = ctx.era().missing_capability(required) {
            return Some(Err(error));
        }
        let message = match ctx.undeclared(missing) {
            why @ ClientRequestError::NoSession { .. } => format!("Tool {name} {why}"),
            _ => format!(
                "Tool {name} needs the client capability `{missing}`, which this client did not \
                 declare"
            ),
        };
        return Some(Ok(CallToolResult::error(message).into()));
    }
    if let (true, Some(input)) = (server.inner.options.validate_input, &tool.input) {
        let input = match input.get(&tool.definition.tool.input_schema) {
            Ok(input) => input,
            Err(why) => return Some(Err(uncompiled(name, "input", why))),
        };
        let arguments = Value::Object(params.arguments.take().unwrap_or_default());
        if let Err(violation) = input.validate(&arguments) {
            return Some(Ok(CallToolResult::error(format!(
                "Invalid arguments for tool {name}: {violation}"
            ))
            .into()));
        }
        if let Value::Object(arguments) = arguments {
            params.arguments = Some(arguments);
        }
    }
    None
}

/// The error of a call whose tool has a schema that does not compile (one derived from Rust
/// types, compiled on first use: schemars made something the validator refuses).
fn uncompiled(tool: &str, which: &str, why: &str) -> ErrorObject {
    tracing::error!(%tool, schema = which, %why, "a tool's schema does not compile");
    ErrorObject::internal_error(format!(
        "Tool {tool} cannot be called: its {which} schema, generated from its Rust types, does not \
         compile ({why})"
    ))
}

/// Runs the tool's handler (a panic is a tool error, or the internal error a task fails with)
/// and checks its structured output when asked to.
pub(super) async fn run(
    server: &McpServer,
    tool: Arc<RegisteredTool>,
    arguments: JsonObject,
    ctx: RequestContext,
) -> Result<CallToolResult, ErrorObject> {
    let name = tool.definition.name();
    // The handler is called inside the future, so a panic in its synchronous part (say, while
    // decoding typed arguments) is caught like one in its body.
    let handler = &tool.definition.handler;
    let call = async { handler(arguments, ctx.clone()).await };
    let result = match AssertUnwindSafe(call).catch_unwind().await {
        Ok(result) => result?,
        Err(panic) => {
            let reason = panic_message(panic.as_ref());
            tracing::error!(tool = %name, %reason, "a tool handler panicked");
            let message = format!("Tool {name} failed: it panicked ({reason})");
            if ctx.task_id().is_some() {
                return Err(ErrorObject::internal_error(message));
            }
            CallToolResult::error(message)
        }
    };
    if server.inner.options.validate_output
        && !result.is_error()
        && let (Some(schema), Some(source)) = (&tool.output, &tool.definition.tool.output_schema)
    {
        let schema = schema
            .get(source)
            .map_err(|why| uncompiled(name, "output", why))?;
        let structured = result.structured_content.as_ref().ok_or_else(|| {
            ErrorObject::internal_error(format!(
                "Tool {name} has an output schema but returned no structured content"
            ))
        })?;
        schema.validate(structured).map_err(|violation| {
            ErrorObject::internal_error(format!(
                "Tool {name} returned structured content that does not match its output schema: {violation}"
            ))
        })?;
    }
    Ok(result)
}
