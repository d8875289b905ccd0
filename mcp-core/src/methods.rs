//! Every method, as a type: its name, its params and its result.
//!
//! These marker types let code be generic over methods, e.g. a client's
//! `request::<CallTool>(params) -> CallToolResult`:
//!
//! ```
//! use mcp_runtime_core::methods::{CallTool, Request};
//!
//! assert_eq!(CallTool::METHOD, "tools/call");
//! fn result_of<R: Request>(value: serde_json::Value) -> serde_json::Result<R::Result> {
//!     serde_json::from_value(value)
//! }
//! let result = result_of::<CallTool>(serde_json::json!({"content": []})).unwrap();
//! assert!(!result.is_error());
//! ```

use std::ops::RangeInclusive;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cancellation::CancelledNotificationParams;
use crate::completion::{CompleteRequestParams, CompleteResult};
use crate::elicitation::{
    ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
};
use crate::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use crate::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
use crate::params::{NotificationParams, PaginatedRequestParams, RequestParams};
use crate::progress::ProgressNotificationParams;
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceUpdatedNotificationParams, SubscribeRequestParams,
};
use crate::result::EmptyResult;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult,
};
use crate::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use crate::tasks::{
    ListTasksResult, TaskIdParams, TaskPayloadResult, TaskResult, TaskStatusNotificationParams,
    UpdateTaskParams,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use crate::version::ProtocolVersion;

/// The revisions that define a method: all of them unless the method list says otherwise.
const fn revisions(
    range: &[(ProtocolVersion, ProtocolVersion)],
) -> RangeInclusive<ProtocolVersion> {
    match range {
        [(since, until)] => *since..=*until,
        _ => ProtocolVersion::V2024_11_05..=ProtocolVersion::LATEST,
    }
}

/// A request method.
pub trait Request {
    /// Its name on the wire.
    const METHOD: &'static str;
    /// The revisions whose schema defines it; rendering it for another one fails.
    const REVISIONS: RangeInclusive<ProtocolVersion>;
    /// Its params.
    type Params: Serialize + DeserializeOwned;
    /// Its (complete) result.
    type Result: Serialize + DeserializeOwned;
}

/// A notification method.
pub trait Notification {
    /// Its name on the wire.
    const METHOD: &'static str;
    /// The revisions whose schema defines it; rendering it for another one fails.
    const REVISIONS: RangeInclusive<ProtocolVersion>;
    /// Its params.
    type Params: Serialize + DeserializeOwned;
}

macro_rules! requests {
    ($($(#[$doc:meta])* $name:ident = $method:literal $([$since:ident ..= $until:ident])?,
       $params:ty => $result:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Request for $name {
            const METHOD: &'static str = $method;
            const REVISIONS: RangeInclusive<ProtocolVersion> =
                revisions(&[$((ProtocolVersion::$since, ProtocolVersion::$until))?]);
            type Params = $params;
            type Result = $result;
        }
    )*};
}

macro_rules! notifications {
    ($($(#[$doc:meta])* $name:ident = $method:literal $([$since:ident ..= $until:ident])?,
       $params:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Notification for $name {
            const METHOD: &'static str = $method;
            const REVISIONS: RangeInclusive<ProtocolVersion> =
                revisions(&[$((ProtocolVersion::$since, ProtocolVersion::$until))?]);
            type Params = $params;
        }
    )*};
}

requests! {
    /// `initialize` (handshake era): open a session.
    Initialize = "initialize" [V2024_11_05 ..= V2025_11_25], InitializeRequestParams => InitializeResult;
    /// `ping` (handshake era, both directions): check the peer is alive.
    Ping = "ping" [V2024_11_05 ..= V2025_11_25], RequestParams => EmptyResult;
    /// `server/discover` (2026-07-28): what the server is and supports.
    Discover = "server/discover" [V2026_07_28 ..= V2026_07_28], RequestParams => DiscoverResult;
    /// `resources/list`.
    ListResources = "resources/list", PaginatedRequestParams => ListResourcesResult;
    /// `resources/templates/list`.
    ListResourceTemplates = "resources/templates/list", PaginatedRequestParams => ListResourceTemplatesResult;
    /// `resources/read`.
    ReadResource = "resources/read", ReadResourceRequestParams => ReadResourceResult;
    /// `resources/subscribe` (handshake era).
    Subscribe = "resources/subscribe" [V2024_11_05 ..= V2025_11_25], SubscribeRequestParams => EmptyResult;
    /// `resources/unsubscribe` (handshake era).
    Unsubscribe = "resources/unsubscribe" [V2024_11_05 ..= V2025_11_25], SubscribeRequestParams => EmptyResult;
    /// `subscriptions/listen` (2026-07-28).
    SubscriptionsListen = "subscriptions/listen" [V2026_07_28 ..= V2026_07_28], SubscriptionsListenRequestParams => SubscriptionsListenResult;
    /// `prompts/list`.
    ListPrompts = "prompts/list", PaginatedRequestParams => ListPromptsResult;
    /// `prompts/get`.
    GetPrompt = "prompts/get", GetPromptRequestParams => GetPromptResult;
    /// `tools/list`.
    ListTools = "tools/list", PaginatedRequestParams => ListToolsResult;
    /// `tools/call`.
    CallTool = "tools/call", CallToolRequestParams => CallToolResult;
    /// `logging/setLevel` (handshake era).
    SetLevel = "logging/setLevel" [V2024_11_05 ..= V2025_11_25], SetLevelRequestParams => EmptyResult;
    /// `completion/complete`.
    Complete = "completion/complete", CompleteRequestParams => CompleteResult;
    /// `tasks/get` (2025-11-25, and the tasks extension of 2026-07-28).
    GetTask = "tasks/get" [V2025_11_25 ..= V2026_07_28], TaskIdParams => TaskResult;
    /// `tasks/result` (2025-11-25).
    GetTaskPayload = "tasks/result" [V2025_11_25 ..= V2025_11_25], TaskIdParams => TaskPayloadResult;
    /// `tasks/cancel` (2025-11-25, and the tasks extension of 2026-07-28, which acknowledges it with
    /// an empty result).
    CancelTask = "tasks/cancel" [V2025_11_25 ..= V2026_07_28], TaskIdParams => TaskResult;
    /// `tasks/update` (the tasks extension of 2026-07-28): answers what a task asked for.
    UpdateTask = "tasks/update" [V2026_07_28 ..= V2026_07_28], UpdateTaskParams => EmptyResult;
    /// `tasks/list` (2025-11-25).
    ListTasks = "tasks/list" [V2025_11_25 ..= V2025_11_25], PaginatedRequestParams => ListTasksResult;
    /// `skills/list` (the skills extension).
    ListSkills = "skills/list" [V2025_11_25 ..= V2026_07_28], PaginatedRequestParams => ListSkillsResult;
    /// `skills/get` (the skills extension).
    GetSkill = "skills/get" [V2025_11_25 ..= V2026_07_28], GetSkillRequestParams => GetSkillResult;
    /// `resources/directory/read` (the skills extension, when the server declares
    /// `directoryRead`).
    ReadDirectory = "resources/directory/read" [V2025_11_25 ..= V2026_07_28], ReadDirectoryRequestParams => ReadDirectoryResult;
    /// `sampling/createMessage` (server to client).
    CreateMessage = "sampling/createMessage", CreateMessageRequestParams => CreateMessageResult;
    /// `roots/list` (server to client).
    ListRoots = "roots/list", RequestParams => ListRootsResult;
    /// `elicitation/create` (server to client, 2025-06-18).
    Elicit = "elicitation/create" [V2025_06_18 ..= V2026_07_28], ElicitRequestParams => ElicitResult;
}

notifications! {
    /// `notifications/cancelled`.
    Cancelled = "notifications/cancelled", CancelledNotificationParams;
    /// `notifications/initialized` (handshake era).
    Initialized = "notifications/initialized" [V2024_11_05 ..= V2025_11_25], NotificationParams;
    /// `notifications/progress`.
    Progress = "notifications/progress", ProgressNotificationParams;
    /// `notifications/roots/list_changed` (handshake era).
    RootsListChanged = "notifications/roots/list_changed" [V2024_11_05 ..= V2025_11_25], NotificationParams;
    /// `notifications/tasks/status` (2025-11-25).
    TaskStatus = "notifications/tasks/status" [V2025_11_25 ..= V2025_11_25], TaskStatusNotificationParams;
    /// `notifications/tasks` (the tasks extension of 2026-07-28): a task's new state, on the
    /// `subscriptions/listen` streams that asked for the task.
    TaskState = "notifications/tasks" [V2026_07_28 ..= V2026_07_28], TaskStatusNotificationParams;
    /// `notifications/resources/list_changed`.
    ResourceListChanged = "notifications/resources/list_changed", NotificationParams;
    /// `notifications/resources/updated`.
    ResourceUpdated = "notifications/resources/updated", ResourceUpdatedNotificationParams;
    /// `notifications/prompts/list_changed`.
    PromptListChanged = "notifications/prompts/list_changed", NotificationParams;
    /// `notifications/tools/list_changed`.
    ToolListChanged = "notifications/tools/list_changed", NotificationParams;
    /// `notifications/message`: a log message.
    LoggingMessage = "notifications/message", LoggingMessageNotificationParams;
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete = "notifications/elicitation/complete" [V2025_11_25 ..= V2025_11_25], ElicitationCompleteNotificationParams;
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged" [V2026_07_28 ..= V2026_07_28], SubscriptionsAcknowledgedNotificationParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn methods_know_their_revisions() {
        assert_eq!(Ping::REVISIONS, V2024_11_05..=V2025_11_25);
        assert_eq!(ListTasks::REVISIONS, V2025_11_25..=V2025_11_25);
        assert_eq!(GetTask::REVISIONS, V2025_11_25..=V2026_07_28);
        assert_eq!(UpdateTask::REVISIONS, V2026_07_28..=V2026_07_28);
        assert_eq!(Discover::REVISIONS, V2026_07_28..=V2026_07_28);
        assert_eq!(Elicit::REVISIONS, V2025_06_18..=V2026_07_28);
        assert_eq!(CallTool::REVISIONS, V2024_11_05..=V2026_07_28);
        assert_eq!(Initialized::REVISIONS, V2024_11_05..=V2025_11_25);
        assert_eq!(Cancelled::REVISIONS, V2024_11_05..=V2026_07_28);
    }
}
