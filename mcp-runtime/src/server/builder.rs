//! [`McpServerBuilder`]: what a server offers, its options, and its shared state.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use std::time::Duration;

use mcp_runtime_core::completion::{CompleteRequestParams, CompleteResult};
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::messages::ClientNotification;
use mcp_runtime_core::result::CacheHint;
use mcp_runtime_core::{JsonObject, SupportedVersions};
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use super::entries::{
    Named, add_named, add_prompt_entry, add_resource_entry, add_tool_entry, check_state,
};
use super::middleware::{Kind, Layers, McpLayer, UnknownLayerTarget};
use super::registry::{
    Origin, PromptEntry, Registry, RegistryError, ResourceEntry, ResourceKind, ToolEntry,
    in_module, in_source_order,
};
use super::{
    ConnectionState, McpServer, NotificationObserver, RequestContext, ServerInner, ServerMode,
    ServerOptions,
};
use crate::completion::CompletionHandler;
use crate::handler::skill::{EmbeddedSkills, Skill, SkillError, read_skills_dir};
use crate::prompt::PromptDefinition;
use crate::request_state::RequestStateCodec;
use crate::resource::{ResourceDefinition, ResourceTemplateDefinition};
use crate::server::caching::CachedList;
use crate::tool::ToolDefinition;

/// Which registry entries a server takes.
#[derive(Clone, Debug, Default)]
enum Selection {
    #[default]
    None,
    All,
    /// The entries under any of these module paths.
    Modules(Vec<String>),
}

impl Selection {
    fn takes(&self, module_path: &str) -> bool {
        match self {
            Selection::None => false,
            Selection::All => true,
            Selection::Modules(prefixes) => prefixes.iter().any(|p| in_module(module_path, p)),
        }
    }
}

/// The pieces of a server, put together by [`build`](McpServerBuilder::build).
#[must_use = "a builder does nothing until it is built or served"]
pub struct McpServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    mode: ServerMode,
    options: ServerOptions,
    selection: Selection,
    named: Vec<Named>,
    tools: Vec<ToolDefinition>,
    prompts: Vec<PromptDefinition>,
    resources: Vec<ResourceKind>,
    skills: Vec<SkillSource>,
    state: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    completion_handler: Option<CompletionHandler>,
    observers: Vec<NotificationObserver>,
    request_state: Option<RequestStateCodec>,
    tasks: Option<super::TaskOptions>,
    layers: Layers,
    /// What runs on the built server before `build` returns it (a proxy's follower).
    after_build: Vec<AfterBuild>,
    /// The transforms and filters of its tools.
    shaping: super::transform::ToolShaping,
}

/// What runs on a server once it is built.
type AfterBuild = Box<dyn FnOnce(&McpServer) + Send>;

/// Where skills come from.
enum SkillSource {
    /// A folder read when the server is built.
    Folder(std::path::PathBuf),
    /// A folder embedded by `include_skills!`.
    Embedded(EmbeddedSkills),
    /// One skill built in code.
    One(Box<Skill>),
}

/// A server cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A skill is invalid, or its folder unreadable.
    #[error(transparent)]
    Skill(#[from] SkillError),
    /// Two items clash, or one is invalid.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A module given to [`registered_in`](McpServerBuilder::registered_in) (or
    /// `McpServer::from_module`) holds no registered item.
    #[error(
        "no tool, prompt or resource is registered in module `{path}` or under it; module paths are written as `module_path!()` gives them (`my_crate::tools`, with `_` for `-` in the crate name)"
    )]
    EmptyModule {
        /// The module path given.
        path: String,
    },
    /// An item asked for by name is not registered.
    #[error(
        "no {kind} named `{name}` is registered with the attribute macros: check the function's \
         name (or its `name = \"...\"` option), and that the module holding it is compiled in"
    )]
    NotRegistered {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The name asked for.
        name: String,
    },
    /// An item asked for by name is registered more than once.
    #[error(
        "{count} {kind}s named `{name}` are registered ({modules}); name one with its module, \
         as in `registered_{kind}(\"{first_module}::{name}\")`, or take a module's items with \
         `registered_in`"
    )]
    Ambiguous {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// How many.
        count: usize,
        /// Where each is: module, file and line.
        modules: String,
        /// The module of the first, for the suggested qualified name.
        first_module: &'static str,
    },
    /// A layer was given for a tool, prompt or resource the server does not have.
    #[error(transparent)]
    UnknownLayerTarget(#[from] UnknownLayerTarget),
    /// A tool's or a resource's interface (MCP Apps) is wrong: see [`AppError`](super::AppError).
    #[error(transparent)]
    App(#[from] super::apps::AppError),
    /// A handler needs shared state that was not given to the builder.
    #[error(
        "`{item}` takes `State<{type_name}>`, and no state of that type was given to the server: \
         register one with `McpServerBuilder::state(value)` before building it"
    )]
    MissingState {
        /// The tool, prompt or resource.
        item: String,
        /// The state's type.
        type_name: &'static str,
    },
}

impl McpServerBuilder {
    pub(crate) fn new(info: Implementation) -> Self {
        McpServerBuilder {
            info,
            instructions: None,
            mode: ServerMode::default(),
            options: ServerOptions::default(),
            selection: Selection::None,
            named: Vec::new(),
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            skills: Vec::new(),
            state: HashMap::new(),
            completion_handler: None,
            observers: Vec::new(),
            request_state: None,
            tasks: None,
            layers: Layers::default(),
            after_build: Vec::new(),
            shaping: Default::default(),
        }
    }

    /// Offers the tool defined as `name` (the server's own, or one it mirrors) as `transform`
    /// says: renamed, its arguments renamed, fixed or described, its description rewritten
    /// (see [`ToolTransform`](super::ToolTransform)). A transform that names an argument the
    /// tool lacks fails [`build`](Self::build) (or the tool's registration at run time).
    pub fn transform_tool(
        mut self,
        name: impl Into<String>,
        transform: super::ToolTransform,
    ) -> Self {
        self.shaping.transform(name.into(), transform);
        self
    }

    /// Offers only the tools `filter` picks (by name as offered, or by tag), of those the
    /// server has and those it mirrors; several calls add up.
    pub fn keep_tools(mut self, filter: super::ToolFilter) -> Self {
        self.shaping.keep(filter);
        self
    }

    /// Never offers the tools `filter` picks (by name as offered, or by tag).
    pub fn drop_tools(mut self, filter: super::ToolFilter) -> Self {
        self.shaping.drop(filter);
        self
    }

    /// Tries `handler` for completions after the completion handler set so far (if any).
    pub(crate) fn also_complete_with(mut self, handler: CompletionHandler) -> Self {
        let Some(first) = self.completion_handler.take() else {
            self.completion_handler = Some(handler);
            return self;
        };
        self.completion_handler = Some(Arc::new(move |params, ctx| {
            let first = first.clone();
            let then = handler.clone();
            Box::pin(async move {
                match first(params.clone(), ctx.clone()).await {
                    Some(result) => Some(result),
                    None => then(params, ctx).await,
                }
            })
        }));
        self
    }

    /// Runs `hook` on the server once it is built.
    pub(crate) fn after_build(mut self, hook: impl FnOnce(&McpServer) + Send + 'static) -> Self {
        self.after_build.push(Box::new(hook));
        self
    }

    /// Runs every request through `layer`, between admission and the handler (see
    /// [`middleware`](super::middleware)): a tower layer over a service of
    /// [`McpRequest`](super::middleware::McpRequest) ([`McpLayer`]), such as tower's
    /// `TimeoutLayer`, a built-in of [`middleware`](super::middleware), or
    /// [`from_fn`](super::middleware::from_fn). The layer added last runs first.
    pub fn layer(mut self, layer: impl McpLayer) -> Self {
        self.layers.server(layer.boxed());
        self
    }

    /// Runs the calls of the tool `name` through `layer`, after the server's layers (see
    /// [`layer`](Self::layer)). Building fails when the server has no such tool.
    pub fn tool_layer(mut self, name: impl Into<String>, layer: impl McpLayer) -> Self {
        self.layers.target(Kind::Tool, name.into(), layer.boxed());
        self
    }

    /// Runs the requests for the prompt `name` (`prompts/get`, its completions) through
    /// `layer`, after the server's layers.
    pub fn prompt_layer(mut self, name: impl Into<String>, layer: impl McpLayer) -> Self {
        self.layers.target(Kind::Prompt, name.into(), layer.boxed());
        self
    }

    /// Runs the requests for the resource at `uri`, or for the template whose URI template is
    /// `uri` (`resources/read`, subscriptions, completions), through `layer`, after the server's
    /// layers.
    pub fn resource_layer(mut self, uri: impl Into<String>, layer: impl McpLayer) -> Self {
        self.layers
            .target(Kind::Resource, uri.into(), layer.boxed());
        self
    }

    /// Whether 2026-07-28 results name the server in `_meta` (`serverInfo`, on by default, as
    /// the revision recommends: no handshake tells the client who answers).
    pub fn result_server_info(mut self, on: bool) -> Self {
        self.options.result_server_info = on;
        self
    }

    /// The caching hint (`ttlMs`, `cacheScope`) of `list` on 2026-07-28 (see
    /// [`caching`](crate::server::caching)); without one, results must not be reused.
    pub fn cache_hint(mut self, list: CachedList, hint: CacheHint) -> Self {
        self.options.cache_hints.insert(list, hint);
        self
    }

    /// Seals the `requestState` of 2026-07-28 input-required rounds with `codec` (by default a
    /// codec with a random key of this process; give every instance of a deployment behind a
    /// load balancer the same keys, so that any of them opens what another sealed).
    pub fn request_state_codec(mut self, codec: RequestStateCodec) -> Self {
        self.request_state = Some(codec);
        self
    }

    pub(crate) fn all_registered(mut self) -> Self {
        self.selection = Selection::All;
        self
    }

    /// Takes the registered items of `module_path` and its submodules, in addition to those of
    /// the modules given before. Building fails when no item is registered there (a misspelt
    /// path).
    pub fn registered_in(mut self, module_path: &str) -> Self {
        match &mut self.selection {
            Selection::All => {}
            Selection::Modules(paths) => paths.push(module_path.to_owned()),
            Selection::None => self.selection = Selection::Modules(vec![module_path.to_owned()]),
        }
        self
    }

    /// Takes the registered tool `name`. When several modules register a tool of that name,
    /// name one with its module path, as `module_path!()` gives it:
    /// `registered_tool("my_crate::admin::confirm")`.
    pub fn registered_tool(mut self, name: &str) -> Self {
        self.named.push(Named::Tool(name.to_owned()));
        self
    }

    /// Takes the registered prompt `name`, qualified with its module path when several
    /// modules register one of that name (see [`registered_tool`](Self::registered_tool)).
    pub fn registered_prompt(mut self, name: &str) -> Self {
        self.named.push(Named::Prompt(name.to_owned()));
        self
    }

    /// Takes the registered resource or template `name`, qualified with its module path when
    /// several modules register one of that name (see [`registered_tool`](Self::registered_tool)).
    pub fn registered_resource(mut self, name: &str) -> Self {
        self.named.push(Named::Resource(name.to_owned()));
        self
    }

    /// Adds a tool built in code.
    pub fn tool(mut self, definition: ToolDefinition) -> Self {
        self.tools.push(definition);
        self
    }

    /// Adds a prompt built in code.
    pub fn prompt(mut self, definition: PromptDefinition) -> Self {
        self.prompts.push(definition);
        self
    }

    /// Adds a resource built in code.
    pub fn resource(mut self, definition: ResourceDefinition) -> Self {
        self.resources.push(ResourceKind::Direct(definition));
        self
    }

    /// Serves the skills of the folder at `path` (one sub-folder per skill, each with its
    /// `SKILL.md`; see [`skill`](crate::handler::skill)), read when the server is built: a missing
    /// folder or a bad skill fails [`build`](Self::build) with [`BuildError::Skill`].
    pub fn skills_dir(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.skills.push(SkillSource::Folder(path.into()));
        self
    }

    /// Serves the skills `include_skills!("../skills")` embedded in the binary at compile time (the
    /// path is relative to the calling file, as with `include_str!`):
    ///
    /// ```standalone_crate
    /// use mcp_runtime::prelude::*;
    ///
    /// # fn build() -> Result<McpServer, mcp_runtime::server::BuildError> {
    /// let server = McpServer::builder(server_info!())
    ///     .skills(include_skills!("../../../examples/skills"))
    ///     .build()?;
    /// # Ok(server)
    /// # }
    /// # build().unwrap();
    /// ```
    pub fn skills(mut self, skills: EmbeddedSkills) -> Self {
        self.skills.push(SkillSource::Embedded(skills));
        self
    }

    /// Serves one skill built in code.
    pub fn skill(mut self, skill: Skill) -> Self {
        self.skills.push(SkillSource::One(Box::new(skill)));
        self
    }

    /// Adds a resource template built in code.
    pub fn resource_template(mut self, definition: ResourceTemplateDefinition) -> Self {
        self.resources.push(ResourceKind::Template(Ok(definition)));
        self
    }

    /// Registers shared state, handed to handlers that take a `State<T>` parameter.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Sets the instructions for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Keeps sessions for handshake-era clients on Streamable HTTP: the default, named (see
    /// [`ServerMode`]).
    pub fn stateful(mut self) -> Self {
        self.mode = ServerMode::Stateful;
        self
    }

    /// Serves every HTTP request of a handshake-era client on its own, without sessions (see
    /// [`ServerMode`]): cheaper, and several instances need no shared store, but such a client
    /// can then be asked nothing mid-call (elicitation, sampling, roots), nor set a log level or
    /// subscribe. Requests of 2026-07-28 are stateless either way.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::prelude::*;
    ///
    /// let server = McpServer::from_registry(server_info!()).stateless().build().unwrap();
    /// assert_eq!(server.mode(), mcp_runtime::server::ServerMode::Stateless);
    /// ```
    pub fn stateless(mut self) -> Self {
        self.mode = ServerMode::Stateless;
        self
    }

    /// Sets the mode.
    pub fn mode(mut self, mode: ServerMode) -> Self {
        self.mode = mode;
        self
    }

    /// Caps the requests of one connection that may be in flight at once
    /// ([`DEFAULT_MAX_REQUESTS_IN_FLIGHT`](super::DEFAULT_MAX_REQUESTS_IN_FLIGHT) by default). A
    /// request beyond the cap is answered at once with the server error
    /// [`TOO_MANY_REQUESTS`](super::TOO_MANY_REQUESTS) (`-32000`) and not handled. A cap of 0
    /// refuses every request but `initialize`.
    pub fn max_requests_in_flight(mut self, limit: usize) -> Self {
        self.options.max_requests_in_flight = limit;
        self
    }

    /// How long [`McpServer::ping`] waits for the client's answer
    /// ([`DEFAULT_PING_TIMEOUT`](super::DEFAULT_PING_TIMEOUT) by default; `None`: forever).
    pub fn ping_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.options.timeouts.ping = timeout;
        self
    }

    /// How long [`RequestContext::list_roots`] waits for the client's answer
    /// ([`DEFAULT_ROOTS_TIMEOUT`](super::DEFAULT_ROOTS_TIMEOUT) by default; `None`: forever).
    pub fn roots_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.options.timeouts.roots = timeout;
        self
    }

    /// How long [`RequestContext::sample`] waits for the client's answer
    /// ([`DEFAULT_SAMPLING_TIMEOUT`](super::DEFAULT_SAMPLING_TIMEOUT), ten minutes, by default: a
    /// human may have to approve the request; `None`: forever).
    pub fn sampling_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.options.timeouts.sampling = timeout;
        self
    }

    /// How long [`RequestContext::elicit`] and the other elicitation requests wait for the client's
    /// answer ([`DEFAULT_ELICITATION_TIMEOUT`](super::DEFAULT_ELICITATION_TIMEOUT), ten minutes, by
    /// default: a human fills in the form; `None`: forever).
    pub fn elicitation_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.options.timeouts.elicitation = timeout;
        self
    }

    /// Leaves out of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` what the caller's access token lacks a scope for (off by
    /// default: clients then see everything, and a call they may not make gets `403` with the
    /// scopes to ask for). Only requests with a verified token are affected (see
    /// [`HttpOptions::authorization`](crate::transport::http::HttpOptions::authorization)).
    pub fn hide_unauthorized(mut self, hide: bool) -> Self {
        self.options.hide_unauthorized = hide;
        self
    }

    /// Splits `*/list` results in pages of at most `size` items (0, the default, disables
    /// pagination).
    pub fn page_size(mut self, size: usize) -> Self {
        self.options.page_size = size;
        self
    }

    /// Whether tool arguments are checked against the input schema before the handler runs (on by
    /// default, as the spec asks).
    pub fn validate_input(mut self, validate: bool) -> Self {
        self.options.validate_input = validate;
        self
    }

    /// Whether a tool with an output schema must return conforming `structuredContent` (off by
    /// default); a result that does not conform becomes an internal error.
    pub fn validate_output(mut self, validate: bool) -> Self {
        self.options.validate_output = validate;
        self
    }

    /// Refuses requests other than `ping` until the client sent `notifications/initialized`
    /// (off by default).
    ///
    /// By default a request that arrives after the server answered `initialize` but before the
    /// notification is served: the spec asks the client not to send requests other than `ping`
    /// before that answer (a SHOULD NOT), and asks nothing of the server about the ones after it;
    /// over HTTP the notification and the first request travel in separate POSTs and may arrive
    /// in either order. A server that wants the strict order turns this on; the early requests then
    /// get an error saying what the client has not sent yet.
    pub fn require_initialized(mut self, require: bool) -> Self {
        self.options.require_initialized = require;
        self
    }

    /// Advertises the logging capability: handlers' log messages reach the client, filtered by
    /// the level it sets (or `Info` until it sets one).
    ///
    /// `logging/setLevel` needs state kept between requests, so it is accepted only on a
    /// connection that is one persistent session: a stdio process or an in-process pair (in
    /// either [`ServerMode`], since such a connection is a session by nature), or a session of a
    /// [stateful](Self::stateful) Streamable HTTP server. On a stateless HTTP server each request
    /// is served on its own, and `setLevel` is refused with an invalid-request error saying so.
    pub fn logging(mut self) -> Self {
        self.options.logging = true;
        self
    }

    /// Advertises logging, with `level` as the minimum until the client sets one.
    pub fn default_log_level(mut self, level: LoggingLevel) -> Self {
        self.options.logging = true;
        self.options.default_log_level = level;
        self
    }

    /// Advertises resource subscriptions (`resources/subscribe`).
    ///
    /// Like `logging/setLevel` (see [`logging`](Self::logging)), `resources/subscribe` and
    /// `resources/unsubscribe` work only on a persistent session (stdio, in-process, or a
    /// [stateful](Self::stateful) HTTP server) and are refused with an invalid-request error on a
    /// stateless HTTP server.
    pub fn resource_subscriptions(mut self) -> Self {
        self.options.subscriptions = true;
        self
    }

    /// Announces changes of the tool list (`notifications/tools/list_changed`).
    pub fn tools_list_changed(mut self) -> Self {
        self.options.tools_list_changed = true;
        self
    }

    /// Announces changes of the prompt list.
    pub fn prompts_list_changed(mut self) -> Self {
        self.options.prompts_list_changed = true;
        self
    }

    /// Announces changes of the resource list.
    pub fn resources_list_changed(mut self) -> Self {
        self.options.resources_list_changed = true;
        self
    }

    /// Advertises completions even without completers (they then answer with no values).
    pub fn completions(mut self) -> Self {
        self.options.completions = true;
        self
    }

    /// Sets a server-wide completion handler, tried before the per-argument completers; it
    /// returns `None` for arguments it does not complete.
    pub fn completion_handler<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CompleteRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<CompleteResult>> + Send + 'static,
    {
        self.completion_handler = Some(Arc::new(move |params, ctx| Box::pin(handler(params, ctx))));
        self
    }

    /// Offers tasks, kept and paced as `options` says (see [`TaskOptions`](super::TaskOptions)).
    /// A server with a tool that supports tasks (`#[mcp_tool(task = "optional")]`) offers them
    /// anyway, with the default options.
    pub fn tasks(mut self, options: super::TaskOptions) -> Self {
        self.tasks = Some(options);
        self
    }

    /// Advertises the extension `id` with its `settings`.
    pub fn extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.options.extensions.insert(id.into(), settings);
        self
    }

    /// Advertises the experimental capability `name` with its `settings`.
    pub fn experimental(mut self, name: impl Into<String>, settings: JsonObject) -> Self {
        self.options.experimental.insert(name.into(), settings);
        self
    }

    /// Restricts the protocol revisions the server speaks.
    pub fn supported_versions(mut self, versions: SupportedVersions) -> Self {
        self.options.supported_versions = versions;
        self
    }

    /// Calls `observer` for every notification a client sends.
    pub fn on_notification<F>(mut self, observer: F) -> Self
    where
        F: Fn(&ClientNotification, &Arc<ConnectionState>) + Send + Sync + 'static,
    {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Calls `observer` when a client says its roots changed.
    pub fn on_roots_list_changed<F>(self, observer: F) -> Self
    where
        F: Fn(&Arc<ConnectionState>) + Send + Sync + 'static,
    {
        self.on_notification(move |notification, connection| {
            if matches!(notification, ClientNotification::RootsListChanged(_)) {
                observer(connection);
            }
        })
    }

    /// Builds the server.
    pub fn build(self) -> Result<McpServer, BuildError> {
        let registry = Registry::new(self.shaping);
        if let Selection::Modules(paths) = &self.selection {
            let registered = |path: &str| {
                let under = |module_path: &str| in_module(module_path, path);
                inventory::iter::<ToolEntry>
                    .into_iter()
                    .any(|e| under(e.module_path))
                    || inventory::iter::<PromptEntry>
                        .into_iter()
                        .any(|e| under(e.module_path))
                    || inventory::iter::<ResourceEntry>
                        .into_iter()
                        .any(|e| under(e.module_path))
            };
            if let Some(path) = paths.iter().find(|p| !registered(p)) {
                return Err(BuildError::EmptyModule { path: path.clone() });
            }
        }
        let mut layers = self.layers;
        for entry in in_source_order::<ToolEntry>(|e| e.location) {
            if self.selection.takes(entry.module_path) {
                add_tool_entry(&registry, &mut layers, entry)?;
            }
        }
        for entry in in_source_order::<PromptEntry>(|e| e.location) {
            if self.selection.takes(entry.module_path) {
                add_prompt_entry(&registry, &mut layers, entry)?;
            }
        }
        for entry in in_source_order::<ResourceEntry>(|e| e.location) {
            if self.selection.takes(entry.module_path) {
                add_resource_entry(&registry, &mut layers, entry)?;
            }
        }
        for named in &self.named {
            add_named(&registry, &mut layers, named)?;
        }
        for tool in self.tools {
            registry.add_tool(tool, Origin::Dynamic)?;
        }
        for prompt in self.prompts {
            registry.add_prompt(prompt, Origin::Dynamic)?;
        }
        for resource in self.resources {
            let name = match &resource {
                ResourceKind::Direct(d) => d.resource.name.clone(),
                ResourceKind::Template(Ok(t)) => t.template.name.clone(),
                ResourceKind::Template(Err(_)) => String::new(),
            };
            registry.add_resource(resource, &name, Origin::Dynamic)?;
        }
        // Last, so that the skills' files come after the other resources in `resources/list`.
        for source in self.skills {
            let skills = match source {
                SkillSource::Folder(path) => read_skills_dir(path)?,
                SkillSource::Embedded(embedded) => embedded.skills()?,
                SkillSource::One(skill) => vec![*skill],
            };
            for skill in skills {
                registry.add_skill(skill, Origin::Dynamic)?;
            }
        }
        check_state(&registry, &self.state)?;
        super::apps::check(&registry)?;
        let (layers, target_layers) = layers.build(&registry)?;
        let server = McpServer::from_inner(ServerInner {
            info: self.info,
            instructions: self.instructions,
            mode: self.mode,
            options: self.options,
            registry,
            state: self.state,
            completion_handler: self.completion_handler,
            observers: self.observers,
            connections: Mutex::new(super::Connections::default()),
            listeners: Default::default(),
            relay: Default::default(),
            request_state: self.request_state.unwrap_or_else(RequestStateCodec::random),
            tasks: super::tasks::Tasks::new(self.tasks),
            shutdown: CancellationToken::new(),
            layers,
            target_layers,
        });
        for hook in self.after_build {
            hook(&server);
        }
        Ok(server)
    }
}
