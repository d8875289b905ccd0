//! A typed MCP client, for applications, agents and tests.
//!
//! [`McpClient`] connects to a server in the same process ([`McpClientBuilder::connect_in_process`],
//! what tests want), to a server program it starts ([`McpClientBuilder::connect_stdio`]), or over
//! any byte stream ([`McpClientBuilder::connect_io`]); it performs the `initialize` handshake and
//! offers a typed method per request. The application answers the server's requests (sampling,
//! elicitation, roots) with handlers registered on the builder, which also decide the
//! capabilities the client declares.
//!
//! ```
//! use mcp_runtime::client::McpClient;
//! use mcp_runtime::prelude::*;
//! use serde_json::json;
//!
//! /// Add two numbers.
//! #[mcp_tool]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = McpServer::from_module(server_info!(), module_path!()).build()?;
//! let client = McpClient::builder(server_info!()).connect_in_process(server).await?;
//! let tools = client.list_all_tools().await?;
//! assert!(tools.iter().any(|t| t.name == "add"));
//! let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//! assert_eq!(result.content[0].as_text(), Some("5"));
//! # Ok(())
//! # }
//! ```

mod handlers;
#[cfg(feature = "client-http")]
mod http;
mod peer;

use std::future::Future;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_core::completion::{CompleteRequestParams, CompleteResult};
use mcp_core::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_core::implementation::Implementation;
use mcp_core::input::InputRequiredResult;
use mcp_core::jsonrpc::RequestId;
use mcp_core::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use mcp_core::logging::{LoggingLevel, SetLevelRequestParams};
use mcp_core::messages::ServerNotification;
use mcp_core::meta::keys;
use mcp_core::methods::{self, Request};
use mcp_core::params::{PaginatedRequestParams, RequestParams};
use mcp_core::progress::ProgressNotificationParams;
use mcp_core::prompts::{GetPromptRequestParams, GetPromptResult, Prompt};
use mcp_core::resources::{
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate,
    SubscribeRequestParams,
};
use mcp_core::roots::Root;
use mcp_core::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_core::tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool};
use mcp_core::{ErrorCode, ErrorObject, ProtocolVersion, render};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::server::McpServer;
use crate::transport::lines::{LineOptions, serve_lines};
use handlers::Handlers;
use peer::Peer;

/// The most input-required rounds a 2026-07-28 request may take before the client gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// A request of the client failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered {method} with an error: {error}")]
    Server {
        /// The method asked.
        method: &'static str,
        /// The server's error.
        error: ErrorObject,
    },
    /// The connection is gone.
    #[error("the connection to the server is closed")]
    Disconnected,
    /// No answer came in time (see [`McpClientBuilder::request_timeout`]).
    #[error("{method} timed out after {timeout:?}")]
    TimedOut {
        /// The method asked.
        method: &'static str,
        /// How long the client waited.
        timeout: Duration,
    },
    /// A message could not be written for the negotiated revision, or an answer not read.
    #[error("{method}: {detail}")]
    Protocol {
        /// The method asked.
        method: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The server program could not be started.
    #[error("cannot start the server: {0}")]
    Spawn(String),
}

/// Builds an [`McpClient`]: who the client is, what it answers, how it connects.
pub struct McpClientBuilder {
    info: Implementation,
    /// The revision asked for, or `None` to detect the server's era.
    version: Option<ProtocolVersion>,
    handlers: Handlers,
    timeout: Option<Duration>,
    log_level: Option<LoggingLevel>,
}

impl McpClientBuilder {
    /// Speaks `version`: a 2025 revision through the `initialize` handshake, 2026-07-28 with
    /// per-request metadata. Without it, the client detects the server's era as the 2026-07-28
    /// versioning page prescribes: it probes with `server/discover` and falls back to the
    /// handshake (2025-11-25) when the answer is not a 2026-07-28 one.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// The log level 2026-07-28 requests ask for (`_meta` logLevel; by default none, so no log
    /// messages). On a 2025 session use [`McpClient::set_logging_level`].
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// How long each request may wait for its answer (no limit by default).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Answers `sampling/createMessage` with `handler` (and declares `sampling`).
    pub fn sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.sampling = Some(Arc::new(move |params| Box::pin(handler(params))));
        self
    }

    /// Answers `elicitation/create` with `handler` (and declares `elicitation`).
    pub fn elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.elicitation = Some(Arc::new(move |params| Box::pin(handler(params))));
        self
    }

    /// Answers `roots/list` with `roots` (and declares `roots`).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.roots = Some(Arc::new(roots));
        self
    }

    /// Connects to `server`, served in this process.
    pub async fn connect_in_process(self, server: McpServer) -> Result<McpClient, ClientError> {
        let (client_end, server_end) = tokio::io::duplex(256 * 1024);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(serve_lines(
            server,
            server_read,
            server_write,
            LineOptions::default(),
        ));
        let (read, write) = tokio::io::split(client_end);
        self.connect_io(read, write).await
    }

    /// Starts the server program `command` and connects to it over its stdin and stdout (its
    /// stderr is passed through). The program ends when the client is dropped.
    pub async fn connect_stdio(
        self,
        mut command: tokio::process::Command,
    ) -> Result<McpClient, ClientError> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Spawn(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Spawn("the pipes were not opened".into()));
        };
        let mut client = self.connect_io(stdout, stdin).await?;
        client.child = Some(Arc::new(tokio::sync::Mutex::new(child)));
        Ok(client)
    }

    /// Connects over `reader` and `writer`, which carry newline-delimited JSON.
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<McpClient, ClientError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let peer = Peer::start(reader, writer, self.handlers.clone());
        self.connect_peer(peer).await
    }

    /// Connects to the Streamable HTTP endpoint at `url` (cargo feature `client-http`).
    #[cfg(feature = "client-http")]
    pub async fn connect_http(self, url: impl Into<String>) -> Result<McpClient, ClientError> {
        let (peer, lines) = Peer::new(self.handlers.clone());
        let channel = Arc::new(http::HttpChannel::new(url.into()));
        tokio::spawn(channel.drive(Arc::downgrade(&peer), lines));
        self.connect_peer(peer).await
    }

    /// Opens the connection over `peer`: detects the era, or performs the handshake.
    async fn connect_peer(self, peer: Arc<Peer>) -> Result<McpClient, ClientError> {
        let capabilities = self.handlers.capabilities();
        let mut client = McpClient {
            peer,
            handlers: self.handlers,
            timeout: self.timeout,
            server: None,
            modern: None,
            child: None,
        };
        let modern = ProtocolVersion::V2026_07_28;
        let mut fallback = None;
        if self.version.is_none_or(|v| v == modern) {
            let mut meta = serde_json::Map::new();
            meta.insert(keys::PROTOCOL_VERSION.into(), json!(modern.as_str()));
            let declared =
                render::to_value(&capabilities, modern).map_err(|e| ClientError::Protocol {
                    method: "server/discover",
                    detail: e.to_string(),
                })?;
            meta.insert(keys::CLIENT_CAPABILITIES.into(), declared);
            meta.insert(keys::CLIENT_INFO.into(), json!(self.info));
            if let Some(level) = self.log_level {
                meta.insert(keys::LOG_LEVEL.into(), json!(level));
            }
            client.peer.set_version(modern);
            let params = json!({"_meta": meta});
            match client.send("server/discover", &params, None).await {
                Ok(discovered) => {
                    let discovered =
                        serde_json::from_value(discovered).map_err(|e| ClientError::Protocol {
                            method: "server/discover",
                            detail: e.to_string(),
                        })?;
                    client.modern = Some(Arc::new(Modern { discovered, meta }));
                    return Ok(client);
                }
                // A server of the handshake era: fall back, unless the caller asked for 2026.
                // A dual-era server that does not speak 2026-07-28 says which revisions it does.
                Err(ClientError::Server { error, .. }) if self.version.is_none() => {
                    tracing::debug!(%error, "server/discover failed: falling back to the handshake");
                    fallback = handshake_version(&error);
                }
                Err(error) => return Err(error),
            }
        }
        let version = self
            .version
            .or(fallback)
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        client.peer.set_version(version);
        let params = InitializeRequestParams::new(version.as_str(), capabilities, self.info);
        let result = client.request::<methods::Initialize>(params, None).await?;
        let version = ProtocolVersion::from_name(&result.protocol_version).ok_or_else(|| {
            ClientError::Protocol {
                method: "initialize",
                detail: format!(
                    "the server chose an unknown revision {}",
                    result.protocol_version
                ),
            }
        })?;
        client.peer.set_version(version);
        client
            .peer
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        client.server = Some(Arc::new(result));
        Ok(client)
    }
}

/// A connection to an MCP server (see the [module docs](self)). Cheap to clone: clones share
/// the connection.
#[derive(Clone)]
pub struct McpClient {
    peer: Arc<Peer>,
    handlers: Handlers,
    timeout: Option<Duration>,
    server: Option<Arc<InitializeResult>>,
    modern: Option<Arc<Modern>>,
    child: Option<Arc<tokio::sync::Mutex<tokio::process::Child>>>,
}

/// What a 2026-07-28 connection knows: what the server said in `server/discover`, and the
/// `_meta` every request carries.
struct Modern {
    discovered: DiscoverResult,
    meta: serde_json::Map<String, Value>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("version", &self.peer.version())
            .finish_non_exhaustive()
    }
}

/// Forgets a request whose caller stopped waiting, and tells the server.
struct Outstanding<'a> {
    peer: &'a Peer,
    id: Option<RequestId>,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && self.peer.forget(&id)
        {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the client stopped waiting"}});
            let _ = self.peer.send(&cancel);
        }
    }
}

impl McpClient {
    /// A builder for a client that calls itself `info`.
    pub fn builder(info: Implementation) -> McpClientBuilder {
        McpClientBuilder {
            info,
            version: None,
            handlers: Handlers::default(),
            timeout: None,
            log_level: None,
        }
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.peer.version()
    }

    /// What the server said of itself in the handshake (2025 revisions).
    pub fn server(&self) -> Option<&InitializeResult> {
        self.server.as_deref()
    }

    /// What the server said of itself in `server/discover` (2026-07-28).
    pub fn discovered(&self) -> Option<&DiscoverResult> {
        self.modern.as_ref().map(|m| &m.discovered)
    }

    /// The server's notifications from now on (log messages, progress, list changes, resource
    /// updates).
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.peer.subscribe()
    }

    /// Sends request `M` with `params` and waits for its result; `progress` receives the
    /// request's progress notifications. Dropping the future cancels the request
    /// (`notifications/cancelled`). On 2026-07-28 the request carries the per-request `_meta`,
    /// and the client runs the input-required rounds itself, answering the server's input
    /// requests with its handlers (at most [`MAX_INPUT_ROUNDS`] rounds).
    pub async fn request<M: Request>(
        &self,
        params: M::Params,
        progress: Option<mpsc::UnboundedSender<ProgressNotificationParams>>,
    ) -> Result<M::Result, ClientError> {
        let method = M::METHOD;
        let protocol = |detail: String| ClientError::Protocol { method, detail };
        let mut params =
            render::to_value(&params, self.peer.version()).map_err(|e| protocol(e.to_string()))?;
        if let (Some(modern), Value::Object(params)) = (&self.modern, &mut params) {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.extend(modern.meta.clone());
            }
        }
        for _ in 0..MAX_INPUT_ROUNDS {
            let value = self.send(method, &params, progress.clone()).await?;
            if value.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return serde_json::from_value(value).map_err(|e| protocol(e.to_string()));
            }
            let asked: InputRequiredResult =
                serde_json::from_value(value).map_err(|e| protocol(e.to_string()))?;
            let mut answers = serde_json::Map::new();
            for (key, request) in asked.input_requests.unwrap_or_default() {
                let answer = self
                    .handlers
                    .answer_input(request)
                    .await
                    .map_err(|error| ClientError::Server { method, error })?;
                answers.insert(
                    key,
                    serde_json::to_value(answer).map_err(|e| protocol(e.to_string()))?,
                );
            }
            if let Value::Object(params) = &mut params {
                params.insert("inputResponses".into(), Value::Object(answers));
                match asked.request_state {
                    Some(state) => params.insert("requestState".into(), Value::String(state)),
                    None => params.remove("requestState"),
                };
            }
        }
        Err(protocol(format!(
            "the server still asked for input after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// Sends one request of `method` with `params` (a new id each time) and waits for the
    /// result, as JSON.
    async fn send(
        &self,
        method: &'static str,
        params: &Value,
        progress: Option<mpsc::UnboundedSender<ProgressNotificationParams>>,
    ) -> Result<Value, ClientError> {
        let id = self.peer.next_id();
        let mut params = params.clone();
        if let Some(sink) = progress {
            let meta = params
                .as_object_mut()
                .map(|p| p.entry("_meta").or_insert_with(|| json!({})));
            if let Some(Value::Object(meta)) = meta {
                meta.insert("progressToken".into(), json!(id));
            }
            self.peer.watch(id.clone(), sink);
        }
        let answer = self.peer.expect(id.clone());
        let mut outstanding = Outstanding {
            peer: &self.peer,
            id: Some(id.clone()),
        };
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.peer.send(&message)?;
        let waited = match self.timeout {
            Some(timeout) => tokio::time::timeout(timeout, answer)
                .await
                .map_err(|_| ClientError::TimedOut { method, timeout })?,
            None => answer.await,
        };
        outstanding.id = None;
        self.peer.unwatch(&id);
        waited
            .map_err(|_| ClientError::Disconnected)?
            .map_err(|error| ClientError::Server { method, error })
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request::<methods::Ping>(RequestParams::default(), None)
            .await
            .map(drop)
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        self.request::<methods::ListTools>(page(cursor), None).await
    }

    /// Every tool, following the cursors.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.all_pages::<methods::ListTools, _>(|page| (page.tools, page.next_cursor))
            .await
    }

    /// `tools/call` of `name` with `arguments` (a JSON object).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.request::<methods::CallTool>(call_params(name, arguments)?, None)
            .await
    }

    /// Like [`call_tool`](Self::call_tool), with the call's progress sent to `progress`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        progress: mpsc::UnboundedSender<ProgressNotificationParams>,
    ) -> Result<CallToolResult, ClientError> {
        self.request::<methods::CallTool>(call_params(name, arguments)?, Some(progress))
            .await
    }

    /// Every prompt, following the cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.all_pages::<methods::ListPrompts, _>(|page| (page.prompts, page.next_cursor))
            .await
    }

    /// `prompts/get` of `name` with `arguments`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (String, String)>,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(arguments.into_iter().collect());
        self.request::<methods::GetPrompt>(params, None).await
    }

    /// Every resource, following the cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.all_pages::<methods::ListResources, _>(|page| (page.resources, page.next_cursor))
            .await
    }

    /// Every resource template, following the cursors.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.all_pages::<methods::ListResourceTemplates, _>(|page| {
            (page.resource_templates, page.next_cursor)
        })
        .await
    }

    /// Every item of the list `M`, following the cursors; `split` takes a page apart.
    async fn all_pages<M, T>(
        &self,
        split: impl Fn(M::Result) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, ClientError>
    where
        M: Request<Params = PaginatedRequestParams>,
    {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let (items, next) = split(self.request::<M>(page(cursor), None).await?);
            all.extend(items);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// `resources/read` of `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.request::<methods::ReadResource>(ReadResourceRequestParams::new(uri), None)
            .await
    }

    /// `resources/subscribe` to `uri`: its `notifications/resources/updated` arrive among the
    /// [`notifications`](Self::notifications).
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.request::<methods::Subscribe>(SubscribeRequestParams::new(uri), None)
            .await
            .map(drop)
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, ClientError> {
        self.request::<methods::Complete>(params, None).await
    }

    /// `logging/setLevel`: the server sends log messages from `level` up.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.request::<methods::SetLevel>(SetLevelRequestParams::new(level), None)
            .await
            .map(drop)
    }

    /// Ends the connection; a server program started by the client is waited for.
    pub async fn close(self) -> Result<(), ClientError> {
        let McpClient { peer, child, .. } = self;
        drop(peer);
        if let Some(child) = child {
            let mut child = child.lock().await;
            child
                .wait()
                .await
                .map_err(|e| ClientError::Spawn(e.to_string()))?;
        }
        Ok(())
    }
}

/// The handshake revision to fall back to after `error` answered `server/discover`: the newest
/// handshake revision an unsupported-version error lists, if it lists one.
fn handshake_version(error: &ErrorObject) -> Option<ProtocolVersion> {
    if error.code != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
        return None;
    }
    let supported = error.data.as_ref()?.get("supported")?.as_array()?;
    supported
        .iter()
        .filter_map(|v| ProtocolVersion::from_name(v.as_str()?))
        .filter(|v| v.era() == mcp_core::Era::Legacy)
        .max()
}

fn page(cursor: Option<String>) -> PaginatedRequestParams {
    let mut params = PaginatedRequestParams::default();
    params.cursor = cursor;
    params
}

fn call_params(name: &str, arguments: Value) -> Result<CallToolRequestParams, ClientError> {
    let Value::Object(arguments) = arguments else {
        return Err(ClientError::Protocol {
            method: "tools/call",
            detail: "the arguments must be a JSON object".into(),
        });
    };
    Ok(CallToolRequestParams::new(name, Some(arguments)))
}
