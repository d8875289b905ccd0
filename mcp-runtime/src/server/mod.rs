//! The transport-agnostic MCP server.
//!
//! An [`McpServer`] holds what the server offers (its registry), its capabilities, its info and
//! its mode; it does no I/O. A transport ([`crate::transport`]) hands it each received message
//! with [`McpServer::admit`] and writes the replies of the [`Admission`] it gets back;
//! [`McpServer::handle_raw`] does both for wire text. Each peer's mutable state lives in its
//! [`ConnectionState`].
//!
//! A message goes through three layers, one module each:
//!
//! | module | does |
//! |---|---|
//! | `admission` | batches, notifications and responses, the revision of each request and the 2026-07-28 checks: what is refused before any handler runs |
//! | `dispatch` | a request's lifecycle: decoded, registered as in flight, routed to its feature inside a panic guard, answered (or not, when cancelled) |
//! | `lifecycle`, `tools`, `prompts`, `resources`, `completion`, `subscriptions`, `logging`, `tasks` | what the server does for each method |
//!
//! and [`Reply`] renders the answer for the peer's revision. All of `McpServer`'s own methods are
//! in this file; the builder's are in [`McpServerBuilder`]'s.
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers.
//! #[mcp_tool]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = McpServer::from_module(server_info!(), module_path!()).build().unwrap();
//! let connection = ConnectionState::persistent(None);
//! let reply = server
//!     .handle_raw(
//!         br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
//!         &connection,
//!         None,
//!     )
//!     .await
//!     .unwrap();
//! assert_eq!(reply, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"5"}]}}"#);
//! # }
//! ```
//!
//! The guide's chapter "Getting started" (`docs/src/getting-started.md`) teaches it with examples.

mod admission;
mod apps;
pub(crate) mod authorization;
mod builder;
pub mod caching;
mod dispatch;
mod entries;
mod list;
mod listeners;
pub mod middleware;
mod options;
mod panics;
pub(crate) mod registry;
mod reply;
mod request;
mod resolve;
mod route;

// The features: what the server does for each method.
mod completion;
mod lifecycle;
mod logging;
mod prompts;
mod resources;
mod skills;
mod subscriptions;
pub(crate) mod tasks;
mod tools;
mod transform;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_runtime_core::capabilities::{
    PromptsCapability, ResourcesCapability, ServerCapabilities, ServerTaskRequests,
    ServerTasksCapability, ToolTaskRequests, ToolsCapability,
};
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::jsonrpc::Incoming;
use mcp_runtime_core::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_runtime_core::messages::{ClientNotification, ServerNotification, ServerRequest};
use mcp_runtime_core::params::NotificationParams;
use mcp_runtime_core::resources::ResourceUpdatedNotificationParams;
use mcp_runtime_core::{ErrorObject, JsonObject, SupportedVersions};
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

pub(crate) use crate::connection::{
    ConnectionState, MessageSink, Outbound, PeerGone, PeerRequestError, SendFuture, SharedSink,
};
pub(crate) use crate::handler::RequestContext;
#[cfg(feature = "http-handler")]
pub(crate) use admission::era_over_http;
pub use admission::{Admission, Answer, AnswerIter, Envelope};
pub use apps::AppError;
pub use builder::{BuildError, McpServerBuilder};
#[cfg(feature = "http-handler")]
pub(crate) use dispatch::busy;
pub use dispatch::{Running, TOO_MANY_REQUESTS};
pub use options::{
    DEFAULT_ELICITATION_TIMEOUT, DEFAULT_MAX_REQUESTS_IN_FLIGHT, DEFAULT_PING_TIMEOUT,
    DEFAULT_ROOTS_TIMEOUT, DEFAULT_SAMPLING_TIMEOUT,
};
pub use registry::RegistryError;
#[cfg(feature = "http-handler")]
pub(crate) use reply::render_batch;
pub use reply::{Reply, ReplyMessage};
pub use tasks::{
    DEFAULT_MAX_TASKS, DEFAULT_MAX_TASKS_PER_OWNER, DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL,
    MAX_TASK_TTL, TaskOptions,
};
pub use transform::{ToolFilter, ToolTransform};

use crate::handler::completion::CompletionHandler;
use crate::handler::extract::FromRequestContext;
use crate::handler::host::{Host, state_of};
use crate::handler::skill::Skill;
use crate::prompt::PromptDefinition;
use crate::resource::{ResourceDefinition, ResourceTemplateDefinition};
use crate::tool::ToolDefinition;
use options::ServerOptions;
use registry::{Origin, Registry, ResourceKind};

/// Whether the server keeps sessions for handshake-era clients over Streamable HTTP.
///
/// A client of a handshake revision (2024-11-05 to 2025-11-25) starts with `initialize`. A
/// stateful server (the default) mints a session for it there and keeps its state (log level,
/// subscriptions, the channel for server-to-client requests: elicitation, sampling, roots, and
/// tasks) until the session ends. A stateless server serves every request on its own: cheaper,
/// and several instances behind a load balancer need neither sticky routing nor a shared store,
/// but such a client can then be asked nothing mid-call, and `logging/setLevel` and
/// subscriptions are refused with an error that says why.
///
/// Requests of the stateless revision 2026-07-28 carry everything they need and are served on
/// their own in either mode (server-to-client requests become input-required rounds). A stdio
/// process or an in-process pair is one peer, and keeps its state in either mode.
///
/// Why sessions by default: a handshake-era client (Claude Desktop, IDEs, the official SDKs'
/// clients) expects every feature of its revision to work on a server built with defaults, as
/// it does with the official TypeScript and Python SDKs; going without sessions is an
/// optimisation to opt into with [`McpServerBuilder::stateless`](crate::server::McpServerBuilder::stateless).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ServerMode {
    /// No sessions: each HTTP request of a handshake-era client is served on its own.
    Stateless,
    /// Sessions for handshake-era clients over HTTP: subscriptions, log levels and
    /// server-to-client requests work for them. The default.
    #[default]
    Stateful,
}

/// A callback for notifications from clients.
pub type NotificationObserver =
    Arc<dyn Fn(&ClientNotification, &Arc<ConnectionState>) + Send + Sync>;

/// What passes a broadcast notification on to the other instances of a deployment.
pub(crate) type BroadcastRelay = Arc<dyn Fn(&ServerNotification) + Send + Sync>;

/// An MCP server. Cheap to clone: clones share everything.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<ServerInner>,
}

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) mode: ServerMode,
    pub(crate) options: ServerOptions,
    pub(crate) registry: Registry,
    pub(crate) state: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    pub(crate) completion_handler: Option<CompletionHandler>,
    pub(crate) observers: Vec<NotificationObserver>,
    pub(crate) connections: Mutex<Connections>,
    /// The open `subscriptions/listen` streams (2026-07-28).
    pub(crate) listeners: listeners::Listeners,
    /// Passes the server's broadcasts to the other instances of a deployment, when a transport
    /// set it (see [`McpServer::relay_broadcasts`]).
    pub(crate) relay: parking_lot::RwLock<Option<BroadcastRelay>>,
    /// Seals and opens the `requestState` of input-required rounds (2026-07-28).
    pub(crate) request_state: crate::request_state::RequestStateCodec,
    /// The tasks and how they are kept.
    pub(crate) tasks: tasks::Tasks,
    pub(crate) shutdown: CancellationToken,
    /// The server's layers, around every request; `None` without any.
    pub(crate) layers: Option<middleware::Stack>,
    /// The layers of single tools, prompts and resources.
    pub(in crate::server) target_layers: middleware::TargetLayers,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("info", &self.inner.info)
            .field("mode", &self.inner.mode)
            .finish_non_exhaustive()
    }
}

/// The lists whose changes are announced with `notifications/*/list_changed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl McpServer {
    /// A builder of a server offering everything registered with the attribute macros in this
    /// program. `info` names the server; [`server_info!`](crate::server_info) gives the calling
    /// crate's name and version.
    pub fn from_registry(info: Implementation) -> McpServerBuilder {
        McpServerBuilder::new(info).all_registered()
    }

    /// A builder of a server offering what the attribute macros registered in `module_path` and
    /// its submodules.
    pub fn from_module(info: Implementation, module_path: &str) -> McpServerBuilder {
        McpServerBuilder::new(info).registered_in(module_path)
    }

    /// A builder of a server offering nothing yet.
    pub fn builder(info: Implementation) -> McpServerBuilder {
        McpServerBuilder::new(info)
    }

    pub(crate) fn from_inner(inner: ServerInner) -> Self {
        McpServer {
            inner: Arc::new(inner),
        }
    }

    /// A handle that does not keep the server alive (for what the server itself holds).
    pub(crate) fn downgrade(&self) -> Weak<ServerInner> {
        Arc::downgrade(&self.inner)
    }

    /// The server of a handle from [`downgrade`](Self::downgrade), while it lives.
    pub(crate) fn upgrade(weak: &Weak<ServerInner>) -> Option<McpServer> {
        weak.upgrade().map(|inner| McpServer { inner })
    }

    /// Changes what the server offers with `change`, then announces the change of the list
    /// `kind` once.
    pub(crate) fn change_list<T>(&self, kind: ListKind, change: impl FnOnce(&Registry) -> T) -> T {
        let changed = change(&self.inner.registry);
        self.notify_list_changed(kind);
        changed
    }

    /// Sends `notification` to `connection` alone, if it is still open here; whether it went.
    pub(crate) fn notify_connection(
        &self,
        connection: &ConnectionState,
        notification: ServerNotification,
    ) -> bool {
        self.deliver(&notification, |c| std::ptr::eq(c, connection)) > 0
    }

    /// Sends a log message to each connection whose level lets it through (what
    /// [`RequestContext::log`](crate::handler::RequestContext::log) does for one request).
    pub(crate) fn log_to_sessions(&self, params: LoggingMessageNotificationParams) -> usize {
        let level = params.level;
        let notification = ServerNotification::LoggingMessage(params);
        self.deliver(&notification, |c| {
            self.inner
                .log_threshold(c)
                .is_some_and(|minimum| level >= minimum)
        })
    }

    /// Who the server says it is.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The instructions for the model, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// The server's mode.
    pub fn mode(&self) -> ServerMode {
        self.inner.mode
    }

    /// The revisions the server speaks.
    pub fn supported_versions(&self) -> SupportedVersions {
        self.inner.options.supported_versions
    }

    /// A token that fires when [`shutdown`](Self::shutdown) is called; transports stop on it.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }

    /// Asks every transport serving this server to stop.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// The capabilities the server advertises: derived from what it offers and what it opted in to.
    pub fn capabilities(&self) -> ServerCapabilities {
        let options = &self.inner.options;
        let registry = &self.inner.registry;
        let mut caps = ServerCapabilities::default();
        if !registry.tools.is_empty() || options.tools_list_changed {
            let mut tools = ToolsCapability::default();
            tools.list_changed = options.tools_list_changed.then_some(true);
            caps.tools = Some(tools);
        }
        if !registry.prompts.is_empty() || options.prompts_list_changed {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = options.prompts_list_changed.then_some(true);
            caps.prompts = Some(prompts);
        }
        if !registry.resources.is_empty()
            || !registry.templates.is_empty()
            || options.resources_list_changed
            || options.subscriptions
        {
            let mut resources = ResourcesCapability::default();
            resources.list_changed = options.resources_list_changed.then_some(true);
            resources.subscribe = options.subscriptions.then_some(true);
            caps.resources = Some(resources);
        }
        if options.logging {
            caps.logging = Some(JsonObject::new());
        }
        if self.offers_completions() {
            caps.completions = Some(JsonObject::new());
        }
        let mut extensions = options.extensions.clone();
        if tasks::offered(self) {
            // 2025-11-25 declares the `tasks` capability, 2026-07-28 the extension; each is
            // rendered only for its revision.
            let mut tasks = ServerTasksCapability::default();
            tasks.list = Some(JsonObject::new());
            tasks.cancel = Some(JsonObject::new());
            let mut requests = ServerTaskRequests::default();
            let mut tools = ToolTaskRequests::default();
            tools.call = Some(JsonObject::new());
            requests.tools = Some(tools);
            tasks.requests = Some(requests);
            caps.tasks = Some(tasks);
            extensions
                .entry(mcp_runtime_core::tasks::TASKS_EXTENSION.to_owned())
                .or_default();
        }
        if self.offers_skills() {
            let mut skills = JsonObject::new();
            skills.insert("directoryRead".into(), true.into());
            extensions.insert(
                mcp_runtime_core::skills::SKILLS_EXTENSION.to_owned(),
                skills,
            );
            caps.resources
                .get_or_insert_with(ResourcesCapability::default);
        }
        if !extensions.is_empty() {
            caps.extensions = Some(extensions);
        }
        if !options.experimental.is_empty() {
            caps.experimental = Some(options.experimental.clone());
        }
        caps
    }

    fn offers_completions(&self) -> bool {
        let registry = &self.inner.registry;
        self.inner.options.completions
            || self.inner.completion_handler.is_some()
            || registry
                .prompts
                .any(|p| !p.definition.completers.is_empty())
            || registry
                .templates
                .any(|t| !t.definition.completers.is_empty())
    }

    /// Shared state of type `T` registered on the builder.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        state_of(&*self.inner)
    }

    /// Makes `connection` reachable by the server's unsolicited messages (list changes, resource
    /// updates, pings). Transports call this for every persistent connection.
    pub fn register_connection(&self, connection: &Arc<ConnectionState>) {
        self.inner.connections.lock().register(connection);
    }

    /// The live connections whose client completed the handshake: `initialize` answered and
    /// `notifications/initialized` received. Only these get the server's unsolicited messages.
    pub fn connections(&self) -> Vec<Arc<ConnectionState>> {
        self.inner
            .connections
            .lock()
            .list
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|c| c.handshake().is_some() && c.is_initialized() && !c.is_closed())
            .collect()
    }

    /// Whether the server seals `requestState` with a key of this process's own.
    #[cfg(feature = "http-handler")]
    pub(crate) fn seals_with_own_key(&self) -> bool {
        self.inner.request_state.is_random()
    }

    /// Has `relay` pass every broadcast of this server (list changes, resource updates,
    /// [`notify`](Self::notify)) on to the other instances of its deployment, which deliver it
    /// with [`deliver_relayed`](Self::deliver_relayed).
    #[cfg(feature = "http-handler")]
    pub(crate) fn relay_broadcasts(&self, relay: BroadcastRelay) {
        *self.inner.relay.write() = Some(relay);
    }

    /// Delivers here a broadcast that another instance relayed: to the connections it concerns
    /// (the subscribers of an updated resource, everyone otherwise) and the listen streams that
    /// asked for it; not relayed again.
    #[cfg(feature = "http-handler")]
    pub(crate) fn deliver_relayed(&self, notification: &ServerNotification) -> usize {
        match notification {
            ServerNotification::ResourceUpdated(params) => {
                let uri = params.uri.clone();
                self.deliver(notification, move |c| c.is_subscribed(&uri))
            }
            ServerNotification::ToolListChanged(_)
            | ServerNotification::PromptListChanged(_)
            | ServerNotification::ResourceListChanged(_) => self.deliver(notification, |_| true),
            // What only listen streams carry.
            _ => self.deliver(notification, |_| false),
        }
    }

    /// Sends `notification` to the connections `select` picks and to the listen streams that
    /// asked for it, and to the other instances when the transport relays broadcasts; returns
    /// how many it reached here.
    fn broadcast(
        &self,
        notification: &ServerNotification,
        select: impl Fn(&ConnectionState) -> bool,
    ) -> usize {
        let relay = self.inner.relay.read().clone();
        if let Some(relay) = relay {
            relay(notification);
        }
        self.deliver(notification, select)
    }

    /// Sends `notification` to the connections `select` picks and to the listen streams that
    /// asked for it; returns how many it reached.
    fn deliver(
        &self,
        notification: &ServerNotification,
        select: impl Fn(&ConnectionState) -> bool,
    ) -> usize {
        let listening = self.inner.listeners.deliver(notification);
        listening
            + self
                .connections()
                .into_iter()
                .filter(|c| select(c))
                .filter_map(|c| c.sink().cloned())
                .filter(|sink| {
                    sink.send(Outbound::Notification(notification.clone()))
                        .is_ok()
                })
                .count()
    }

    /// Sends `notification` to every initialized connection; returns how many it reached.
    pub fn notify(&self, notification: ServerNotification) -> usize {
        self.broadcast(&notification, |_| true)
    }

    fn notify_list_changed(&self, kind: ListKind) -> usize {
        let options = &self.inner.options;
        let (enabled, notification) = match kind {
            ListKind::Tools => (
                options.tools_list_changed,
                ServerNotification::ToolListChanged(NotificationParams::default()),
            ),
            ListKind::Prompts => (
                options.prompts_list_changed,
                ServerNotification::PromptListChanged(NotificationParams::default()),
            ),
            ListKind::Resources => (
                options.resources_list_changed,
                ServerNotification::ResourceListChanged(NotificationParams::default()),
            ),
        };
        if !enabled {
            tracing::debug!(
                ?kind,
                "list changed, but the server does not announce list changes"
            );
            return 0;
        }
        self.notify(notification)
    }

    /// Tells the connections subscribed to `uri` that the resource changed; returns how many it
    /// reached.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        let notification =
            ServerNotification::ResourceUpdated(ResourceUpdatedNotificationParams::new(uri));
        self.broadcast(&notification, |c| c.is_subscribed(uri))
    }

    /// Pings the client of `connection` and waits for its answer, at most the ping timeout set
    /// on the builder ([`DEFAULT_PING_TIMEOUT`] unless changed); a client that stays silent gives
    /// [`PeerRequestError::TimedOut`].
    pub async fn ping(&self, connection: &Arc<ConnectionState>) -> Result<(), PeerRequestError> {
        self.ping_within(connection, self.inner.options.timeouts.ping)
            .await
    }

    /// Like [`ping`](Self::ping), waiting at most `timeout` (`None`: as long as it takes).
    pub async fn ping_within(
        &self,
        connection: &Arc<ConnectionState>,
        timeout: Option<Duration>,
    ) -> Result<(), PeerRequestError> {
        let Some(sink) = connection.sink().cloned() else {
            return Err(PeerRequestError::Disconnected);
        };
        connection
            .send_request(
                &sink,
                ServerRequest::Ping(Default::default()),
                &self.inner.shutdown,
                timeout,
            )
            .await
            .map(|_| ())
    }

    /// Adds a tool at run time and announces the change. A tool with an interface (MCP Apps) is
    /// checked as [`build`](McpServerBuilder::build) checks it, except that its page may be added
    /// after it.
    pub fn add_tool(&self, definition: ToolDefinition) -> Result<(), RegistryError> {
        apps::check_tool(&self.inner.registry, &definition, apps::Page::MayFollow)?;
        self.inner.registry.add_tool(definition, Origin::Dynamic)?;
        self.notify_list_changed(ListKind::Tools);
        Ok(())
    }

    /// Removes the tool `name` and announces the change; false when there was none.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.inner.registry.tools.remove(name);
        if removed {
            self.notify_list_changed(ListKind::Tools);
        }
        removed
    }

    /// Adds a prompt at run time and announces the change.
    pub fn add_prompt(&self, definition: PromptDefinition) -> Result<(), RegistryError> {
        self.inner
            .registry
            .add_prompt(definition, Origin::Dynamic)?;
        self.notify_list_changed(ListKind::Prompts);
        Ok(())
    }

    /// Removes the prompt `name` and announces the change; false when there was none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.inner.registry.prompts.remove(name);
        if removed {
            self.notify_list_changed(ListKind::Prompts);
        }
        removed
    }

    /// Adds a resource at run time and announces the change. An app's page (MCP Apps) is checked
    /// as [`build`](McpServerBuilder::build) checks it: a `ui://` URI, origins in its sandbox.
    pub fn add_resource(&self, definition: ResourceDefinition) -> Result<(), RegistryError> {
        apps::check_resource(&definition)?;
        let name = definition.resource.name.clone();
        self.inner.registry.add_resource(
            ResourceKind::Direct(definition),
            &name,
            Origin::Dynamic,
        )?;
        self.notify_list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes the resource at `uri` and announces the change; false when there was none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.inner.registry.resources.remove(uri);
        if removed {
            self.notify_list_changed(ListKind::Resources);
        }
        removed
    }

    /// Adds a skill at run time (its files become resources) and announces the change
    /// (`notifications/resources/list_changed`, where the server declares it).
    pub fn add_skill(&self, skill: Skill) -> Result<(), RegistryError> {
        self.inner
            .registry
            .add_skill(skill, registry::Origin::Dynamic)?;
        self.notify_list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes the skill `name` and its files, and announces the change; false when there was
    /// none.
    pub fn remove_skill(&self, name: &str) -> bool {
        let removed = self.inner.registry.remove_skill(name);
        if removed {
            self.notify_list_changed(ListKind::Resources);
        }
        removed
    }

    /// Whether the server offers skills (it declares the skills extension).
    pub(crate) fn offers_skills(&self) -> bool {
        !self.inner.registry.skills.is_empty()
    }

    /// Adds a resource template at run time and announces the change.
    pub fn add_resource_template(
        &self,
        definition: ResourceTemplateDefinition,
    ) -> Result<(), RegistryError> {
        let name = definition.template.name.clone();
        self.inner.registry.add_resource(
            ResourceKind::Template(Ok(definition)),
            &name,
            Origin::Dynamic,
        )?;
        self.notify_list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes the template `uri_template` and announces the change; false when there was none.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = self.inner.registry.templates.remove(uri_template);
        if removed {
            self.notify_list_changed(ListKind::Resources);
        }
        removed
    }

    /// Admits a message received from the peer of `connection`: refuses what the protocol does
    /// not allow, handles notifications and responses at once, and starts each request (see
    /// the [`Admission`] docs). `sink` carries the messages the handlers send while they
    /// run (progress, logs, requests to the client); without one they are dropped. The requests
    /// run when the [`Admission`]'s work is polled.
    pub fn admit(
        &self,
        incoming: Incoming,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
        envelope: Envelope,
    ) -> Admission {
        admission::admit(self, incoming, connection, sink, envelope)
    }

    /// [`admit`](Self::admit) for wire text: text that is not JSON gets a parse error (`-32700`)
    /// and an invalid message an invalid-request error (`-32600`), both with a `null` id unless
    /// the message's id could be read.
    pub fn admit_text(
        &self,
        text: &[u8],
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Admission {
        admission::admit_text(self, text, connection, sink)
    }

    /// Handles wire text, one message or a batch, and returns the text of the reply, if any: what
    /// [`admit_text`](Self::admit_text) admits, run to the end.
    pub async fn handle_raw(
        &self,
        text: &[u8],
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<String> {
        self.admit_text(text, connection, sink).finish().await
    }

    /// The names of the tools the server offers, in order.
    pub fn tool_names(&self) -> Vec<String> {
        self.inner
            .registry
            .tools
            .snapshot()
            .iter()
            .map(|t| t.definition.name().to_owned())
            .collect()
    }
}

impl Host for ServerInner {
    fn state(&self, type_id: TypeId) -> Option<&(dyn Any + Send + Sync)> {
        self.state.get(&type_id).map(|value| &**value)
    }

    fn client_request_timeout(&self, request: &ServerRequest) -> Option<Duration> {
        self.options.timeouts.for_request(request)
    }

    fn log_threshold(&self, connection: &ConnectionState) -> Option<LoggingLevel> {
        self.options.logging.then(|| {
            connection
                .log_level()
                .unwrap_or(self.options.default_log_level)
        })
    }

    fn as_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The server running the request, as a handler parameter: `async fn f(server: McpServer)`.
impl FromRequestContext for McpServer {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        let inner = ctx
            .host()
            .clone()
            .as_any()
            .downcast::<ServerInner>()
            .map_err(|_| ErrorObject::internal_error("the request is not run by an McpServer"))?;
        Ok(McpServer { inner })
    }
}

/// The persistent connections the server's unsolicited messages reach, as weak references: the
/// closed ones are dropped from the list whenever it has doubled since the last time, so that
/// registering one costs the same with a hundred thousand sessions open as with one.
#[derive(Default)]
pub(crate) struct Connections {
    list: Vec<Weak<ConnectionState>>,
    /// The length at which the closed connections are dropped next.
    prune_at: usize,
}

impl Connections {
    fn register(&mut self, connection: &Arc<ConnectionState>) {
        if self.list.len() >= self.prune_at {
            self.list.retain(|c| c.strong_count() > 0);
            self.prune_at = (self.list.len() * 2).max(64);
        }
        self.list.push(Arc::downgrade(connection));
    }
}
