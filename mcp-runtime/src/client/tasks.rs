//! Tool calls that run as tasks, on either era: the call, the [`ToolTask`] that follows it to
//! its end, and what [`McpClient::call_tool`] does with a task it did not ask for.
//!
//! - **2025-11-25.** The client asks: a call carries `task` params (only to a tool whose
//!   `execution.taskSupport` allows it, on a server that declared `tasks.requests.tools.call`),
//!   and the server answers with the task. The client polls `tasks/get`; once the task waits for
//!   input or has ended it sends `tasks/result`, on whose stream the server's requests
//!   (elicitation, sampling, roots) come and are answered by the client's handlers, and which
//!   answers with the call's result or error.
//! - **2026-07-28** (the `io.modelcontextprotocol/tasks` extension, which the client always
//!   declares). The server decides: any call may come back as a task, or answered at once. The
//!   client polls `tasks/get`, whose answer carries the outcome of an ended task and what an
//!   `input_required` one waits for; it answers each input request once, with the same handlers
//!   as the input-required rounds, in `tasks/update`.
//!
//! Either way the client polls at the server's `pollInterval` (at least
//! [`MIN_TASK_POLL_INTERVAL`], [`DEFAULT_TASK_POLL_INTERVAL`] when the server suggests none),
//! reports the task's states to [`RequestOptions::task_status`], and cancels the task with
//! `tasks/cancel` when the call's cancellation token fires or its timeout expires.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::rt::Instant;
use mcp_runtime_core::jsonrpc::ProgressToken;
use mcp_runtime_core::messages::{ServerNotification, ServerResult};
use mcp_runtime_core::methods;
use mcp_runtime_core::tasks::{
    ListTasksResult, MODEL_IMMEDIATE_RESPONSE, Task, TaskIdParams, TaskMetadata, TaskResult,
    TaskStatus, UpdateTaskParams,
};
use mcp_runtime_core::tools::{CallToolRequestParams, CallToolResult, TaskSupport};
use mcp_runtime_core::{Era, ErrorCode, JsonObject, ProtocolVersion, render};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::peer::Peer;
use super::{ClientError, McpClient, RequestOptions, call_params, page};

/// The shortest interval at which the client polls a task, whatever the server suggests.
pub const MIN_TASK_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// The interval at which the client polls a task whose server suggests none.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How long the client waits for the answer to a `tasks/cancel` it sends on its own (a call
/// cancelled, timed out or dropped), at most.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

const CALL: &str = "tools/call";

impl McpClient {
    /// `tools/call` of `name` with `arguments`, run as a task where the server allows it; the
    /// returned [`ToolTask`] follows the task to its end.
    ///
    /// On 2025-11-25 the call asks for a task (`task` params, with the TTL of
    /// [`RequestOptions::task_ttl`]) when the server declared that tool calls may run as tasks
    /// and the tool's `execution.taskSupport` is `optional` or `required` (the client lists the
    /// tools when it does not know the tool yet); otherwise it is a plain call. On 2026-07-28 the
    /// server decides whether the call becomes a task. A call that was answered at once (the
    /// server's choice, or a tool that does not run as a task) gives a handle that is already
    /// complete: its [`id`](ToolTask::id) is `None` and [`wait`](ToolTask::wait) returns the
    /// result.
    ///
    /// `options` apply to the call and to the handle: see [`RequestOptions::timeout`],
    /// [`cancel_on`](RequestOptions::cancel_on), [`task_status`](RequestOptions::task_status)
    /// and [`task_poll_interval`](RequestOptions::task_poll_interval). On 2025-11-25 the
    /// progress the task reports keeps going to [`progress`](RequestOptions::progress) until the
    /// handle is dropped.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: RequestOptions,
    ) -> Result<ToolTask, ClientError> {
        let mut params = call_params(name, arguments)?;
        params.task = self.task_params(name, &options, false).await;
        self.start_call(params, options).await
    }

    /// A handle on the task `task_id`, created earlier (by this client or a previous run of the
    /// application that kept the id), in the state a `tasks/get` finds it. `options` apply to
    /// the handle as to [`call_tool_as_task`](Self::call_tool_as_task)'s (its timeout counts from
    /// now). Its [`wait`](ToolTask::wait) does not check the result against the tool's output
    /// schema: the handle does not know the tool.
    pub async fn resume_task(
        &self,
        task_id: impl Into<String>,
        options: RequestOptions,
    ) -> Result<ToolTask, ClientError> {
        let started = Instant::now();
        let params = TaskIdParams::new(task_id);
        let detail = self
            .request::<methods::GetTask>(params, RequestOptions::new())
            .await?;
        let mut handle = ToolTask::new(self.clone(), None, options, started, None);
        handle.observe(detail.task.clone());
        handle.detail = Some(detail);
        Ok(handle)
    }

    /// One page of `tasks/list` (2025-11-25; the tasks extension of 2026-07-28 has no such
    /// method): the tasks the server keeps for this client.
    pub async fn list_tasks(&self, cursor: Option<String>) -> Result<ListTasksResult, ClientError> {
        self.request::<methods::ListTasks>(page(cursor), RequestOptions::new())
            .await
    }

    /// The `task` params of a call of tool `name` on 2025-11-25: when the server offers tasks
    /// for tool calls and the tool must run as one, or, unless `only_required`, may.
    pub(super) async fn task_params(
        &self,
        name: &str,
        options: &RequestOptions,
        only_required: bool,
    ) -> Option<TaskMetadata> {
        if self.protocol_version() != ProtocolVersion::V2025_11_25 {
            return None;
        }
        let offered = self.server().is_some_and(|server| {
            let tasks = server.capabilities.tasks.as_ref();
            let tools = tasks.and_then(|t| t.requests.as_ref()?.tools.as_ref());
            tools.is_some_and(|tools| tools.call.is_some())
        });
        if !offered {
            return None;
        }
        let support = match self.inner.tools.task_support(name) {
            Some(support) => support,
            None => {
                if let Err(error) = self.list_all_tools().await {
                    tracing::debug!(%error, tool = name, "could not list the tools to learn whether the tool runs as a task");
                    return None;
                }
                self.inner.tools.task_support(name)?
            }
        };
        let as_task = match support {
            TaskSupport::Required => true,
            TaskSupport::Optional => !only_required,
            _ => false,
        };
        as_task.then(|| {
            let mut task = TaskMetadata::default();
            task.ttl = options
                .task_ttl
                .map(|ttl| u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
            task
        })
    }

    /// Sends the call `params` (again, after listing the tools, when a 2026-07-28 server
    /// refuses its `Mcp-Param-*` headers) and returns what it became: a result, or a task.
    pub(super) async fn start_call(
        &self,
        mut params: CallToolRequestParams,
        options: RequestOptions,
    ) -> Result<ToolTask, ClientError> {
        let started = Instant::now();
        let protocol = |detail: String| ClientError::Protocol {
            method: CALL,
            detail,
        };
        // The call's progress token outlives the request when it becomes a task (2025-11-25),
        // so the client picks it and keeps routing it while the task runs.
        let progress = options.progress.clone().map(|sink| {
            let token = self.inner.peer.next_id();
            params
                .meta
                .get_or_insert_with(Default::default)
                .progress_token = Some(token.clone());
            self.inner.peer.watch(token.clone(), sink);
            ProgressRoute {
                peer: self.inner.peer.clone(),
                token,
            }
        });
        let mut request = options.clone();
        request.progress = None;
        let value = match self.call_value(&params, &request).await {
            Err(ClientError::Server { error, .. })
                if error.code == ErrorCode::HEADER_MISMATCH
                    && self.protocol_version().era() == Era::Stateless =>
            {
                tracing::debug!(%error, tool = %params.name, "header mismatch: listing the tools again");
                self.list_all_tools().await?;
                self.call_value(&params, &request).await?
            }
            other => other?,
        };
        let name = Some(params.name);
        match ServerResult::decode(CALL, value).map_err(|e| protocol(e.to_string()))? {
            ServerResult::CallTool(result) => {
                let mut handle = ToolTask::new(self.clone(), name, options, started, None);
                handle.answered_at_once = Some(result);
                Ok(handle)
            }
            ServerResult::CreateTask(created) => {
                let mut handle = ToolTask::new(self.clone(), name, options, started, progress);
                handle.immediate_response = created
                    .meta
                    .as_ref()
                    .and_then(|meta| meta.extra.get(MODEL_IMMEDIATE_RESPONSE))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                tracing::debug!(task = %created.task.task_id, "the tool call runs as a task");
                handle.observe(created.task);
                Ok(handle)
            }
            _ => Err(protocol(
                "the server answered with neither a tool result nor a task".into(),
            )),
        }
    }

    /// One `tools/call` with `params` (with its input-required rounds), as JSON.
    async fn call_value(
        &self,
        params: &CallToolRequestParams,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let params = render::to_value(params, self.protocol_version()).map_err(|e| {
            ClientError::Protocol {
                method: CALL,
                detail: e.to_string(),
            }
        })?;
        self.request_value(CALL, params, options).await
    }
}

/// Routes the progress of a call's token to its sink until dropped.
struct ProgressRoute {
    peer: Arc<Peer>,
    token: ProgressToken,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.peer.unwatch(&self.token);
    }
}

/// A tool call that runs as a task, or was answered at once (see
/// [`McpClient::call_tool_as_task`]).
///
/// [`wait`](Self::wait) follows the task to its end: it polls, answers what the task asks for
/// with the client's handlers, and returns the call's result. [`cancel`](Self::cancel) asks the
/// server to cancel it. Dropping the handle leaves the task running on the server (its id, kept,
/// lets [`McpClient::resume_task`] take it up again); the handle keeps the connection open
/// while it lives.
///
/// ```no_run
/// # use mcp_runtime::client::{ClientError, McpClient, RequestOptions};
/// # use serde_json::json;
/// # async fn demo(client: McpClient) -> Result<(), ClientError> {
/// let mut task = client
///     .call_tool_as_task("render_video", json!({"scene": 7}), RequestOptions::new())
///     .await?;
/// if let Some(id) = task.id() {
///     println!("running as task {id}");
/// }
/// if !user_still_wants_it() {
///     task.cancel().await?;
///     return Ok(());
/// }
/// let result = task.wait().await?;
/// # drop(result);
/// # Ok(())
/// # }
/// # fn user_still_wants_it() -> bool { true }
/// ```
pub struct ToolTask {
    client: McpClient,
    /// The tool called, whose output schema checks the result; unknown for a resumed task.
    tool: Option<String>,
    /// The result of a call that did not become a task, until taken.
    answered_at_once: Option<CallToolResult>,
    /// The task's latest known state.
    task: Option<Task>,
    /// The last `tasks/get` answer, when it is the latest state: on 2026-07-28 it carries the
    /// outcome of an ended task and what an `input_required` one waits for.
    detail: Option<TaskResult>,
    /// What the server said the model may be told at once (2025-11-25).
    immediate_response: Option<String>,
    options: RequestOptions,
    /// When the call must be over ([`RequestOptions::timeout`] after it was made).
    deadline: Option<Instant>,
    /// The keys of the input requests answered (2026-07-28): each is answered once.
    answered: HashSet<String>,
    /// Whether the task ended (or was cancelled by the client): nothing left to cancel.
    ended: bool,
    /// Whether dropping the handle before the task ended cancels it (a plain `call_tool`).
    cancel_on_drop: bool,
    _progress: Option<ProgressRoute>,
}

impl std::fmt::Debug for ToolTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolTask")
            .field("tool", &self.tool)
            .field("task", &self.task)
            .field("answered_at_once", &self.answered_at_once.is_some())
            .finish_non_exhaustive()
    }
}

impl ToolTask {
    fn new(
        client: McpClient,
        tool: Option<String>,
        options: RequestOptions,
        started: Instant,
        progress: Option<ProgressRoute>,
    ) -> Self {
        ToolTask {
            client,
            tool,
            answered_at_once: None,
            task: None,
            detail: None,
            immediate_response: None,
            deadline: options.timeout.map(|timeout| started + timeout),
            options,
            answered: HashSet::new(),
            ended: false,
            cancel_on_drop: false,
            _progress: progress,
        }
    }

    /// The task's id; `None` when the call was answered at once.
    pub fn id(&self) -> Option<&str> {
        self.task.as_ref().map(|task| task.task_id.as_str())
    }

    /// The task's latest known state (from its creation, the last poll, or a cancellation);
    /// `None` when the call was answered at once.
    pub fn task(&self) -> Option<&Task> {
        self.task.as_ref()
    }

    /// The task's latest known status; `None` when the call was answered at once.
    pub fn status(&self) -> Option<TaskStatus> {
        self.task.as_ref().map(|task| task.status)
    }

    /// What the server suggests telling the model while the task runs (2025-11-25's
    /// `io.modelcontextprotocol/model-immediate-response`), if it said anything.
    pub fn immediate_response(&self) -> Option<&str> {
        self.immediate_response.as_deref()
    }

    /// Polls the task once (`tasks/get`), updating [`task`](Self::task) and reporting a new
    /// state to [`RequestOptions::task_status`]. Does nothing for a call answered at once.
    pub async fn refresh(&mut self) -> Result<(), ClientError> {
        if self.task.is_none() {
            return Ok(());
        }
        self.get().await
    }

    /// Asks the server to cancel the task (`tasks/cancel`); [`wait`](Self::wait) then returns
    /// [`ClientError::TaskCancelled`], unless the task ended first. On 2025-11-25 the server
    /// answers with the cancelled task, which becomes the latest state, and refuses to cancel a
    /// task that already ended (`-32602`, returned as [`ClientError::Server`]); on 2026-07-28 it
    /// only acknowledges, and the next poll tells whether the task was cancelled. Does nothing for
    /// a call answered at once.
    pub async fn cancel(&mut self) -> Result<(), ClientError> {
        let Some(id) = self.id().map(str::to_owned) else {
            return Ok(());
        };
        let method = "tasks/cancel";
        let answer = self
            .client
            .request_json(method, json!({"taskId": id}), RequestOptions::new())
            .await?;
        let answer = ServerResult::decode(method, answer).map_err(|e| ClientError::Protocol {
            method,
            detail: e.to_string(),
        })?;
        if let ServerResult::Task(cancelled) = answer {
            self.observe(cancelled.task);
        }
        Ok(())
    }

    /// Follows the task to its end and returns the call's result, checked against the tool's
    /// output schema like [`McpClient::call_tool`]'s.
    ///
    /// It polls `tasks/get` at the server's `pollInterval` (or
    /// [`RequestOptions::task_poll_interval`]). What the task asks for is answered with the
    /// client's handlers: on 2026-07-28 each input request once, in `tasks/update`; on 2025-11-25
    /// the client sends `tasks/result` once the task waits for input or has ended, and answers
    /// the requests the server sends meanwhile.
    ///
    /// A tool that fails gives a result whose `is_error` is set, as a plain call does (on
    /// 2025-11-25 its task ends `failed`). A call that ended with a JSON-RPC error is
    /// [`ClientError::Server`] (method `tools/call`), a task cancelled is
    /// [`ClientError::TaskCancelled`]. When the call's cancellation token fires or its timeout
    /// expires, the client cancels the task and returns [`ClientError::Cancelled`] or
    /// [`ClientError::TimedOut`]; when a handler fails, it cancels the task and returns the
    /// handler's error.
    pub async fn wait(mut self) -> Result<CallToolResult, ClientError> {
        let result = self.outcome().await?;
        if let Some(tool) = &self.tool
            && self.client.inner.validate_output
        {
            self.client
                .inner
                .tools
                .check_output(tool, &result)
                .map_err(|detail| ClientError::Protocol {
                    method: CALL,
                    detail,
                })?;
        }
        Ok(result)
    }

    /// Makes dropping the handle before the task ended cancel the task: the handle of a plain
    /// call, whose task no one else knows of.
    pub(super) fn cancel_on_drop(&mut self) {
        self.cancel_on_drop = true;
    }

    /// The call's result, within its deadline and until its cancellation: the task is cancelled
    /// when either comes first.
    pub(super) async fn outcome(&mut self) -> Result<CallToolResult, ClientError> {
        if let Some(result) = self.answered_at_once.take() {
            self.ended = true;
            return Ok(result);
        }
        let cancel = self.options.cancel.clone();
        let timeout = self.options.timeout.unwrap_or_default();
        let deadline = self.deadline;
        let interrupted = tokio::select! {
            outcome = self.follow() => return outcome,
            () = async {
                match &cancel {
                    Some(token) => token.cancelled().await,
                    None => std::future::pending().await,
                }
            } => ClientError::Cancelled { method: CALL },
            () = async {
                match deadline {
                    Some(deadline) => crate::rt::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            } => ClientError::TimedOut { method: CALL, timeout },
        };
        self.cancel_quietly().await;
        Err(interrupted)
    }

    /// Follows the task to its end, as its era does.
    async fn follow(&mut self) -> Result<CallToolResult, ClientError> {
        if self.client.protocol_version().era() == Era::Stateless {
            self.follow_extension().await
        } else {
            self.follow_handshake().await
        }
    }

    /// 2026-07-28: polls until the task ends, answering its input requests on the way.
    async fn follow_extension(&mut self) -> Result<CallToolResult, ClientError> {
        loop {
            let status = self.expect_task()?.status;
            // The outcome and the input requests come with `tasks/get`, not with the task's
            // creation or a cancellation.
            if self.detail.is_none() && status != TaskStatus::Working {
                self.get().await?;
                continue;
            }
            match status {
                TaskStatus::Completed => {
                    let result = self.detail.as_mut().and_then(|d| d.result.take());
                    let result = result.ok_or_else(|| self.broken("completed without a result"))?;
                    return decode_result(result);
                }
                TaskStatus::Failed => {
                    let error = self.detail.as_mut().and_then(|d| d.error.take());
                    let error = error.ok_or_else(|| self.broken("failed without an error"))?;
                    return Err(ClientError::Server {
                        method: CALL,
                        error,
                    });
                }
                TaskStatus::Cancelled => return Err(self.cancelled()),
                TaskStatus::InputRequired => self.answer_input_requests().await?,
                _ => {}
            }
            self.pause(&mut None).await;
            self.get().await?;
        }
    }

    /// 2026-07-28: answers the input requests of the last poll that were not answered yet, in
    /// one `tasks/update`.
    async fn answer_input_requests(&mut self) -> Result<(), ClientError> {
        let requests = self
            .detail
            .as_ref()
            .and_then(|detail| detail.input_requests.as_ref());
        let fresh: Vec<_> = requests
            .into_iter()
            .flatten()
            .filter(|(key, _)| !self.answered.contains(*key))
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = fresh.iter().map(|(key, _)| key.clone()).collect();
        let answers = match self
            .client
            .inner
            .handlers
            .answer_inputs(fresh, self.options.inputs.as_ref())
            .await
        {
            Ok(answers) => answers,
            Err(error) => {
                // The task cannot go on without the answer: it would wait until it expires.
                self.cancel_quietly().await;
                return Err(ClientError::Server {
                    method: CALL,
                    error,
                });
            }
        };
        let id = self.expect_task()?.task_id.clone();
        let params = UpdateTaskParams::new(id, &answers);
        self.client
            .request::<methods::UpdateTask>(params, RequestOptions::new())
            .await?;
        self.answered.extend(keys);
        Ok(())
    }

    /// 2025-11-25: polls until the task waits for input or has ended, then fetches its outcome
    /// with `tasks/result` (whose stream carries the server's requests), polling meanwhile.
    async fn follow_handshake(&mut self) -> Result<CallToolResult, ClientError> {
        let mut notifications = Some(self.client.notifications());
        loop {
            loop {
                let status = self.expect_task()?.status;
                if status.is_terminal() || status == TaskStatus::InputRequired {
                    break;
                }
                self.pause(&mut notifications).await;
                self.get().await?;
            }
            if self.status() == Some(TaskStatus::Cancelled) {
                return Err(self.cancelled());
            }
            match self.fetch_payload(&mut notifications).await {
                Ok(payload) => {
                    if !self.ended {
                        // The ended state, for the status reports.
                        if let Err(error) = self.get().await {
                            tracing::debug!(%error, "could not read the state of the ended task");
                        }
                        self.ended = true;
                    }
                    return decode_result(payload);
                }
                // The client's request timeout cut a long wait: poll, and ask again.
                Err(ClientError::TimedOut { .. }) => continue,
                Err(error) => {
                    // The call's own error, or a refusal (the task was cancelled, or is gone):
                    // the task's state tells which.
                    if self.get().await.is_err() {
                        return Err(error);
                    }
                    return Err(match (self.status(), error) {
                        (Some(TaskStatus::Cancelled), _) => self.cancelled(),
                        (Some(TaskStatus::Failed), ClientError::Server { error, .. }) => {
                            ClientError::Server {
                                method: CALL,
                                error,
                            }
                        }
                        (_, error) => error,
                    });
                }
            }
        }
    }

    /// 2025-11-25: `tasks/result`, polling the task while it waits.
    async fn fetch_payload(
        &mut self,
        notifications: &mut Option<broadcast::Receiver<ServerNotification>>,
    ) -> Result<JsonObject, ClientError> {
        let params = TaskIdParams::new(self.expect_task()?.task_id.clone());
        let client = self.client.clone();
        let fetch = async move {
            client
                .request::<methods::GetTaskPayload>(params, RequestOptions::new())
                .await
        };
        tokio::pin!(fetch);
        loop {
            tokio::select! {
                payload = &mut fetch => return payload,
                polled = async {
                    self.pause(notifications).await;
                    self.get().await
                } => polled?,
            }
        }
    }

    /// `tasks/get`: the task's state becomes the latest.
    async fn get(&mut self) -> Result<(), ClientError> {
        let params = TaskIdParams::new(self.expect_task()?.task_id.clone());
        let detail = self
            .client
            .request::<methods::GetTask>(params, RequestOptions::new())
            .await?;
        self.observe(detail.task.clone());
        self.detail = Some(detail);
        Ok(())
    }

    /// Takes `task` as the latest state, and reports it when its status or message changed.
    fn observe(&mut self, task: Task) {
        let changed = self.task.as_ref().is_none_or(|last| {
            last.status != task.status || last.status_message != task.status_message
        });
        if changed && let Some(sink) = &self.options.task_status {
            let _ = sink.send(task.clone());
        }
        if task.status.is_terminal() {
            self.ended = true;
        }
        self.task = Some(task);
        self.detail = None;
    }

    /// Waits for the next poll: the poll interval, or (2025-11-25) a status notification of the
    /// task, whichever comes first.
    async fn pause(&self, notifications: &mut Option<broadcast::Receiver<ServerNotification>>) {
        let suggested = self
            .task
            .as_ref()
            .and_then(|task| task.poll_interval)
            .map(Duration::from_millis);
        let interval = self
            .options
            .poll_interval
            .or(suggested)
            .unwrap_or(DEFAULT_TASK_POLL_INTERVAL)
            .max(MIN_TASK_POLL_INTERVAL);
        let sleep = crate::rt::sleep(interval);
        tokio::pin!(sleep);
        let id = self.id().unwrap_or_default();
        loop {
            let heard = tokio::select! {
                () = &mut sleep => return,
                heard = async {
                    match notifications.as_mut() {
                        Some(notifications) => notifications.recv().await,
                        None => std::future::pending().await,
                    }
                } => heard,
            };
            match heard {
                Ok(ServerNotification::TaskStatus(status)) if status.task.task_id == id => return,
                Err(broadcast::error::RecvError::Closed) => *notifications = None,
                _ => {}
            }
        }
    }

    /// Cancels the task, if it may still be running, ignoring a failure: the call is over
    /// anyway.
    async fn cancel_quietly(&mut self) {
        if self.ended || self.task.is_none() {
            return;
        }
        let wait = self
            .client
            .inner
            .timeout
            .unwrap_or(CANCEL_WAIT)
            .min(CANCEL_WAIT);
        match crate::rt::timeout(wait, self.cancel()).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::debug!(%error, "the task could not be cancelled"),
            Err(_) => tracing::debug!("the server did not answer tasks/cancel in time"),
        }
        self.ended = true;
    }

    fn expect_task(&self) -> Result<&Task, ClientError> {
        self.task.as_ref().ok_or_else(|| ClientError::Protocol {
            method: CALL,
            detail: "the call runs as no task".into(),
        })
    }

    fn cancelled(&self) -> ClientError {
        ClientError::TaskCancelled {
            task_id: self.id().unwrap_or_default().to_owned(),
        }
    }

    /// The error of a task the server describes inconsistently.
    fn broken(&self, what: &str) -> ClientError {
        ClientError::Protocol {
            method: "tasks/get",
            detail: format!("task {} {what}", self.id().unwrap_or_default()),
        }
    }
}

impl Drop for ToolTask {
    fn drop(&mut self) {
        if !self.cancel_on_drop || self.ended {
            return;
        }
        let (Some(id), Ok(runtime)) = (self.id(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let client = self.client.clone();
        let params = json!({"taskId": id});
        runtime.spawn(async move {
            let options = RequestOptions::new().timeout(CANCEL_WAIT);
            if let Err(error) = client.request_json("tasks/cancel", params, options).await {
                tracing::debug!(%error, "the task of a dropped call could not be cancelled");
            }
        });
    }
}

/// The call's result, from the task's outcome.
fn decode_result(result: JsonObject) -> Result<CallToolResult, ClientError> {
    serde_json::from_value(Value::Object(result)).map_err(|e| ClientError::Protocol {
        method: CALL,
        detail: format!("the task's result is not a tool result: {e}"),
    })
}
