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
//! - **Skills** (the skills extension) are read and verified when the proxy is made, and served
//!   by the gateway from that copy, under their own names.
//! - **Tasks**: a tool the upstream runs only as a task is called as one there; a call the
//!   upstream turns into a task becomes one here too; a 2025-11-25 client may run any tool of
//!   a 2026-07-28 upstream as a task.
//!
//! Several upstreams go behind one server with [`McpServerBuilder::mount`], each under a
//! namespace, and their tools are reshaped with the server's transforms
//! ([`McpServerBuilder::transform_tool`], see [`server::ToolTransform`]). What the gateway
//! holds between its two sides is bounded: a forwarded request relays at most 64 progress
//! notifications and 64 others waiting for its client, and at most [`MAX_PARKED`] requests wait
//! for their clients' next rounds.
//!
//! [`server::ToolTransform`]: crate::server::ToolTransform
//! [`McpServerBuilder::proxy`]: crate::server::McpServerBuilder::proxy
//! [`McpServerBuilder::mount`]: crate::server::McpServerBuilder::mount
//! [`McpServerBuilder::transform_tool`]: crate::server::McpServerBuilder::transform_tool
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

mod follow;
mod forward;
mod mirror;
mod mount;
mod namespace;
mod subscriptions;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use mcp_runtime_core::capabilities::ServerCapabilities;
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::prompts::Prompt;
use mcp_runtime_core::resources::{Resource, ResourceTemplate};
use mcp_runtime_core::skills::SKILLS_EXTENSION;
use mcp_runtime_core::subscriptions::SubscriptionFilter;
use mcp_runtime_core::tools::Tool;
use mcp_runtime_core::{Era, ErrorCode, ErrorObject};
use parking_lot::Mutex;

use crate::client::{ClientError, McpClient, McpClientBuilder};
use crate::connection::ConnectionState;
use crate::handler::skill::{SKILL_MD, Skill};
use crate::server::{McpServer, ServerInner};
use namespace::Namespace;

pub use forward::{MAX_PARKED, PARKED_FOR};

/// The most URL-mode elicitations whose completion the gateway remembers where to send.
pub const MAX_URL_ELICITATIONS: usize = 1024;

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
    /// The connection each URL-mode elicitation went to, by its id, for its completion
    /// notification (at most [`MAX_URL_ELICITATIONS`]).
    url_elicitations: Mutex<HashMap<String, Weak<ConnectionState>>>,
    /// The namespace it is mounted under, once mounted.
    namespace: OnceLock<Namespace>,
}

/// What the upstream offers.
#[derive(Clone, Default)]
struct Offered {
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    /// Its resources but the files of its skills.
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    /// Its skills (the skills extension), their files read and verified when it was mirrored.
    skills: Vec<Skill>,
}

/// A builder for the client that reaches the upstream: it declares sampling, elicitation and
/// roots, so that the upstream may ask for them during a request, and the proxy asks the
/// downstream client that made it. What the upstream asks outside any forwarded request (or
/// over a pipe with several in flight, where it cannot be told which one it belongs to) is
/// refused (a server asks again during a request). It asks for all of the upstream's log
/// messages.
pub fn upstream_client(info: Implementation) -> McpClientBuilder {
    fn unrelated(method: &str) -> ErrorObject {
        ErrorObject::internal_error(format!(
            "{method} refused: this gateway asks its own clients only during a request it \
             forwards, and cannot tell which one this belongs to"
        ))
    }
    McpClient::builder(info)
        // A 2026-07-28 upstream sends a request's logs only when asked in it: all of them,
        // for each session to get those at its level.
        .log_level(LoggingLevel::Debug)
        // The upstream's results are the truth a gateway passes on.
        .validate_structured_content(false)
        .sampling(|_| async { Err(unrelated("sampling/createMessage")) })
        .elicitation(|_| async { Err(unrelated("elicitation/create")) })
        .url_elicitation()
        .extension(SKILLS_EXTENSION, Default::default())
        .roots_with(|| async { Err(unrelated("roots/list")) })
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
            namespace: OnceLock::new(),
            url_elicitations: Mutex::new(HashMap::new()),
        });
        crate::rt::spawn(follow::follow(Arc::downgrade(&shared), notifications));
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
            crate::rt::spawn(follow::listen(Arc::downgrade(&shared), subscription));
        }
        Ok(Proxy { shared })
    }

    /// Mirrors `server`, run in this process behind an in-process client: what
    /// [`mount`](crate::server::McpServerBuilder::mount) takes to put a local server beside others. The
    /// server keeps its own state and options.
    pub async fn in_process(server: McpServer) -> Result<Proxy, ClientError> {
        let info = server.info().clone();
        let client = upstream_client(info).connect_in_process(server).await?;
        Proxy::new(client).await
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

/// The upstream's skills, each file read and verified against the skill's entry.
async fn skills(client: &McpClient) -> Result<Vec<Skill>, ClientError> {
    let entries = match client.list_all_skills().await {
        Ok(entries) => entries,
        // No skills: the server does not know the method.
        Err(ClientError::Server { error, .. }) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            return Ok(Vec::new());
        }
        Err(other) => return Err(other),
    };
    let mut skills = Vec::new();
    for entry in entries {
        let folder = entry
            .uri
            .strip_suffix(SKILL_MD)
            .and_then(|u| u.strip_prefix("skill://"))
            .unwrap_or_default()
            .to_owned();
        let mut files = Vec::new();
        for file in &entry.resources {
            let bytes = client.read_skill_file(&entry, &file.uri).await?;
            let path = file
                .uri
                .strip_prefix(&format!("skill://{folder}"))
                .unwrap_or(&file.uri);
            files.push((path.to_owned(), bytes));
        }
        let name = folder.trim_end_matches('/');
        match Skill::new(name, files) {
            Ok(skill) => skills.push(skill),
            Err(error) => {
                tracing::warn!(%error, skill = %entry.uri, "the upstream's skill is left out")
            }
        }
    }
    Ok(skills)
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
        // A server of a 2025 revision declares no extensions: its answer tells.
        if capabilities.resources.is_some() {
            offered.skills = skills(client).await?;
            let files: std::collections::HashSet<&str> = offered
                .skills
                .iter()
                .flat_map(|skill| skill.entry().resources.iter().map(|f| f.uri.as_str()))
                .collect();
            offered
                .resources
                .retain(|r| !files.contains(r.uri.as_str()));
        }
        Ok(offered)
    }
}

impl Shared {
    /// The server mirroring the upstream, while it lives.
    fn server(&self) -> Option<McpServer> {
        McpServer::upgrade(self.server.get()?)
    }

    /// The namespace the upstream is mounted under (none until mounted).
    fn namespace(&self) -> &Namespace {
        static NONE: Namespace = Namespace::none();
        self.namespace.get().unwrap_or(&NONE)
    }
}
