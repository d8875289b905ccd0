//! Dispatch: from a received message to the reply.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::join_all;
use mcp_core::capabilities::MissingClientCapability;
use mcp_core::completion::{CompleteRequestParams, CompleteResult, CompletionReference};
use mcp_core::input::InputRequiredResult;
use mcp_core::jsonrpc::{
    self, EnvelopeError, Incoming, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification,
    JsonRpcRequest, JsonRpcResponse, Params, RawCall, RequestId,
};
use mcp_core::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use mcp_core::logging::SetLevelRequestParams;
use mcp_core::messages::{ClientNotification, ClientRequest, ServerNotification, ServerResult};
use mcp_core::meta::ResultMeta;
use mcp_core::params::PaginatedRequestParams;
use mcp_core::prompts::{GetPromptRequestParams, ListPromptsResult};
use mcp_core::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, SubscribeRequestParams,
};
use mcp_core::result::EmptyResult;
use mcp_core::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use mcp_core::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use mcp_core::{Era, ErrorCode, ErrorObject, ProtocolVersion, render};
use serde::Serialize;
use serde_json::Value;

use super::McpServer;
use super::connection::{ConnectionState, Handshake, Refusal};
use super::context::{ContextParts, RequestContext};
use super::pagination::page;
use super::rounds::Rounds;
use super::sink::{Outbound, SharedSink};
use super::stateless;
use crate::caching::CachedList;
use crate::completion::CompletionRequest;
use crate::request_state::RequestBinding;
use crate::resource::default_mime_type;

/// The answer to one request, with the revision to render it for.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The revision of the peer.
    pub version: ProtocolVersion,
    /// The response.
    pub message: ReplyMessage,
}

/// A response: a result or an error.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ReplyMessage {
    /// A result.
    Result(JsonRpcResponse<ServerResult>),
    /// An error.
    Error(JsonRpcErrorResponse),
}

impl Reply {
    pub(crate) fn result(version: ProtocolVersion, id: RequestId, result: ServerResult) -> Self {
        Reply {
            version,
            message: ReplyMessage::Result(JsonRpcResponse::new(id, result)),
        }
    }

    pub(crate) fn error(
        version: ProtocolVersion,
        id: Option<RequestId>,
        error: ErrorObject,
    ) -> Self {
        Reply {
            version,
            message: ReplyMessage::Error(JsonRpcErrorResponse::new(id, error)),
        }
    }

    /// The reply as one line of JSON, rendered for the peer's revision.
    ///
    /// A result the peer's revision cannot carry (see [`mcp_core::render`]) is replaced by an
    /// internal error (`-32603`) saying why, rather than sent invalid.
    pub fn render(&self) -> String {
        render::to_string(&self.message, self.version).unwrap_or_else(|error| {
            let id = match &self.message {
                ReplyMessage::Result(response) => Some(response.id.clone()),
                ReplyMessage::Error(response) => response.id.clone(),
            };
            let refusal = JsonRpcErrorResponse::new(
                id,
                ErrorObject::internal_error(format!("the result cannot be sent: {error}")),
            );
            render::to_string(&refusal, self.version).expect("error responses always render")
        })
    }

    /// The error, if the reply is one.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        match &self.message {
            ReplyMessage::Error(e) => Some(&e.error),
            ReplyMessage::Result(_) => None,
        }
    }
}

/// A request that was started: answered at once, or running.
pub enum RequestTask {
    /// The request was refused before any handler ran.
    Answered(Box<Reply>),
    /// The handler runs when this future is polled; it yields no reply when the request was
    /// cancelled.
    Running(Pin<Box<dyn Future<Output = Option<Reply>> + Send>>),
}

/// The text of a batch of replies.
fn render_batch(replies: &[Reply]) -> String {
    let parts: Vec<String> = replies.iter().map(Reply::render).collect();
    format!("[{}]", parts.join(","))
}

impl McpServer {
    /// Handles one received message from the peer of `connection`. Returns the reply to a
    /// request (none for notifications and responses, and none for a request the peer cancelled).
    /// `sink` carries the messages the handler sends while it runs (progress, logs, requests to the
    /// client); without one they are dropped.
    pub async fn handle(
        &self,
        message: JsonRpcMessage,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<Reply> {
        match message {
            JsonRpcMessage::Request(request) => {
                self.handle_request(request, connection, sink).await
            }
            JsonRpcMessage::Notification(notification) => {
                self.handle_notification(notification, connection);
                None
            }
            JsonRpcMessage::Response(response) => {
                if !connection.resolve(&response.id, Ok(response.result)) {
                    tracing::debug!(id = %response.id, "a response matches no request of ours");
                }
                None
            }
            JsonRpcMessage::Error(error) => {
                match &error.id {
                    Some(id) if connection.resolve(id, Err(error.error.clone())) => {}
                    _ => {
                        tracing::debug!(?error, "the client sent an error that matches no request")
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Handles wire text: one message or a batch. Returns the text of the reply, if any. Text that
    /// is not JSON gets a parse error (`-32700`) and an invalid message an invalid-request error
    /// (`-32600`), both with a `null` id unless the message's id could be read. A batch is accepted
    /// from a peer speaking 2025-03-26, the only revision that allows them.
    pub async fn handle_raw(
        &self,
        text: &[u8],
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<String> {
        let version = connection.version();
        match jsonrpc::parse(text) {
            Err(error) => {
                Some(Reply::error(version, error.id().cloned(), ErrorObject::from(&error)).render())
            }
            Ok(Incoming::Message(message)) => self
                .handle(message, connection, sink)
                .await
                .map(|r| r.render()),
            Ok(Incoming::Batch(entries)) => self.handle_batch(entries, connection, sink).await,
            Ok(_) => None,
        }
    }

    /// Handles a batch (2025-03-26): every entry concurrently, the replies in one array. A batch
    /// from a peer speaking another revision is refused as a whole.
    pub async fn handle_batch(
        &self,
        entries: Vec<Result<JsonRpcMessage, EnvelopeError>>,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<String> {
        let version = connection.version();
        if !version.accepts_batches() {
            let error = ErrorObject::invalid_request(format!(
                "JSON-RPC batches are accepted only from peers speaking 2025-03-26 (this one speaks {version})"
            ));
            return Some(Reply::error(version, None, error).render());
        }
        let replies = join_all(entries.into_iter().map(|entry| {
            let sink = sink.clone();
            async move {
                match entry {
                    Err(error) => Some(Reply::error(
                        version,
                        error.id().cloned(),
                        ErrorObject::from(&error),
                    )),
                    Ok(JsonRpcMessage::Request(request))
                        if request.request.method == "initialize" =>
                    {
                        Some(Reply::error(
                            version,
                            Some(request.id),
                            ErrorObject::invalid_request("initialize must not be part of a batch"),
                        ))
                    }
                    Ok(message) => self.handle(message, connection, sink).await,
                }
            }
        }))
        .await;
        let replies: Vec<Reply> = replies.into_iter().flatten().collect();
        (!replies.is_empty()).then(|| render_batch(&replies))
    }

    async fn handle_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<Reply> {
        match self.start_request(request, connection, sink) {
            RequestTask::Answered(reply) => Some(*reply),
            RequestTask::Running(run) => run.await,
        }
    }

    /// Starts handling a request: decodes it and registers it as in flight (so that a
    /// cancellation read right after it finds it), then returns either the immediate answer (an
    /// invalid request) or the work that produces the answer, for the transport to run.
    pub fn start_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> RequestTask {
        self.start_checked_request(request, connection, sink, None)
    }

    /// [`start_request`](Self::start_request) for a request whose transport may already have
    /// checked it as a 2026-07-28 request of revision `checked` (its `_meta` and its method), so
    /// that its `_meta` is not read again.
    pub(crate) fn start_checked_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
        checked: Option<ProtocolVersion>,
    ) -> RequestTask {
        let JsonRpcRequest {
            id, request: call, ..
        } = request;
        let RawCall { method, params, .. } = call;
        let (stateless, version) = match checked {
            Some(version) => (true, version),
            None => match self.revision_of(&method, params.as_ref(), connection) {
                Ok(revision) => revision,
                Err(error) => {
                    let reply = Reply::error(ProtocolVersion::V2026_07_28, Some(id), error);
                    return RequestTask::Answered(Box::new(reply));
                }
            },
        };
        if let Some(error) = self.gate(&method, connection).filter(|_| !stateless) {
            return RequestTask::Answered(Box::new(Reply::error(version, Some(id), error)));
        }
        // Boxed: the request travels through the handler's future, which would otherwise hold it
        // (the largest variant is ~1 KB) at every level.
        let mut request = match ClientRequest::decode(&method, params.as_ref()) {
            Ok(request) => Box::new(request),
            Err(error) => {
                return RequestTask::Answered(Box::new(Reply::error(
                    version,
                    Some(id),
                    error.into(),
                )));
            }
        };
        // The input-required rounds are bound to the request as first sent: its method and params.
        let binding = (version.era() == Era::Stateless
            && matches!(
                method.as_str(),
                "tools/call" | "prompts/get" | "resources/read"
            ))
        .then(|| RequestBinding::from_params(None, &method, params));
        let slot = if matches!(*request, ClientRequest::Initialize(_)) {
            // A client must not cancel `initialize`; a cancellation naming it finds nothing.
            Ok(connection.untracked_request())
        } else {
            connection.begin_request(&id, self.inner.options.max_requests_in_flight)
        };
        let slot = match slot {
            Ok(slot) => slot,
            Err(refusal) => {
                return RequestTask::Answered(Box::new(refused(version, id, refusal)));
            }
        };
        let rounds = match binding.map(|b| self.rounds(b, &request)).transpose() {
            Ok(rounds) => rounds,
            Err(error) => {
                return RequestTask::Answered(Box::new(Reply::error(version, Some(id), error)));
            }
        };
        let method = request.method();
        let ctx = RequestContext::new(ContextParts {
            server: self.clone(),
            connection: connection.clone(),
            request_id: id.clone(),
            version,
            meta: take_request_meta(&mut request),
            cancellation: slot.token().clone(),
            sink,
            rounds,
        });
        let server = self.clone();
        let connection = connection.clone();
        RequestTask::Running(Box::pin(async move {
            // Everything a handler does runs inside `route`, its synchronous part included: a
            // panic anywhere becomes an internal error, and the guard frees the id either way.
            let outcome = match AssertUnwindSafe(server.route(request, &ctx))
                .catch_unwind()
                .await
            {
                Ok(outcome) => outcome,
                Err(panic) => {
                    let reason = panic_message(panic.as_ref());
                    tracing::error!(%id, %method, %reason, "a request handler panicked");
                    Err(ErrorObject::internal_error(format!(
                        "{method} failed: the handler panicked ({reason})"
                    )))
                }
            };
            let cancelled = slot.cancelled_by_peer();
            drop(slot);
            if cancelled {
                tracing::debug!(%id, "the request was cancelled; its response is not sent");
                return None;
            }
            // `initialize` may just have settled the version to render for.
            let version = if stateless {
                version
            } else {
                connection.version()
            };
            Some(match outcome {
                Ok(mut result) => {
                    // A 2026-07-28 result names the server, since no handshake did.
                    if stateless
                        && server.inner.options.result_server_info
                        && let Some(meta) = result.meta_mut()
                    {
                        meta.server_info
                            .get_or_insert_with(|| Box::new(server.info().clone()));
                    }
                    Reply::result(version, id, result)
                }
                Err(error) => Reply::error(version, Some(id), error),
            })
        }))
    }

    /// Whether a request follows the 2026-07-28 rules, and the revision it is answered in; the
    /// error of a 2026-07-28 request whose `_meta` or method that revision refuses.
    fn revision_of(
        &self,
        method: &str,
        params: Option<&Params>,
        connection: &ConnectionState,
    ) -> Result<(bool, ProtocolVersion), ErrorObject> {
        // A request whose `_meta` names its protocol version follows the 2026-07-28 rules,
        // whatever the connection (a stdio client of that revision sends no `initialize`).
        let meta = stateless::Meta::of(params);
        if meta.is_stateless() || connection.version().era() == Era::Stateless {
            let requested = meta.requested_version()?;
            let version =
                stateless::check_version_and_method(&requested, method, self.supported_versions())?;
            Ok((true, version))
        } else {
            Ok((false, connection.version()))
        }
    }

    /// The error for a request the lifecycle does not allow yet, if any.
    fn gate(&self, method: &str, connection: &ConnectionState) -> Option<ErrorObject> {
        let waiting_for_initialized = self.inner.options.require_initialized
            && connection.is_persistent()
            && !connection.is_initialized()
            && !matches!(method, "initialize" | "ping");
        waiting_for_initialized.then(|| {
            ErrorObject::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("{method} refused: the client has not sent notifications/initialized yet"),
            )
        })
    }

    async fn route(
        &self,
        request: Box<ClientRequest>,
        ctx: &RequestContext,
    ) -> Result<ServerResult, ErrorObject> {
        let outcome = self.answer(request, ctx).await;
        // A handler that asked the client for input is answered with what it asked for, whatever
        // it returned meanwhile (typically the error of the request it could not make).
        if let Some((asked, state)) = ctx
            .rounds()
            .and_then(|r| r.outcome(&self.inner.request_state))
        {
            return Ok(ServerResult::InputRequired(InputRequiredResult::new(
                Some(asked),
                state,
            )));
        }
        // A 2026-07-28 request that failed for want of a capability it did not declare gets the
        // error that says which (-32021), so that the client can declare it and retry.
        let failed = match &outcome {
            Err(_) => true,
            Ok(ServerResult::CallTool(result)) => result.is_error(),
            Ok(_) => false,
        };
        match ctx.missing_capability() {
            Some(capability) if failed && ctx.protocol_version().era() == Era::Stateless => {
                Err(MissingClientCapability {
                    required: required_capabilities(capability),
                }
                .into())
            }
            _ => outcome,
        }
    }

    /// The result of `request`, from its handler.
    async fn answer(
        &self,
        request: Box<ClientRequest>,
        ctx: &RequestContext,
    ) -> Result<ServerResult, ErrorObject> {
        let connection = ctx.connection();
        Ok(match *request {
            ClientRequest::Initialize(params) => self.initialize(params, connection)?.into(),
            ClientRequest::Ping(_) => EmptyResult::default().into(),
            ClientRequest::Discover(_) => self.discover().into(),
            ClientRequest::ListTools(params) => self.list_tools(&params)?.into(),
            ClientRequest::CallTool(params) => self.call_tool(params, ctx).await?.into(),
            ClientRequest::ListPrompts(params) => self.list_prompts(&params)?.into(),
            ClientRequest::GetPrompt(params) => self.get_prompt(params, ctx).await?.into(),
            ClientRequest::ListResources(params) => self.list_resources(&params)?.into(),
            ClientRequest::ListResourceTemplates(params) => {
                self.list_resource_templates(&params)?.into()
            }
            ClientRequest::ReadResource(params) => self.read_resource(params, ctx).await?.into(),
            ClientRequest::Subscribe(params) => self.subscribe(&params, ctx)?.into(),
            ClientRequest::Unsubscribe(params) => self.unsubscribe(&params, ctx)?.into(),
            ClientRequest::SetLevel(params) => self.set_level(&params, connection)?.into(),
            ClientRequest::Complete(params) => self.complete(params, ctx).await?.into(),
            ClientRequest::SubscriptionsListen(params)
                if ctx.protocol_version().era() == Era::Stateless =>
            {
                self.listen(params, ctx).await?.into()
            }
            other => return Err(ErrorObject::method_not_found(other.method())),
        })
    }

    /// The rounds of a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`: the client's
    /// answers and the state it echoed, opened and checked.
    fn rounds(
        &self,
        binding: RequestBinding,
        request: &ClientRequest,
    ) -> Result<Arc<Rounds>, ErrorObject> {
        let (responses, state) = match request {
            ClientRequest::CallTool(p) => (p.input_responses.clone(), p.request_state.as_deref()),
            ClientRequest::GetPrompt(p) => (p.input_responses.clone(), p.request_state.as_deref()),
            ClientRequest::ReadResource(p) => {
                (p.input_responses.clone(), p.request_state.as_deref())
            }
            _ => (None, None),
        };
        Rounds::new(binding, responses, state, &self.inner.request_state).map(Arc::new)
    }

    /// `subscriptions/listen`: acknowledges what the stream will carry (what it asked for and
    /// the server announces), then carries it until the client closes the stream or cancels the
    /// request, or the server shuts down (which ends the stream with a result).
    async fn listen(
        &self,
        params: SubscriptionsListenRequestParams,
        ctx: &RequestContext,
    ) -> Result<SubscriptionsListenResult, ErrorObject> {
        let Some(sink) = ctx.sink() else {
            return Err(ErrorObject::invalid_request(
                "subscriptions/listen needs a transport that streams the response",
            ));
        };
        let options = &self.inner.options;
        let asked = params.notifications;
        let offered =
            |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
        let mut accepted = SubscriptionFilter::default();
        accepted.tools_list_changed = offered(asked.tools_list_changed, options.tools_list_changed);
        accepted.prompts_list_changed =
            offered(asked.prompts_list_changed, options.prompts_list_changed);
        accepted.resources_list_changed =
            offered(asked.resources_list_changed, options.resources_list_changed);
        accepted.resource_subscriptions = asked
            .resource_subscriptions
            .filter(|_| options.subscriptions);
        let subscription = ctx.request_id().clone();
        let acknowledged = SubscriptionsAcknowledgedNotificationParams::new(
            accepted.clone(),
            subscription.clone(),
        );
        if sink
            .send(Outbound::Stateless(
                ServerNotification::SubscriptionsAcknowledged(acknowledged),
            ))
            .is_err()
        {
            return Err(ErrorObject::internal_error("the client is gone"));
        }
        let _listening = self
            .inner
            .listeners
            .open(subscription.clone(), accepted, sink.clone());
        tokio::select! {
            () = ctx.cancelled() => {}
            () = self.inner.shutdown.cancelled() => {}
        }
        Ok(SubscriptionsListenResult::new(subscription))
    }

    fn initialize(
        &self,
        params: InitializeRequestParams,
        connection: &ConnectionState,
    ) -> Result<InitializeResult, ErrorObject> {
        if !connection.claim_initialize() {
            return Err(ErrorObject::invalid_request(
                "the connection is already initialized; initialize may be sent once",
            ));
        }
        let version = self
            .supported_versions()
            .negotiate_initialize(&params.protocol_version)
            .map_err(ErrorObject::from)?;
        connection.complete_handshake(Handshake {
            version,
            client_capabilities: params.capabilities,
            client_info: params.client_info,
        });
        let mut result =
            InitializeResult::new(version.as_str(), self.capabilities(), self.info().clone());
        result.instructions = self.inner.instructions.clone();
        Ok(result)
    }

    fn discover(&self) -> DiscoverResult {
        let mut result =
            DiscoverResult::new(self.supported_versions().names(), self.capabilities());
        result.instructions = self.inner.instructions.clone();
        result.meta = Some(ResultMeta::with_server_info(self.info().clone()));
        let hint = self.inner.options.cache_hint(CachedList::Discover);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        result
    }

    fn page_size(&self) -> usize {
        self.inner.options.page_size
    }

    fn list_tools(&self, params: &PaginatedRequestParams) -> Result<ListToolsResult, ErrorObject> {
        let mut tools = self.inner.registry.tools.snapshot();
        tools.retain(|t| t.header_params.is_some());
        let (tools, next) = page("tools", tools, params.cursor.as_deref(), self.page_size())?;
        let mut result =
            ListToolsResult::new(tools.iter().map(|t| t.definition.tool.clone()).collect());
        result.next_cursor = next;
        let hint = self.inner.options.cache_hint(CachedList::Tools);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        Ok(result)
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: &RequestContext,
    ) -> Result<CallToolResult, ErrorObject> {
        let Some(tool) = self.inner.registry.tools.get(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                params.name
            )));
        };
        let name = &params.name;
        if let Some(required) = &tool.definition.required_capabilities
            && let Some(missing) = missing_capability(required, ctx.client_capabilities())
        {
            // 2026-07-28 has an error for it (-32021), which tells the client what to declare.
            if ctx.protocol_version().era() == Era::Stateless {
                return Err(MissingClientCapability {
                    required: required.clone(),
                }
                .into());
            }
            return Ok(CallToolResult::error(format!(
                "Tool {name} needs the client capability `{missing}`, which this client did not declare"
            )));
        }
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        if self.inner.options.validate_input
            && let Err(violation) = tool.input.validate(&arguments)
        {
            return Ok(CallToolResult::error(format!(
                "Invalid arguments for tool {name}: {violation}"
            )));
        }
        let Value::Object(arguments) = arguments else {
            return Err(ErrorObject::internal_error(
                "tool arguments must be an object",
            ));
        };
        // The handler is called inside the future, so a panic in its synchronous part (say, while
        // decoding typed arguments) is caught like one in its body.
        let handler = &tool.definition.handler;
        let call = async { handler(arguments, ctx.clone()).await };
        let result = match AssertUnwindSafe(call).catch_unwind().await {
            Ok(result) => result,
            Err(panic) => {
                let reason = panic_message(panic.as_ref());
                tracing::error!(tool = %name, %reason, "a tool handler panicked");
                CallToolResult::error(format!("Tool {name} failed: it panicked ({reason})"))
            }
        };
        if self.inner.options.validate_output
            && !result.is_error()
            && let Some(schema) = &tool.output
        {
            let structured = result.structured_content.as_ref().ok_or_else(|| {
                ErrorObject::internal_error(format!(
                    "Tool {name} has an output schema but returned no structured content"
                ))
            })?;
            schema.validate(structured).map_err(|violation| {
                ErrorObject::internal_error(format!(
                    "Tool {name} returned structured content that does not match its output schema: {violation}"
                ))
            })?;
        }
        Ok(result)
    }

    fn list_prompts(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListPromptsResult, ErrorObject> {
        let prompts = self.inner.registry.prompts.snapshot();
        let (prompts, next) = page(
            "prompts",
            prompts,
            params.cursor.as_deref(),
            self.page_size(),
        )?;
        let mut result = ListPromptsResult::new(
            prompts
                .iter()
                .map(|p| p.definition.prompt.clone())
                .collect(),
        );
        result.next_cursor = next;
        let hint = self.inner.options.cache_hint(CachedList::Prompts);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> Result<mcp_core::prompts::GetPromptResult, ErrorObject> {
        let Some(prompt) = self.inner.registry.prompts.get(&params.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "Unknown prompt: {}",
                params.name
            )));
        };
        let arguments = params.arguments.unwrap_or_default();
        let missing = prompt.definition.missing_arguments(&arguments);
        if !missing.is_empty() {
            return Err(ErrorObject::invalid_params(format!(
                "Missing required argument(s) for prompt {}: {}",
                params.name,
                missing.join(", ")
            )));
        }
        let call = (prompt.definition.handler)(arguments, ctx.clone());
        match AssertUnwindSafe(call).catch_unwind().await {
            Ok(result) => result,
            Err(panic) => Err(ErrorObject::internal_error(format!(
                "Prompt {} failed: it panicked ({})",
                params.name,
                panic_message(panic.as_ref())
            ))),
        }
    }

    fn list_resources(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListResourcesResult, ErrorObject> {
        let resources = self.inner.registry.resources.snapshot();
        let (resources, next) = page(
            "resources",
            resources,
            params.cursor.as_deref(),
            self.page_size(),
        )?;
        let mut result = ListResourcesResult::new(
            resources
                .iter()
                .map(|r| r.definition.resource.clone())
                .collect(),
        );
        result.next_cursor = next;
        let hint = self.inner.options.cache_hint(CachedList::Resources);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        Ok(result)
    }

    fn list_resource_templates(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListResourceTemplatesResult, ErrorObject> {
        let templates = self.inner.registry.templates.snapshot();
        let (templates, next) = page(
            "resources/templates",
            templates,
            params.cursor.as_deref(),
            self.page_size(),
        )?;
        let mut result = ListResourceTemplatesResult::new(
            templates
                .iter()
                .map(|t| t.definition.template.clone())
                .collect(),
        );
        result.next_cursor = next;
        let hint = self.inner.options.cache_hint(CachedList::ResourceTemplates);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        Ok(result)
    }

    /// Whether a resource or a template answers for `uri`.
    fn resolves(&self, uri: &str) -> bool {
        let registry = &self.inner.registry;
        registry.resources.get(uri).is_some()
            || registry
                .templates
                .any(|t| t.definition.matcher.matches(uri).is_some())
    }

    async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        ctx: &RequestContext,
    ) -> Result<ReadResourceResult, ErrorObject> {
        let uri = params.uri;
        let version = ctx.protocol_version();
        let registry = &self.inner.registry;
        let (read, mime_type, hint) = if let Some(resource) = registry.resources.get(&uri) {
            let mime = resource.definition.resource.mime_type.clone();
            let hint = resource.definition.cache;
            ((resource.definition.reader)(ctx.clone()), mime, hint)
        } else {
            let matched = registry.templates.snapshot().into_iter().find_map(|t| {
                t.definition
                    .matcher
                    .matches(&uri)
                    .map(|captured| (t, captured))
            });
            let Some((template, captured)) = matched else {
                return Err(ErrorObject::resource_not_found(&uri, version));
            };
            let mime = template.definition.template.mime_type.clone();
            let hint = template.definition.cache;
            (
                (template.definition.reader)(uri.clone(), captured, ctx.clone()),
                mime,
                hint,
            )
        };
        let mut contents = match AssertUnwindSafe(read).catch_unwind().await {
            Ok(Ok(contents)) => contents,
            Ok(Err(error)) => return Err(error.to_error_object(&uri, version)),
            Err(panic) => {
                return Err(ErrorObject::internal_error(format!(
                    "Reading {uri} failed: the reader panicked ({})",
                    panic_message(panic.as_ref())
                )));
            }
        };
        default_mime_type(&mut contents, mime_type.as_deref());
        let mut result = ReadResourceResult::new(contents);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms(), hint.scope);
        Ok(result)
    }

    /// Checks that subscriptions are on and can be kept.
    fn subscriptions_available(
        &self,
        ctx: &RequestContext,
        method: &str,
    ) -> Result<(), ErrorObject> {
        if !self.inner.options.subscriptions {
            return Err(ErrorObject::method_not_found(method));
        }
        if !ctx.connection().is_persistent() {
            return Err(ErrorObject::invalid_request(format!(
                "{method} needs a server that keeps state between requests (a stateful server, or stdio)"
            )));
        }
        Ok(())
    }

    fn subscribe(
        &self,
        params: &SubscribeRequestParams,
        ctx: &RequestContext,
    ) -> Result<EmptyResult, ErrorObject> {
        self.subscriptions_available(ctx, "resources/subscribe")?;
        if !self.resolves(&params.uri) {
            return Err(ErrorObject::resource_not_found(
                &params.uri,
                ctx.protocol_version(),
            ));
        }
        ctx.connection().subscribe(&params.uri);
        Ok(EmptyResult::default())
    }

    fn unsubscribe(
        &self,
        params: &SubscribeRequestParams,
        ctx: &RequestContext,
    ) -> Result<EmptyResult, ErrorObject> {
        self.subscriptions_available(ctx, "resources/unsubscribe")?;
        ctx.connection().unsubscribe(&params.uri);
        Ok(EmptyResult::default())
    }

    fn set_level(
        &self,
        params: &SetLevelRequestParams,
        connection: &ConnectionState,
    ) -> Result<EmptyResult, ErrorObject> {
        if !self.inner.options.logging {
            return Err(ErrorObject::method_not_found("logging/setLevel"));
        }
        if !connection.is_persistent() {
            return Err(ErrorObject::invalid_request(
                "logging/setLevel needs a server that keeps state between requests (a stateful server, or stdio)",
            ));
        }
        connection.set_log_level(params.level);
        Ok(EmptyResult::default())
    }

    async fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> Result<CompleteResult, ErrorObject> {
        if let Some(handler) = &self.inner.completion_handler
            && let Some(result) = handler(params.clone(), ctx.clone()).await
        {
            return Ok(result);
        }
        let registry = &self.inner.registry;
        let completer = match &params.reference {
            CompletionReference::Prompt(reference) => {
                let Some(prompt) = registry.prompts.get(&reference.name) else {
                    return Err(ErrorObject::invalid_params(format!(
                        "Unknown prompt: {}",
                        reference.name
                    )));
                };
                prompt
                    .definition
                    .completers
                    .get(&params.argument.name)
                    .cloned()
            }
            CompletionReference::ResourceTemplate(reference) => {
                match registry.templates.get(&reference.uri) {
                    Some(template) => template
                        .definition
                        .completers
                        .get(&params.argument.name)
                        .cloned(),
                    None if registry.resources.get(&reference.uri).is_some() => None,
                    None => {
                        return Err(ErrorObject::invalid_params(format!(
                            "Unknown resource template: {}",
                            reference.uri
                        )));
                    }
                }
            }
            _ => None,
        };
        let values = completer
            .map(|complete| complete(&CompletionRequest::from_params(&params), ctx))
            .unwrap_or_default();
        Ok(CompleteResult::new(values))
    }

    fn handle_notification(
        &self,
        notification: JsonRpcNotification,
        connection: &Arc<ConnectionState>,
    ) {
        let RawCall { method, params, .. } = notification.notification;
        let notification = match ClientNotification::decode(&method, params.as_ref()) {
            Ok(notification) => notification,
            Err(error) => {
                tracing::debug!(%error, "ignored a notification");
                return;
            }
        };
        match &notification {
            ClientNotification::Initialized(_) => connection.mark_initialized(),
            ClientNotification::Cancelled(params) => {
                if let Some(id) = &params.request_id
                    && !connection.cancel(id)
                {
                    tracing::debug!(%id, "a cancellation matches no request in flight");
                }
            }
            _ => {}
        }
        for observer in &self.inner.observers {
            let observed =
                std::panic::catch_unwind(AssertUnwindSafe(|| observer(&notification, connection)));
            if let Err(panic) = observed {
                tracing::error!(
                    method = %method,
                    reason = %panic_message(panic.as_ref()),
                    "a notification observer panicked"
                );
            }
        }
    }
}

/// The answer to a request that could not be registered as in flight.
fn refused(version: ProtocolVersion, id: RequestId, refusal: Refusal) -> Reply {
    match refusal {
        // The original request keeps the id: answering the duplicate under it would give the
        // client two responses for one id, so the error carries a null id and names the duplicate
        // in its data.
        Refusal::Duplicate => Reply::error(
            version,
            None,
            ErrorObject::invalid_request(format!(
                "request id {id} is already in use by a request in flight; the duplicate was not handled"
            ))
            .with_data(serde_json::json!({ "duplicateId": id })),
        ),
        Refusal::TooMany { limit } => Reply::error(
            version,
            Some(id),
            ErrorObject::new(
                TOO_MANY_REQUESTS,
                format!(
                    "too many requests in flight on this connection (the limit is {limit}); retry when some have been answered"
                ),
            ),
        ),
    }
}

/// The server error (`-32000`) for a request beyond the in-flight cap of its connection.
pub const TOO_MANY_REQUESTS: ErrorCode = ErrorCode(-32000);

/// The `_meta` of a request's params, for its context: moved out of the params, which no handler
/// reads it from, except those of `completion/complete`, which a custom completion handler
/// receives whole.
fn take_request_meta(request: &mut ClientRequest) -> Option<mcp_core::meta::RequestMeta> {
    match request {
        ClientRequest::Initialize(p) => p.meta.take(),
        ClientRequest::Ping(p) | ClientRequest::Discover(p) => p.meta.take(),
        ClientRequest::ListResources(p)
        | ClientRequest::ListResourceTemplates(p)
        | ClientRequest::ListPrompts(p)
        | ClientRequest::ListTools(p)
        | ClientRequest::ListTasks(p) => p.meta.take(),
        ClientRequest::ReadResource(p) => p.meta.take(),
        ClientRequest::Subscribe(p) | ClientRequest::Unsubscribe(p) => p.meta.take(),
        ClientRequest::SubscriptionsListen(p) => p.meta.take(),
        ClientRequest::GetPrompt(p) => p.meta.take(),
        ClientRequest::CallTool(p) => p.meta.take(),
        ClientRequest::SetLevel(p) => p.meta.take(),
        ClientRequest::Complete(p) => p.meta.clone(),
        _ => None,
    }
}

/// The first capability in `required` that `declared` lacks, by name.
/// The client capabilities a capability name of [`RequestContext`]'s checks stands for
/// (`elicitation.form` is `{"elicitation": {"form": {}}}`).
fn required_capabilities(capability: &str) -> mcp_core::capabilities::ClientCapabilities {
    let mut value = serde_json::json!({});
    for part in capability.rsplit('.') {
        value = serde_json::json!({ part: value });
    }
    serde_json::from_value(value).unwrap_or_default()
}

fn missing_capability(
    required: &mcp_core::capabilities::ClientCapabilities,
    declared: &mcp_core::capabilities::ClientCapabilities,
) -> Option<&'static str> {
    let checks = [
        (
            required.sampling.is_some(),
            declared.supports_sampling(),
            "sampling",
        ),
        (
            required.supports_sampling_tools(),
            declared.supports_sampling_tools(),
            "sampling.tools",
        ),
        (required.roots.is_some(), declared.supports_roots(), "roots"),
        (
            required.supports_elicitation_form(),
            declared.supports_elicitation_form(),
            "elicitation.form",
        ),
        (
            required.supports_elicitation_url(),
            declared.supports_elicitation_url(),
            "elicitation.url",
        ),
    ];
    checks
        .into_iter()
        .find(|(needed, present, _)| *needed && !*present)
        .map(|(_, _, name)| name)
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::capabilities::ServerCapabilities;
    use mcp_core::lifecycle::DiscoverResult;

    #[test]
    fn a_result_the_peer_cannot_carry_becomes_an_internal_error() {
        let capabilities: ServerCapabilities =
            serde_json::from_value(serde_json::json!({"logging": {"ratio": 0.5}})).unwrap();
        let discover = DiscoverResult::new(vec!["2026-07-28".into()], capabilities);
        let reply = Reply::result(
            ProtocolVersion::V2026_07_28,
            RequestId::Number(4),
            ServerResult::from(discover),
        );
        assert_eq!(
            reply.render(),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the result cannot be sent: `ratio` (a float or null, which `JSONValue` does not admit) cannot be rendered for protocol revision 2026-07-28"}}"#
        );
    }
}
