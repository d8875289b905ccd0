//! Forwarding one request upstream: its progress back, its cancellation on, what the upstream
//! asks during it to the downstream client, and, for a 2026-07-28 client that is asked in
//! rounds, the upstream request kept waiting between them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::completion::{CompleteRequestParams, CompleteResult};
use mcp_runtime_core::elicitation::ElicitRequestParams;
use mcp_runtime_core::input::InputRequest;
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::methods::{self, Request};
use mcp_runtime_core::progress::ProgressNotificationParams;
use mcp_runtime_core::{ErrorCode, ErrorObject};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Shared;
use crate::client::{AskedInput, ClientError, RequestOptions};
use crate::connection::PeerRequestError;
use crate::handler::{ClientRequestError, RequestContext};

/// How long an upstream request waits for a 2026-07-28 client to come back with the answer to
/// what it asked; then it is cancelled.
pub const PARKED_FOR: Duration = Duration::from_secs(300);

/// The most upstream requests that wait for their clients' answers at once; a request that
/// would be one more is refused.
pub const MAX_PARKED: usize = 1024;

/// How many progress notifications, and how many other notifications, of one forwarded request
/// wait for its client at most.
const RELAYED: usize = 64;

/// The answer of a forwarded request: its result.
pub(super) type Call<T> = Pin<Box<dyn Future<Output = Result<T, ClientError>> + Send>>;

/// A request under way upstream.
pub(super) struct Forward<T> {
    method: &'static str,
    call: Call<T>,
    /// What the upstream asks during it.
    asks: mpsc::Receiver<AskedInput>,
    progress: mpsc::Receiver<ProgressNotificationParams>,
    /// The notifications that come on its stream (its log messages).
    notes: mpsc::Receiver<ServerNotification>,
    /// The states of the task the upstream turned the call into, if it did.
    tasks: mpsc::UnboundedReceiver<mcp_runtime_core::tasks::Task>,
    /// Cancels the upstream request.
    cancel: CancellationToken,
    /// What the upstream asked that the downstream client has yet to answer, under its key.
    waiting: Option<(String, AskedInput)>,
    /// How many things the upstream asked during it.
    asked: usize,
}

/// A parked request, of whatever result type.
struct Parking {
    method: &'static str,
    forward: Box<dyn std::any::Any + Send>,
}

/// The key of the request state that finds a parked request again.
#[derive(Serialize, Deserialize)]
struct Resume {
    parked: String,
}

/// The upstream requests waiting for their 2026-07-28 clients' next rounds, by a random id.
#[derive(Default)]
pub(super) struct Parked {
    calls: Arc<Mutex<HashMap<String, Parking>>>,
}

impl Parked {
    /// Keeps `forward` for at most [`PARKED_FOR`]; its id, or `None` when too many wait.
    fn park<T: Send + 'static>(&self, forward: Forward<T>) -> Option<String> {
        let mut calls = self.calls.lock();
        if calls.len() >= MAX_PARKED {
            return None;
        }
        let id = crate::random::random_id::<16>();
        let method = forward.method;
        calls.insert(
            id.clone(),
            Parking {
                method,
                forward: Box::new(forward),
            },
        );
        let calls = Arc::downgrade(&self.calls);
        let expiring = id.clone();
        crate::rt::spawn(async move {
            crate::rt::sleep(PARKED_FOR).await;
            // Dropped, the upstream request is cancelled.
            let expired = calls
                .upgrade()
                .and_then(|calls| calls.lock().remove(&expiring));
            if let Some(parking) = expired {
                tracing::info!(
                    method = parking.method,
                    "an upstream request waited too long for its client's answer"
                );
            }
        });
        Some(id)
    }

    fn take<T: 'static>(&self, id: &str) -> Option<Forward<T>> {
        let parking = self.calls.lock().remove(id)?;
        parking.forward.downcast().ok().map(|forward| *forward)
    }
}

impl Shared {
    /// Forwards request `M` with `params` for the downstream request `ctx`, and returns the
    /// upstream's result.
    pub(super) async fn forward<M: Request + 'static>(
        self: &Arc<Self>,
        params: M::Params,
        ctx: &RequestContext,
    ) -> Result<M::Result, ErrorObject>
    where
        M::Params: Send,
        M::Result: Send,
    {
        let client = self.client.clone();
        self.forward_with(M::METHOD, ctx, move |options| {
            Box::pin(async move { client.request::<M>(params, options).await })
        })
        .await
    }

    /// [`forward`](Self::forward) of the upstream call that `call` makes with the options it
    /// is given (where the upstream's questions, progress and notifications go, and what
    /// cancels it).
    pub(super) async fn forward_with<T: Send + 'static>(
        self: &Arc<Self>,
        method: &'static str,
        ctx: &RequestContext,
        call: impl FnOnce(RequestOptions) -> Call<T>,
    ) -> Result<T, ErrorObject> {
        let mut forward = match ctx.request_state::<Resume>() {
            Some(resume) => self.parked.take(&resume.parked).ok_or_else(|| {
                ErrorObject::invalid_params(format!(
                    "{method} waited upstream for an answer that did not come in time (or the \
                     request went to another instance of the gateway): send it again without \
                     inputResponses and requestState"
                ))
            })?,
            None => self.start(method, call),
        };
        loop {
            if let Some((key, asked)) = forward.waiting.take() {
                let request = self.url_elicitation_here(asked.request().clone(), ctx);
                let asking = ctx.input(&key).request(request);
                // The upstream may end the request (or die) while the client thinks.
                let answer = tokio::select! {
                    answer = asking => answer,
                    outcome = &mut forward.call => {
                        return outcome.map_err(|error| upstream_error(method, error));
                    }
                };
                match answer {
                    Ok(answer) => asked.answer(Ok(answer)),
                    Err(ClientRequestError::InputRequired { .. }) => {
                        // The client answers in its next round: the upstream request waits.
                        forward.waiting = Some((key, asked));
                        return match self.parked.park(forward) {
                            Some(parked) => {
                                ctx.keep_request_state(&Resume { parked });
                                Err(ErrorObject::internal_error(
                                    "waiting for the client's input",
                                ))
                            }
                            None => Err(ErrorObject::internal_error(format!(
                                "{method} cannot wait for the client's input: {MAX_PARKED} \
                                 requests already do; try again later"
                            ))),
                        };
                    }
                    Err(refused) => asked.answer(Err(downstream_refusal(&refused))),
                }
            }
            tokio::select! {
                outcome = &mut forward.call => {
                    // Progress sent just before the result comes before it.
                    while let Ok(progress) = forward.progress.try_recv() {
                        relay(ctx, progress).await;
                    }
                    return outcome.map_err(|error| upstream_error(method, error));
                }
                Some(asked) = forward.asks.recv() => {
                    forward.asked += 1;
                    forward.waiting = Some((format!("upstream-{}", forward.asked), asked));
                }
                Some(progress) = forward.progress.recv() => relay(ctx, progress).await,
                Some(note) = forward.notes.recv() => self.relay_note(ctx, note).await,
                // The upstream made the call a task: so does the gateway, for its client
                // (2026-07-28, where the server decides; a no-op where it is one already).
                Some(_) = forward.tasks.recv() => {
                    ctx.start_task().await;
                }
                () = ctx.cancelled() => {
                    forward.cancel.cancel();
                    return Err(ErrorObject::internal_error(format!("{method} was cancelled")));
                }
            }
        }
    }

    /// Sends `method` upstream.
    fn start<T>(
        &self,
        method: &'static str,
        call: impl FnOnce(RequestOptions) -> Call<T>,
    ) -> Forward<T> {
        let (asking, asks) = mpsc::channel(1);
        // Bounded: an upstream that floods a request with progress or logs, faster than its
        // client takes them, loses the surplus instead of filling the gateway's memory.
        let (reporting, progress) = mpsc::channel(RELAYED);
        let (noting, notes) = mpsc::channel(RELAYED);
        // Unbounded, but the client sends a task's state only when it changed, once a poll.
        let (following, tasks) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let options = RequestOptions::new()
            .ask_through(asking)
            .bounded_progress(reporting)
            .notifications(noting)
            .task_status(following)
            .cancel_on(cancel.clone());
        let call = call(options);
        Forward {
            method,
            call,
            asks,
            progress,
            notes,
            tasks,
            cancel,
            waiting: None,
            asked: 0,
        }
    }

    /// `request` as the client is asked it: a URL-mode elicitation of a 2026-07-28 upstream,
    /// which has no id, gets one (a 2025-11-25 client needs it); and where one with an id
    /// goes is remembered for the upstream's `notifications/elicitation/complete` (a session's:
    /// a 2026-07-28 request has none).
    fn url_elicitation_here(&self, request: InputRequest, ctx: &RequestContext) -> InputRequest {
        let InputRequest::Elicit(ElicitRequestParams::Url(mut params)) = request else {
            return request;
        };
        let Some(id) = &params.elicitation_id else {
            params.elicitation_id = Some(crate::random::random_id::<16>());
            return InputRequest::Elicit(ElicitRequestParams::Url(params));
        };
        if ctx.connection().is_persistent() {
            self.remember_url_elicitation(id.clone(), ctx);
        }
        InputRequest::Elicit(ElicitRequestParams::Url(params))
    }

    /// Remembers that the URL-mode elicitation `id` went to the connection of `ctx`.
    fn remember_url_elicitation(&self, id: String, ctx: &RequestContext) {
        let mut remembered = self.url_elicitations.lock();
        if remembered.len() >= super::MAX_URL_ELICITATIONS {
            remembered.retain(|_, connection| connection.strong_count() > 0);
            if remembered.len() >= super::MAX_URL_ELICITATIONS {
                remembered.clear();
            }
        }
        remembered.insert(id, Arc::downgrade(ctx.connection()));
    }

    /// Passes on a notification that came on a forwarded request's stream: a log message to
    /// the request's client, at its level; anything else as the upstream's other notifications.
    async fn relay_note(self: &Arc<Self>, ctx: &RequestContext, note: ServerNotification) {
        match note {
            ServerNotification::LoggingMessage(message) => match self.logger(message.logger) {
                Some(logger) => ctx.log_from(message.level, &logger, message.data).await,
                None => ctx.log(message.level, message.data).await,
            },
            other => self.take(other).await,
        }
    }

    /// `completion/complete`, forwarded; an upstream that fails completes nothing.
    pub(super) async fn complete(
        self: &Arc<Self>,
        params: CompleteRequestParams,
        ctx: &RequestContext,
    ) -> Option<CompleteResult> {
        match self.forward::<methods::Complete>(params, ctx).await {
            Ok(result) => Some(result),
            Err(error) => {
                tracing::warn!(%error, "the upstream's completion failed");
                Some(CompleteResult::new(Vec::new()))
            }
        }
    }
}

/// Reports the upstream's `progress` to the downstream client, if it asked for progress.
async fn relay(ctx: &RequestContext, progress: ProgressNotificationParams) {
    match (progress.message, progress.total) {
        (Some(message), total) => {
            ctx.progress_with_message(progress.progress, total, message)
                .await;
        }
        (None, Some(total)) => ctx.progress(progress.progress, total).await,
        (None, None) => {
            let done = progress.progress.to_string();
            ctx.progress_with_message(progress.progress, None, done)
                .await;
        }
    }
}

/// The downstream client's error for what the upstream asked for, as the upstream gets it.
fn downstream_refusal(refused: &ClientRequestError) -> ErrorObject {
    match refused {
        ClientRequestError::MissingCapability { .. }
        | ClientRequestError::NoChannel { .. }
        | ClientRequestError::NoSession { .. } => ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("the client behind this gateway cannot answer: {refused}"),
        ),
        ClientRequestError::Peer {
            source: PeerRequestError::Refused(error),
            ..
        } => error.clone(),
        _ => ErrorObject::internal_error(refused.to_string()),
    }
}

/// The downstream error for a forwarded `method` that failed upstream with `error`.
pub(super) fn upstream_error(method: &str, error: ClientError) -> ErrorObject {
    match error {
        ClientError::Server { error, .. } => error,
        ClientError::Disconnected => ErrorObject::internal_error(format!(
            "{method} failed: the server behind this gateway is gone (its connection closed)"
        )),
        other => ErrorObject::internal_error(format!(
            "{method} failed on the server behind this gateway: {other}"
        )),
    }
}
