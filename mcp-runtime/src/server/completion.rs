//! `completion/complete`: the server's completion handler first, then the completer of the
//! prompt argument or template variable.

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::completion::{CompleteRequestParams, CompleteResult, CompletionReference};

use super::McpServer;
use super::request::{Target, TargetKind, unknown_prompt};
use crate::handler::RequestContext;
use crate::handler::completion::CompletionRequest;

/// `completion/complete`.
pub(super) async fn complete(
    server: &McpServer,
    target: Target,
    params: CompleteRequestParams,
    ctx: &RequestContext,
) -> Result<CompleteResult, ErrorObject> {
    if let Some(handler) = &server.inner.completion_handler
        && let Some(result) = handler(params.clone(), ctx.clone()).await
    {
        return Ok(result);
    }
    let argument = &params.argument.name;
    let completer = match (&target.kind, &params.reference) {
        (TargetKind::Prompt(prompt), _) => prompt.definition.completers.get(argument).cloned(),
        (TargetKind::Template(template, _), _) => {
            template.definition.completers.get(argument).cloned()
        }
        // A direct resource has nothing to complete.
        (TargetKind::Resource(_), _) => None,
        (_, CompletionReference::Prompt(reference)) => {
            return Err(unknown_prompt(&reference.name));
        }
        (_, CompletionReference::ResourceTemplate(reference)) => {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown resource template: {}",
                reference.uri
            )));
        }
        _ => None,
    };
    let values = completer
        .map(|complete| complete(&CompletionRequest::from_params(&params), ctx))
        .unwrap_or_default();
    Ok(CompleteResult::new(values))
}
