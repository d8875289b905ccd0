//! `completion/complete`: the server's completion handler first, then the completer of the
//! prompt argument or template variable.

use mcp_core::ErrorObject;
use mcp_core::completion::{CompleteRequestParams, CompleteResult, CompletionReference};

use super::McpServer;
use crate::handler::RequestContext;
use crate::handler::completion::CompletionRequest;

/// `completion/complete`.
pub(super) async fn complete(
    server: &McpServer,
    params: CompleteRequestParams,
    ctx: &RequestContext,
) -> Result<CompleteResult, ErrorObject> {
    if let Some(handler) = &server.inner.completion_handler
        && let Some(result) = handler(params.clone(), ctx.clone()).await
    {
        return Ok(result);
    }
    let registry = &server.inner.registry;
    let completer = match &params.reference {
        CompletionReference::Prompt(reference) => {
            let Some(prompt) = registry.prompts.get(&reference.name) else {
                return Err(ErrorObject::invalid_params(format!(
                    "Unknown prompt: {}",
                    reference.name
                )));
            };
            prompt
                .definition
                .completers
                .get(&params.argument.name)
                .cloned()
        }
        CompletionReference::ResourceTemplate(reference) => {
            match registry.templates.get(&reference.uri) {
                Some(template) => template
                    .definition
                    .completers
                    .get(&params.argument.name)
                    .cloned(),
                None if registry.resources.get(&reference.uri).is_some() => None,
                None => {
                    return Err(ErrorObject::invalid_params(format!(
                        "Unknown resource template: {}",
                        reference.uri
                    )));
                }
            }
        }
        _ => None,
    };
    let values = completer
        .map(|complete| complete(&CompletionRequest::from_params(&params), ctx))
        .unwrap_or_default();
    Ok(CompleteResult::new(values))
}
