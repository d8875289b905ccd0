//! `prompts/list` and `prompts/get`.

use mcp_core::ErrorObject;
use mcp_core::params::PaginatedRequestParams;
use mcp_core::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};

use super::McpServer;
use super::caching::CachedList;
use super::list::list;
use crate::handler::RequestContext;

/// `prompts/list`: one page of the prompts.
pub(super) fn list_prompts(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
) -> Result<ListPromptsResult, ErrorObject> {
    let prompts = server.inner.registry.prompts.snapshot();
    list(server, ctx, prompts, params, CachedList::Prompts, |p| {
        p.definition.prompt.clone()
    })
}

/// `prompts/get`: checks the required arguments and runs the prompt's handler.
pub(super) async fn get(
    server: &McpServer,
    params: GetPromptRequestParams,
    ctx: &RequestContext,
) -> Result<GetPromptResult, ErrorObject> {
    let Some(prompt) = server.inner.registry.prompts.get(&params.name) else {
        return Err(ErrorObject::invalid_params(format!(
            "Unknown prompt: {}",
            params.name
        )));
    };
    let arguments = params.arguments.unwrap_or_default();
    let missing = prompt.definition.missing_arguments(&arguments);
    if !missing.is_empty() {
        return Err(ErrorObject::invalid_params(format!(
            "Missing required argument(s) for prompt {}: {}",
            params.name,
            missing.join(", ")
        )));
    }
    // A panic is the dispatcher's to catch, like one in any handler.
    (prompt.definition.handler)(arguments, ctx.clone()).await
}
