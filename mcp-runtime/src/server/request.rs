//! [`McpRequest`]: one request as admission resolved it, which the layers and then the handler
//! receive; its [`Target`], the tool, prompt, resource or template it names; and [`Listed`], an
//! item of a list as layers see it.

use std::sync::Arc;

use mcp_runtime_core::messages::{ClientRequest, ServerResult};
use mcp_runtime_core::prompts::Prompt;
use mcp_runtime_core::resources::{Resource, ResourceTemplate};
use mcp_runtime_core::tools::Tool;
use mcp_runtime_core::{Era, ErrorObject, ProtocolVersion};
use tower::util::BoxCloneSyncService;

use crate::auth::AccessToken;
use crate::handler::RequestContext;
use crate::resource::uri_template::UriMatch;
use crate::server::McpServer;
use crate::server::registry::{
    RegisteredPrompt, RegisteredResource, RegisteredTemplate, RegisteredTool,
};

/// An item of a list, as the client sees it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Listed<'a> {
    /// A tool.
    Tool(&'a Tool),
    /// A prompt.
    Prompt(&'a Prompt),
    /// A resource.
    Resource(&'a Resource),
    /// A resource template.
    Template(&'a ResourceTemplate),
}

impl Listed<'_> {
    /// The item's name: a tool's or prompt's name, a resource's URI, a template's URI template.
    pub fn name(&self) -> &str {
        match self {
            Listed::Tool(tool) => &tool.name,
            Listed::Prompt(prompt) => &prompt.name,
            Listed::Resource(resource) => &resource.uri,
            Listed::Template(template) => &template.uri_template,
        }
    }
}

/// The error a layer fails with: any error, which the server turns into an MCP error (see
/// [`middleware`](super::middleware)).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a layer wraps: the rest of the way to the handler, boxed.
pub type Stack = BoxCloneSyncService<McpRequest, ServerResult, BoxError>;

/// A rule that hides items from a request's lists.
pub(in crate::server) type Hider = Arc<dyn Fn(Listed<'_>) -> bool + Send + Sync>;

/// One request the server admitted, with everything decided about it: its revision and era, the
/// connection or session it came on, the caller's verified token, its method and decoded params,
/// and the tool, prompt, resource or template it targets. Layers receive it, may change it, and
/// pass it on; the handler runs last.
pub struct McpRequest {
    /// Boxed: the request travels by value through the futures of the layers and the handler,
    /// and a box is cheaper than a copy at each level.
    pub(in crate::server) parts: Box<RequestParts>,
}

/// What an [`McpRequest`] holds.
pub(in crate::server) struct RequestParts {
    pub(in crate::server) server: McpServer,
    pub(in crate::server) params: Box<ClientRequest>,
    pub(in crate::server) target: Target,
    pub(in crate::server) ctx: RequestContext,
    /// What layers hide from the lists this request gets.
    pub(in crate::server) hidden: Vec<Hider>,
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method())
            .field("target", &self.parts.target.name())
            .field("id", self.parts.ctx.request_id())
            .field("version", &self.parts.ctx.protocol_version())
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    /// The method, as the client sent it (`"tools/call"`).
    pub fn method(&self) -> &'static str {
        self.parts.params.method()
    }

    /// The decoded params. Their `_meta` is not in them: read it with
    /// [`RequestContext::meta`].
    pub fn params(&self) -> &ClientRequest {
        &self.parts.params
    }

    /// The decoded params, to change before the handler sees them. The arguments of a
    /// `tools/call` were checked against the tool's input schema before the layers ran; a layer
    /// that changes them keeps them valid.
    pub fn params_mut(&mut self) -> &mut ClientRequest {
        &mut self.parts.params
    }

    /// What the request targets: the tool of a `tools/call`, the prompt of a `prompts/get`, the
    /// resource or template of a `resources/read`, ...; [`Target::is_none`] for the others.
    pub fn target(&self) -> &Target {
        &self.parts.target
    }

    /// The request's context: its id, the connection it came on, the client's capabilities,
    /// the HTTP request that carried it, shared state, and what the handler uses to talk back.
    pub fn context(&self) -> &RequestContext {
        &self.parts.ctx
    }

    /// The revision the request follows.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.parts.ctx.protocol_version()
    }

    /// Whether the request came in a session of the handshake era or on its own (2026-07-28).
    pub fn era(&self) -> Era {
        self.parts.ctx.era()
    }

    /// The caller's verified access token, on a server whose HTTP transport checks them.
    pub fn access_token(&self) -> Option<&AccessToken> {
        self.parts.ctx.access_token()
    }

    /// The server the request came to.
    pub fn server(&self) -> &McpServer {
        &self.parts.server
    }

    /// A name for the request in logs: the method, and the target's name when it has one
    /// (`tools/call delete_note`).
    pub fn describe(&self) -> String {
        match self.parts.target.name() {
            Some(name) => format!("{} {name}", self.method()),
            None => self.method().to_owned(),
        }
    }

    /// Leaves out of the lists this request gets (`tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`) every item `hide` returns `true` for,
    /// before the list is cut into pages.
    pub fn hide_from_lists(&mut self, hide: impl Fn(Listed<'_>) -> bool + Send + Sync + 'static) {
        self.parts.hidden.push(Arc::new(hide));
    }
}

/// What a request targets, resolved once at admission.
#[derive(Clone, Default)]
pub struct Target {
    pub(in crate::server) kind: TargetKind,
    /// The layers of this target alone (a builder's `tool_layer`, a macro's `layer`).
    pub(in crate::server) layers: Option<Stack>,
}

/// What a request targets, by kind.
#[derive(Clone, Default)]
pub(in crate::server) enum TargetKind {
    #[default]
    None,
    Tool(Arc<RegisteredTool>),
    Prompt(Arc<RegisteredPrompt>),
    Resource(Arc<RegisteredResource>),
    /// A template, and what the URI of a `resources/read` captured for its variables.
    Template(Arc<RegisteredTemplate>, Option<UriMatch>),
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("name", &self.name())
            .field("layers", &self.layers.is_some())
            .finish()
    }
}

impl Target {
    pub(in crate::server) fn new(kind: TargetKind) -> Self {
        Target { kind, layers: None }
    }

    /// Whether the request targets nothing (a list, `ping`, `initialize`, ...).
    pub fn is_none(&self) -> bool {
        matches!(self.kind, TargetKind::None)
    }

    /// The target's name: the tool's or prompt's name, the resource's URI, the template's URI
    /// template.
    pub fn name(&self) -> Option<&str> {
        Some(match &self.kind {
            TargetKind::None => return None,
            TargetKind::Tool(tool) => tool.definition.name(),
            TargetKind::Prompt(prompt) => &prompt.definition.prompt.name,
            TargetKind::Resource(resource) => &resource.definition.resource.uri,
            TargetKind::Template(template, _) => &template.definition.template.uri_template,
        })
    }

    /// The tool's definition, as `tools/list` shows it (its annotations say whether it is
    /// read-only, destructive, ...).
    pub fn tool(&self) -> Option<&Tool> {
        match &self.kind {
            TargetKind::Tool(tool) => Some(&tool.definition.tool),
            _ => None,
        }
    }

    /// The registration of the tool, with its compiled schemas.
    pub(in crate::server) fn tool_registration(&self) -> Option<&RegisteredTool> {
        match &self.kind {
            TargetKind::Tool(tool) => Some(tool),
            _ => None,
        }
    }

    /// The prompt's definition.
    pub fn prompt(&self) -> Option<&Prompt> {
        match &self.kind {
            TargetKind::Prompt(prompt) => Some(&prompt.definition.prompt),
            _ => None,
        }
    }

    /// The resource's definition.
    pub fn resource(&self) -> Option<&Resource> {
        match &self.kind {
            TargetKind::Resource(resource) => Some(&resource.definition.resource),
            _ => None,
        }
    }

    /// The resource template's definition.
    pub fn template(&self) -> Option<&ResourceTemplate> {
        match &self.kind {
            TargetKind::Template(template, _) => Some(&template.definition.template),
            _ => None,
        }
    }

    /// The scopes the target declares (`#[mcp_tool(scopes = "...")]`), which the caller's
    /// token must grant.
    pub fn scopes(&self) -> &[String] {
        match &self.kind {
            TargetKind::None => &[],
            TargetKind::Tool(tool) => &tool.definition.scopes,
            TargetKind::Prompt(prompt) => &prompt.definition.scopes,
            TargetKind::Resource(resource) => &resource.definition.scopes,
            TargetKind::Template(template, _) => &template.definition.scopes,
        }
    }

    /// The target as the lists show it, for [`Hide`](super::middleware::Hide)'s rule.
    pub(in crate::server) fn listed(&self) -> Option<Listed<'_>> {
        Some(match &self.kind {
            TargetKind::None => return None,
            TargetKind::Tool(tool) => Listed::Tool(&tool.definition.tool),
            TargetKind::Prompt(prompt) => Listed::Prompt(&prompt.definition.prompt),
            TargetKind::Resource(resource) => Listed::Resource(&resource.definition.resource),
            TargetKind::Template(template, _) => Listed::Template(&template.definition.template),
        })
    }

    /// The error for a request whose target a layer hid from the caller: the one a target that
    /// does not exist gets, so that hiding is not given away.
    pub(in crate::server) fn unknown(&self, version: ProtocolVersion) -> ErrorObject {
        match &self.kind {
            TargetKind::Tool(_) => unknown_tool(self.name().unwrap_or_default()),
            TargetKind::Prompt(_) => unknown_prompt(self.name().unwrap_or_default()),
            _ => ErrorObject::resource_not_found(self.name().unwrap_or_default(), version),
        }
    }
}

/// The error for a `tools/call` of a tool the server does not have.
pub(in crate::server) fn unknown_tool(name: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Unknown tool: {name}"))
}

/// The error for a `prompts/get` of a prompt the server does not have.
pub(in crate::server) fn unknown_prompt(name: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Unknown prompt: {name}"))
}

/// What layers hid from the lists a request gets.
#[derive(Clone, Copy)]
pub(super) struct Lists<'a>(pub(super) &'a [Hider]);

impl Lists<'_> {
    /// Whether a layer hid `item`.
    pub(super) fn hide(&self, item: Listed<'_>) -> bool {
        self.0.iter().any(|hide| hide(item))
    }
}
