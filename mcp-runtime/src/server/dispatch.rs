//! The dispatcher: from a request the server admitted to its reply.
//!
//! [`start`] decodes a request, checks it against the connection's lifecycle, registers it as in
//! flight (so that a cancellation read right after it finds it) and builds its
//! [`RequestContext`]; the work it returns runs [`route`], which catches a panic anywhere in the
//! handler, turns a handler that asked the client for input into an input-required result, and
//! frees the request's id when it ends. [`answer`] hands the request to the feature module that
//! serves its method ([`lifecycle`](super::lifecycle), [`tools`](super::tools), ...).
//!
//! The dispatcher is transport-blind: what it needs of the peer is the [`ConnectionState`] and a
//! [`SharedSink`] for the messages a handler sends while it runs.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt;
use mcp_runtime_core::capabilities::ClientCapabilities;
use mcp_runtime_core::input::InputRequiredResult;
use mcp_runtime_core::jsonrpc::{JsonRpcRequest, RawCall, RequestId};
use mcp_runtime_core::messages::{ClientRequest, ServerResult};
use mcp_runtime_core::tools::CallToolResult;
use mcp_runtime_core::{Asking, Era, ErrorCode, ErrorObject, ProtocolVersion};
use tracing::{Instrument, Span};

use super::reply::Reply;
use super::request::{McpRequest, RequestParts, TargetKind};
use super::{McpServer, middleware, resolve, route, tasks, tools};
use crate::connection::{ConnectionState, InFlightGuard, Refusal, SharedSink};
use crate::handler::RequestContext;
use crate::handler::caller::Caller;
use crate::handler::context::ContextParts;
use crate::handler::request_state::RequestBinding;
use crate::handler::rounds::Rounds;
use crate::spans;

/// The work of a request that was started: its handler runs when this is polled, and yields no
/// reply when the request was cancelled.
pub type Running = Pin<Box<dyn Future<Output = Option<Reply>> + Send>>;

/// A request admission resolved and registered as in flight, not yet run.
pub(super) struct Started {
    request: McpRequest,
    slot: InFlightGuard,
    span: Span,
}

/// A request's params decoded as its method's, with their `_meta` taken out.
pub(super) struct Decoded {
    request: Box<ClientRequest>,
    meta: Option<mcp_runtime_core::meta::RequestMeta>,
}

impl Decoded {
    /// Decodes the params of `method`.
    pub(super) fn of(
        method: &str,
        params: Option<&mcp_runtime_core::jsonrpc::Params>,
    ) -> Result<Decoded, mcp_runtime_core::messages::DecodeError> {
        // Boxed: the request travels through the handler's future, which would otherwise hold
        // it (the largest variant is ~1 KB) at every level.
        let mut request = Box::new(ClientRequest::decode(method, params)?);
        let meta = take_request_meta(&mut request);
        Ok(Decoded { request, meta })
    }

    /// The decoded request.
    pub(super) fn request(&self) -> &ClientRequest {
        &self.request
    }

    /// Its `_meta`.
    pub(super) fn meta(&self) -> Option<&mcp_runtime_core::meta::RequestMeta> {
        self.meta.as_ref()
    }
}

/// Starts a request admitted as one of `version` (2026-07-28 for a request that follows that
/// revision's rules, whatever its connection; the connection's otherwise): decodes it (unless the
/// admission did, into `decoded`), resolves
/// its target, and registers it as in flight (so that a cancellation read right after it finds
/// it); the answer itself when the request is refused before any handler runs.
pub(super) fn start(
    server: &McpServer,
    request: JsonRpcRequest,
    decoded: Option<Decoded>,
    connection: &Arc<ConnectionState>,
    sink: Option<SharedSink>,
    version: ProtocolVersion,
    caller: &Caller,
) -> Result<Started, Box<Reply>> {
    let JsonRpcRequest {
        id, request: call, ..
    } = request;
    let RawCall { method, params, .. } = call;
    let http = caller.http.as_ref().map(|request| &request.headers);
    let span = spans::request(&method, &id, version, http);
    let refuse = |id, error| {
        spans::record_error(&span, &error);
        Err(Box::new(Reply::error(version, Some(id), error)))
    };
    let era = version.era();
    // The lifecycle's order holds where a connection keeps state; elsewhere `_meta` says what
    // a session would.
    if let Some(error) = gate(server, &method, connection).filter(|_| era.keeps_state()) {
        return refuse(id, error);
    }
    let decoded = match decoded {
        Some(decoded) => Ok(decoded),
        None => Decoded::of(&method, params.as_ref()),
    };
    let Decoded { request, meta } = match decoded {
        Ok(decoded) => decoded,
        Err(error) => return refuse(id, error.into()),
    };
    #[cfg(feature = "otel")]
    if let Some(trace) = meta.as_ref().and_then(|meta| meta.trace.as_deref()) {
        crate::telemetry::continue_trace(&span, trace);
    }
    spans::record_target(&span, &request);
    let target = match resolve::target(server, &request, version) {
        Ok(target) => target,
        Err(error) => return refuse(id, error),
    };
    // The input-required rounds are bound to the request as first sent (its method and params)
    // and to the caller's principal (the issuer, subject and client of its token).
    let binding = (era.asks_client() == Asking::InputRequired
        && matches!(
            method.as_str(),
            "tools/call" | "prompts/get" | "resources/read"
        ))
    .then(|| RequestBinding::from_params(caller.principal(), &method, params));
    let slot = if matches!(*request, ClientRequest::Initialize(_)) {
        // A client must not cancel `initialize`; a cancellation naming it finds nothing.
        Ok(connection.untracked_request())
    } else {
        connection.begin_request(&id, server.inner.options.max_requests_in_flight)
    };
    let slot = match slot {
        Ok(slot) => slot,
        Err(refusal) => {
            let reply = refused(version, id, refusal);
            if let Some(error) = reply.error_object() {
                spans::record_error(&span, error);
            }
            return Err(Box::new(reply));
        }
    };
    let rounds = match binding.map(|b| rounds(server, b, &request)).transpose() {
        Ok(rounds) => rounds,
        Err(error) => return refuse(id, error),
    };
    let task_plan = match (&*request, &target.kind) {
        (ClientRequest::CallTool(params), TargetKind::Tool(tool)) => {
            match tasks::plan(server, tool, params, version, meta.as_ref(), slot.token()) {
                Ok(plan) => plan,
                Err(error) => return refuse(id, error),
            }
        }
        _ => None,
    };
    // A call that may become a task outlives its request: its handler watches a token of its own,
    // which the request's cancellation fires only while it is not a task (and a session's end
    // fires always).
    let cancellation = match &task_plan {
        None => slot.token().clone(),
        Some(_) if connection.is_persistent() => connection.closing().child_token(),
        Some(_) => tokio_util::sync::CancellationToken::new(),
    };
    let ctx = RequestContext::new(ContextParts {
        host: server.inner.clone(),
        connection: connection.clone(),
        request_id: id,
        version,
        meta,
        cancellation,
        sink,
        rounds,
        caller: caller.clone(),
        task_plan: task_plan.map(Box::new),
    });
    Ok(Started {
        request: McpRequest {
            parts: Box::new(RequestParts {
                server: server.clone(),
                params: request,
                target,
                ctx,
                hidden: Vec::new(),
            }),
        },
        slot,
        span,
    })
}

impl Started {
    /// The request, resolved.
    pub(super) fn request(&self) -> &McpRequest {
        &self.request
    }

    /// Records on the request's span that admission refused it with `error`.
    pub(super) fn record_error(&self, error: &ErrorObject) {
        spans::record_error(&self.span, error);
    }

    /// The work of the request: its handler runs when this is polled, and the id is freed when
    /// it ends.
    pub(super) fn run(self) -> Running {
        let Started {
            request,
            slot,
            span,
        } = self;
        let recorder = span.clone();
        Box::pin(
            async move {
                let (server, ctx) = (request.parts.server.clone(), request.parts.ctx.clone());
                let method = request.method();
                // Everything a handler does runs inside `route`, its synchronous part included: a
                // panic anywhere becomes an internal error, and the guard frees the id either way.
                let outcome = match AssertUnwindSafe(route(&server, &ctx, request))
                    .catch_unwind()
                    .await
                {
                    Ok(outcome) => outcome,
                    Err(panic) => {
                        let reason = super::panics::panic_message(panic.as_ref());
                        let id = ctx.request_id();
                        tracing::error!(%id, %method, %reason, "a request handler panicked");
                        Err(ErrorObject::internal_error(format!(
                            "{method} failed: the handler panicked ({reason})"
                        )))
                    }
                };
                let cancelled = slot.cancelled_by_peer();
                if cancelled {
                    spans::record_failure(&recorder, "cancelled", "the client cancelled it");
                } else {
                    spans::record_outcome(&recorder, &outcome);
                }
                drop(slot);
                let id = ctx.request_id().clone();
                if cancelled {
                    tracing::debug!(%id, "the request was cancelled; its response is not sent");
                    return None;
                }
                let era = ctx.era();
                // `initialize` may just have settled the connection's version to render for.
                let version = if era.keeps_state() {
                    ctx.connection().version()
                } else {
                    ctx.protocol_version()
                };
                Some(match outcome {
                    Ok(mut result) => {
                        name_server(&server, era, &mut result);
                        Reply::result(version, id, result)
                    }
                    Err(error) => Reply::error(version, Some(id), error),
                })
            }
            .instrument(span),
        )
    }
}

/// Names the server in `result`'s `_meta` where the era asks for it (`serverInfo`, since no
/// handshake did) and the server's options allow it.
pub(super) fn name_server(server: &McpServer, era: Era, result: &mut ServerResult) {
    if era.result_names_server()
        && server.inner.options.result_server_info
        && let Some(meta) = result.meta_mut()
    {
        meta.server_info
            .get_or_insert_with(|| Box::new(server.info().clone()));
    }
}

/// The error for a request the lifecycle does not allow yet, if any.
fn gate(server: &McpServer, method: &str, connection: &ConnectionState) -> Option<ErrorObject> {
    let waiting_for_initialized = server.inner.options.require_initialized
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
    server: &McpServer,
    ctx: &RequestContext,
    mut request: McpRequest,
) -> Result<ServerResult, ErrorObject> {
    // A `tools/call` is checked first (the capabilities the tool needs, its arguments), then
    // runs through the layers, as a task when it may become one (see `tasks`). Every level of
    // futures here costs a copy of the handler's future: the usual path has none of its own.
    let refused = match *request.parts.params {
        ClientRequest::CallTool(_) => tools::check(&mut request),
        _ => None,
    };
    let outcome = match (refused, ctx.task_plan()) {
        (Some(refused), _) => refused,
        (None, Some(plan)) => tasks::run(server, Box::pin(tool_result(request)), ctx, plan).await,
        (None, None) if middleware::is_layered(&request) => middleware::run(request).await,
        (None, None) => route::answer(request).await,
    };
    // A handler that asked the client for input is answered with what it asked for, whatever
    // it returned meanwhile (typically the error of the request it could not make), unless the
    // call became a task, which the client must hear of.
    let task = matches!(outcome, Ok(ServerResult::CreateTask(_)));
    if let Some((asked, state)) = ctx
        .rounds()
        .filter(|_| !task)
        .and_then(|r| r.outcome(&server.inner.request_state))
    {
        return Ok(ServerResult::InputRequired(InputRequiredResult::new(
            Some(asked),
            state,
        )));
    }
    // A request that failed for want of a capability it did not declare gets the error that
    // says which, where the era has one (-32021), so that the client can declare it and retry.
    let failed = match &outcome {
        Err(_) => true,
        Ok(ServerResult::CallTool(result)) => result.is_error(),
        Ok(_) => false,
    };
    let refusal = ctx
        .missing_capability()
        .filter(|_| failed)
        .and_then(|name| {
            ctx.era()
                .missing_capability(&ClientCapabilities::named(name))
        });
    match refusal {
        Some(error) => Err(error),
        None => outcome,
    }
}

/// The result of a `tools/call` that may become a task: the work the task runs.
async fn tool_result(request: McpRequest) -> Result<CallToolResult, ErrorObject> {
    let outcome = match middleware::is_layered(&request) {
        true => middleware::run(request).await,
        false => route::answer(request).await,
    };
    match outcome? {
        ServerResult::CallTool(result) => Ok(result),
        _ => Err(ErrorObject::internal_error(
            "a middleware layer answered tools/call with the result of another method",
        )),
    }
}

/// The rounds of a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`: the client's
/// answers and the state it echoed, opened and checked.
fn rounds(
    server: &McpServer,
    binding: RequestBinding,
    request: &ClientRequest,
) -> Result<Arc<Rounds>, ErrorObject> {
    let (responses, state) = match request {
        ClientRequest::CallTool(p) => (p.input_responses.clone(), p.request_state.as_deref()),
        ClientRequest::GetPrompt(p) => (p.input_responses.clone(), p.request_state.as_deref()),
        ClientRequest::ReadResource(p) => (p.input_responses.clone(), p.request_state.as_deref()),
        _ => (None, None),
    };
    Rounds::new(binding, responses, state, &server.inner.request_state).map(Arc::new)
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
        Refusal::Busy => busy(version, Some(id)),
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

/// The answer to a request refused because the sessions' requests in flight hold their share of
/// the memory budget: a `-32603` error that says to retry (logged as a warning, for the operator).
pub(crate) fn busy(version: ProtocolVersion, id: Option<RequestId>) -> Reply {
    tracing::warn!(
        "refused a request: the requests in flight of the sessions hold the share of the memory \
         budget they may (raise HttpOptions::memory_budget if the load is honest)"
    );
    let message =
        "the server is handling as many requests as its memory budget allows; retry in a second";
    Reply::error(version, id, ErrorObject::internal_error(message))
}

/// The server error (`-32000`) for a request beyond the in-flight cap of its connection.
pub const TOO_MANY_REQUESTS: ErrorCode = ErrorCode(-32000);

/// The `_meta` of a request's params, for its context: moved out of the params, which no handler
/// reads it from, except those of `completion/complete`, which a custom completion handler
/// receives whole.
fn take_request_meta(request: &mut ClientRequest) -> Option<mcp_runtime_core::meta::RequestMeta> {
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
        ClientRequest::GetTask(p)
        | ClientRequest::GetTaskPayload(p)
        | ClientRequest::CancelTask(p) => p.meta.take(),
        ClientRequest::UpdateTask(p) => p.meta.take(),
        ClientRequest::ListSkills(p) => p.meta.take(),
        ClientRequest::GetSkill(p) => p.meta.take(),
        ClientRequest::ReadDirectory(p) => p.meta.take(),
        _ => None,
    }
}
