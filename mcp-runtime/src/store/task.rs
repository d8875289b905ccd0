//! Where tasks are kept: their state, their outcome, and the input they wait for.
//!
//! A task is a [`TaskRecord`]: the protocol's [`Task`] (id, status, timestamps, TTL, poll
//! interval), the caller it belongs to, its outcome once it ended, and the input requests it has
//! outstanding and the answers the client gave. Everything in a record is plain data, so that a
//! store on a shared system (Redis, say) can keep it; the work a task runs stays in the process
//! that started it.
//!
//! A store applies each change ([`TaskChange`]) atomically and enforces the lifecycle: a task
//! that ended (`completed`, `failed`, `cancelled`) never changes again. It is bounded: each owner
//! (a session or an authenticated principal) runs at most [`TaskLimits::per_owner`] tasks that
//! have not ended, and the store keeps at most [`TaskLimits::total`] tasks; beyond either, a new
//! task is refused. A task is forgotten once its TTL has passed since its creation, and never
//! before: the TTL a task states is a promise, so no task is evicted to make room.
//!
//! [`InMemoryTaskStore`] is the default.

use crate::rt::{SystemTime, UNIX_EPOCH};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::input::{InputRequest, InputRequests, InputResponses};
use mcp_runtime_core::tasks::{Task, TaskStatus};
use mcp_runtime_core::{JsonObject, ProtocolVersion};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::StoreFuture;

/// A task as a store keeps it. It serializes to JSON (with serde) for a store that keeps records
/// outside the process; [`Task`]'s durations are read under either revision's names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task as the protocol shows it.
    pub task: Task,
    /// Who may see it: a session or an authenticated principal (see [`TaskRecord::owner`]).
    pub owner: String,
    /// The revision of the request that created it, which its outcome is rendered for.
    pub version: ProtocolVersion,
    /// How it ended, once it has.
    pub outcome: Option<TaskOutcome>,
    /// What it waits for from the client, by key.
    pub input_requests: InputRequests,
    /// The client's answers not yet taken by the task, by key.
    pub input_responses: InputResponses,
    /// When it may be forgotten.
    pub expires_at: SystemTime,
    /// Counts the changes, so that a waiter can tell a new state from one it saw.
    pub revision: u64,
}

impl TaskRecord {
    /// A new `working` task created now by `owner` for a request of `version`, kept for `ttl`.
    pub fn new(task: Task, owner: String, version: ProtocolVersion, ttl: Duration) -> Self {
        TaskRecord {
            task,
            owner,
            version,
            outcome: None,
            input_requests: InputRequests::new(),
            input_responses: InputResponses::new(),
            // A TTL beyond what the clock can count never expires.
            expires_at: SystemTime::now()
                .checked_add(ttl)
                .unwrap_or(UNIX_EPOCH + Duration::from_secs(i64::MAX as u64 / 2)),
            revision: 0,
        }
    }

    /// Whether the task has ended.
    pub fn is_terminal(&self) -> bool {
        self.task.status.is_terminal()
    }
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskOutcome {
    /// The request's result, rendered for the task's revision.
    Result(JsonObject),
    /// The JSON-RPC error the request ended with.
    Error(ErrorObject),
}

/// A change to a task, applied atomically by the store.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskChange {
    /// The task ended with `status` (`completed` or `failed`) and `outcome`.
    Finish {
        /// `completed` or `failed`.
        status: TaskStatus,
        /// The outcome.
        outcome: TaskOutcome,
        /// A word on it.
        message: Option<String>,
    },
    /// The client asked to cancel the task.
    Cancel,
    /// The task asks the client for `request` under `key`; it is `input_required` until answered.
    Ask {
        /// The key of the request in `inputRequests`.
        key: String,
        /// What is asked.
        request: Box<InputRequest>,
    },
    /// The task asks the client through a request of its own (2025-11-25): `input_required`
    /// while `waiting`, `working` again after.
    Waiting {
        /// Whether the task waits.
        waiting: bool,
    },
    /// The client answered: each response whose key is outstanding is kept for the task, others
    /// are ignored. The task is `working` again once nothing is outstanding.
    Answer {
        /// The answers by key.
        responses: InputResponses,
    },
    /// The task took the answer under `key`.
    Take {
        /// The key.
        key: String,
    },
    /// The task reports how far it got, as its status message.
    Progress {
        /// The message.
        message: String,
    },
}

/// The bounds of a store (see [`store`](crate::store)'s `TaskStore`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLimits {
    /// The most tasks one owner runs at once (those that have not ended).
    pub per_owner: usize,
    /// The most tasks the store keeps, ended or not.
    pub total: usize,
}

impl TaskLimits {
    /// At most `per_owner` running tasks per owner and `total` kept in all.
    pub fn new(per_owner: usize, total: usize) -> Self {
        TaskLimits { per_owner, total }
    }
}

/// Why a store could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The owner runs as many tasks as it may.
    #[error(
        "too many tasks: this caller already runs {limit} that have not ended; wait for one to end or cancel one"
    )]
    TooManyRunning {
        /// The limit.
        limit: usize,
    },
    /// The store keeps as many tasks as it may, until some reach the end of their TTL.
    #[error("too many tasks: the server keeps {limit} until their TTL passes; try again later")]
    Full {
        /// The limit.
        limit: usize,
    },
    /// The store could not be reached.
    #[error("the task store is unavailable: {0}")]
    Unavailable(String),
}

impl From<TaskStoreError> for ErrorObject {
    fn from(error: TaskStoreError) -> Self {
        ErrorObject::internal_error(error.to_string())
    }
}

/// One page of an owner's tasks, oldest first.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskPage {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// The id to start the next page after, when there is one.
    pub next: Option<String>,
}

/// Storage of tasks.
///
/// A store applies each change atomically and keeps the lifecycle: a task that ended never
/// changes again. It refuses a new task when its owner runs [`TaskLimits::per_owner`] tasks that
/// have not ended, or when it keeps [`TaskLimits::total`] tasks; it forgets a task once the TTL
/// it states has passed, and never before. Records are plain data: a shared store (Redis, say)
/// keeps them, and [`changed`](Self::changed) tells waiters of any instance of a change.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps `record`, a new task, within `limits`.
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> StoreFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id`, unless unknown or expired.
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `change` to the task `id` and returns it as it is now; `None` when unknown or
    /// expired. A change that the task's state does not allow (any change to an ended task, an
    /// answer to nothing outstanding) leaves it as it was.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `change` to the task that this instance knows as `known` (as it created it), as
    /// [`update`](Self::update) does. A store that checks revisions may write without reading
    /// first, and read only when the task moved past `known`'s revision meanwhile; the default
    /// reads first, as `update` does.
    fn update_known<'a>(
        &'a self,
        known: &'a TaskRecord,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        self.update(&known.task.task_id, change)
    }

    /// Up to `limit` tasks of `owner`, oldest first, starting after the task `after`.
    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<TaskPage, TaskStoreError>>;

    /// Completes once the task `id` has changed past `revision`, or is gone.
    fn changed<'a>(&'a self, id: &'a str, revision: u64) -> StoreFuture<'a, ()>;
}

/// A [`TaskStore`] in this process's memory.
#[derive(Default)]
pub struct InMemoryTaskStore {
    inner: Mutex<Tasks>,
}

#[derive(Default)]
struct Tasks {
    records: HashMap<Arc<str>, Entry>,
    /// Every task by creation order, to page and to find the oldest.
    order: BTreeMap<u64, Arc<str>>,
    /// Every task by expiry, so that expiring costs only the tasks that expire.
    by_expiry: BTreeMap<(SystemTime, u64), Arc<str>>,
    /// How many tasks that have not ended each owner runs.
    running: HashMap<String, usize>,
    next: u64,
}

struct Entry {
    record: TaskRecord,
    seq: u64,
    changed: Arc<Notify>,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Tasks {
    /// Forgets the tasks whose TTL has passed.
    fn expire(&mut self, now: SystemTime) {
        while let Some(entry) = self.by_expiry.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let id = entry.remove();
            self.remove(&id);
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some(entry) = self.records.remove(id) {
            self.order.remove(&entry.seq);
            self.by_expiry.remove(&(entry.record.expires_at, entry.seq));
            if !entry.record.is_terminal() {
                self.ended(&entry.record.owner);
            }
            entry.changed.notify_waiters();
        }
    }

    /// Counts a task of `owner` as no longer running.
    fn ended(&mut self, owner: &str) {
        if let Some(count) = self.running.get_mut(owner) {
            *count -= 1;
            if *count == 0 {
                self.running.remove(owner);
            }
        }
    }
}

/// `at` as the protocol writes timestamps (RFC 3339, UTC, milliseconds).
pub(crate) fn timestamp(at: SystemTime) -> String {
    // From the time since the epoch: on WebAssembly `at` is the host's clock, not std's.
    let since_epoch = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let at = time::OffsetDateTime::UNIX_EPOCH + since_epoch;
    let at = at
        .replace_nanosecond(at.millisecond() as u32 * 1_000_000)
        .unwrap_or(at);
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Applies `change` to `record`; whether it changed. Every store applies changes with this, so
/// that the lifecycle is the same whichever keeps the records.
pub(crate) fn apply(record: &mut TaskRecord, change: TaskChange) -> bool {
    if record.is_terminal() {
        return false;
    }
    let task = &mut record.task;
    match change {
        TaskChange::Finish {
            status,
            outcome,
            message,
        } => {
            task.status = status;
            task.status_message = message;
            record.outcome = Some(outcome);
            record.input_requests.clear();
            record.input_responses.clear();
        }
        TaskChange::Cancel => {
            task.status = TaskStatus::Cancelled;
            task.status_message = Some("The task was cancelled by request.".into());
            record.input_requests.clear();
            record.input_responses.clear();
        }
        TaskChange::Ask { key, request } => {
            record.input_requests.insert(key, *request);
            task.status = TaskStatus::InputRequired;
        }
        TaskChange::Waiting { waiting } => {
            task.status = if waiting {
                TaskStatus::InputRequired
            } else {
                TaskStatus::Working
            };
        }
        TaskChange::Answer { responses } => {
            let mut answered = false;
            for (key, response) in responses {
                if record.input_requests.shift_remove(&key).is_some() {
                    record.input_responses.insert(key, response);
                    answered = true;
                }
            }
            if !answered {
                return false;
            }
            if record.input_requests.is_empty() {
                task.status = TaskStatus::Working;
            }
        }
        TaskChange::Take { key } => {
            if record.input_responses.shift_remove(&key).is_none() {
                return false;
            }
        }
        TaskChange::Progress { message } => {
            if task.status_message.as_ref() == Some(&message) {
                return false;
            }
            task.status_message = Some(message);
        }
    }
    record.task.last_updated_at = timestamp(SystemTime::now());
    true
}

impl TaskStore for InMemoryTaskStore {
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        let mut tasks = self.inner.lock();
        tasks.expire(SystemTime::now());
        let running = tasks.running.get(&record.owner).copied().unwrap_or(0);
        let room = if running >= limits.per_owner {
            Err(TaskStoreError::TooManyRunning {
                limit: limits.per_owner,
            })
        } else if tasks.records.len() >= limits.total {
            Err(TaskStoreError::Full {
                limit: limits.total,
            })
        } else {
            Ok(())
        };
        if room.is_ok() {
            let id: Arc<str> = record.task.task_id.as_str().into();
            let seq = tasks.next;
            tasks.next += 1;
            tasks.order.insert(seq, id.clone());
            tasks.by_expiry.insert((record.expires_at, seq), id.clone());
            *tasks.running.entry(record.owner.clone()).or_insert(0) += 1;
            tasks.records.insert(
                id,
                Entry {
                    record,
                    seq,
                    changed: Arc::new(Notify::new()),
                },
            );
        }
        Box::pin(std::future::ready(room))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let mut tasks = self.inner.lock();
        tasks.expire(SystemTime::now());
        let record = tasks.records.get(id).map(|e| e.record.clone());
        Box::pin(std::future::ready(Ok(record)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let mut tasks = self.inner.lock();
        tasks.expire(SystemTime::now());
        let mut ended = None;
        let record = tasks.records.get_mut(id).map(|entry| {
            if apply(&mut entry.record, change) {
                entry.record.revision += 1;
                entry.changed.notify_waiters();
                if entry.record.is_terminal() {
                    ended = Some(entry.record.owner.clone());
                }
            }
            entry.record.clone()
        });
        if let Some(owner) = ended {
            tasks.ended(&owner);
        }
        Box::pin(std::future::ready(Ok(record)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<TaskPage, TaskStoreError>> {
        let mut tasks = self.inner.lock();
        tasks.expire(SystemTime::now());
        let start = after
            .and_then(|id| tasks.records.get(id))
            .map_or(0, |e| e.seq + 1);
        let mut owned = tasks
            .order
            .range(start..)
            .filter_map(|(_, id)| tasks.records.get(id))
            .filter(|e| e.record.owner == owner);
        let page: Vec<Task> = owned
            .by_ref()
            .take(limit.max(1))
            .map(|e| e.record.task.clone())
            .collect();
        let next = owned
            .next()
            .and(page.last())
            .map(|last| last.task_id.clone());
        Box::pin(std::future::ready(Ok(TaskPage { tasks: page, next })))
    }

    fn changed<'a>(&'a self, id: &'a str, revision: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let notify = {
                let tasks = self.inner.lock();
                match tasks.records.get(id) {
                    Some(e) if e.record.revision <= revision => e.changed.clone(),
                    _ => return,
                }
            };
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // A change between reading the revision and enabling the waiter is seen here.
            let moved = {
                let tasks = self.inner.lock();
                tasks
                    .records
                    .get(id)
                    .is_none_or(|e| e.record.revision > revision)
            };
            if !moved {
                notified.await;
            }
        })
    }
}
