//! The upstream's tools, prompts, resources and templates as definitions of the server, each
//! with a handler that forwards; and replacing them when the upstream's lists change.

use std::sync::Arc;

use mcp_runtime_core::methods;
use mcp_runtime_core::prompts::{GetPromptRequestParams, Prompt};
use mcp_runtime_core::resources::{ReadResourceRequestParams, Resource, ResourceTemplate};
use mcp_runtime_core::tools::Tool;

use super::{Offered, Shared};
use crate::prompt::PromptDefinition;
use crate::resource::{ResourceDefinition, ResourceError, ResourceTemplateDefinition};
use crate::server::registry::{Origin, Registry, RegistryError, ResourceKind};
use crate::tool::{ToolDefinition, ToolHandler};

/// The upstream's tool `tool`: its calls are forwarded, and its description is the upstream's
/// as it is. A tool that must run as a task upstream is called as one there, and a call the
/// upstream turns into a task is followed to its end.
pub(super) fn tool(shared: &Arc<Shared>, tool: Tool) -> ToolDefinition {
    let here = shared.namespace().name(&tool.name);
    let stateless = shared.client.protocol_version().era() == mcp_runtime_core::Era::Stateless;
    let shared = shared.clone();
    let name: Arc<str> = tool.name.as_str().into();
    let handler: Arc<ToolHandler> = Arc::new(move |arguments, ctx| {
        let shared = shared.clone();
        let name = name.clone();
        Box::pin(async move {
            // The client's own way of calling a tool: as a task where the tool requires it,
            // and following a call the upstream turned into a task to its end.
            let client = shared.client.clone();
            shared
                .forward_with("tools/call", &ctx, move |options| {
                    Box::pin(async move { client.call_tool_with(&name, arguments, options).await })
                })
                .await
        })
    });
    let mut tool = tool;
    tool.name = here;
    // A 2026-07-28 server says nothing of tasks per tool (it turns a call into one when it
    // likes): its tools may run as tasks here, which a 2025-11-25 client asks of each tool.
    if stateless && tool.execution.is_none() {
        let mut execution = mcp_runtime_core::tools::ToolExecution::default();
        execution.task_support = Some(mcp_runtime_core::tools::TaskSupport::Optional);
        tool.execution = Some(execution);
    }
    let mut definition = ToolDefinition::with_handler(tool, handler);
    definition.forwarded = true;
    // A call becomes a task here when it became one upstream (or a 2025-11-25 client asks).
    definition.task_start = crate::tool::TaskStart::Explicitly;
    definition
}

/// The upstream's prompt `prompt`, got from the upstream.
pub(super) fn prompt(shared: &Arc<Shared>, prompt: Prompt) -> PromptDefinition {
    let shared = shared.clone();
    let name = prompt.name.clone();
    let here = shared.namespace().name(&prompt.name);
    let mut definition = PromptDefinition::new(here.clone(), move |arguments, ctx| {
        let shared = shared.clone();
        let mut params = GetPromptRequestParams::new(name.clone());
        params.arguments = Some(arguments);
        async move { shared.forward::<methods::GetPrompt>(params, &ctx).await }
    });
    definition.prompt = prompt;
    definition.prompt.name = here;
    definition
}

/// The upstream's resource `resource`, read from the upstream.
pub(super) fn resource(shared: &Arc<Shared>, resource: Resource) -> ResourceDefinition {
    let here = shared.namespace().uri(&resource.uri);
    let shared = shared.clone();
    let uri = resource.uri.clone();
    let mut definition = ResourceDefinition::new(here.clone(), resource.name.clone(), move |ctx| {
        let shared = shared.clone();
        let uri = uri.clone();
        async move { shared.read(uri, ctx).await }
    });
    definition.resource = resource;
    definition.resource.uri = here;
    definition
}

/// The upstream's template `template`, its resources read from the upstream; `None` (with a
/// warning) when its URI template is not one this server can match.
pub(super) fn template(
    shared: &Arc<Shared>,
    template: ResourceTemplate,
) -> Option<ResourceTemplateDefinition> {
    let here = shared.namespace().uri(&template.uri_template);
    let shared = shared.clone();
    let reader = move |uri: String, _, ctx| {
        let shared = shared.clone();
        async move {
            // The URI matched the template here: it is under the namespace.
            let uri = shared.namespace().upstream_uri(&uri).unwrap_or(uri);
            shared.read(uri, ctx).await
        }
    };
    match ResourceTemplateDefinition::new(&here, template.name.clone(), reader) {
        Ok(mut definition) => {
            definition.template = template;
            definition.template.uri_template = here;
            Some(definition)
        }
        Err(error) => {
            tracing::warn!(
                template = %template.uri_template,
                %error,
                "the upstream's resource template is left out"
            );
            None
        }
    }
}

impl Shared {
    /// `resources/read` of `uri`, forwarded.
    async fn read(
        self: &Arc<Self>,
        uri: String,
        ctx: crate::handler::RequestContext,
    ) -> Result<Vec<mcp_runtime_core::resources::ResourceContents>, ResourceError> {
        let mut result = self
            .forward::<methods::ReadResource>(ReadResourceRequestParams::new(uri), &ctx)
            .await
            .map_err(ResourceError::answered)?;
        for contents in &mut result.contents {
            let here = self.namespace().uri(contents.uri());
            contents.set_uri(here);
        }
        Ok(result.contents)
    }
}

/// Replaces the tools of `before` with those of `after`.
pub(super) fn replace_tools(
    shared: &Arc<Shared>,
    registry: &Registry,
    before: &Offered,
    after: &Offered,
) -> Result<(), RegistryError> {
    for gone in &before.tools {
        let name = shared.namespace().name(&gone.name);
        registry.tools.remove(registry.shaping.offered_name(&name));
    }
    for added in &after.tools {
        registry.add_tool(tool(shared, added.clone()), Origin::Dynamic)?;
    }
    Ok(())
}

/// Replaces the prompts of `before` with those of `after`.
pub(super) fn replace_prompts(
    shared: &Arc<Shared>,
    registry: &Registry,
    before: &Offered,
    after: &Offered,
) -> Result<(), RegistryError> {
    for gone in &before.prompts {
        registry
            .prompts
            .remove(&shared.namespace().name(&gone.name));
    }
    for added in &after.prompts {
        registry.add_prompt(prompt(shared, added.clone()), Origin::Dynamic)?;
    }
    Ok(())
}

/// Replaces the resources and templates of `before` with those of `after`.
pub(super) fn replace_resources(
    shared: &Arc<Shared>,
    registry: &Registry,
    before: &Offered,
    after: &Offered,
) -> Result<(), RegistryError> {
    let namespace = shared.namespace();
    for gone in &before.resources {
        registry.resources.remove(&namespace.uri(&gone.uri));
    }
    for gone in &before.templates {
        registry
            .templates
            .remove(&namespace.uri(&gone.uri_template));
    }
    for added in &after.resources {
        let name = added.name.clone();
        let definition = ResourceKind::Direct(resource(shared, added.clone()));
        registry.add_resource(definition, &name, Origin::Dynamic)?;
    }
    for added in &after.templates {
        let name = added.name.clone();
        if let Some(definition) = template(shared, added.clone()) {
            let definition = ResourceKind::Template(Ok(definition));
            registry.add_resource(definition, &name, Origin::Dynamic)?;
        }
    }
    Ok(())
}
