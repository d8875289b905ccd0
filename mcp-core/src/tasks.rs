//! Tasks (2025-11-25): requests that run in the background and are polled for their outcome.
//!
//! A request carrying `task` params answers at once with a [`CreateTaskResult`]; the requester then
//! polls `tasks/get`, fetches the outcome with `tasks/result`, and may `tasks/cancel` or
//! `tasks/list`. 2026-07-28 moved tasks out of the core protocol into an extension.

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::meta::{NotificationMeta, ResultMeta};
use crate::params::Cursor;

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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// How long its outcome is kept after it ends, in milliseconds; `null` for unlimited.
    pub ttl: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
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

/// The immediate answer to a request run as a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The task that was created.
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
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
}

impl TaskIdParams {
    /// The params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams {
            task_id: task_id.into(),
        }
    }
}

/// The result of `tasks/get` and `tasks/cancel`: the task's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskResult {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl TaskResult {
    /// The result describing `task`.
    pub fn new(task: Task) -> Self {
        TaskResult { task, meta: None }
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

/// The params of `notifications/tasks/status`: a task's new state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStatusNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

impl TaskStatusNotificationParams {
    /// The notification of `task`'s state.
    pub fn new(task: Task) -> Self {
        TaskStatusNotificationParams { task, meta: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_ttl_is_nullable_and_required() {
        let task = Task::new("t1", TaskStatus::Working, "2025-11-25T10:00:00Z");
        let wire = serde_json::to_value(TaskResult::new(task.clone())).unwrap();
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
}
