//! [`RequestContext`]: what a handler gets besides its arguments.
//!
//! Through the context a handler reports progress, logs, notices cancellation, reads the client's
//! capabilities, and asks the client for things (sampling, elicitation, roots). Each request to the
//! client first checks that the client declared the capability it needs and fails with a
//! [`ClientRequestError`] that says what is missing.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Count to ten, slowly.
//! #[mcp_tool]
//! async fn count(ctx: RequestContext) -> Result<String, ToolError> {
//!     for i in 1..=10 {
//!         if ctx.is_cancelled() {
//!             return Err(ToolError::cancelled());
//!         }
//!         ctx.progress(i, 10).await;
//!         ctx.log(LoggingLevel::Debug, format!("at {i}")).await;
//!     }
//!     Ok("done".into())
//! }
//! ```
//!
//! The guide's chapter "State and extractors" (`docs/src/state.md`) teaches it with examples.

use std::sync::{Arc, LazyLock};

use mcp_runtime_core::capabilities::ClientCapabilities;
use mcp_runtime_core::elicitation::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestUrlParams, ElicitResult,
    ElicitationCompleteNotificationParams,
};
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::input::{InputRequest, InputResponse};
use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_runtime_core::messages::{ServerNotification, ServerRequest};
use mcp_runtime_core::meta::RequestMeta;
use mcp_runtime_core::params::RequestParams;
use mcp_runtime_core::progress::ProgressNotificationParams;
use mcp_runtime_core::roots::ListRootsResult;
use mcp_runtime_core::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_runtime_core::{Asking, Era, ProtocolVersion};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::caller::{Caller, HttpRequest};
#[doc(inline)]
pub use super::client_request::ClientRequestError;
use super::elicit::{Elicit, ElicitOutcome};
use super::host::{Host, state_of};
use super::rounds::Rounds;
use super::task::{TaskLink, TaskPlan};
use crate::auth::{AccessToken, Principal};
use crate::connection::{ConnectionState, Outbound, SharedSink};

/// The context of one request, handed to handlers. Cheap to clone.
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    host: Arc<dyn Host>,
    connection: Arc<ConnectionState>,
    request_id: RequestId,
    version: ProtocolVersion,
    meta: Option<RequestMeta>,
    cancellation: CancellationToken,
    sink: Option<SharedSink>,
    rounds: Option<Arc<Rounds>>,
    caller: Caller,
    /// A client capability the handler needed and the request did not declare.
    missing_capability: parking_lot::Mutex<Option<&'static str>>,
    /// How the call may become a task, when it may.
    task_plan: Option<Box<TaskPlan>>,
    /// The task the call became.
    task: std::sync::OnceLock<Arc<TaskLink>>,
    /// What watches the messages the handler sends ([`RequestContext::observe`]).
    observers: parking_lot::Mutex<Vec<Observer>>,
}

type Observer = Arc<dyn Fn(Sent<'_>) + Send + Sync>;

/// A message a handler sends the client while its request runs, as
/// [`RequestContext::observe`] shows it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Sent<'a> {
    /// A notification: progress, a log message, ...
    Notification(&'a ServerNotification),
    /// A request to the client: sampling, elicitation, roots (on 2026-07-28, what an
    /// input-required round asks for).
    Request(&'a ServerRequest),
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("request_id", &self.inner.request_id)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

/// The parts a [`RequestContext`] is made of, filled in by the dispatcher.
pub(crate) struct ContextParts {
    pub(crate) host: Arc<dyn Host>,
    pub(crate) connection: Arc<ConnectionState>,
    pub(crate) request_id: RequestId,
    pub(crate) version: ProtocolVersion,
    pub(crate) meta: Option<RequestMeta>,
    pub(crate) cancellation: CancellationToken,
    pub(crate) sink: Option<SharedSink>,
    /// The input-required rounds, for a 2026-07-28 `tools/call`, `prompts/get` or
    /// `resources/read`.
    pub(crate) rounds: Option<Arc<Rounds>>,
    /// The caller's token and HTTP request, when the transport has them.
    pub(crate) caller: Caller,
    /// How a `tools/call` may become a task, when it may.
    pub(crate) task_plan: Option<Box<TaskPlan>>,
}

impl RequestContext {
    pub(crate) fn new(parts: ContextParts) -> Self {
        RequestContext {
            inner: Arc::new(ContextInner {
                host: parts.host,
                connection: parts.connection,
                request_id: parts.request_id,
                version: parts.version,
                meta: parts.meta,
                cancellation: parts.cancellation,
                sink: parts.sink,
                rounds: parts.rounds,
                caller: parts.caller,
                missing_capability: parking_lot::Mutex::new(None),
                task_plan: parts.task_plan,
                task: std::sync::OnceLock::new(),
                observers: parking_lot::Mutex::new(Vec::new()),
            }),
        }
    }

    /// The server running the request, for the extractor of the server itself.
    pub(crate) fn host(&self) -> &Arc<dyn Host> {
        &self.inner.host
    }

    /// The connection (or session) the request came on.
    pub fn connection(&self) -> &Arc<ConnectionState> {
        &self.inner.connection
    }

    /// The request's id.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol revision of this request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The caller's verified access token (subject, client, scopes, expiry, claims), on a server
    /// whose HTTP transport has authorization
    /// ([`HttpOptions::authorization`](crate::transport::http::HttpOptions::authorization));
    /// `None` elsewhere.
    pub fn access_token(&self) -> Option<&AccessToken> {
        self.inner.caller.token()
    }

    /// Who the caller's token speaks for, when it has one.
    pub(crate) fn caller_principal(&self) -> Option<&Principal> {
        self.inner.caller.principal()
    }

    /// The HTTP request that carried this request (its headers, and the extensions that tower
    /// layers set); `None` on stdio and in process.
    pub fn http_request(&self) -> Option<&HttpRequest> {
        self.inner.caller.http.as_ref()
    }

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&RequestMeta> {
        self.inner.meta.as_ref()
    }

    /// What the client supports.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        // A 2026-07-28 request declares the client's capabilities itself; older ones inherit
        // those of the handshake.
        static NONE: LazyLock<ClientCapabilities> = LazyLock::new(ClientCapabilities::default);
        match self.meta().and_then(|m| m.client_capabilities.as_deref()) {
            Some(declared) if self.era().client_in_meta() => declared,
            _ => self
                .inner
                .connection
                .handshake()
                .map_or(&NONE, |h| &h.client_capabilities),
        }
    }

    /// Who the client says it is.
    pub fn client_info(&self) -> Option<&Implementation> {
        match self.meta().and_then(|m| m.client_info.as_deref()) {
            Some(info) if self.era().client_in_meta() => Some(info),
            _ => self.inner.connection.handshake().map(|h| &h.client_info),
        }
    }

    /// The era of the request's revision, whose rules say what differs between the eras (see
    /// [`Era`]).
    pub fn era(&self) -> Era {
        self.inner.version.era()
    }

    /// Whether this is a handshake-era request without a session (a server built
    /// `.stateless()`, over HTTP): the client's capabilities are unknown, and it cannot be sent
    /// requests.
    pub(crate) fn is_sessionless(&self) -> bool {
        self.era().keeps_state() && self.inner.connection.handshake().is_none()
    }

    /// Shared state of type `T` registered on the server builder.
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        state_of(&*self.inner.host)
    }

    /// Whether the client cancelled this request. A long handler should check it and stop early;
    /// the response of a cancelled request is never sent.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Completes when the client cancels this request.
    pub async fn cancelled(&self) {
        self.inner.cancellation.cancelled().await;
    }

    /// The token that fires when the client cancels this request.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// `notification` about this request, in the form of the request's revision.
    pub(crate) fn outbound(&self, notification: ServerNotification) -> Outbound {
        if self.era().keeps_state() {
            Outbound::Notification(notification)
        } else {
            Outbound::Stateless(notification)
        }
    }

    /// Where this request's messages go, if its transport can carry any (once the call became a
    /// task, where the task's go).
    pub(crate) fn sink(&self) -> Option<&SharedSink> {
        match self.task() {
            Some(task) => task.sink(),
            None => self.inner.sink.as_ref(),
        }
    }

    /// How the call may become a task, when it may and has not yet.
    pub(crate) fn task_plan(&self) -> Option<&TaskPlan> {
        self.inner.task_plan.as_deref()
    }

    /// The task the call became, if it did.
    pub(crate) fn task(&self) -> Option<&Arc<TaskLink>> {
        self.inner.task.get()
    }

    /// Makes the call the task `link`: the handler's messages and requests to the client go to
    /// the task from now on.
    pub(crate) fn attach_task(&self, link: Arc<TaskLink>) {
        let _ = self.inner.task.set(link);
    }

    /// The id of the task this call runs as, once it is one (a task-augmented `tools/call` of
    /// 2025-11-25, or one the server turned into a task on 2026-07-28).
    pub fn task_id(&self) -> Option<&str> {
        self.task().map(|t| t.id())
    }

    /// Turns this call into a task now, if it may become one and is not one yet: the client is
    /// answered with the task's id, and the handler goes on in the background (see
    /// [`TaskStart`](crate::tool::TaskStart)). Returns whether the call runs as a task.
    ///
    /// A tool declared with `#[mcp_tool(task = "required", task_start = "explicitly")]` uses it
    /// to gather input in the call's own rounds first (2026-07-28), then hand the long part to a
    /// task.
    pub async fn start_task(&self) -> bool {
        if self.task().is_some() {
            return true;
        }
        let Some(plan) = self.task_plan() else {
            return false;
        };
        let mut started = plan.started.subscribe();
        plan.requested.notify_one();
        matches!(
            started.wait_for(Option::is_some).await.as_deref(),
            Ok(Some(true))
        )
    }

    /// Calls `observer` with every notification and request the handler sends the client from
    /// now on (a middleware layer's way to watch a call: count its progress, log what it asks).
    pub fn observe(&self, observer: impl Fn(Sent<'_>) + Send + Sync + 'static) {
        self.inner.observers.lock().push(Arc::new(observer));
    }

    /// The observers, outside the lock (an observer may add another).
    fn observers(&self) -> Vec<Observer> {
        self.inner.observers.lock().clone()
    }

    /// Shows the request `make` makes to the observers, if there are any.
    fn show_request(&self, make: impl FnOnce() -> ServerRequest) {
        let observers = self.observers();
        if !observers.is_empty() {
            let request = make();
            observers
                .iter()
                .for_each(|observe| observe(Sent::Request(&request)));
        }
    }

    /// Sends `notification` about this request, waiting while the client's queue is full.
    async fn send(&self, notification: ServerNotification) {
        for observe in self.observers() {
            observe(Sent::Notification(&notification));
        }
        if let Some(sink) = self.sink()
            && sink
                .send_when_ready(self.outbound(notification))
                .await
                .is_err()
        {
            tracing::debug!("dropped a notification: the client is gone");
        }
    }

    /// Ends the SSE stream that carries this request's messages, asking the client to reconnect
    /// after `retry` (SSE polling, SEP-1699, 2025-11-25 Streamable HTTP). What the handler sends
    /// afterwards, its result included, is kept for the client's resumption. Returns whether the
    /// transport could do it (stdio and in-process cannot; then nothing happens).
    pub fn close_sse_stream(&self, retry: std::time::Duration) -> bool {
        self.inner
            .sink
            .as_ref()
            .is_some_and(|sink| sink.close_stream(retry))
    }

    /// Reports progress: `done` of `total`. Does nothing when the request did not ask for
    /// progress (it carried no `progressToken`); the token is echoed exactly as sent. In a task
    /// of 2026-07-28, whose tasks carry no progress notifications, it becomes the task's status
    /// message (`"3/10"`, or the message given), which `tasks/get` shows.
    pub async fn progress(&self, done: impl Into<f64>, total: impl Into<f64>) {
        self.report_progress(done.into(), Some(total.into()), None)
            .await;
    }

    /// Reports progress with a message and, if known, the total.
    pub async fn progress_with_message(
        &self,
        done: impl Into<f64>,
        total: Option<f64>,
        message: impl Into<String>,
    ) {
        self.report_progress(done.into(), total, Some(message.into()))
            .await;
    }

    async fn report_progress(&self, done: f64, total: Option<f64>, message: Option<String>) {
        if let Some(task) = self.task().filter(|t| t.reports_progress_as_status()) {
            let message = message.unwrap_or_else(|| match total {
                Some(total) => format!("{done}/{total}"),
                None => done.to_string(),
            });
            task.progress(message).await;
            return;
        }
        let Some(token) = self.meta().and_then(|m| m.progress_token.clone()) else {
            return;
        };
        let mut params = ProgressNotificationParams::new(token, done, total);
        params.message = message;
        self.send(ServerNotification::Progress(params)).await;
    }

    /// Sends a log message, if the server has the logging capability and `level` is at least the
    /// client's minimum (set with `logging/setLevel`, or the server's default level).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        self.emit_log(level, None, data.into()).await;
    }

    /// Sends a log message naming the `logger` it comes from.
    pub async fn log_from(&self, level: LoggingLevel, logger: &str, data: impl Into<Value>) {
        self.emit_log(level, Some(logger.to_owned()), data.into())
            .await;
    }

    async fn emit_log(&self, level: LoggingLevel, logger: Option<String>, data: Value) {
        // A 2026-07-28 request asks for logs with `_meta` logLevel; without it, it gets none.
        let threshold = if self.era().client_in_meta() {
            self.meta().and_then(|m| m.log_level)
        } else {
            self.inner.host.log_threshold(&self.inner.connection)
        };
        let Some(minimum) = threshold else {
            return;
        };
        if level < minimum {
            return;
        }
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger;
        self.send(ServerNotification::LoggingMessage(params)).await;
    }

    /// The input-required rounds of this request, if it has them.
    pub(crate) fn rounds(&self) -> Option<&Rounds> {
        self.inner.rounds.as_deref()
    }

    /// The client's answer to what this request asked for under `key` in an earlier round
    /// (2026-07-28 input-required rounds); `None` on the first round, or before the client
    /// answered.
    pub fn input_response(&self, key: &str) -> Option<InputResponse> {
        self.rounds()?.answer(key)
    }

    /// Asks the client for `request` under `key`: the request is answered with an input-required
    /// result listing everything asked for this way, and the client's retry brings the answers
    /// ([`input_response`](Self::input_response)). Returns the error to end the handler with
    /// (`return Err(ctx.require_input(…).into())`). Only 2026-07-28 `tools/call`, `prompts/get`
    /// and `resources/read` have rounds; elsewhere the error says so.
    pub fn require_input(
        &self,
        key: impl Into<String>,
        request: InputRequest,
    ) -> ClientRequestError {
        let method = request.method();
        match self.rounds() {
            Some(rounds) => {
                rounds.ask(key.into(), request);
                ClientRequestError::InputRequired { method }
            }
            None => ClientRequestError::NoChannel { method },
        }
    }

    /// Keeps `state` for the next round; the retry finds it with
    /// [`request_state`](Self::request_state). It travels to the client and back sealed
    /// (HMAC-SHA256, see [`request_state`](crate::request_state)): the client can read it, but
    /// cannot change or forge it. Keep nothing secret in it.
    pub fn keep_request_state<T: serde::Serialize>(&self, state: &T) {
        if let (Some(rounds), Ok(value)) = (self.rounds(), serde_json::to_value(state)) {
            rounds.keep_state(value);
        }
    }

    /// The state kept by the previous round ([`keep_request_state`](Self::keep_request_state)),
    /// if there is one and it decodes as `T`.
    pub fn request_state<T: DeserializeOwned>(&self) -> Option<T> {
        let state = self.rounds()?.previous_state()?;
        serde_json::from_value(state.clone()).ok()
    }

    /// Sends `request` to the client and decodes its answer as `T`. On a 2026-07-28 request,
    /// which cannot send requests, the answer comes from the client's retry instead: the first
    /// time, the request is asked for as input (under `key`, or an automatic one) and this fails
    /// with [`ClientRequestError::InputRequired`].
    async fn ask<T: DeserializeOwned>(
        &self,
        key: Option<&str>,
        request: InputRequest,
    ) -> Result<T, ClientRequestError> {
        let method = request.method();
        self.show_request(|| ServerRequest::from(request.clone()));
        if let Some(task) = self.task() {
            // Boxed: a task's way of asking is a large future, which every request's would
            // otherwise carry (and every request waiting for an answer hold).
            let answer =
                Box::pin(task.ask(&*self.inner.host, &self.inner.connection, key, request)).await?;
            return serde_json::from_value(answer).map_err(|e| ClientRequestError::InvalidAnswer {
                method,
                detail: e.to_string(),
            });
        }
        if let Some(rounds) = self.rounds() {
            let key = key.map_or_else(|| rounds.next_key(method), str::to_owned);
            let answer = match rounds.answer(&key) {
                Some(answer) => answer,
                None => return Err(self.require_input(key, request)),
            };
            return serde_json::to_value(answer)
                .and_then(serde_json::from_value)
                .map_err(|e| ClientRequestError::InvalidAnswer {
                    method,
                    detail: e.to_string(),
                });
        }
        // Where the client is asked with input-required results, only the methods with rounds
        // can ask.
        if self.era().asks_client() == Asking::InputRequired {
            return Err(ClientRequestError::NoChannel { method });
        }
        let request = ServerRequest::from(request);
        let timeout = self.inner.host.client_request_timeout(&request);
        let sink = match &self.inner.sink {
            Some(sink) if self.inner.connection.is_persistent() => sink,
            _ => return Err(ClientRequestError::NoChannel { method }),
        };
        // Refuse here what the client's revision cannot carry, rather than drop it when writing.
        mcp_runtime_core::render::to_value(&request, self.inner.connection.version()).map_err(
            |e| ClientRequestError::InvalidRequest {
                detail: e.to_string(),
            },
        )?;
        let answer = self
            .inner
            .connection
            .send_request(sink, request, &self.inner.cancellation, timeout)
            .await
            .map_err(|source| ClientRequestError::Peer { method, source })?;
        serde_json::from_value(answer).map_err(|e| ClientRequestError::InvalidAnswer {
            method,
            detail: e.to_string(),
        })
    }

    fn require(&self, supported: bool, capability: &'static str) -> Result<(), ClientRequestError> {
        if supported {
            return Ok(());
        }
        let error = self.undeclared(capability);
        if let ClientRequestError::MissingCapability { .. } = error {
            *self.inner.missing_capability.lock() = Some(capability);
        }
        Err(error)
    }

    /// Why the client cannot be asked for `capability`, which this request does not show it
    /// declared: without a session its capabilities are unknown, not missing.
    pub(crate) fn undeclared(&self, capability: &'static str) -> ClientRequestError {
        if self.is_sessionless() {
            ClientRequestError::NoSession { capability }
        } else {
            ClientRequestError::MissingCapability { capability }
        }
    }

    /// The client capability the handler needed and the request did not declare, if any (as
    /// `sampling`, `sampling.tools`, `elicitation.form`, `elicitation.url` or `roots`).
    pub(crate) fn missing_capability(&self) -> Option<&'static str> {
        *self.inner.missing_capability.lock()
    }

    /// Asks the client's LLM for a message (`sampling/createMessage`). On a 2026-07-28 request
    /// the message comes with the client's retry (see [`input`](Self::input) to name the input).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ClientRequestError> {
        self.sample_as(None, params).await
    }

    async fn sample_as(
        &self,
        key: Option<&str>,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ClientRequestError> {
        let caps = self.client_capabilities();
        self.require(caps.supports_sampling(), "sampling")?;
        if params.tools.is_some() || params.tool_choice.is_some() {
            self.require(caps.supports_sampling_tools(), "sampling.tools")?;
        }
        self.ask(key, InputRequest::CreateMessage(params)).await
    }

    /// Like [`sample`](Self::sample), with params and result as plain JSON.
    pub async fn sample_raw(&self, params: Value) -> Result<Value, ClientRequestError> {
        let params =
            serde_json::from_value(params).map_err(|e| ClientRequestError::InvalidRequest {
                detail: e.to_string(),
            })?;
        self.require(self.client_capabilities().supports_sampling(), "sampling")?;
        self.ask(None, InputRequest::CreateMessage(params)).await
    }

    /// Asks the user to fill in the form `T` describes, with `message` as the question. On a
    /// 2026-07-28 request the answer comes with the client's retry (see [`input`](Self::input)
    /// to name the input).
    pub async fn elicit<T: Elicit>(
        &self,
        message: impl Into<String>,
    ) -> Result<ElicitOutcome<T>, ClientRequestError> {
        self.elicit_as(None, message).await
    }

    async fn elicit_as<T: Elicit>(
        &self,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> Result<ElicitOutcome<T>, ClientRequestError> {
        let params = ElicitRequestFormParams::new(message, T::schema());
        let result = self.elicit_form_as(key, params).await?;
        ElicitOutcome::from_result(result).map_err(|detail| ClientRequestError::InvalidAnswer {
            method: "elicitation/create",
            detail,
        })
    }

    /// Sends a form-mode `elicitation/create` and returns the client's answer as it is.
    pub async fn elicit_form(
        &self,
        params: ElicitRequestFormParams,
    ) -> Result<ElicitResult, ClientRequestError> {
        self.elicit_form_as(None, params).await
    }

    async fn elicit_form_as(
        &self,
        key: Option<&str>,
        params: ElicitRequestFormParams,
    ) -> Result<ElicitResult, ClientRequestError> {
        self.require(
            self.client_capabilities().supports_elicitation_form(),
            "elicitation.form",
        )?;
        self.ask(key, InputRequest::Elicit(ElicitRequestParams::Form(params)))
            .await
    }

    /// Sends the user to `url` (URL-mode elicitation, 2025-11-25). `elicitation_id` identifies the
    /// interaction; call [`complete_url_elicitation`](Self::complete_url_elicitation) with it when
    /// the out-of-band interaction has finished.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<ElicitResult, ClientRequestError> {
        self.require(
            self.client_capabilities().supports_elicitation_url(),
            "elicitation.url",
        )?;
        let mut params = ElicitRequestUrlParams::new(message, url);
        params.elicitation_id = Some(elicitation_id.into());
        self.ask(None, InputRequest::Elicit(ElicitRequestParams::Url(params)))
            .await
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` has finished
    /// (`notifications/elicitation/complete`).
    pub async fn complete_url_elicitation(&self, elicitation_id: impl Into<String>) {
        self.send(ServerNotification::ElicitationComplete(
            ElicitationCompleteNotificationParams::new(elicitation_id),
        ))
        .await;
    }

    /// Asks the client for its roots (`roots/list`). On a 2026-07-28 request the roots come with
    /// the client's retry (see [`input`](Self::input) to name the input).
    pub async fn list_roots(&self) -> Result<ListRootsResult, ClientRequestError> {
        self.list_roots_as(None).await
    }

    async fn list_roots_as(
        &self,
        key: Option<&str>,
    ) -> Result<ListRootsResult, ClientRequestError> {
        self.require(self.client_capabilities().supports_roots(), "roots")?;
        self.ask(key, InputRequest::ListRoots(RequestParams::default()))
            .await
    }

    /// The same requests to the client, under the input key `key` on a 2026-07-28 request (where
    /// the key names the input in the input-required result and in the client's answers); on
    /// earlier revisions the key is not used.
    pub fn input<'a>(&'a self, key: &'a str) -> NamedInput<'a> {
        NamedInput { ctx: self, key }
    }
}

/// Requests to the client under a named input key (see [`RequestContext::input`]).
#[derive(Clone, Copy, Debug)]
pub struct NamedInput<'a> {
    ctx: &'a RequestContext,
    key: &'a str,
}

impl NamedInput<'_> {
    /// [`RequestContext::elicit`] under this key.
    pub async fn elicit<T: Elicit>(
        self,
        message: impl Into<String>,
    ) -> Result<ElicitOutcome<T>, ClientRequestError> {
        self.ctx.elicit_as(Some(self.key), message).await
    }

    /// [`RequestContext::elicit_form`] under this key.
    pub async fn elicit_form(
        self,
        params: ElicitRequestFormParams,
    ) -> Result<ElicitResult, ClientRequestError> {
        self.ctx.elicit_form_as(Some(self.key), params).await
    }

    /// [`RequestContext::sample`] under this key.
    pub async fn sample(
        self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ClientRequestError> {
        self.ctx.sample_as(Some(self.key), params).await
    }

    /// [`RequestContext::list_roots`] under this key.
    pub async fn list_roots(self) -> Result<ListRootsResult, ClientRequestError> {
        self.ctx.list_roots_as(Some(self.key)).await
    }

    /// Asks the client for `request` as it is (sampling, elicitation in either mode, roots)
    /// under this key, and returns the client's answer as it is: what a gateway passes on from
    /// the server behind it. The client must have declared the capability the request needs.
    pub async fn request(self, request: InputRequest) -> Result<InputResponse, ClientRequestError> {
        self.ctx.request_input_as(Some(self.key), request).await
    }
}

impl RequestContext {
    async fn request_input_as(
        &self,
        key: Option<&str>,
        request: InputRequest,
    ) -> Result<InputResponse, ClientRequestError> {
        let caps = self.client_capabilities();
        match &request {
            InputRequest::CreateMessage(params) => {
                self.require(caps.supports_sampling(), "sampling")?;
                if params.tools.is_some() || params.tool_choice.is_some() {
                    self.require(caps.supports_sampling_tools(), "sampling.tools")?;
                }
                self.ask(key, request)
                    .await
                    .map(InputResponse::CreateMessage)
            }
            InputRequest::Elicit(params) => {
                let (supported, capability) = match params {
                    ElicitRequestParams::Url(_) => {
                        (caps.supports_elicitation_url(), "elicitation.url")
                    }
                    _ => (caps.supports_elicitation_form(), "elicitation.form"),
                };
                self.require(supported, capability)?;
                self.ask(key, request).await.map(InputResponse::Elicit)
            }
            InputRequest::ListRoots(_) => {
                self.require(caps.supports_roots(), "roots")?;
                self.ask(key, request).await.map(InputResponse::ListRoots)
            }
            other => Err(ClientRequestError::InvalidRequest {
                detail: format!("{} cannot be asked of the client", other.method()),
            }),
        }
    }
}
