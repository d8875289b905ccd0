//! Tasks: tool calls that run in the background, and the `tasks/*` methods of both eras.
//!
//! A tool declared with task support (`#[mcp_tool(task = "optional")]` or `"required"`) may run
//! as a task. [`plan`] decides, for each `tools/call`, whether it may become one:
//!
//! | revision | the call may become a task when | misuse |
//! |---|---|---|
//! | 2025-11-25 | the client sent `task` params (it becomes one at once) | `task` for a tool without support, or none for a `required` tool: `-32601` |
//! | 2026-07-28 | the request declares the `io.modelcontextprotocol/tasks` extension (when, [`TaskStart`] says) | a `required` tool without the extension: `-32021` naming it |
//!
//! [`run`] then runs the handler: answered directly if it ends before the task starts (the
//! immediate-result shortcut, or an input-required round), else the task is created in the
//! [`TaskStore`] (so that a `tasks/get` right after the answer finds it), the call is answered
//! with the task, and the handler goes on in the background until [`finish`] records its outcome.
//!
//! The methods: `tasks/get` (2026-07-28 inlines the outcome and the input the task waits for),
//! `tasks/result` (2025-11-25: waits for the end; the task's requests to the client travel on its
//! stream meanwhile), `tasks/list` (2025-11-25, the caller's tasks only), `tasks/cancel` (2025-11-25
//! answers with the cancelled task and refuses an ended one; 2026-07-28 acknowledges),
//! `tasks/update` (2026-07-28: answers input requests). They are unknown (`-32601`) on a server
//! that offers no tasks and on a revision before 2025-11-25; on 2026-07-28 each of them needs the
//! extension declared (`-32021` otherwise). A `subscriptions/listen` stream that names tasks
//! follows them in the store ([`follow`], 2026-07-28's `notifications/tasks`).
//!
//! A task belongs to the principal of the access token that created it (its issuer, subject and
//! client, see [`Principal`](crate::auth::Principal)), else to its session; one created by an
//! anonymous 2026-07-28 request belongs to no one, and its id (128 random bits) is what
//! guards it. Whoever it does not belong to is told it does not exist.
//!
//! The guide's chapter "Tasks" (`docs/src/tasks.md`) teaches it with examples.

use crate::rt::SystemTime;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::FuturesUnordered;
use futures_util::{Future, StreamExt};
use mcp_runtime_core::capabilities::{ClientCapabilities, MissingClientCapability};
use mcp_runtime_core::input::InputResponse;
use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::meta::RequestMeta;
use mcp_runtime_core::meta::keys::RELATED_TASK;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::result::EmptyResult;
use mcp_runtime_core::tasks::{
    CreateTaskResult, ListTasksResult, RelatedTaskMetadata, TASKS_EXTENSION, Task, TaskIdParams,
    TaskResult, TaskStatus, UpdateTaskParams,
};
use mcp_runtime_core::tools::{CallToolRequestParams, CallToolResult, TaskSupport};
use mcp_runtime_core::{ErrorCode, ErrorObject, JsonObject, ProtocolVersion, TaskModel};
use parking_lot::Mutex;
use serde_json::Value;
use tracing::Instrument;

use super::McpServer;
use super::registry::RegisteredTool;
use crate::connection::{Outbound, SharedSink};
use crate::handler::RequestContext;
use crate::handler::task::{TaskLink, TaskLinkParts, TaskPlan, TaskStart};
use crate::spans;
use crate::store::{
    InMemoryTaskStore, TaskChange, TaskLimits, TaskOutcome, TaskRecord, TaskStore, timestamp,
};

/// How long a listen stream waits before it reads a task again when the store failed.
const FOLLOW_RETRY: Duration = Duration::from_secs(1);

/// How a server keeps and paces its tasks; set with
/// [`McpServerBuilder::tasks`](super::McpServerBuilder::tasks).
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::server::TaskOptions;
///
/// let options = TaskOptions::new()
///     .default_ttl(Duration::from_secs(600))
///     .poll_interval(Duration::from_secs(2))
///     .max_tasks_per_owner(20);
/// ```
#[derive(Clone)]
pub struct TaskOptions {
    store: Arc<dyn TaskStore>,
    default_ttl: Duration,
    max_ttl: Duration,
    poll_interval: Duration,
    limits: TaskLimits,
    page_size: usize,
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("default_ttl", &self.default_ttl)
            .field("max_ttl", &self.max_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// How long a task is kept when its client asks for no TTL.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);
/// The longest TTL a client may ask for.
pub const MAX_TASK_TTL: Duration = Duration::from_secs(24 * 60 * 60);
/// The poll interval suggested to clients.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);
/// The most tasks one session or principal runs at once.
pub const DEFAULT_MAX_TASKS_PER_OWNER: usize = 100;
/// The most tasks a server keeps, ended or not.
pub const DEFAULT_MAX_TASKS: usize = 10_000;

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            store: Arc::new(InMemoryTaskStore::new()),
            default_ttl: DEFAULT_TASK_TTL,
            max_ttl: MAX_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            limits: TaskLimits::new(DEFAULT_MAX_TASKS_PER_OWNER, DEFAULT_MAX_TASKS),
            page_size: 50,
        }
    }
}

impl TaskOptions {
    /// The defaults: in memory, an hour's TTL (a day at most), polls every 500 ms, 100 running
    /// tasks per session or principal and 10 000 kept in all.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps tasks in `store` (one shared by several instances, say).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How long a task is kept, from its creation, when the client asks for no TTL.
    pub fn default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = ttl;
        self
    }

    /// The longest TTL granted; a client asking for more gets this.
    pub fn max_ttl(mut self, ttl: Duration) -> Self {
        self.max_ttl = ttl;
        self
    }

    /// The poll interval suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The most tasks one session or authenticated principal runs at once (tasks that have not
    /// ended); beyond it, a new one is refused until one ends or is cancelled.
    pub fn max_tasks_per_owner(mut self, limit: usize) -> Self {
        self.limits.per_owner = limit.max(1);
        self
    }

    /// The most tasks the server keeps, ended or not; beyond it, a new one is refused until a
    /// task's TTL passes (a task is never dropped before the TTL it states).
    pub fn max_tasks(mut self, limit: usize) -> Self {
        self.limits.total = limit.max(1);
        self
    }

    /// How many tasks one `tasks/list` page holds.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }
}

/// The server's tasks: their options, and the handles of those running in this process.
#[derive(Default)]
pub(crate) struct Tasks {
    pub(crate) options: TaskOptions,
    /// Whether the builder asked for tasks (a tool with task support asks too).
    pub(crate) enabled: bool,
    running: Mutex<HashMap<String, Arc<TaskLink>>>,
}

impl Tasks {
    pub(crate) fn new(options: Option<TaskOptions>) -> Self {
        Tasks {
            enabled: options.is_some(),
            options: options.unwrap_or_default(),
            running: Mutex::new(HashMap::new()),
        }
    }

    fn running(&self, id: &str) -> Option<Arc<TaskLink>> {
        self.running.lock().get(id).cloned()
    }
}

/// Whether the server offers tasks: the builder asked, or a tool supports them.
pub(super) fn offered(server: &McpServer) -> bool {
    let registry = &server.inner.registry;
    server.inner.tasks.enabled
        || (registry.may_run_tasks()
            && registry
                .tools
                .any(|t| t.definition.task_support() != TaskSupport::Forbidden))
}

/// Whether the call `params` of `version` may become a task, and how; or the error for a call
/// the tool's task support refuses. `meta` is the request's `_meta`; `request_token` its
/// cancellation.
pub(super) fn plan(
    server: &McpServer,
    tool: &RegisteredTool,
    params: &CallToolRequestParams,
    version: ProtocolVersion,
    meta: Option<&RequestMeta>,
    request_token: &tokio_util::sync::CancellationToken,
) -> Result<Option<TaskPlan>, ErrorObject> {
    // The fast path of every call on a server without task tools: nothing to plan, unless the
    // server offers tasks and must refuse a `task` request for a tool without support.
    if !server.inner.registry.may_run_tasks()
        && (params.task.is_none() || !server.inner.tasks.enabled)
    {
        return Ok(None);
    }
    let support = tool.definition.task_support();
    let name = &params.name;
    let plan = |start, ttl| Ok(Some(TaskPlan::new(start, ttl, request_token.clone())));
    if version < ProtocolVersion::V2025_11_25 {
        // Revisions before 2025-11-25 know no tasks: every tool runs as a plain call there.
        return Ok(None);
    }
    match version.era().tasks() {
        // A call asks for a task with its `task` params.
        TaskModel::Core => match (&params.task, support) {
            // A server that offers no tasks ignores the request for one.
            (Some(_), TaskSupport::Forbidden) if !offered(server) => Ok(None),
            (Some(task), TaskSupport::Optional | TaskSupport::Required) => {
                plan(TaskStart::Immediately, task.ttl)
            }
            (Some(_), _) => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Tool {name} does not run as a task: call it without `task`"),
            )),
            (None, TaskSupport::Required) => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Tool {name} runs only as a task: call it with `task` params"),
            )),
            (None, _) => Ok(None),
        },
        // A call of a client that declares the extension may become a task, when the tool says.
        TaskModel::Extension => {
            let declared = meta
                .and_then(|m| m.client_capabilities.as_deref())
                .is_some_and(|c| c.supports_extension(TASKS_EXTENSION));
            match (declared, support) {
                (_, TaskSupport::Forbidden) => Ok(None),
                (true, _) => plan(tool.definition.task_start, None),
                (false, TaskSupport::Required) => Err(missing_extension()),
                (false, _) => Ok(None),
            }
        }
    }
}

/// The error for a 2026-07-28 request that needs the tasks extension and did not declare it.
fn missing_extension() -> ErrorObject {
    let mut required = ClientCapabilities::default();
    required.extensions = Some([(TASKS_EXTENSION.to_owned(), JsonObject::new())].into());
    MissingClientCapability { required }.into()
}

/// A tool call's work: its result, or the protocol error it ended with.
pub(super) type CallFuture =
    Pin<Box<dyn Future<Output = Result<CallToolResult, ErrorObject>> + Send>>;

/// Runs `call` as `plan` says: answered by the call itself if it ends before its task starts,
/// else by the task it became (and the call goes on in the background).
pub(super) async fn run(
    server: &McpServer,
    mut call: CallFuture,
    ctx: &RequestContext,
    plan: &TaskPlan,
) -> Result<mcp_runtime_core::messages::ServerResult, ErrorObject> {
    let own_result = |result: Result<CallToolResult, ErrorObject>| result.map(Into::into);
    if plan.start != TaskStart::Immediately {
        tokio::select! {
            result = &mut call => {
                plan.started.send_replace(Some(false));
                return own_result(result);
            }
            () = plan.due() => {}
            () = plan.request_token.cancelled() => {
                // Cancelled before it became a task: the call ends as any other would.
                ctx.cancellation_token().cancel();
                return own_result(call.await);
            }
        }
    }
    let link = match create(server, ctx, plan.requested_ttl).await {
        Ok(link) => link,
        Err(error) if plan.start == TaskStart::Immediately => return Err(error),
        Err(error) => {
            // The server holds too many tasks: this call finishes as a plain one.
            tracing::warn!(%error, "a call that would have become a task runs in the foreground");
            plan.started.send_replace(Some(false));
            return own_result(call.await);
        }
    };
    let (link, task) = link;
    ctx.attach_task(link.clone());
    plan.started.send_replace(Some(true));
    let finished = tokio_util::sync::CancellationToken::new();
    crate::rt::spawn(cancelled_anywhere(
        server.inner.tasks.options.store.clone(),
        link.clone(),
        finished.clone(),
    ));
    let background = server.clone();
    // The work goes on in a span of its own, linked to the call's, which ends now.
    let span = spans::task(link.id());
    crate::rt::spawn(
        async move {
            let outcome = call.await;
            finish(&background, &link, outcome).await;
            finished.cancel();
        }
        .instrument(span),
    );
    Ok(CreateTaskResult::new(task).into())
}

/// How long a task runs before [`cancelled_anywhere`] watches the store for its cancellation.
const WATCH_AFTER: Duration = Duration::from_millis(100);

/// Fires the token of the task of `link`, which runs here, once the store says the task was
/// cancelled: through whichever instance of the deployment the client's `tasks/cancel` reached.
/// Ends when the task ends (`finished` fires once this instance recorded its outcome).
async fn cancelled_anywhere(
    store: Arc<dyn TaskStore>,
    link: Arc<TaskLink>,
    finished: tokio_util::sync::CancellationToken,
) {
    // A cancellation through another instance is rare, and most tasks end within moments: the
    // watch (a read of the store, then one on each change) starts once the task has run a
    // little, and its first read sees a cancellation made meanwhile. One through this instance
    // fires the token directly.
    tokio::select! {
        biased;
        () = finished.cancelled() => return,
        () = link.token().cancelled() => return,
        () = crate::rt::sleep(WATCH_AFTER) => {}
    }
    // The task was created working, at revision 0.
    let mut revision = 0;
    loop {
        tokio::select! {
            biased;
            () = finished.cancelled() => return,
            () = link.token().cancelled() => return,
            () = store.changed(link.id(), revision) => {}
        }
        revision = match store.get(link.id()).await {
            Ok(Some(record)) if record.task.status == TaskStatus::Cancelled => {
                link.token().cancel();
                return;
            }
            Ok(Some(record)) if record.is_terminal() => return,
            Ok(Some(record)) => record.revision,
            Ok(None) => return,
            Err(error) => {
                tracing::debug!(task = %link.id(), %error, "the task store did not answer");
                crate::rt::sleep(Duration::from_secs(1)).await;
                revision
            }
        };
    }
}

/// Creates the task of the call of `ctx`, kept `requested_ttl` milliseconds (within the
/// server's bounds), and registers it as running here.
async fn create(
    server: &McpServer,
    ctx: &RequestContext,
    requested_ttl: Option<u64>,
) -> Result<(Arc<TaskLink>, Task), ErrorObject> {
    let options = &server.inner.tasks.options;
    let ttl = requested_ttl
        .map(Duration::from_millis)
        .unwrap_or(options.default_ttl)
        .min(options.max_ttl);
    let id = crate::random::random_id::<16>();
    let mut task = Task::new(&id, TaskStatus::Working, timestamp(SystemTime::now()));
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    task.ttl = Some(millis(ttl));
    task.poll_interval = Some(millis(options.poll_interval).max(1));
    let version = ctx.protocol_version();
    let record = TaskRecord::new(task.clone(), owner(ctx), version, ttl);
    options.store.create(record.clone(), options.limits).await?;
    let session = ctx.connection().sink().cloned();
    let link = Arc::new(TaskLink::new(TaskLinkParts {
        created: record,
        store: options.store.clone(),
        version,
        token: ctx.cancellation_token().clone(),
        session,
        poll_interval: options.poll_interval,
    }));
    server.inner.tasks.running.lock().insert(id, link.clone());
    tracing::debug!(task = %link.id(), "a tool call became a task");
    Ok((link, task))
}

/// The task of `record` as `tasks/get` shows it: with its outcome once ended, and what it waits
/// for while `input_required` (2026-07-28 renders both).
fn detailed(record: TaskRecord) -> TaskResult {
    let mut result = TaskResult::new(record.task);
    match record.outcome {
        Some(TaskOutcome::Result(object)) => result.result = Some(object),
        Some(TaskOutcome::Error(error)) => result.error = Some(error),
        None => {}
    }
    if !record.input_requests.is_empty() {
        result.input_requests = Some(record.input_requests);
    }
    result
}

/// Records how the task of `link` ended.
async fn finish(
    server: &McpServer,
    link: &Arc<TaskLink>,
    outcome: Result<CallToolResult, ErrorObject>,
) {
    let version = link.version();
    let (status, outcome, message) = match outcome {
        Ok(result) => {
            // 2025-11-25 counts a tool error as a failed task; the extension keeps `failed` for
            // protocol errors.
            let failed = result.is_error() && version == ProtocolVersion::V2025_11_25;
            let (status, message) = if failed {
                (TaskStatus::Failed, Some(tool_error_message(&result)))
            } else {
                (TaskStatus::Completed, None)
            };
            match mcp_runtime_core::render::to_value(&result, version) {
                Ok(Value::Object(object)) => (status, TaskOutcome::Result(object), message),
                _ => {
                    let error =
                        ErrorObject::internal_error("the tool's result could not be rendered");
                    let message = Some(error.message.clone());
                    (TaskStatus::Failed, TaskOutcome::Error(error), message)
                }
            }
        }
        Err(error) => {
            let message = Some(error.message.clone());
            (TaskStatus::Failed, TaskOutcome::Error(error), message)
        }
    };
    let change = TaskChange::Finish {
        status,
        outcome,
        message,
    };
    match server
        .inner
        .tasks
        .options
        .store
        .update_known(link.created(), change)
        .await
    {
        Ok(Some(record)) => link.announce(&record),
        Ok(None) => tracing::debug!(task = %link.id(), "the task expired before it ended"),
        Err(error) => tracing::error!(task = %link.id(), %error, "the task's outcome was lost"),
    }
    server.inner.tasks.running.lock().remove(link.id());
}

/// The status message of a task failed by the tool error `result` (2025-11-25): its first text,
/// the diagnostic the spec asks `tasks/get` to show.
fn tool_error_message(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|block| block.as_text())
        .map_or_else(|| "The tool returned an error.".to_owned(), str::to_owned)
}

/// Who the task of a call of `ctx` belongs to: the principal of its access token (its issuer,
/// subject and client, see [`Principal`](crate::auth::Principal)), else its session (a 2025
/// connection that keeps state), else no one: an anonymous 2026-07-28 request has no session,
/// whatever its transport, and neither has a request to a stateless 2025 server.
fn owner(ctx: &RequestContext) -> String {
    match ctx.caller_principal() {
        Some(principal) => format!("principal:{}", principal.key()),
        None if ctx.era().keeps_state() && ctx.connection().is_persistent() => {
            format!("session:{}", ctx.connection().id())
        }
        None => ANYONE.to_owned(),
    }
}

/// The owner of the tasks of anonymous callers without a session.
const ANYONE: &str = "anyone";

/// Refuses the `tasks/*` request `method` where it does not exist (`-32601`: the server offers no
/// tasks, or the request's revision predates them) or, on 2026-07-28, when it does not declare
/// the extension (`-32021`).
fn check_available(
    server: &McpServer,
    ctx: &RequestContext,
    method: &str,
) -> Result<(), ErrorObject> {
    if !offered(server) || ctx.protocol_version() < ProtocolVersion::V2025_11_25 {
        return Err(ErrorObject::method_not_found(method));
    }
    if ctx.era().tasks() == TaskModel::Extension
        && !ctx
            .client_capabilities()
            .supports_extension(TASKS_EXTENSION)
    {
        return Err(missing_extension());
    }
    Ok(())
}

/// The task `id` as its owner sees it; anyone else is told it does not exist.
async fn find(
    server: &McpServer,
    ctx: &RequestContext,
    id: &str,
) -> Result<TaskRecord, ErrorObject> {
    let record = server.inner.tasks.options.store.get(id).await?;
    record.filter(|r| r.owner == owner(ctx)).ok_or_else(|| {
        ErrorObject::invalid_params(format!("Failed to retrieve task: Task not found ({id})"))
    })
}

/// Of the tasks `ids` a `subscriptions/listen` asks to hear of (2026-07-28), those the caller
/// owns; a request that asks for any without declaring the extension is refused (`-32021`).
pub(super) async fn listenable(
    server: &McpServer,
    ctx: &RequestContext,
    ids: Vec<String>,
) -> Result<Vec<TaskRecord>, ErrorObject> {
    if !ctx
        .client_capabilities()
        .supports_extension(TASKS_EXTENSION)
    {
        return Err(missing_extension());
    }
    let mut owned = Vec::with_capacity(ids.len());
    for id in ids {
        if let Ok(record) = find(server, ctx, &id).await {
            owned.push(record);
        }
    }
    Ok(owned)
}

/// 2026-07-28: tells the listen stream `subscription` each new state of the tasks `records`
/// (`notifications/tasks`, carrying the task as `tasks/get` shows it) until every one has
/// ended or is gone, then waits for the stream to end. States that follow each other faster
/// than the stream reads them arrive as the latest of them. Each waits in the store
/// ([`TaskStore::changed`]), so that a task nobody follows costs no announcement, and a stream
/// hears of its tasks on whichever instance they run.
pub(super) async fn follow(
    server: &McpServer,
    records: Vec<TaskRecord>,
    subscription: &RequestId,
    sink: &SharedSink,
) {
    let store = &server.inner.tasks.options.store;
    let mut followers: FuturesUnordered<_> = records
        .into_iter()
        .map(|record| follow_task(store.as_ref(), record, subscription, sink))
        .collect();
    while followers.next().await.is_some() {}
    std::future::pending::<()>().await;
}

/// Follows one task from `record`, as [`follow`] does.
async fn follow_task(
    store: &dyn TaskStore,
    mut record: TaskRecord,
    subscription: &RequestId,
    sink: &SharedSink,
) {
    while !record.is_terminal() {
        let id = &record.task.task_id;
        store.changed(id, record.revision).await;
        match store.get(id).await {
            Ok(Some(now)) if now.revision > record.revision => record = now,
            Ok(Some(_)) => continue,
            Ok(None) => return,
            Err(error) => {
                tracing::debug!(task = %id, %error, "a listen stream could not read its task");
                crate::rt::sleep(FOLLOW_RETRY).await;
                continue;
            }
        }
        let state = ServerNotification::TaskState(detailed(record.clone()).into());
        // A client too far behind misses a state; the next one, or `tasks/get`, tells it.
        let _ = sink.send(Outbound::Stateless(super::listeners::stamp(
            state,
            subscription,
        )));
    }
}

/// `tasks/get`: the task's state; on 2026-07-28 with its outcome or what it waits for.
pub(super) async fn get(
    server: &McpServer,
    params: &TaskIdParams,
    ctx: &RequestContext,
) -> Result<TaskResult, ErrorObject> {
    check_available(server, ctx, "tasks/get")?;
    let record = find(server, ctx, &params.task_id).await?;
    Ok(detailed(record))
}

/// `tasks/result` (2025-11-25): waits for the task to end and answers with what its call would
/// have, tagged with the task. While it waits, the task's requests to the client travel on this
/// request's stream.
pub(super) async fn result(
    server: &McpServer,
    params: &TaskIdParams,
    ctx: &RequestContext,
) -> Result<mcp_runtime_core::messages::ServerResult, ErrorObject> {
    check_available(server, ctx, "tasks/result")?;
    let store = &server.inner.tasks.options.store;
    let mut record = find(server, ctx, &params.task_id).await?;
    let _stream = match (server.inner.tasks.running(&params.task_id), ctx.sink()) {
        (Some(link), Some(sink)) => Some(link.open_result_stream(sink.clone())),
        _ => None,
    };
    while !record.is_terminal() {
        tokio::select! {
            () = store.changed(&params.task_id, record.revision) => {}
            () = ctx.cancelled() => return Err(ErrorObject::internal_error("tasks/result was cancelled")),
        }
        record = find(server, ctx, &params.task_id).await?;
    }
    let related = serde_json::to_value(RelatedTaskMetadata::new(&params.task_id))
        .expect("related-task metadata serializes");
    match record.outcome {
        Some(TaskOutcome::Result(mut object)) => {
            let meta = object
                .entry("_meta")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.insert(RELATED_TASK.to_owned(), related);
            }
            Ok(mcp_runtime_core::messages::ServerResult::TaskPayload(
                object,
            ))
        }
        Some(TaskOutcome::Error(error)) => Err(error),
        None => Err(ErrorObject::invalid_params(format!(
            "Task {} was cancelled before it produced a result",
            params.task_id
        ))),
    }
}

/// `tasks/list` (2025-11-25): one page of the caller's tasks; none for a caller without a
/// session or a token, whom the server cannot tell from others.
pub(super) async fn list(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
) -> Result<ListTasksResult, ErrorObject> {
    check_available(server, ctx, "tasks/list")?;
    let owner = owner(ctx);
    if owner == ANYONE {
        // A caller the server cannot tell from others may not see their tasks: it knows the ids
        // of its own.
        return Ok(ListTasksResult::new(Vec::new()));
    }
    let options = &server.inner.tasks.options;
    let after = match params.cursor.as_deref() {
        None => None,
        Some(cursor) => {
            // A cursor is the id of the last task of the previous page, which must still be the
            // caller's.
            find(server, ctx, cursor)
                .await
                .map_err(|_| ErrorObject::invalid_params(format!("Invalid cursor: {cursor}")))?;
            Some(cursor)
        }
    };
    let page = options.store.list(&owner, after, options.page_size).await?;
    let mut result = ListTasksResult::new(page.tasks);
    result.next_cursor = page.next;
    Ok(result)
}

/// `tasks/cancel`: cancels the task. 2025-11-25 answers with the cancelled task and refuses one
/// that already ended (`-32602`); 2026-07-28 acknowledges, whatever the task's state.
pub(super) async fn cancel(
    server: &McpServer,
    params: &TaskIdParams,
    ctx: &RequestContext,
) -> Result<mcp_runtime_core::messages::ServerResult, ErrorObject> {
    check_available(server, ctx, "tasks/cancel")?;
    let record = find(server, ctx, &params.task_id).await?;
    let model = ctx.era().tasks();
    if record.is_terminal() && model == TaskModel::Core {
        return Err(ErrorObject::invalid_params(format!(
            "Cannot cancel task: already in terminal status '{}'",
            serde_json::to_value(record.task.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        )));
    }
    let store = &server.inner.tasks.options.store;
    let cancelled = store.update(&params.task_id, TaskChange::Cancel).await?;
    if let Some(link) = server.inner.tasks.running(&params.task_id) {
        link.token().cancel();
        if let Some(record) = &cancelled {
            link.announce(record);
        }
    }
    if model == TaskModel::Extension {
        return Ok(EmptyResult::default().into());
    }
    let record = cancelled.unwrap_or(record);
    Ok(TaskResult::new(record.task).into())
}

/// `tasks/update` (2026-07-28): hands the client's answers to the task. Answers under keys the
/// task does not wait for are ignored.
pub(super) async fn update(
    server: &McpServer,
    params: UpdateTaskParams,
    ctx: &RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    check_available(server, ctx, "tasks/update")?;
    let record = find(server, ctx, &params.task_id).await?;
    let mut responses = mcp_runtime_core::input::InputResponses::new();
    for (key, value) in params.input_responses {
        if !record.input_requests.contains_key(&key) {
            continue;
        }
        let response = serde_json::from_value::<InputResponse>(value).map_err(|e| {
            ErrorObject::invalid_params(format!("inputResponses[{key:?}] is not an answer: {e}"))
        })?;
        responses.insert(key, response);
    }
    if !responses.is_empty() {
        let store = &server.inner.tasks.options.store;
        let answered = store
            .update(&params.task_id, TaskChange::Answer { responses })
            .await?;
        if let (Some(link), Some(record)) = (server.inner.tasks.running(&params.task_id), answered)
        {
            link.announce(&record);
        }
    }
    Ok(EmptyResult::default())
}
