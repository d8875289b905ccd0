//! Resolution: the tool, prompt, resource or template a request targets, looked up once when it
//! is admitted, with the layers of that target alone.
//!
//! | request | target |
//! |---|---|
//! | `tools/call` | the tool (unknown: `-32602`) |
//! | `prompts/get` | the prompt (unknown: `-32602`) |
//! | `resources/read` | the resource at the URI, else the first template that matches it (neither: resource not found) |
//! | `resources/subscribe`, `resources/unsubscribe` | the same, and none is an error only where subscriptions are kept |
//! | `completion/complete` | the prompt, template or resource its `ref` names, if any (the server's completion handler may answer for others) |
//!
//! Everything after admission (the scope check, the `Mcp-Param-*` headers, the task plan, the
//! layers, the handler) reads the target from the [`McpRequest`](super::middleware::McpRequest).

use mcp_runtime_core::completion::CompletionReference;
use mcp_runtime_core::messages::ClientRequest;
use mcp_runtime_core::{ErrorObject, ProtocolVersion};

use super::McpServer;
use super::request::{Target, TargetKind, unknown_prompt, unknown_tool};

/// What `request` targets; the error of a request whose target does not exist, where that is one.
pub(super) fn target(
    server: &McpServer,
    request: &ClientRequest,
    version: ProtocolVersion,
) -> Result<Target, ErrorObject> {
    let registry = &server.inner.registry;
    let kind = match request {
        ClientRequest::CallTool(params) => match registry.tools.get(&params.name) {
            Some(tool) => TargetKind::Tool(tool),
            None => return Err(unknown_tool(&params.name)),
        },
        ClientRequest::GetPrompt(params) => match registry.prompts.get(&params.name) {
            Some(prompt) => TargetKind::Prompt(prompt),
            None => return Err(unknown_prompt(&params.name)),
        },
        ClientRequest::ReadResource(params) => match resource(server, &params.uri) {
            TargetKind::None => return Err(ErrorObject::resource_not_found(&params.uri, version)),
            found => found,
        },
        ClientRequest::Subscribe(params) | ClientRequest::Unsubscribe(params) => {
            resource(server, &params.uri)
        }
        ClientRequest::Complete(params) => match &params.reference {
            CompletionReference::Prompt(reference) => registry
                .prompts
                .get(&reference.name)
                .map_or(TargetKind::None, TargetKind::Prompt),
            CompletionReference::ResourceTemplate(reference) => {
                match registry.templates.get(&reference.uri) {
                    Some(template) => TargetKind::Template(template, None),
                    None => registry
                        .resources
                        .get(&reference.uri)
                        .map_or(TargetKind::None, TargetKind::Resource),
                }
            }
            _ => TargetKind::None,
        },
        _ => TargetKind::None,
    };
    let mut target = Target::new(kind);
    let layers = &server.inner.target_layers;
    if !layers.is_empty() {
        target.layers = layers.of(&target);
    }
    Ok(target)
}

/// The resource at `uri`, else the first template that matches it, with what it captured.
fn resource(server: &McpServer, uri: &str) -> TargetKind {
    let registry = &server.inner.registry;
    if let Some(resource) = registry.resources.get(uri) {
        return TargetKind::Resource(resource);
    }
    registry
        .templates
        .snapshot()
        .into_iter()
        .find_map(|t| {
            let captured = t.definition.matcher.matches(uri)?;
            Some(TargetKind::Template(t, Some(captured)))
        })
        .unwrap_or_default()
}
