//! `prompts/list` and `prompts/get`.

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};

use super::McpServer;
use super::caching::CachedList;
use super::list::{Listing, list};
use super::registry::RegisteredPrompt;
use super::request::{Listed, Lists, Target, TargetKind, unknown_prompt};
use crate::handler::RequestContext;

/// `prompts/list`: one page of the prompts.
pub(super) fn list_prompts(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
    lists: Lists<'_>,
) -> Result<ServerResult, ErrorObject> {
    let keep = |p: &RegisteredPrompt| !lists.hide(Listed::Prompt(&p.definition.prompt));
    let listing = Listing::new(server, ctx, keep, 0);
    let catalog = &server.inner.registry.prompts;
    list::<ListPromptsResult, _, _>(
        server,
        ctx,
        catalog,
        listing,
        params,
        CachedList::Prompts,
        |p| p.definition.prompt.clone(),
    )
}

/// `prompts/get`: checks the required arguments and runs the prompt's handler.
pub(super) async fn get(
    target: Target,
    params: GetPromptRequestParams,
    ctx: &RequestContext,
) -> Result<GetPromptResult, ErrorObject> {
    let TargetKind::Prompt(prompt) = target.kind else {
        return Err(unknown_prompt(&params.name));
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
