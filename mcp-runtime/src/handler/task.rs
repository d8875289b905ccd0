//! A tool call that runs as a task, as its handler's [`RequestContext`] sees it.
//!
//! A call that may become a task carries a [`TaskPlan`]: when it becomes one (at once, after a
//! grace period, or when the handler calls [`RequestContext::start_task`]), the server creates
//! the task, answers the call with the task's id, and attaches a [`TaskLink`] to the context.
//! From then on the handler runs in the background and its context talks to the task instead of
//! the request:
//!
//! - progress and log messages go to the session, tagged with the task's related-task `_meta`
//!   (2025-11-25; the request's stream has ended), or nowhere (2026-07-28, whose tasks carry
//!   none);
//! - a request to the client (`ctx.elicit`, `ctx.sample`, `ctx.list_roots`) moves the task to
//!   `input_required` until the answer comes. On 2025-11-25 the request is sent, tagged with the
//!   task, on the stream of a waiting `tasks/result` (or the session's); on 2026-07-28 it is
//!   listed in the task's `inputRequests` and answered by `tasks/update`.
//! - cancellation is the task's: `tasks/cancel` fires it, the request ending does not.
//!
//! Each change of the task's status is announced to the session once (2025-11-25's
//! `notifications/tasks/status`); a change the store refused (the task had already ended) is not.
//! On 2026-07-28 nothing is announced from here: the `subscriptions/listen` streams that asked
//! for the task follow it in the store, on whichever instance they are.
//!
//! The guide's chapter "Tasks" (`docs/src/tasks.md`) teaches it with examples.
//!
//! [`RequestContext`]: crate::handler::RequestContext
//! [`RequestContext::start_task`]: crate::handler::RequestContext::start_task

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime_core::input::{InputRequest, InputResponse};
use mcp_runtime_core::messages::{ServerNotification, ServerRequest};
use mcp_runtime_core::tasks::{RelatedTaskMetadata, TaskStatusNotificationParams};
use mcp_runtime_core::{Asking, ProtocolVersion, TaskModel};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::client_request::ClientRequestError;
use super::host::Host;
use crate::connection::{
    ConnectionState, MessageSink, Outbound, PeerGone, PeerRequestError, SendFuture, SharedSink,
};
use crate::store::{TaskChange, TaskRecord, TaskStore};

/// When a call that may run as a task becomes one (2026-07-28, where the server decides; on
/// 2025-11-25 the client asked for a task and gets it at once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskStart {
    /// Before the handler runs (the default).
    #[default]
    Immediately,
    /// When the handler has run this long: one that ends sooner answers the call itself (the
    /// immediate-result shortcut), and one that asks for input sooner does so in the call's own
    /// input-required rounds.
    After(Duration),
    /// Only when the handler calls [`RequestContext::start_task`]: what it asks for before, it
    /// asks in the call's own input-required rounds.
    ///
    /// [`RequestContext::start_task`]: crate::handler::RequestContext::start_task
    Explicitly,
}

/// How a call that may become a task will: decided by the dispatcher, read by the tool feature.
#[derive(Debug)]
pub(crate) struct TaskPlan {
    /// When.
    pub(crate) start: TaskStart,
    /// The TTL the client asked for, in milliseconds (2025-11-25).
    pub(crate) requested_ttl: Option<u64>,
    /// The request's own cancellation, which ends the call only while it is not a task.
    pub(crate) request_token: CancellationToken,
    /// Rung by `RequestContext::start_task`.
    pub(crate) requested: Notify,
    /// Whether the call became a task: `None` while undecided.
    pub(crate) started: watch::Sender<Option<bool>>,
}

impl TaskPlan {
    pub(crate) fn new(
        start: TaskStart,
        requested_ttl: Option<u64>,
        request_token: CancellationToken,
    ) -> Self {
        TaskPlan {
            start,
            requested_ttl,
            request_token,
            requested: Notify::new(),
            started: watch::channel(None).0,
        }
    }

    /// Completes when the call should become a task (never for one that starts immediately:
    /// the caller does not wait for that).
    pub(crate) async fn due(&self) {
        match self.start {
            TaskStart::Immediately => {}
            TaskStart::After(grace) => {
                tokio::select! {
                    () = crate::rt::sleep(grace) => {}
                    () = self.requested.notified() => {}
                }
            }
            TaskStart::Explicitly => self.requested.notified().await,
        }
    }
}

/// The shortest time a 2025-11-25 task's request to the client waits for a `tasks/result` to
/// carry it before it goes to the session's stream.
const MIN_STREAM_GRACE: Duration = Duration::from_secs(1);

/// The parts a [`TaskLink`] is made of, filled in by the server when it creates the task.
pub(crate) struct TaskLinkParts {
    /// The task as it was created (its id, its first revision).
    pub(crate) created: TaskRecord,
    pub(crate) store: Arc<dyn TaskStore>,
    /// The revision of the call that created the task.
    pub(crate) version: ProtocolVersion,
    /// Fires on `tasks/cancel`.
    pub(crate) token: CancellationToken,
    /// 2025-11-25: the session's sink.
    pub(crate) session: Option<SharedSink>,
    /// The poll interval the client was given: a 2025-11-25 client that polls sees
    /// `input_required` within it, and opens a `tasks/result`.
    pub(crate) poll_interval: Duration,
}

/// What the context of a call that became a task holds of the task.
pub(crate) struct TaskLink {
    /// The task as it was created: its id, and the record its end is written over while no
    /// other change came between ([`TaskStore::update_known`]).
    created: TaskRecord,
    store: Arc<dyn TaskStore>,
    /// The revision of the call that created the task.
    version: ProtocolVersion,
    /// Fires on `tasks/cancel`.
    token: CancellationToken,
    /// 2025-11-25: the session's sink, for requests to the client when no `tasks/result` waits.
    session: Option<SharedSink>,
    /// 2025-11-25: the session's sink as the handler sees it, for its progress and logs: what
    /// goes through it is tagged with the task.
    tagged: Option<SharedSink>,
    /// The last revision of the task announced to the session.
    announced: AtomicU64,
    /// 2025-11-25: the streams of the `tasks/result` requests waiting for the task, by request.
    result_streams: Mutex<Vec<(u64, SharedSink)>>,
    /// Rung when a `tasks/result` opens a stream.
    stream_opened: Notify,
    /// How long a request to the client waits for a `tasks/result` to carry it.
    stream_grace: Duration,
    /// 2026-07-28: how many automatic input keys of each method the task took.
    counters: Mutex<HashMap<&'static str, u32>>,
    /// 2025-11-25: how many requests to the client are waiting for an answer.
    waiting: AtomicUsize,
}

impl std::fmt::Debug for TaskLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink")
            .field("id", &self.id())
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl TaskLink {
    pub(crate) fn new(parts: TaskLinkParts) -> Self {
        let TaskLinkParts {
            created,
            store,
            version,
            token,
            session,
            poll_interval,
        } = parts;
        let tagged = session.clone().map(|session| {
            Arc::new(TaskSink {
                session,
                id: created.task.task_id.clone(),
            }) as SharedSink
        });
        TaskLink {
            created,
            store,
            version,
            token,
            session,
            tagged,
            announced: AtomicU64::new(0),
            result_streams: Mutex::new(Vec::new()),
            stream_opened: Notify::new(),
            stream_grace: (poll_interval * 2).max(MIN_STREAM_GRACE),
            counters: Mutex::new(HashMap::new()),
            waiting: AtomicUsize::new(0),
        }
    }

    /// The task as it was created.
    pub(crate) fn created(&self) -> &TaskRecord {
        &self.created
    }

    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.created.task.task_id
    }

    /// The revision of the call that created the task.
    pub(crate) fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The token `tasks/cancel` fires.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// How the revision of the call runs its task.
    fn model(&self) -> TaskModel {
        self.version.era().tasks()
    }

    /// Where the handler's progress and logs go: the session, tagged with the task (2025-11-25),
    /// or nowhere.
    pub(crate) fn sink(&self) -> Option<&SharedSink> {
        self.tagged
            .as_ref()
            .filter(|_| self.model() == TaskModel::Core)
    }

    /// Tells the session of the task's new state (2025-11-25, `notifications/tasks/status`),
    /// once per revision: a change the store refused leaves the revision, and says nothing.
    pub(crate) fn announce(&self, record: &TaskRecord) {
        let Some(session) = self
            .session
            .as_ref()
            .filter(|_| self.model() == TaskModel::Core)
        else {
            return;
        };
        if self.announced.fetch_max(record.revision, Ordering::AcqRel) < record.revision {
            let params = TaskStatusNotificationParams::new(record.task.clone());
            // A client too far behind misses a status it will read when it polls.
            let _ = session.send(Outbound::Notification(ServerNotification::TaskStatus(
                params,
            )));
        }
    }

    /// Whether the handler's progress becomes the task's status message: on 2026-07-28, whose
    /// tasks carry no progress notifications.
    pub(crate) fn reports_progress_as_status(&self) -> bool {
        self.model() == TaskModel::Extension
    }

    /// Makes `message` the task's status message (what `tasks/get` shows while it works).
    pub(crate) async fn progress(&self, message: String) {
        if let Err(error) = self.change(TaskChange::Progress { message }).await {
            tracing::debug!(task = %self.id(), %error, "the task's progress was not recorded");
        }
    }

    /// Applies `change` to the task and announces its new state when it moved.
    async fn change(&self, change: TaskChange) -> Result<Option<TaskRecord>, ClientRequestError> {
        let record =
            self.store
                .update(self.id(), change)
                .await
                .map_err(|e| ClientRequestError::Task {
                    detail: e.to_string(),
                })?;
        if let Some(record) = &record {
            self.announce(record);
        }
        Ok(record)
    }

    /// Lets a `tasks/result` request (`request`, sending on `sink`) carry the task's requests to
    /// the client while it waits; [`ResultStream`] ends that when dropped.
    pub(crate) fn open_result_stream(self: &Arc<Self>, sink: SharedSink) -> ResultStream {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let key = NEXT.fetch_add(1, Ordering::Relaxed) as u64;
        self.result_streams.lock().push((key, sink));
        self.stream_opened.notify_waiters();
        ResultStream {
            link: self.clone(),
            key,
        }
    }

    /// Asks the client for `request` for a handler that `host` runs on `connection`, and waits
    /// for the answer.
    pub(crate) async fn ask(
        &self,
        host: &dyn Host,
        connection: &ConnectionState,
        key: Option<&str>,
        mut request: InputRequest,
    ) -> Result<Value, ClientRequestError> {
        let method = request.method();
        if self.version.era().asks_client() == Asking::Request {
            request
                .meta_mut()
                .get_or_insert_with(Default::default)
                .related_task = Some(RelatedTaskMetadata::new(self.id()));
            return self.ask_by_request(host, connection, request).await;
        }
        let key = key.map_or_else(
            || {
                let mut counters = self.counters.lock();
                let n = counters.entry(method).or_insert(0);
                *n += 1;
                format!("{method}#{n}")
            },
            str::to_owned,
        );
        self.ask_by_input_request(key, request).await
    }

    /// 2025-11-25: moves the task to `input_required` and sends `request` on the stream of a
    /// waiting `tasks/result` (the spec has a client that sees `input_required` open one), else,
    /// when none opens within a couple of poll intervals, on the session's.
    async fn ask_by_request(
        &self,
        host: &dyn Host,
        connection: &ConnectionState,
        request: InputRequest,
    ) -> Result<Value, ClientRequestError> {
        let method = request.method();
        if self.waiting.fetch_add(1, Ordering::AcqRel) == 0 {
            self.change(TaskChange::Waiting { waiting: true }).await?;
        }
        let answer = match self.result_stream().await {
            Some(sink) => self.send(host, connection, &sink, request).await,
            None => Err(ClientRequestError::NoChannel { method }),
        };
        if self.waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.change(TaskChange::Waiting { waiting: false }).await?;
        }
        answer
    }

    /// The stream of a waiting `tasks/result`, once one opens; the session's when none does
    /// within the grace period (or the task is cancelled).
    async fn result_stream(&self) -> Option<SharedSink> {
        let newest = || self.result_streams.lock().last().map(|(_, s)| s.clone());
        let opened = self.stream_opened.notified();
        tokio::pin!(opened);
        opened.as_mut().enable();
        if let Some(sink) = newest() {
            return Some(sink);
        }
        tokio::select! {
            () = opened => {}
            () = crate::rt::sleep(self.stream_grace) => {}
            () = self.token.cancelled() => {}
        }
        newest().or_else(|| self.session.clone())
    }

    /// Sends `request` to the client on `sink` and waits for its answer.
    async fn send(
        &self,
        host: &dyn Host,
        connection: &ConnectionState,
        sink: &SharedSink,
        request: InputRequest,
    ) -> Result<Value, ClientRequestError> {
        let method = request.method();
        let request = ServerRequest::from(request);
        let timeout = host.client_request_timeout(&request);
        connection
            .send_request(sink, request, &self.token, timeout)
            .await
            .map_err(|source| ClientRequestError::Peer { method, source })
    }

    /// 2026-07-28: lists `request` under `key` in the task's `inputRequests` and waits for the
    /// `tasks/update` that answers it.
    async fn ask_by_input_request(
        &self,
        key: String,
        request: InputRequest,
    ) -> Result<Value, ClientRequestError> {
        let method = request.method();
        let gone = || ClientRequestError::Peer {
            method,
            source: PeerRequestError::Cancelled,
        };
        let mut record = self
            .change(TaskChange::Ask {
                key: key.clone(),
                request: Box::new(request),
            })
            .await?
            .ok_or_else(gone)?;
        loop {
            if record.is_terminal() {
                return Err(gone());
            }
            if let Some(answer) = record.input_responses.get(&key).cloned() {
                self.change(TaskChange::Take { key }).await?;
                return answer_value(method, answer);
            }
            tokio::select! {
                () = self.store.changed(self.id(), record.revision) => {}
                () = self.token.cancelled() => return Err(gone()),
            }
            record = self
                .store
                .get(self.id())
                .await
                .map_err(|e| ClientRequestError::Task {
                    detail: e.to_string(),
                })?
                .ok_or_else(gone)?;
        }
    }
}

fn answer_value(method: &'static str, answer: InputResponse) -> Result<Value, ClientRequestError> {
    serde_json::to_value(answer).map_err(|e| ClientRequestError::InvalidAnswer {
        method,
        detail: e.to_string(),
    })
}

/// The session's sink as the handler of a 2025-11-25 task sees it: each notification it sends
/// (progress, logs) carries the task's related-task `_meta`, as every message about a task must.
struct TaskSink {
    session: SharedSink,
    id: String,
}

impl TaskSink {
    fn tagged(&self, message: Outbound) -> Outbound {
        match message {
            Outbound::Notification(mut notification) => {
                tag(&mut notification, &self.id);
                Outbound::Notification(notification)
            }
            other => other,
        }
    }
}

impl MessageSink for TaskSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        self.session.send(self.tagged(message))
    }

    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        self.session.send_when_ready(self.tagged(message))
    }
}

/// Marks `notification`, one a handler sends, as about the task `id`.
fn tag(notification: &mut ServerNotification, id: &str) {
    let meta = match notification {
        ServerNotification::Progress(params) => &mut params.meta,
        ServerNotification::LoggingMessage(params) => &mut params.meta,
        ServerNotification::ElicitationComplete(params) => &mut params.meta,
        _ => return,
    };
    meta.get_or_insert_with(Default::default).related_task = Some(RelatedTaskMetadata::new(id));
}

/// A `tasks/result` request's hold on the task's requests to the client; released when dropped.
pub(crate) struct ResultStream {
    link: Arc<TaskLink>,
    key: u64,
}

impl Drop for ResultStream {
    fn drop(&mut self) {
        self.link
            .result_streams
            .lock()
            .retain(|(key, _)| *key != self.key);
    }
}
