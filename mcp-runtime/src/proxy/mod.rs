//! Gateways: a server whose tools, prompts and resources are another server's.
//!
//! A [`Proxy`] holds an [`McpClient`] connected to a server, the *upstream* (a program over
//! stdio, a Streamable HTTP server, a server of the old HTTP+SSE transport), and
//! [`McpServerBuilder::proxy`] makes what the upstream offers the built server's own: its
//! tools, prompts, resources and templates are listed as the server's, and each request for
//! one of them is forwarded. The clients of the server (*downstream*) see one server, of their
//! own revision, whatever the upstream speaks.
//!
//! What crosses, and how:
//! - **Calls and results** as they are: arguments, content, `structuredContent`, `isError`,
//!   `_meta`. An error of the upstream is the downstream's error; an upstream that is gone gives
//!   an error that says so, and the server keeps serving the rest.
//! - **Progress**: a downstream request that asks for progress gets the upstream's.
//! - **Cancellation**: a cancelled downstream request cancels its upstream request.
//! - **Sampling, elicitation and roots** that the upstream asks for during a request are asked
//!   of the client that made it, and its answer goes back. A 2026-07-28 client is asked in
//!   input-required rounds: the upstream request waits in the proxy between the rounds (at
//!   most [`PARKED_FOR`]), found again by the `requestState` the client echoes. Over a pipe a
//!   2025 upstream does not say which request it asks for: with several calls in flight its
//!   question is refused (see
//!   [`RequestOptions::ask_through`](crate::client::RequestOptions::ask_through)).
//! - **Logs** of the upstream go to every session, at the level each one set.
//! - **List changes**: the proxy lists again, updates what the server offers, and announces it.
//! - **Resource subscriptions**: the first downstream subscription to a resource subscribes
//!   upstream, and the upstream's updates reach the subscribers.
//! - **Completions** are the upstream's.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::proxy::Proxy;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mut command = tokio::process::Command::new("npx");
//! command.args(["-y", "@modelcontextprotocol/server-everything"]);
//! let upstream = mcp_runtime::proxy::upstream_client(server_info!())
//!     .connect_stdio(command)
//!     .await?;
//! let server = McpServer::builder(server_info!())
//!     .proxy(Proxy::new(upstream).await?)
//!     .build()?;
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```

mod forward;
mod mirror;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use mcp_core::capabilities::ServerCapabilities;
use mcp_core::implementation::Implementation;
use mcp_core::logging::LoggingLevel;
use mcp_core::messages::{ClientRequest, ServerNotification};
use mcp_core::prompts::Prompt;
use mcp_core::resources::{Resource, ResourceTemplate};
use mcp_core::subscriptions::SubscriptionFilter;
use mcp_core::tools::Tool;
use mcp_core::{Era, ErrorObject};
use parking_lot::Mutex;
use tokio::sync::broadcast;

use crate::client::{ClientError, McpClient, McpClientBuilder, Subscription};
use crate::server::middleware::{self, McpRequest, Next};
use crate::server::{ListKind, McpServer, McpServerBuilder, ServerInner};

pub use forward::{MAX_PARKED, PARKED_FOR};

/// A server's offer, mirrored: see the [module docs](self).
#[derive(Clone)]
pub struct Proxy {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("upstream", &self.shared.client)
            .finish_non_exhaustive()
    }
}

/// What the proxy's handlers share.
struct Shared {
    client: McpClient,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    /// What the upstream offered when last listed.
    offered: Mutex<Offered>,
    /// The upstream requests waiting for a 2026-07-28 client's next round.
    parked: forward::Parked,
    /// How many downstream subscriptions each resource has (the upstream is subscribed to
    /// those with some), and, on a 2026-07-28 upstream, the task that follows its listen
    /// stream.
    subscriptions: Mutex<HashMap<String, (usize, Option<tokio::task::AbortHandle>)>>,
    /// The server that mirrors the upstream, once built.
    server: OnceLock<Weak<ServerInner>>,
}

/// What the upstream offers.
#[derive(Clone, Default)]
struct Offered {
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
}

/// A builder for the client that reaches the upstream: it declares sampling, elicitation and
/// roots, so that the upstream may ask for them during a request, and the proxy asks the
/// downstream client that made it. What the upstream asks outside any forwarded request (or
/// over a pipe with several in flight, where it cannot be told which one it belongs to) is
/// refused; its roots are none.
pub fn upstream_client(info: Implementation) -> McpClientBuilder {
    fn unrelated(method: &str) -> ErrorObject {
        ErrorObject::internal_error(format!(
            "{method} refused: this gateway asks its own clients only during a request it              forwards, and cannot tell which one this belongs to"
        ))
    }
    McpClient::builder(info)
        .sampling(|_| async { Err(unrelated("sampling/createMessage")) })
        .elicitation(|_| async { Err(unrelated("elicitation/create")) })
        .roots(Vec::new())
}

impl Proxy {
    /// Mirrors the server `client` is connected to: lists what it offers (tools, prompts,
    /// resources, templates, as its capabilities say it has them), and from then on follows its
    /// notifications. On a 2025 revision, it asks for all of the upstream's logs
    /// (`logging/setLevel` `debug`): each downstream session gets those at its own level.
    pub async fn new(client: McpClient) -> Result<Proxy, ClientError> {
        let (capabilities, instructions) = match (client.server(), client.discovered()) {
            (Some(initialized), _) => (
                initialized.capabilities.clone(),
                initialized.instructions.clone(),
            ),
            (None, Some(discovered)) => (discovered.capabilities, discovered.instructions),
            (None, None) => (ServerCapabilities::default(), None),
        };
        let offered = Offered::list(&client, &capabilities).await?;
        if capabilities.logging.is_some() && client.protocol_version().era() == Era::Handshake {
            client.set_logging_level(LoggingLevel::Debug).await?;
        }
        let notifications = client.notifications();
        let shared = Arc::new(Shared {
            client,
            capabilities,
            instructions,
            offered: Mutex::new(offered),
            parked: forward::Parked::default(),
            subscriptions: Mutex::new(HashMap::new()),
            server: OnceLock::new(),
        });
        tokio::spawn(follow(Arc::downgrade(&shared), notifications));
        // A 2026-07-28 server announces list changes only on a listen stream.
        let capabilities = &shared.capabilities;
        let mut changes = SubscriptionFilter::default();
        changes.tools_list_changed = listed(capabilities.tools.as_ref().map(|c| c.list_changed));
        changes.prompts_list_changed =
            listed(capabilities.prompts.as_ref().map(|c| c.list_changed));
        changes.resources_list_changed =
            listed(capabilities.resources.as_ref().map(|c| c.list_changed));
        if shared.client.protocol_version().era() == Era::Stateless
            && changes != SubscriptionFilter::default()
        {
            let subscription = shared.client.listen(changes).await?;
            tokio::spawn(listen(Arc::downgrade(&shared), subscription));
        }
        Ok(Proxy { shared })
    }

    /// The client connected to the upstream.
    pub fn client(&self) -> &McpClient {
        &self.shared.client
    }

    /// What the upstream declared it offers.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.shared.capabilities
    }

    /// The upstream's instructions, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.shared.instructions.as_deref()
    }
}

/// `Some(true)` for a list whose changes the upstream announces.
fn listed(list_changed: Option<Option<bool>>) -> Option<bool> {
    (list_changed.flatten() == Some(true)).then_some(true)
}

impl Offered {
    async fn list(
        client: &McpClient,
        capabilities: &ServerCapabilities,
    ) -> Result<Self, ClientError> {
        let mut offered = Offered::default();
        if capabilities.tools.is_some() {
            offered.tools = client.list_all_tools().await?;
        }
        if capabilities.prompts.is_some() {
            offered.prompts = client.list_all_prompts().await?;
        }
        if capabilities.resources.is_some() {
            offered.resources = client.list_all_resources().await?;
            offered.templates = client.list_all_resource_templates().await?;
        }
        Ok(offered)
    }
}

impl McpServerBuilder {
    /// Offers what `proxy`'s upstream offers, forwarding every request for it (see
    /// [`proxy`](crate::proxy)). The server declares what the upstream declares (list changes,
    /// logging, completions, resource subscriptions), and announces the upstream's list changes.
    pub fn proxy(self, proxy: Proxy) -> Self {
        let shared = proxy.shared;
        let capabilities = &shared.capabilities;
        let mut builder = self;
        if capabilities.tools.is_some() {
            builder = builder.tools_list_changed();
        }
        if capabilities.prompts.is_some() {
            builder = builder.prompts_list_changed();
        }
        if capabilities.resources.is_some() {
            builder = builder.resources_list_changed();
        }
        if capabilities.logging.is_some() {
            builder = builder.logging();
        }
        if capabilities.completions.is_some() {
            let forwarding = shared.clone();
            builder = builder.completion_handler(move |params, ctx| {
                let shared = forwarding.clone();
                async move { shared.complete(params, &ctx).await }
            });
        }
        if capabilities
            .resources
            .as_ref()
            .is_some_and(|r| r.subscribe == Some(true))
        {
            let forwarding = shared.clone();
            builder = builder.resource_subscriptions().layer(middleware::from_fn(
                move |request: McpRequest, next: Next| {
                    let shared = forwarding.clone();
                    async move {
                        shared.follow_subscription(&request).await?;
                        next.run(request).await
                    }
                },
            ));
        }
        let offered = shared.offered.lock().clone();
        for tool in offered.tools {
            builder = builder.tool(mirror::tool(&shared, tool));
        }
        for prompt in offered.prompts {
            builder = builder.prompt(mirror::prompt(&shared, prompt));
        }
        for resource in offered.resources {
            builder = builder.resource(mirror::resource(&shared, resource));
        }
        for template in offered.templates {
            if let Some(definition) = mirror::template(&shared, template) {
                builder = builder.resource_template(definition);
            }
        }
        builder.after_build(move |server| {
            let _ = shared.server.set(server.downgrade());
        })
    }
}

impl Shared {
    /// The server mirroring the upstream, while it lives.
    fn server(&self) -> Option<McpServer> {
        McpServer::upgrade(self.server.get()?)
    }

    /// Subscribes upstream for the first downstream subscription to a resource, and
    /// unsubscribes after the last one.
    async fn follow_subscription(
        self: &Arc<Self>,
        request: &McpRequest,
    ) -> Result<(), ErrorObject> {
        match request.params() {
            ClientRequest::Subscribe(params) => {
                self.add_subscriber(&params.uri, "resources/subscribe")
                    .await?;
            }
            // A listen stream's end is not seen here: the upstream stays subscribed to what
            // one asked for.
            ClientRequest::SubscriptionsListen(params) => {
                for uri in params.notifications.resource_subscriptions.iter().flatten() {
                    self.add_subscriber(uri, "subscriptions/listen").await?;
                }
            }
            ClientRequest::Unsubscribe(params) => {
                let last = {
                    let mut counts = self.subscriptions.lock();
                    match counts.get_mut(&params.uri) {
                        Some((count, _)) if *count > 1 => {
                            *count -= 1;
                            None
                        }
                        Some(_) => counts.remove(&params.uri),
                        None => None,
                    }
                };
                match last {
                    Some((_, Some(listening))) => listening.abort(),
                    Some((_, None)) => {
                        if let Err(error) = self.client.unsubscribe(&params.uri).await {
                            tracing::warn!(uri = %params.uri, %error, "unsubscribing upstream failed");
                        }
                    }
                    None => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Counts a downstream subscriber of `uri` (asked for by `method`); the first subscribes
    /// upstream.
    async fn add_subscriber(self: &Arc<Self>, uri: &str, method: &str) -> Result<(), ErrorObject> {
        let first = {
            let mut counts = self.subscriptions.lock();
            let (count, _) = counts.entry(uri.to_owned()).or_default();
            *count += 1;
            *count == 1
        };
        if first && let Err(error) = self.subscribe_upstream(uri).await {
            self.subscriptions.lock().remove(uri);
            return Err(forward::upstream_error(method, error));
        }
        Ok(())
    }

    /// Subscribes upstream to `uri`: `resources/subscribe`, or on 2026-07-28 a listen stream
    /// for it, followed until the last downstream subscription goes.
    async fn subscribe_upstream(self: &Arc<Self>, uri: &str) -> Result<(), ClientError> {
        if self.client.protocol_version().era() != Era::Stateless {
            return self.client.subscribe(uri).await;
        }
        let mut filter = SubscriptionFilter::default();
        filter.resource_subscriptions = Some(vec![uri.to_owned()]);
        let subscription = self.client.listen(filter).await?;
        let listening = tokio::spawn(listen(Arc::downgrade(self), subscription));
        if let Some((_, handle)) = self.subscriptions.lock().get_mut(uri) {
            *handle = Some(listening.abort_handle());
        }
        Ok(())
    }

    /// Lists `kind` again and updates what the server offers.
    async fn relist(self: &Arc<Self>, kind: ListKind) -> Result<(), ClientError> {
        let client = &self.client;
        let mut offered = self.offered.lock().clone();
        match kind {
            ListKind::Tools => offered.tools = client.list_all_tools().await?,
            ListKind::Prompts => offered.prompts = client.list_all_prompts().await?,
            ListKind::Resources => {
                offered.resources = client.list_all_resources().await?;
                offered.templates = client.list_all_resource_templates().await?;
            }
        }
        let before = std::mem::replace(&mut *self.offered.lock(), offered.clone());
        let Some(server) = self.server() else {
            return Ok(());
        };
        server.change_list(kind, |registry| {
            let outcome = match kind {
                ListKind::Tools => mirror::replace_tools(self, registry, &before, &offered),
                ListKind::Prompts => mirror::replace_prompts(self, registry, &before, &offered),
                ListKind::Resources => mirror::replace_resources(self, registry, &before, &offered),
            };
            if let Err(error) = outcome {
                tracing::warn!(%error, "the upstream's new list could not be mirrored in full");
            }
        });
        Ok(())
    }
}

/// Follows the upstream's notifications while the proxy lives.
async fn follow(shared: Weak<Shared>, mut notifications: broadcast::Receiver<ServerNotification>) {
    loop {
        let notification = match notifications.recv().await {
            Ok(notification) => notification,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "the proxy missed notifications of the upstream");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.take(notification).await;
    }
}

/// Follows a `subscriptions/listen` stream of a 2026-07-28 upstream while the proxy lives.
async fn listen(shared: Weak<Shared>, mut subscription: Subscription) {
    while let Some(notification) = subscription.next().await {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.take(notification).await;
    }
}

impl Shared {
    /// Passes on a notification of the upstream: list changes (after listing again), resource
    /// updates and logs.
    async fn take(self: &Arc<Self>, notification: ServerNotification) {
        let kind = match notification {
            ServerNotification::ToolListChanged(_) => ListKind::Tools,
            ServerNotification::PromptListChanged(_) => ListKind::Prompts,
            ServerNotification::ResourceListChanged(_) => ListKind::Resources,
            ServerNotification::ResourceUpdated(params) => {
                if let Some(server) = self.server() {
                    server.notify_resource_updated(&params.uri);
                }
                return;
            }
            ServerNotification::LoggingMessage(params) => {
                if let Some(server) = self.server() {
                    server.log_to_sessions(params);
                }
                return;
            }
            _ => return,
        };
        if let Err(error) = self.relist(kind).await {
            tracing::warn!(%error, ?kind, "listing the upstream again failed");
        }
    }
}
