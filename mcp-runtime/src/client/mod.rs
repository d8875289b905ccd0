//! A typed MCP client, for applications, agents and tests.
//!
//! [`McpClient`] connects to a server in the same process ([`McpClientBuilder::connect_in_process`],
//! what tests want), to a server program it starts ([`McpClientBuilder::connect_stdio`]), over
//! Streamable HTTP (`McpClientBuilder::connect_http`, cargo feature `client-http`) or over any
//! byte stream ([`McpClientBuilder::connect_io`]). It detects the server's era (2026-07-28 with
//! per-request metadata, or an `initialize` handshake before) unless told which revision to
//! speak, and offers a typed method per request. The application answers the server's requests
//! (sampling, elicitation, roots) with handlers registered on the builder, which also decide the
//! capabilities the client declares; on 2026-07-28 the client runs the input-required rounds
//! with the same handlers.
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
//! let sum: i64 = client.call_tool_as("add", json!({"a": 2, "b": 3})).await?;
//! assert_eq!(sum, 5);
//! # Ok(())
//! # }
//! ```
//!
//! # Tasks
//!
//! A long tool call may run as a task, which the client polls for its outcome (the 2025-11-25
//! tasks, and the `io.modelcontextprotocol/tasks` extension of 2026-07-28, which the client
//! declares). [`McpClient::call_tool`] follows such a call to its end and returns its result as
//! if it had been answered at once; [`McpClient::call_tool_as_task`] returns a [`ToolTask`] to
//! watch, wait for or cancel the task. The client polls at the server's `pollInterval` (at
//! least [`MIN_TASK_POLL_INTERVAL`]), answers what the task asks for with the same handlers, and
//! cancels the task when the call is cancelled or times out. See [`ToolTask`] and the task
//! options of [`RequestOptions`].
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_runtime::client::{McpClient, RequestOptions};
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::protocol::tasks::TaskStatus;
//! use mcp_runtime::server::TaskOptions;
//! use serde_json::json;
//!
//! /// Index a corpus: it takes a while, so calls may run as tasks.
//! #[mcp_tool(task = "optional")]
//! async fn index(corpus: String) -> String {
//!     tokio::time::sleep(Duration::from_millis(200)).await;
//!     format!("indexed {corpus}")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = McpServer::from_module(server_info!(), module_path!())
//!     .tasks(TaskOptions::new().poll_interval(Duration::from_millis(100)))
//!     .build()?;
//! let client = McpClient::builder(server_info!()).connect_in_process(server).await?;
//!
//! let (states, mut seen) = tokio::sync::mpsc::unbounded_channel();
//! let options = RequestOptions::new()
//!     .task_status(states)
//!     .timeout(Duration::from_secs(60));
//! let task = client
//!     .call_tool_as_task("index", json!({"corpus": "docs"}), options)
//!     .await?;
//! assert!(task.id().is_some());
//! let result = task.wait().await?;
//! assert_eq!(result.content[0].as_text(), Some("indexed docs"));
//! assert_eq!(seen.recv().await.map(|t| t.status), Some(TaskStatus::Working));
//! assert_eq!(seen.recv().await.map(|t| t.status), Some(TaskStatus::Completed));
//!
//! // A plain call follows a task to its end just the same.
//! let result = client.call_tool("index", json!({"corpus": "wiki"})).await?;
//! assert_eq!(result.content[0].as_text(), Some("indexed wiki"));
//! # Ok(())
//! # }
//! ```
//!
//! The guide's chapter "The client" (`docs/src/client.md`) teaches it with examples.

mod answering;
mod apps;
mod connect;
mod error;
#[cfg(feature = "client-http")]
mod http;
#[cfg(feature = "client-http")]
mod legacy_sse;
#[cfg(feature = "client-auth")]
pub mod oauth;
mod options;
mod pages;
mod peer;
mod process;
mod skills;
mod subscription;
mod tasks;
mod tools;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime_core::completion::{CompleteRequestParams, CompleteResult};
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::input::InputRequiredResult;
use mcp_runtime_core::lifecycle::{DiscoverResult, InitializeResult};
use mcp_runtime_core::logging::{LoggingLevel, SetLevelRequestParams};
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::methods::{self, Request};
use mcp_runtime_core::params::{PaginatedRequestParams, RequestParams};
use mcp_runtime_core::prompts::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt,
};
use mcp_runtime_core::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, Resource, ResourceTemplate, SubscribeRequestParams,
};
use mcp_runtime_core::subscriptions::SubscriptionFilter;
use mcp_runtime_core::tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool};
use mcp_runtime_core::{Era, ProtocolVersion, render};
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tracing::Instrument;

use crate::spans;

/// The headers of [`McpClientBuilder::http_headers`] (the `http` crate's types, which
/// `reqwest` uses too), so that a client needs no other crate to build them.
#[cfg(feature = "client-http")]
pub use ::http::{HeaderMap, HeaderName, HeaderValue};
pub use apps::AppInterface;
pub use connect::{DEFAULT_DISCOVERY_TIMEOUT, McpClientBuilder};
pub use error::ClientError;
pub use options::{AskedInput, RequestOptions};
pub use process::EXIT_GRACE;
pub use skills::{LoadedSkill, SkillVerificationError, verify_skill_file};
pub use subscription::Subscription;
pub use tasks::{DEFAULT_TASK_POLL_INTERVAL, MIN_TASK_POLL_INTERVAL, ToolTask};
pub use tokio_util::sync::CancellationToken;

use answering::Handlers;
use pages::collect_pages;
use peer::{Failure, Outstanding, Peer};
use tools::ToolCache;

/// The most input-required rounds a 2026-07-28 request may take before the client gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// A connection to an MCP server (see the [module docs](self)). Cheap to clone: clones share
/// the connection, which ends when the last one is dropped.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

/// What the clones of a client share.
struct Inner {
    peer: Arc<Peer>,
    handlers: Handlers,
    info: Implementation,
    timeout: Option<Duration>,
    validate_output: bool,
    tools: Arc<ToolCache>,
    era: Mutex<EraState>,
    /// Counts the handshakes that renewed an expired HTTP session.
    generation: AtomicU64,
    /// Held while a session is renewed, so that only one request does it.
    renewing: tokio::sync::Mutex<()>,
    child: tokio::sync::Mutex<Option<process::Child>>,
    /// The operating system's id of the server program, when the client started it.
    process_id: Option<u32>,
    stderr: Option<Arc<Mutex<String>>>,
}

/// What the client knows of the server's era.
enum EraState {
    /// Neither the probe nor the handshake has succeeded yet.
    Unsettled,
    /// A handshake-era session, and what the server said in `initialize`.
    Handshake(Arc<InitializeResult>),
    /// 2026-07-28.
    Stateless(Arc<Stateless>),
}

/// What a 2026-07-28 connection knows: what the server said in `server/discover`, and the
/// `_meta` every request carries.
struct Stateless {
    discovered: DiscoverResult,
    meta: serde_json::Map<String, Value>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

/// Why one attempt at a request failed.
enum Attempt {
    Failed(ClientError),
    /// The HTTP session expired: the request may be retried after a fresh handshake.
    SessionExpired,
}

impl Attempt {
    /// The error of a request of `method` that will not be tried again.
    fn into_error(self, method: &'static str) -> ClientError {
        match self {
            Attempt::Failed(error) => error,
            Attempt::SessionExpired => ClientError::Transport {
                method,
                detail: "the server does not know the session".into(),
            },
        }
    }
}

impl McpClient {
    fn stateless(&self) -> Option<Arc<Stateless>> {
        match &*self.inner.era.lock() {
            EraState::Stateless(stateless) => Some(stateless.clone()),
            _ => None,
        }
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.peer.version()
    }

    /// What the server said of itself in the handshake (2025 revisions).
    pub fn server(&self) -> Option<Arc<InitializeResult>> {
        match &*self.inner.era.lock() {
            EraState::Handshake(result) => Some(result.clone()),
            _ => None,
        }
    }

    /// What the server said of itself in `server/discover` (2026-07-28).
    pub fn discovered(&self) -> Option<DiscoverResult> {
        self.stateless().map(|m| m.discovered.clone())
    }

    /// The operating system's id of the server program that
    /// [`connect_stdio`](McpClientBuilder::connect_stdio) started; `None` on other transports.
    pub fn process_id(&self) -> Option<u32> {
        self.inner.process_id
    }

    /// What a server program started with [`capture_stderr`](McpClientBuilder::capture_stderr)
    /// wrote to its stderr so far (its last 64 KiB); `None` when it is not captured.
    pub fn captured_stderr(&self) -> Option<String> {
        let kept = self.inner.stderr.as_ref()?;
        Some(kept.lock().clone())
    }

    /// The server's notifications from now on (log messages, progress, list changes, resource
    /// updates), except those of [`listen`](Self::listen) streams, which go to their
    /// [`Subscription`].
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.inner.peer.subscribe()
    }

    /// Sends request `M` with `params` and waits for its result. Dropping the future cancels
    /// the request, as does the token of [`RequestOptions::cancel_on`]: with
    /// `notifications/cancelled`, or on 2026-07-28 over HTTP by closing the request's stream.
    /// On 2026-07-28 the request carries the per-request `_meta`, and the client runs the
    /// input-required rounds itself, answering the server's input requests with its handlers
    /// (at most [`MAX_INPUT_ROUNDS`] rounds; each round is a new request echoing the server's
    /// `requestState` exactly).
    pub async fn request<M: Request>(
        &self,
        params: M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, ClientError> {
        let method = M::METHOD;
        let params = render::to_value(&params, self.protocol_version()).map_err(|e| {
            ClientError::Protocol {
                method,
                detail: e.to_string(),
            }
        })?;
        let value = self.request_value(method, params, &options).await?;
        serde_json::from_value(value).map_err(|e| ClientError::Protocol {
            method,
            detail: e.to_string(),
        })
    }

    /// A request of `method` with JSON `params` and result, for methods without a typed
    /// counterpart (those of extensions, say); otherwise like [`request`](Self::request).
    pub async fn request_json(
        &self,
        method: &'static str,
        params: Value,
        options: RequestOptions,
    ) -> Result<Value, ClientError> {
        self.request_value(method, params, &options).await
    }

    /// [`request`](Self::request) with JSON params and result, inside the request's span.
    async fn request_value(
        &self,
        method: &'static str,
        params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        self.in_span(method, params, |params| {
            self.rounds(method, params, options)
        })
        .await
    }

    /// Sends request `method` with `params` by `send`, inside the request's client span: its
    /// trace context goes into the `_meta` of `params`, its outcome onto the span.
    async fn in_span<F, Fut>(
        &self,
        method: &'static str,
        params: Value,
        send: F,
    ) -> Result<Value, ClientError>
    where
        F: FnOnce(Value) -> Fut,
        Fut: Future<Output = Result<Value, ClientError>>,
    {
        let span = spans::client_request(method, &params, self.protocol_version());
        #[cfg(feature = "otel")]
        let params = {
            let mut params = params;
            crate::telemetry::inject(&span, &mut params);
            params
        };
        let outcome = send(params).instrument(span.clone()).await;
        if !span.is_disabled() {
            match &outcome {
                Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
                    spans::record_tool_error(&span);
                }
                Ok(_) => {}
                Err(ClientError::Server { error, .. }) => spans::record_error(&span, error),
                Err(other) => spans::record_failure(&span, other.kind(), other),
            }
        }
        outcome
    }

    /// Sends the request, and again with the answers to each input-required round.
    async fn rounds(
        &self,
        method: &'static str,
        mut params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let protocol = |detail: String| ClientError::Protocol { method, detail };
        if let (Some(stateless), Value::Object(params)) = (self.stateless(), &mut params) {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.extend(stateless.meta.clone());
            }
        }
        for _ in 0..MAX_INPUT_ROUNDS {
            let value = self.send(method, &params, options).await?;
            if value.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(value);
            }
            let asked: InputRequiredResult =
                serde_json::from_value(value).map_err(|e| protocol(e.to_string()))?;
            let answers = self
                .inner
                .handlers
                .answer_inputs(
                    asked.input_requests.unwrap_or_default(),
                    options.inputs.as_ref(),
                )
                .await
                .map_err(|error| ClientError::Server { method, error })?;
            let answers = serde_json::to_value(answers).map_err(|e| protocol(e.to_string()))?;
            if let Value::Object(params) = &mut params {
                params.insert("inputResponses".into(), answers);
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

    /// Sends one request of `method` with `params` and waits for the result; when the HTTP
    /// session expired, opens a fresh one with the handshake and sends it again.
    async fn send(
        &self,
        method: &'static str,
        params: &Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let generation = self.inner.generation.load(Ordering::Acquire);
        match self.send_once(method, params, options).await {
            Err(Attempt::SessionExpired) => {
                self.renew_session(generation).await?;
                self.send_once(method, params, options)
                    .await
                    .map_err(|attempt| attempt.into_error(method))
            }
            answer => answer.map_err(|attempt| attempt.into_error(method)),
        }
    }

    /// A fresh handshake after the server forgot the session, unless another request already
    /// made one since `generation`.
    async fn renew_session(&self, generation: u64) -> Result<(), ClientError> {
        let _renewing = self.inner.renewing.lock().await;
        if self.inner.generation.load(Ordering::Acquire) != generation {
            return Ok(());
        }
        tracing::info!("the server forgot the HTTP session: initializing a new one");
        self.handshake(self.protocol_version()).await?;
        self.inner.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Sends one request (a new id each time) and waits for its answer.
    async fn send_once(
        &self,
        method: &'static str,
        params: &Value,
        options: &RequestOptions,
    ) -> Result<Value, Attempt> {
        let peer = &self.inner.peer;
        let id = peer.next_id();
        spans::record_id(&tracing::Span::current(), &id);
        let mut params = params.clone();
        if let Some(sink) = &options.progress {
            let meta = params
                .as_object_mut()
                .map(|p| p.entry("_meta").or_insert_with(|| json!({})));
            if let Some(Value::Object(meta)) = meta {
                meta.insert("progressToken".into(), json!(id));
            }
            peer.watch(id.clone(), sink.clone());
        }
        if let Some(sink) = &options.inputs {
            peer.ask_through(id.clone(), sink.clone());
        }
        if let Some(sink) = &options.notifications {
            peer.note_through(id.clone(), sink.clone());
        }
        let answer = peer.expect(id.clone());
        let mut outstanding = Outstanding::new(peer.clone(), id.clone());
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        peer.send(&message).map_err(Attempt::Failed)?;
        let cancelled = async {
            match &options.cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let timeout = options.timeout.or(self.inner.timeout);
        let expired = async {
            let Some(timeout) = timeout else {
                return std::future::pending().await;
            };
            // A request waiting for the user to authorize the client does not time out.
            crate::rt::sleep(timeout).await;
            while peer.is_authorizing() {
                crate::rt::sleep(timeout).await;
            }
        };
        let answer = tokio::select! {
            answer = answer => answer,
            () = cancelled => return Err(Attempt::Failed(ClientError::Cancelled { method })),
            () = expired => {
                let timeout = timeout.unwrap_or_default();
                return Err(Attempt::Failed(ClientError::TimedOut { method, timeout }));
            }
        };
        outstanding.settled();
        peer.unwatch(&id);
        if options.inputs.is_some() {
            peer.stop_asking(&id);
        }
        if options.notifications.is_some() {
            peer.stop_noting(&id);
        }
        match answer {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Failure::SessionExpired)) => Err(Attempt::SessionExpired),
            Ok(Err(failure)) => Err(Attempt::Failed(failure.into_error(method))),
            Err(_) => Err(Attempt::Failed(ClientError::Disconnected)),
        }
    }

    /// Tells the server that the client's roots changed (`notifications/roots/list_changed`,
    /// 2025 revisions; a 2026-07-28 server asks for the roots with each request that needs
    /// them, and is told nothing).
    pub fn notify_roots_list_changed(&self) -> Result<(), ClientError> {
        if self.protocol_version().era() != mcp_runtime_core::Era::Handshake {
            return Ok(());
        }
        self.inner.peer.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/roots/list_changed"
        }))
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request::<methods::Ping>(RequestParams::default(), RequestOptions::new())
            .await
            .map(drop)
    }

    /// One page of `tools/list`. The client remembers the tools' header annotations and output
    /// schemas; on 2026-07-28 a tool whose `x-mcp-header` annotations are invalid is left out,
    /// as the spec requires.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        let mut page = self
            .request::<methods::ListTools>(page(cursor), RequestOptions::new())
            .await?;
        let stateless = self.protocol_version().era() == Era::Stateless;
        page.tools = self.inner.tools.remember(page.tools, stateless);
        Ok(page)
    }

    /// Every tool, following the cursors (see [`list_tools`](Self::list_tools)).
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        collect_pages("tools/list", |cursor| async move {
            let page = self.list_tools(cursor).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    /// `tools/call` of `name` with `arguments` (anything that serializes to a JSON object).
    /// When the tool was listed with an `outputSchema`, a successful result is checked against
    /// it (see [`McpClientBuilder::validate_structured_content`]). A tool that fails answers
    /// with a result whose `is_error` is set, not with an `Err`.
    ///
    /// A call that runs as a task is followed to its end transparently (see
    /// [tasks](crate::client#tasks)): on 2026-07-28 whenever the server answers with a task, on
    /// 2025-11-25 when the tool must run as one (`execution.taskSupport` `required`; the client
    /// lists the tools when it does not know the tool yet).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::new())
            .await
    }

    /// [`call_tool`](Self::call_tool) with a timeout, progress or cancellation of its own. On
    /// 2026-07-28 over HTTP, a call the server refuses for mismatched `Mcp-Param-*` headers
    /// lists the tools again (their annotations may have changed) and is sent once more.
    ///
    /// When the call runs as a task, the timeout bounds the whole call, the task's states go to
    /// [`RequestOptions::task_status`], and the task is cancelled (`tasks/cancel`) when the
    /// cancellation token fires, the timeout expires, or the returned future is dropped.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let mut params = call_params(name, arguments)?;
        params.task = self.task_params(name, &options, true).await;
        let mut call = self.start_call(params, options).await?;
        call.cancel_on_drop();
        let result = call.outcome().await?;
        if self.inner.validate_output {
            self.inner
                .tools
                .check_output(name, &result)
                .map_err(|detail| ClientError::Protocol {
                    method: "tools/call",
                    detail,
                })?;
        }
        Ok(result)
    }

    /// Calls tool `name` and reads its result as a `T`: the structured content, or else the
    /// JSON of its first text block. A result with `is_error` set is [`ClientError::Tool`].
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        if result.is_error == Some(true) {
            return Err(ClientError::Tool {
                name: name.to_owned(),
                result: Box::new(result),
            });
        }
        let protocol = |detail: String| ClientError::Protocol {
            method: "tools/call",
            detail,
        };
        let value = match result.structured_content {
            Some(value) => value,
            None => {
                let text = result
                    .content
                    .iter()
                    .find_map(|block| block.as_text())
                    .ok_or_else(|| {
                        protocol(format!(
                            "tool {name} returned neither structured content nor text"
                        ))
                    })?;
                serde_json::from_str(text).map_err(|e| {
                    protocol(format!("the text tool {name} returned is not JSON: {e}"))
                })?
            }
        };
        serde_json::from_value(value)
            .map_err(|e| protocol(format!("the result of tool {name} does not fit: {e}")))
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, ClientError> {
        self.request::<methods::ListPrompts>(page(cursor), RequestOptions::new())
            .await
    }

    /// Every prompt, following the cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.all_pages::<methods::ListPrompts, _>(|page| (page.prompts, page.next_cursor))
            .await
    }

    /// `prompts/get` of `name` with `arguments`, pairs of name and value:
    /// `client.get_prompt("review", [("id", "1"), ("focus", "tone")])`. A prompt without
    /// arguments takes `None::<(&str, &str)>`.
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(
            arguments
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self.request::<methods::GetPrompt>(params, RequestOptions::new())
            .await
    }

    /// One page of `resources/list`.
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ClientError> {
        self.request::<methods::ListResources>(page(cursor), RequestOptions::new())
            .await
    }

    /// Every resource, following the cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.all_pages::<methods::ListResources, _>(|page| (page.resources, page.next_cursor))
            .await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.request::<methods::ListResourceTemplates>(page(cursor), RequestOptions::new())
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
        let split = &split;
        collect_pages(M::METHOD, |cursor| async move {
            let result = self.request::<M>(page(cursor), RequestOptions::new());
            Ok(split(result.await?))
        })
        .await
    }

    /// `resources/read` of `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceRequestParams::new(uri);
        self.request::<methods::ReadResource>(params, RequestOptions::new())
            .await
    }

    /// `resources/subscribe` to `uri` (2025 revisions): its `notifications/resources/updated`
    /// arrive among the [`notifications`](Self::notifications). On 2026-07-28 use
    /// [`listen`](Self::listen).
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        let params = SubscribeRequestParams::new(uri);
        self.request::<methods::Subscribe>(params, RequestOptions::new())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` from `uri` (2025 revisions).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        let params = SubscribeRequestParams::new(uri);
        self.request::<methods::Unsubscribe>(params, RequestOptions::new())
            .await
            .map(drop)
    }

    /// `subscriptions/listen` (2026-07-28): opens a stream of the notifications `filter` asks
    /// for and waits for the server's acknowledgement. The subscription lasts until it is
    /// dropped (the client then cancels it) or the server ends it.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let Some(stateless) = self.stateless() else {
            return Err(ClientError::Protocol {
                method: "subscriptions/listen",
                detail: "subscriptions/listen is a 2026-07-28 request; on earlier revisions use \
                         subscribe and notifications"
                    .into(),
            });
        };
        let params = json!({"notifications": filter, "_meta": stateless.meta});
        Subscription::open(self.inner.peer.clone(), params, self.inner.timeout).await
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, ClientError> {
        self.request::<methods::Complete>(params, RequestOptions::new())
            .await
    }

    /// `logging/setLevel` (2025 revisions): the server sends log messages from `level` up. On
    /// 2026-07-28 use [`McpClientBuilder::log_level`].
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        let params = SetLevelRequestParams::new(level);
        self.request::<methods::SetLevel>(params, RequestOptions::new())
            .await
            .map(drop)
    }

    /// Ends the connection. When this is the last clone, a server program started by the
    /// client is ended as the MCP specification says: its stdin is closed and it is given
    /// [`EXIT_GRACE`] to exit, then it is sent SIGTERM (on Unix) and given as long again, then
    /// it is killed. An HTTP session is ended with `DELETE`.
    pub async fn close(self) -> Result<(), ClientError> {
        let Ok(inner) = Arc::try_unwrap(self.inner) else {
            return Ok(());
        };
        let Inner { peer, child, .. } = inner;
        drop(peer);
        if let Some(mut child) = child.into_inner() {
            process::end(&mut child)
                .await
                .map_err(|e| ClientError::Spawn(e.to_string()))?;
        }
        Ok(())
    }
}

fn page(cursor: Option<String>) -> PaginatedRequestParams {
    let mut params = PaginatedRequestParams::default();
    params.cursor = cursor;
    params
}

fn call_params(
    name: &str,
    arguments: impl Serialize,
) -> Result<CallToolRequestParams, ClientError> {
    let not_object = |detail: String| ClientError::Protocol {
        method: "tools/call",
        detail,
    };
    match serde_json::to_value(arguments) {
        Ok(Value::Object(arguments)) => Ok(CallToolRequestParams::new(name, Some(arguments))),
        Ok(Value::Null) => Ok(CallToolRequestParams::new(name, None)),
        Ok(other) => Err(not_object(format!(
            "the arguments must be a JSON object, not {other}"
        ))),
        Err(e) => Err(not_object(format!("the arguments do not serialize: {e}"))),
    }
}
