//! Tasks: requests that run in the background and are polled for their outcome.
//!
//! Two wire forms exist, and the types here render either one for their target revision, as
//! [`crate::render`] describes:
//!
//! - **2025-11-25** (SEP-1686). A request carrying `task` params answers at once with a
//!   [`CreateTaskResult`] (`{"task": {...}}`); the requester polls `tasks/get`, fetches the
//!   outcome with `tasks/result`, and may `tasks/cancel` or `tasks/list`. Durations are `ttl` and
//!   `pollInterval`.
//! - **2026-07-28**, the `io.modelcontextprotocol/tasks` extension ([`TASKS_EXTENSION`],
//!   SEP-2663). The server decides: a `tools/call` from a client that declares the extension may
//!   answer with a flat [`CreateTaskResult`] (`resultType: "task"`). `tasks/get` inlines the
//!   outcome ([`TaskResult::result`], [`TaskResult::error`]) and what the task waits for
//!   ([`TaskResult::input_requests`]), `tasks/update` ([`UpdateTaskParams`]) answers it, and
//!   `tasks/cancel` is acknowledged with an empty result. Durations are `ttlMs` and
//!   `pollIntervalMs`; `tasks/result` and `tasks/list` do not exist.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::JsonObject;
use crate::error::ErrorObject;
use crate::input::{InputRequests, InputResponses};
use crate::meta::{NotificationMeta, RequestMeta, ResultMeta};
use crate::params::Cursor;
use crate::render::{self, skip};
use crate::result::ResultType;
use crate::version::ProtocolVersion;

/// The identifier of the tasks extension (2026-07-28), declared under `extensions` by a server
/// in `server/discover` and by a client in each request's capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key of a `CreateTaskResult` whose string a host may hand the model at once while
/// the task runs (2025-11-25, provisional).
pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";

/// The `resultType` of a [`CreateTaskResult`] (2026-07-28).
pub const TASK_RESULT_TYPE: &str = "task";

/// Asks for a request to run as a task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskMetadata {
    /// How long to keep the task's outcome after it ends, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Marks a message as belonging to a task (`_meta["io.modelcontextprotocol/related-task"]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// The task.
    pub task_id: String,
}

impl RelatedTaskMetadata {
    /// The task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        RelatedTaskMetadata {
            task_id: task_id.into(),
        }
    }
}

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for input from the requester.
    InputRequired,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The state of a task.
///
/// Its durations are `ttl` and `pollInterval` for 2025-11-25 and `ttlMs` and `pollIntervalMs` for
/// 2026-07-28 (both are read either way).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Its id.
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A human-readable word on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the task is kept from its creation, in milliseconds; `null` for unlimited.
    #[serde(default, alias = "ttlMs")]
    pub ttl: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, alias = "pollIntervalMs")]
    pub poll_interval: Option<u64>,
}

impl Task {
    /// Writes the task's fields into `map`, named for the rendering target.
    fn serialize_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let extension = render::target() >= ProtocolVersion::V2026_07_28;
        map.serialize_entry("taskId", &self.task_id)?;
        map.serialize_entry("status", &self.status)?;
        if let Some(message) = &self.status_message {
            map.serialize_entry("statusMessage", message)?;
        }
        map.serialize_entry("createdAt", &self.created_at)?;
        map.serialize_entry("lastUpdatedAt", &self.last_updated_at)?;
        map.serialize_entry(if extension { "ttlMs" } else { "ttl" }, &self.ttl)?;
        if let Some(interval) = self.poll_interval {
            let key = if extension {
                "pollIntervalMs"
            } else {
                "pollInterval"
            };
            map.serialize_entry(key, &interval)?;
        }
        Ok(())
    }
}

impl Serialize for Task {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.serialize_fields(&mut map)?;
        map.end()
    }
}

impl Task {
    /// The task `task_id` in `status`, created and last updated at `created_at`.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
    ) -> Self {
        let created_at = created_at.into();
        Task {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl: None,
            poll_interval: None,
        }
    }
}

/// The immediate answer to a request run as a task: `{"task": {...}}` for 2025-11-25, the task's
/// fields with `resultType: "task"` for 2026-07-28.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The task that was created.
    pub task: Task,
    /// Metadata.
    pub meta: Option<ResultMeta>,
}

impl Serialize for CreateTaskResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if render::target() >= ProtocolVersion::V2026_07_28 {
            map.serialize_entry("resultType", TASK_RESULT_TYPE)?;
            self.task.serialize_fields(&mut map)?;
        } else {
            map.serialize_entry("task", &self.task)?;
        }
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for CreateTaskResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut value = JsonObject::deserialize(deserializer)?;
        let meta = match value.remove("_meta") {
            Some(meta) => Some(serde_json::from_value(meta).map_err(D::Error::custom)?),
            None => None,
        };
        // 2025-11-25 nests the task; 2026-07-28 flattens it into the result.
        let task = match value.remove("task") {
            Some(task @ Value::Object(_)) => task,
            _ => Value::Object(value),
        };
        let task = serde_json::from_value(task).map_err(D::Error::custom)?;
        Ok(CreateTaskResult { task, meta })
    }
}

impl CreateTaskResult {
    /// The answer announcing `task`.
    pub fn new(task: Task) -> Self {
        CreateTaskResult { task, meta: None }
    }
}

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl TaskIdParams {
    /// The params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams {
            task_id: task_id.into(),
            meta: None,
        }
    }
}

/// The result of `tasks/get` (and of 2025-11-25's `tasks/cancel`): the task's state. For
/// 2026-07-28 it is the detailed task, which inlines the outcome of an ended task and what an
/// `input_required` one waits for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskResult {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The result of the task's request, once `completed` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the task's request ended with, once `failed` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub error: Option<ErrorObject>,
    /// What the task waits for from the client, while `input_required` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub input_requests: Option<InputRequests>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// `complete` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl TaskResult {
    /// The result describing `task`.
    pub fn new(task: Task) -> Self {
        TaskResult {
            task,
            result: None,
            error: None,
            input_requests: None,
            meta: None,
            result_type: ResultType::Complete,
        }
    }
}

/// The params of `tasks/update` (2026-07-28): the client's answers to what an `input_required`
/// task asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// The answers, by the keys of the task's `inputRequests`, as sent: an answer under a key the
    /// task does not wait for is ignored whatever its shape, so each is read only once matched
    /// (as an [`InputResponse`](crate::input::InputResponse)).
    #[serde(default)]
    pub input_responses: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl UpdateTaskParams {
    /// The answers `input_responses` for the task `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: &InputResponses) -> Self {
        let input_responses = input_responses
            .iter()
            .filter_map(|(key, response)| Some((key.clone(), serde_json::to_value(response).ok()?)))
            .collect();
        UpdateTaskParams {
            task_id: task_id.into(),
            input_responses,
            meta: None,
        }
    }
}

/// The result of `tasks/result`: the result of the request the task ran, whatever its type.
pub type TaskPayloadResult = JsonObject;

/// The result of `tasks/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResult {
    /// One page of tasks.
    pub tasks: Vec<Task>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl ListTasksResult {
    /// A page holding `tasks`.
    pub fn new(tasks: Vec<Task>) -> Self {
        ListTasksResult {
            tasks,
            next_cursor: None,
            meta: None,
        }
    }
}

/// The params of `notifications/tasks/status` (2025-11-25) and `notifications/tasks` (the tasks
/// extension of 2026-07-28, which carries the detailed task, as `tasks/get` would return it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskStatusNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The result of the task's request, once `completed` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the task's request ended with, once `failed` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub error: Option<ErrorObject>,
    /// What the task waits for from the client, while `input_required` (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub input_requests: Option<InputRequests>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

impl TaskStatusNotificationParams {
    /// The notification of `task`'s state.
    pub fn new(task: Task) -> Self {
        TaskStatusNotificationParams {
            task,
            result: None,
            error: None,
            input_requests: None,
            meta: None,
        }
    }
}

impl From<TaskResult> for TaskStatusNotificationParams {
    /// The notification of the detailed task `tasks/get` returned.
    fn from(detailed: TaskResult) -> Self {
        TaskStatusNotificationParams {
            task: detailed.task,
            result: detailed.result,
            error: detailed.error,
            input_requests: detailed.input_requests,
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const V2025: ProtocolVersion = ProtocolVersion::V2025_11_25;
    const V2026: ProtocolVersion = ProtocolVersion::V2026_07_28;

    #[test]
    fn task_ttl_is_nullable_and_required() {
        let task = Task::new("t1", TaskStatus::Working, "2025-11-25T10:00:00Z");
        let wire = render::to_value(&TaskResult::new(task.clone()), V2025).unwrap();
        assert_eq!(
            wire,
            json!({"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
                   "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": null})
        );
        let back: TaskResult = serde_json::from_value(wire).unwrap();
        assert_eq!(back.task, task);
        assert!(!TaskStatus::InputRequired.is_terminal());
        assert!(TaskStatus::Cancelled.is_terminal());
    }

    #[test]
    fn each_era_names_the_durations_its_way() {
        let mut task = Task::new("t1", TaskStatus::Working, "2026-07-28T10:00:00Z");
        task.ttl = Some(60_000);
        task.poll_interval = Some(500);
        let created = CreateTaskResult::new(task.clone());
        assert_eq!(
            render::to_value(&created, V2025).unwrap(),
            json!({"task": {"taskId": "t1", "status": "working",
                   "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:00Z",
                   "ttl": 60000, "pollInterval": 500}})
        );
        let flat = render::to_value(&created, V2026).unwrap();
        assert_eq!(
            flat,
            json!({"resultType": "task", "taskId": "t1", "status": "working",
                   "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:00Z",
                   "ttlMs": 60000, "pollIntervalMs": 500})
        );
        // Both forms read back.
        let read: CreateTaskResult = serde_json::from_value(flat).unwrap();
        assert_eq!(read.task, task);
        let nested = render::to_value(&created, V2025).unwrap();
        assert_eq!(
            serde_json::from_value::<CreateTaskResult>(nested)
                .unwrap()
                .task,
            task
        );
    }

    #[test]
    fn the_detailed_task_inlines_its_outcome_only_for_2026() {
        let mut task = Task::new("t1", TaskStatus::Failed, "2026-07-28T10:00:00Z");
        task.ttl = Some(1000);
        let mut detailed = TaskResult::new(task);
        detailed.error = Some(ErrorObject::internal_error("boom"));
        assert_eq!(
            render::to_value(&detailed, V2026).unwrap(),
            json!({"taskId": "t1", "status": "failed", "createdAt": "2026-07-28T10:00:00Z",
                   "lastUpdatedAt": "2026-07-28T10:00:00Z", "ttlMs": 1000,
                   "error": {"code": -32603, "message": "boom"}, "resultType": "complete"})
        );
        assert_eq!(
            render::to_value(&detailed, V2025).unwrap(),
            json!({"taskId": "t1", "status": "failed", "createdAt": "2026-07-28T10:00:00Z",
                   "lastUpdatedAt": "2026-07-28T10:00:00Z", "ttl": 1000})
        );
    }
}
