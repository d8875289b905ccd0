//! The options of one request: its own timeout, where its progress goes, a token that cancels
//! it, who answers what the server asks during it, and, for a tool call that runs as a task,
//! where its states go and how it is polled.

use std::time::Duration;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::input::{InputRequest, InputResponse};
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::progress::ProgressNotificationParams;
use mcp_runtime_core::tasks::Task;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// How one request is made (see [`McpClient::request`](super::McpClient::request),
/// [`McpClient::call_tool_with`](super::McpClient::call_tool_with) and
/// [`McpClient::call_tool_as_task`](super::McpClient::call_tool_as_task)).
///
/// The task options ([`task_status`](Self::task_status), [`task_ttl`](Self::task_ttl),
/// [`task_poll_interval`](Self::task_poll_interval)) apply to tool calls that run as tasks; other
/// requests ignore them.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::client::{CancellationToken, RequestOptions};
///
/// let (progress, _updates) = tokio::sync::mpsc::unbounded_channel();
/// let (statuses, _states) = tokio::sync::mpsc::unbounded_channel();
/// let stop = CancellationToken::new();
/// let options = RequestOptions::new()
///     .timeout(Duration::from_secs(30))
///     .progress(progress)
///     .cancel_on(stop.clone())
///     .task_status(statuses)
///     .task_ttl(Duration::from_secs(600));
/// # drop(options);
/// ```
#[derive(Clone, Debug, Default)]
pub struct RequestOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) progress: Option<Sink<ProgressNotificationParams>>,
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) task_status: Option<mpsc::UnboundedSender<Task>>,
    pub(crate) task_ttl: Option<Duration>,
    pub(crate) poll_interval: Option<Duration>,
    pub(crate) inputs: Option<mpsc::Sender<AskedInput>>,
    pub(crate) notifications: Option<mpsc::Sender<ServerNotification>>,
}

impl RequestOptions {
    /// The client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Waits at most `timeout` for the answer (instead of the client's
    /// [`request_timeout`](super::McpClientBuilder::request_timeout)); then the request is
    /// cancelled. For a tool call that runs as a task, `timeout` bounds the whole call, from the
    /// `tools/call` to the task's outcome, and the task is cancelled (`tasks/cancel`) when it
    /// expires; each request the client makes meanwhile is bounded by the client's
    /// `request_timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sends the request's progress notifications to `sink` (the request carries a
    /// `progressToken`).
    pub fn progress(mut self, sink: mpsc::UnboundedSender<ProgressNotificationParams>) -> Self {
        self.progress = Some(Sink::Unbounded(sink));
        self
    }

    /// [`progress`](Self::progress) into a bounded channel: a notification that finds `sink`
    /// full is dropped (the next one says more), so that a server that floods the client
    /// with progress cannot make it hold more than the channel's capacity.
    pub fn bounded_progress(mut self, sink: mpsc::Sender<ProgressNotificationParams>) -> Self {
        self.progress = Some(Sink::Bounded(sink));
        self
    }

    /// Cancels the request when `token` is cancelled: the call returns
    /// [`ClientError::Cancelled`](super::ClientError::Cancelled) and the server is told
    /// (`notifications/cancelled`, or on 2026-07-28 over HTTP by closing the request's stream;
    /// for a tool call that became a task, `tasks/cancel`).
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// When the tool call runs as a task, sends the states of the task the client sees to
    /// `sink`, in order: the state the server created it in, then each one whose status or status
    /// message differs from the last one sent (`working`, `input_required`, `completed`, ...).
    /// The client sees a state when it polls (at the server's `pollInterval`), so a state that
    /// lasts less than that may be missed.
    pub fn task_status(mut self, sink: mpsc::UnboundedSender<Task>) -> Self {
        self.task_status = Some(sink);
        self
    }

    /// When the tool call runs as a task on 2025-11-25, asks the server to keep the task and
    /// its outcome for `ttl` from its creation (the server may grant less). On 2026-07-28 the
    /// server alone decides.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = Some(ttl);
        self
    }

    /// Polls a task every `interval` instead of at the server's suggested `pollInterval` (never
    /// more often than [`MIN_TASK_POLL_INTERVAL`](super::MIN_TASK_POLL_INTERVAL)).
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = Some(interval);
        self
    }

    /// Sends what the server asks for during this request (sampling, elicitation, roots) to
    /// `sink`, instead of the client's handlers: each [`AskedInput`] waits for its
    /// [`answer`](AskedInput::answer). It covers the input-required rounds of 2026-07-28, the
    /// input requests of a task, and the requests of a 2025 server that come on this request's
    /// HTTP stream. A request over a pipe (stdio) says nothing of the request it belongs to: it
    /// comes to `sink` when this is the only request in flight with one, and to the client's
    /// handlers otherwise. A gateway answers with it what a call asks for by asking its own
    /// caller ([`proxy`](crate::proxy)).
    pub fn ask_through(mut self, sink: mpsc::Sender<AskedInput>) -> Self {
        self.inputs = Some(sink);
        self
    }
}

impl RequestOptions {
    /// Sends the notifications that come on this request's own HTTP stream (its log messages,
    /// say) to `sink`, instead of [`McpClient::notifications`](super::McpClient::notifications);
    /// its progress goes to [`progress`](Self::progress) as ever. One that finds `sink` full is
    /// dropped. Over a pipe (stdio) no notification says which request it belongs to: they all
    /// go to `notifications()`.
    pub fn notifications(mut self, sink: mpsc::Sender<ServerNotification>) -> Self {
        self.notifications = Some(sink);
        self
    }
}

/// Where a request's progress goes: a channel of the caller's, bounded or not.
#[derive(Clone, Debug)]
pub(crate) enum Sink<T> {
    Unbounded(mpsc::UnboundedSender<T>),
    Bounded(mpsc::Sender<T>),
}

impl<T> Sink<T> {
    /// Sends `value`, or drops it when a bounded channel is full (or the receiver is gone).
    pub(crate) fn send(&self, value: T) {
        let sent = match self {
            Sink::Unbounded(sink) => sink.send(value).is_ok(),
            Sink::Bounded(sink) => sink.try_send(value).is_ok(),
        };
        if !sent {
            tracing::debug!("dropped a progress notification: its receiver is full or gone");
        }
    }
}

/// What the server asked for during a request made with [`RequestOptions::ask_through`]: the
/// request, and where its answer goes.
#[derive(Debug)]
pub struct AskedInput {
    request: InputRequest,
    reply: oneshot::Sender<Result<InputResponse, ErrorObject>>,
}

impl AskedInput {
    /// What the server asks for.
    pub fn request(&self) -> &InputRequest {
        &self.request
    }

    /// Answers it: the response, or the error the server gets instead.
    pub fn answer(self, answer: Result<InputResponse, ErrorObject>) {
        let _ = self.reply.send(answer);
    }
}

/// Asks `request` through `sink` and waits for its answer.
pub(crate) async fn ask(
    sink: &mpsc::Sender<AskedInput>,
    request: InputRequest,
) -> Result<InputResponse, ErrorObject> {
    let method = request.method();
    let (reply, answer) = oneshot::channel();
    let gone = || {
        ErrorObject::internal_error(format!(
            "{method} was not answered: the request that it came with is over"
        ))
    };
    sink.send(AskedInput { request, reply })
        .await
        .map_err(|_| gone())?;
    answer.await.map_err(|_| gone())?
}
