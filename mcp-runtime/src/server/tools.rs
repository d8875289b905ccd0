//! `tools/list` and `tools/call`.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use mcp_core::capabilities::MissingClientCapability;
use mcp_core::params::PaginatedRequestParams;

use mcp_core::messages::{ClientRequest, ServerResult};
use mcp_core::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use mcp_core::{Era, ErrorObject};
use serde_json::Value;

use super::McpServer;
use super::caching::CachedList;
use super::dispatch::Lists;
use super::list::list;
use super::middleware::{self, Listed, McpRequest, Target, TargetKind};
use super::panics::panic_message;
use super::tasks;
use crate::handler::ClientRequestError;
use crate::handler::RequestContext;

/// `tools/list`: one page of the tools.
pub(super) fn list_tools(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
    lists: Lists<'_>,
) -> Result<ListToolsResult, ErrorObject> {
    let mut tools = server.inner.registry.tools.snapshot();
    tools.retain(|t| !lists.hide(Listed::Tool(&t.definition.tool)));
    list(server, ctx, tools, params, CachedList::Tools, |t| {
        t.definition.tool.clone()
    })
}

/// `tools/call`: checks the capabilities the tool needs and its arguments, then runs it through
/// the layers, as a task when the call may become one (see [`tasks`]).
pub(super) async fn call(mut request: McpRequest) -> Result<ServerResult, ErrorObject> {
    let (server, ctx) = (request.server.clone(), request.ctx.clone());
    let (TargetKind::Tool(tool), ClientRequest::CallTool(params)) =
        (&request.target.kind, &mut *request.params)
    else {
        return Err(ErrorObject::internal_error(
            "tools/call reached its handler without its tool",
        ));
    };
    let name = &params.name;
    if let Some(required) = &tool.definition.required_capabilities
        && let Some(missing) = required.first_missing(ctx.client_capabilities())
    {
        // 2026-07-28 has an error for it (-32021), which tells the client what to declare.
        if ctx.protocol_version().era() == Era::Stateless {
            return Err(MissingClientCapability {
                required: required.clone(),
            }
            .into());
        }
        let message = match ctx.undeclared(missing) {
            why @ ClientRequestError::NoSession { .. } => format!("Tool {name} {why}"),
            _ => format!(
                "Tool {name} needs the client capability `{missing}`, which this client did not \
                 declare"
            ),
        };
        return Ok(CallToolResult::error(message).into());
    }
    if server.inner.options.validate_input {
        let arguments = Value::Object(params.arguments.take().unwrap_or_default());
        if let Err(violation) = tool.input.validate(&arguments) {
            return Ok(CallToolResult::error(format!(
                "Invalid arguments for tool {name}: {violation}"
            ))
            .into());
        }
        if let Value::Object(arguments) = arguments {
            params.arguments = Some(arguments);
        }
    }
    let run = async move {
        match middleware::run(request).await? {
            ServerResult::CallTool(result) => Ok(result),
            _ => Err(ErrorObject::internal_error(
                "a middleware layer answered tools/call with the result of another method",
            )),
        }
    };
    match ctx.task_plan() {
        None => run.await.map(Into::into),
        Some(plan) => tasks::run(&server, Box::pin(run), &ctx, plan).await,
    }
}

/// Runs the tool's handler (a panic is a tool error, or the internal error a task fails with)
/// and checks its structured output when asked to.
pub(super) async fn run(
    server: &McpServer,
    target: Target,
    params: CallToolRequestParams,
    ctx: RequestContext,
) -> Result<CallToolResult, ErrorObject> {
    let TargetKind::Tool(tool) = target.kind else {
        return Err(ErrorObject::internal_error(
            "tools/call reached its handler without its tool",
        ));
    };
    let arguments = params.arguments.unwrap_or_default();
    let name = tool.definition.name();
    // The handler is called inside the future, so a panic in its synchronous part (say, while
    // decoding typed arguments) is caught like one in its body.
    let handler = &tool.definition.handler;
    let call = async { handler(arguments, ctx.clone()).await };
    let result = match AssertUnwindSafe(call).catch_unwind().await {
        Ok(result) => result,
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
        && let Some(schema) = &tool.output
    {
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
