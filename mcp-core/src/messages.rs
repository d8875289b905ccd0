//! The protocol messages as typed enums, one per direction and kind.
//!
//! - [`ClientRequest`] and [`ServerRequest`]: a method with its typed params. [`ClientRequest::decode`]
//!   turns the method and untyped params of a received request into one, with `-32601` for an
//!   unknown method and `-32602` (naming the offending field) for params that do not fit.
//! - [`ClientNotification`] and [`ServerNotification`]: the same for notifications.
//! - [`ServerResult`] and [`ClientResult`]: every result, decoded by the method of the request it
//!   answers.
//!
//! Each enum serializes to the `method`/`params` (or result) part of a JSON-RPC message, so it slots
//! into the envelopes of [`crate::jsonrpc`]:
//!
//! ```
//! use mcp_runtime_core::jsonrpc::JsonRpcRequest;
//! use mcp_runtime_core::messages::ClientRequest;
//! use mcp_runtime_core::tools::CallToolRequestParams;
//!
//! let call = ClientRequest::CallTool(CallToolRequestParams::new("add", None));
//! let wire = serde_json::to_value(JsonRpcRequest::new(0, call)).unwrap();
//! assert_eq!(wire, serde_json::json!(
//!     {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "add"}}));
//!
//! let params = serde_json::json!({"arguments": {}}).into();
//! let decoded = ClientRequest::decode("tools/call", Some(&params));
//! assert_eq!(decoded.unwrap_err().to_string(), "Invalid params for tools/call: missing field `name`");
//! ```

use std::ops::RangeInclusive;

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::JsonObject;
use crate::completion::CompleteResult;
use crate::elicitation::ElicitResult;
use crate::error::{ErrorCode, ErrorObject};
use crate::input::InputRequiredResult;
use crate::jsonrpc::{Params, RawCall};
use crate::lifecycle::{DiscoverResult, InitializeResult};
use crate::methods::{self, Notification, Request};
use crate::prompts::{GetPromptResult, ListPromptsResult};
use crate::render;
use crate::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use crate::result::EmptyResult;
use crate::roots::ListRootsResult;
use crate::sampling::CreateMessageResult;
use crate::skills::{GetSkillResult, ListSkillsResult, ReadDirectoryResult};
use crate::subscriptions::SubscriptionsListenResult;
use crate::tasks::{CreateTaskResult, ListTasksResult, TaskResult};
use crate::tools::{CallToolResult, ListToolsResult};
use crate::version::ProtocolVersion;

/// A received method or its params (or result) do not fit the protocol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// No such method (`-32601`).
    #[error("Method not found: {method}")]
    UnknownMethod {
        /// The method asked for.
        method: String,
    },
    /// The params do not fit the method (`-32602`).
    #[error("Invalid params for {method}: {detail}")]
    InvalidParams {
        /// The method.
        method: &'static str,
        /// What is wrong, naming the field.
        detail: String,
    },
    /// A result does not fit the method of the request it answers.
    #[error("Invalid result for {method}: {detail}")]
    InvalidResult {
        /// The method of the request.
        method: &'static str,
        /// What is wrong, naming the field.
        detail: String,
    },
}

impl From<DecodeError> for ErrorObject {
    fn from(err: DecodeError) -> Self {
        let code = match err {
            DecodeError::UnknownMethod { .. } => ErrorCode::METHOD_NOT_FOUND,
            DecodeError::InvalidParams { .. } => ErrorCode::INVALID_PARAMS,
            DecodeError::InvalidResult { .. } => ErrorCode::INTERNAL_ERROR,
        };
        ErrorObject::new(code, err.to_string())
    }
}

/// Decodes the params of `method`; absent params count as an empty object, so that methods whose
/// params are all optional accept them missing.
fn decode_params<T: DeserializeOwned>(
    method: &'static str,
    params: Option<&Params>,
) -> Result<T, DecodeError> {
    let decoded = match params {
        None => crate::de::from_value(Value::Object(Map::new())),
        Some(params) if !params.is_object() => Err("params must be an object".into()),
        Some(params) => params.decode(),
    };
    decoded.map_err(|detail| DecodeError::InvalidParams { method, detail })
}

fn decode_result<T: DeserializeOwned>(
    method: &'static str,
    value: Value,
) -> Result<T, DecodeError> {
    crate::de::from_value(value).map_err(|detail| DecodeError::InvalidResult { method, detail })
}

/// The `method` and `params` members of a request or notification.
#[derive(Serialize)]
pub(crate) struct MethodAndParams<'a, P> {
    pub(crate) method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) params: Option<&'a P>,
}

/// Generates a request or notification enum from the method markers of its variants. A variant
/// marked `optional` has params that may be empty, and empty params are left out of the message.
macro_rules! call_enum {
    (@params $params:ident) => {
        Some($params)
    };
    (@params $params:ident, optional) => {
        (!$params.is_empty()).then_some($params)
    };
    (
        $(#[$doc:meta])*
        $name:ident: $kind:ident {
            $($(#[$vdoc:meta])* $variant:ident($marker:ident $(, $optional:ident)?),)*
        }
    ) => {
        $(#[$doc])*
        // `initialize` carries the client's whole capabilities and is sent once per session; boxing
        // its params would burden every construction site to save a copy of a few hundred bytes.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant(<methods::$marker as $kind>::Params),)*
        }

        impl $name {
            /// The method name.
            pub fn method(&self) -> &'static str {
                match self {
                    $($name::$variant(_) => <methods::$marker as $kind>::METHOD,)*
                }
            }

            /// The revisions whose schema defines the method.
            pub fn revisions(&self) -> RangeInclusive<ProtocolVersion> {
                match self {
                    $($name::$variant(_) => <methods::$marker as $kind>::REVISIONS,)*
                }
            }

            /// `method` as the `'static` name of one of this enum's methods (no copy to keep
            /// it); `None` when it is none of them.
            pub fn static_method(method: &str) -> Option<&'static str> {
                $(
                    if method == <methods::$marker as $kind>::METHOD {
                        return Some(<methods::$marker as $kind>::METHOD);
                    }
                )*
                None
            }

            /// The revisions whose schema defines `method`; `None` when it is none of this enum's.
            pub fn revisions_of(method: &str) -> Option<RangeInclusive<ProtocolVersion>> {
                $(
                    if method == <methods::$marker as $kind>::METHOD {
                        return Some(<methods::$marker as $kind>::REVISIONS);
                    }
                )*
                None
            }

            /// Decodes a received `method` and its `params`.
            pub fn decode(method: &str, params: Option<&Params>) -> Result<Self, DecodeError> {
                $(
                    if method == <methods::$marker as $kind>::METHOD {
                        return decode_params(<methods::$marker as $kind>::METHOD, params)
                            .map($name::$variant);
                    }
                )*
                Err(DecodeError::UnknownMethod { method: method.to_owned() })
            }

            /// Decodes a received call.
            pub fn from_raw(call: &RawCall) -> Result<Self, DecodeError> {
                Self::decode(&call.method, call.params.as_ref())
            }
        }

        /// Fails for a rendering target whose schema does not define the method.
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let method = self.method();
                if !self.revisions().contains(&render::target()) {
                    return Err(render::unsupported(format_args!("`{method}`")));
                }
                match self {
                    $($name::$variant(params) => MethodAndParams {
                        method,
                        params: call_enum!(@params params $(, $optional)?),
                    }
                    .serialize(serializer),)*
                }
            }
        }
    };
}

call_enum! {
    /// A request from client to server, of any revision.
    ClientRequest: Request {
        /// `initialize`.
        Initialize(Initialize),
        /// `ping`.
        Ping(Ping, optional),
        /// `server/discover`.
        Discover(Discover, optional),
        /// `resources/list`.
        ListResources(ListResources, optional),
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplates, optional),
        /// `resources/read`.
        ReadResource(ReadResource),
        /// `resources/subscribe`.
        Subscribe(Subscribe),
        /// `resources/unsubscribe`.
        Unsubscribe(Unsubscribe),
        /// `subscriptions/listen`.
        SubscriptionsListen(SubscriptionsListen),
        /// `prompts/list`.
        ListPrompts(ListPrompts, optional),
        /// `prompts/get`.
        GetPrompt(GetPrompt),
        /// `tools/list`.
        ListTools(ListTools, optional),
        /// `tools/call`.
        CallTool(CallTool),
        /// `logging/setLevel`.
        SetLevel(SetLevel),
        /// `completion/complete`.
        Complete(Complete),
        /// `tasks/get`.
        GetTask(GetTask),
        /// `tasks/result`.
        GetTaskPayload(GetTaskPayload),
        /// `tasks/cancel`.
        CancelTask(CancelTask),
        /// `tasks/list`.
        ListTasks(ListTasks, optional),
        /// `tasks/update`.
        UpdateTask(UpdateTask),
        /// `skills/list`.
        ListSkills(ListSkills, optional),
        /// `skills/get`.
        GetSkill(GetSkill),
        /// `resources/directory/read`.
        ReadDirectory(ReadDirectory),
    }
}

call_enum! {
    /// A request from server to client (handshake era).
    ServerRequest: Request {
        /// `ping`.
        Ping(Ping, optional),
        /// `sampling/createMessage`.
        CreateMessage(CreateMessage),
        /// `roots/list`.
        ListRoots(ListRoots, optional),
        /// `elicitation/create`.
        Elicit(Elicit),
        /// `tasks/get`.
        GetTask(GetTask),
        /// `tasks/result`.
        GetTaskPayload(GetTaskPayload),
        /// `tasks/cancel`.
        CancelTask(CancelTask),
        /// `tasks/list`.
        ListTasks(ListTasks, optional),
    }
}

impl ServerRequest {
    /// The request's `_meta`, where a sender puts what travels with it (its trace context, say).
    pub fn meta_mut(&mut self) -> &mut Option<crate::meta::RequestMeta> {
        match self {
            ServerRequest::Ping(p) | ServerRequest::ListRoots(p) => &mut p.meta,
            ServerRequest::CreateMessage(p) => &mut p.meta,
            ServerRequest::Elicit(crate::elicitation::ElicitRequestParams::Form(p)) => &mut p.meta,
            ServerRequest::Elicit(crate::elicitation::ElicitRequestParams::Url(p)) => &mut p.meta,
            ServerRequest::GetTask(p)
            | ServerRequest::GetTaskPayload(p)
            | ServerRequest::CancelTask(p) => &mut p.meta,
            ServerRequest::ListTasks(p) => &mut p.meta,
        }
    }
}

call_enum! {
    /// A notification from client to server.
    ClientNotification: Notification {
        /// `notifications/cancelled`.
        Cancelled(Cancelled),
        /// `notifications/initialized`.
        Initialized(Initialized, optional),
        /// `notifications/progress`.
        Progress(Progress),
        /// `notifications/roots/list_changed`.
        RootsListChanged(RootsListChanged, optional),
        /// `notifications/tasks/status`.
        TaskStatus(TaskStatus),
    }
}

impl ClientNotification {
    /// The notification's `_meta`, where a sender puts what travels with it (its trace context,
    /// say).
    pub fn meta(&self) -> Option<&crate::meta::NotificationMeta> {
        match self {
            ClientNotification::Cancelled(p) => p.meta.as_ref(),
            ClientNotification::Initialized(p) | ClientNotification::RootsListChanged(p) => {
                p.meta.as_ref()
            }
            ClientNotification::Progress(p) => p.meta.as_ref(),
            ClientNotification::TaskStatus(p) => p.meta.as_ref(),
        }
    }
}

call_enum! {
    /// A notification from server to client.
    ServerNotification: Notification {
        /// `notifications/cancelled`.
        Cancelled(Cancelled),
        /// `notifications/progress`.
        Progress(Progress),
        /// `notifications/resources/list_changed`.
        ResourceListChanged(ResourceListChanged, optional),
        /// `notifications/resources/updated`.
        ResourceUpdated(ResourceUpdated),
        /// `notifications/prompts/list_changed`.
        PromptListChanged(PromptListChanged, optional),
        /// `notifications/tools/list_changed`.
        ToolListChanged(ToolListChanged, optional),
        /// `notifications/message`.
        LoggingMessage(LoggingMessage),
        /// `notifications/tasks/status`.
        TaskStatus(TaskStatus),
        /// `notifications/tasks`.
        TaskState(TaskState),
        /// `notifications/elicitation/complete`.
        ElicitationComplete(ElicitationComplete),
        /// `notifications/subscriptions/acknowledged`.
        SubscriptionsAcknowledged(SubscriptionsAcknowledged),
    }
}

/// Whether a result is an input-required (2026-07-28) or task-creation (2025-11-25's `task`
/// member, the tasks extension's `resultType: "task"`) answer rather than the method's own result.
enum ResultShape {
    InputRequired,
    CreateTask,
    Own,
}

fn result_shape(value: &Value) -> ResultShape {
    let result_type = value.get("resultType").and_then(Value::as_str);
    if result_type == Some("input_required") {
        ResultShape::InputRequired
    } else if result_type == Some(crate::tasks::TASK_RESULT_TYPE)
        || value.get("task").is_some_and(Value::is_object)
    {
        ResultShape::CreateTask
    } else {
        ResultShape::Own
    }
}

/// A result from server to client.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ServerResult {
    /// An empty result (`ping`, `logging/setLevel`, subscribe, unsubscribe).
    Empty(EmptyResult),
    /// `initialize` (boxed: it is large and sent once per session).
    Initialize(Box<InitializeResult>),
    /// `server/discover` (boxed: it is large and rarely sent).
    Discover(Box<DiscoverResult>),
    /// `resources/list`.
    ListResources(ListResourcesResult),
    /// `resources/templates/list`.
    ListResourceTemplates(ListResourceTemplatesResult),
    /// `resources/read`.
    ReadResource(ReadResourceResult),
    /// `prompts/list`.
    ListPrompts(ListPromptsResult),
    /// `prompts/get`.
    GetPrompt(GetPromptResult),
    /// `tools/list`.
    ListTools(ListToolsResult),
    /// `tools/call`.
    CallTool(CallToolResult),
    /// `completion/complete`.
    Complete(CompleteResult),
    /// `subscriptions/listen`.
    SubscriptionsListen(SubscriptionsListenResult),
    /// The request needs input first (2026-07-28: `tools/call`, `prompts/get`, `resources/read`).
    InputRequired(InputRequiredResult),
    /// The request runs as a task (2025-11-25).
    CreateTask(CreateTaskResult),
    /// `tasks/get` and `tasks/cancel` (boxed: the detailed task of 2026-07-28 is large).
    Task(Box<TaskResult>),
    /// `tasks/result`: the result of the task's request.
    TaskPayload(JsonObject),
    /// `tasks/list`.
    ListTasks(ListTasksResult),
    /// `skills/list`.
    ListSkills(ListSkillsResult),
    /// `skills/get`.
    GetSkill(Box<GetSkillResult>),
    /// `resources/directory/read`.
    ReadDirectory(ReadDirectoryResult),
    /// A result rendered ahead of time for the peer's revision, sent as it is: a server's list
    /// pages, rendered once and kept until the list changes (never met where middleware layers
    /// see the results: those get the typed ones).
    Rendered(crate::render::Rendered),
}

impl ServerResult {
    /// The result's `_meta`, created empty when absent (2026-07-28 servers put their
    /// `serverInfo` there); `None` for a task's payload, which is the original result as it was.
    pub fn meta_mut(&mut self) -> Option<&mut crate::meta::ResultMeta> {
        let meta = match self {
            ServerResult::Empty(r) => &mut r.meta,
            ServerResult::Initialize(r) => &mut r.meta,
            ServerResult::Discover(r) => &mut r.meta,
            ServerResult::ListResources(r) => &mut r.meta,
            ServerResult::ListResourceTemplates(r) => &mut r.meta,
            ServerResult::ReadResource(r) => &mut r.meta,
            ServerResult::ListPrompts(r) => &mut r.meta,
            ServerResult::GetPrompt(r) => &mut r.meta,
            ServerResult::ListTools(r) => &mut r.meta,
            ServerResult::CallTool(r) => &mut r.meta,
            ServerResult::Complete(r) => &mut r.meta,
            ServerResult::SubscriptionsListen(r) => return Some(&mut r.meta),
            ServerResult::InputRequired(r) => &mut r.meta,
            ServerResult::CreateTask(r) => &mut r.meta,
            ServerResult::Task(r) => &mut r.meta,
            ServerResult::TaskPayload(_) | ServerResult::Rendered(_) => return None,
            ServerResult::ListTasks(r) => &mut r.meta,
            ServerResult::ListSkills(r) => &mut r.meta,
            ServerResult::GetSkill(r) => &mut r.meta,
            ServerResult::ReadDirectory(r) => &mut r.meta,
        };
        Some(meta.get_or_insert_with(Default::default))
    }

    /// Decodes `value`, the result of a request of `method`.
    pub fn decode(method: &str, value: Value) -> Result<Self, DecodeError> {
        use methods::*;
        fn own<M: Request>(
            value: Value,
            wrap: fn(M::Result) -> ServerResult,
        ) -> Result<ServerResult, DecodeError> {
            decode_result::<M::Result>(M::METHOD, value).map(wrap)
        }
        match (method, result_shape(&value)) {
            (CallTool::METHOD, ResultShape::InputRequired) => {
                decode_result(CallTool::METHOD, value).map(ServerResult::InputRequired)
            }
            (GetPrompt::METHOD, ResultShape::InputRequired) => {
                decode_result(GetPrompt::METHOD, value).map(ServerResult::InputRequired)
            }
            (ReadResource::METHOD, ResultShape::InputRequired) => {
                decode_result(ReadResource::METHOD, value).map(ServerResult::InputRequired)
            }
            (CallTool::METHOD, ResultShape::CreateTask) => {
                decode_result(CallTool::METHOD, value).map(ServerResult::CreateTask)
            }
            (Initialize::METHOD, _) => {
                own::<Initialize>(value, |r| ServerResult::Initialize(Box::new(r)))
            }
            (Ping::METHOD, _) => own::<Ping>(value, ServerResult::Empty),
            (Discover::METHOD, _) => {
                own::<Discover>(value, |r| ServerResult::Discover(Box::new(r)))
            }
            (ListResources::METHOD, _) => own::<ListResources>(value, ServerResult::ListResources),
            (ListResourceTemplates::METHOD, _) => {
                own::<ListResourceTemplates>(value, ServerResult::ListResourceTemplates)
            }
            (ReadResource::METHOD, _) => own::<ReadResource>(value, ServerResult::ReadResource),
            (Subscribe::METHOD, _) => own::<Subscribe>(value, ServerResult::Empty),
            (Unsubscribe::METHOD, _) => own::<Unsubscribe>(value, ServerResult::Empty),
            (SubscriptionsListen::METHOD, _) => {
                own::<SubscriptionsListen>(value, ServerResult::SubscriptionsListen)
            }
            (ListPrompts::METHOD, _) => own::<ListPrompts>(value, ServerResult::ListPrompts),
            (GetPrompt::METHOD, _) => own::<GetPrompt>(value, ServerResult::GetPrompt),
            (ListTools::METHOD, _) => own::<ListTools>(value, ServerResult::ListTools),
            (CallTool::METHOD, _) => own::<CallTool>(value, ServerResult::CallTool),
            (SetLevel::METHOD, _) => own::<SetLevel>(value, ServerResult::Empty),
            (Complete::METHOD, _) => own::<Complete>(value, ServerResult::Complete),
            (GetTask::METHOD, _) => own::<GetTask>(value, |r| ServerResult::Task(Box::new(r))),
            (GetTaskPayload::METHOD, _) => own::<GetTaskPayload>(value, ServerResult::TaskPayload),
            // The tasks extension acknowledges a cancellation with an empty result.
            (CancelTask::METHOD, _) if value.get("taskId").is_none() => {
                own::<UpdateTask>(value, ServerResult::Empty)
            }
            (CancelTask::METHOD, _) => {
                own::<CancelTask>(value, |r| ServerResult::Task(Box::new(r)))
            }
            (UpdateTask::METHOD, _) => own::<UpdateTask>(value, ServerResult::Empty),
            (ListTasks::METHOD, _) => own::<ListTasks>(value, ServerResult::ListTasks),
            (ListSkills::METHOD, _) => own::<ListSkills>(value, ServerResult::ListSkills),
            (GetSkill::METHOD, _) => {
                own::<GetSkill>(value, |r| ServerResult::GetSkill(Box::new(r)))
            }
            (ReadDirectory::METHOD, _) => own::<ReadDirectory>(value, ServerResult::ReadDirectory),
            (other, _) => Err(DecodeError::UnknownMethod {
                method: other.to_owned(),
            }),
        }
    }
}

/// A result from client to server (handshake era).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ClientResult {
    /// An empty result (`ping`).
    Empty(EmptyResult),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// `roots/list`.
    ListRoots(ListRootsResult),
    /// `elicitation/create`.
    Elicit(ElicitResult),
    /// The request runs as a task (2025-11-25).
    CreateTask(CreateTaskResult),
    /// `tasks/get` and `tasks/cancel` (boxed: the detailed task of 2026-07-28 is large).
    Task(Box<TaskResult>),
    /// `tasks/result`: the result of the task's request.
    TaskPayload(JsonObject),
    /// `tasks/list`.
    ListTasks(ListTasksResult),
}

impl ClientResult {
    /// Decodes `value`, the result of a request of `method`.
    pub fn decode(method: &str, value: Value) -> Result<Self, DecodeError> {
        use methods::*;
        fn own<M: Request>(
            value: Value,
            wrap: fn(M::Result) -> ClientResult,
        ) -> Result<ClientResult, DecodeError> {
            decode_result::<M::Result>(M::METHOD, value).map(wrap)
        }
        match (method, result_shape(&value)) {
            (m @ (CreateMessage::METHOD | Elicit::METHOD), ResultShape::CreateTask) => {
                let method = if m == Elicit::METHOD {
                    Elicit::METHOD
                } else {
                    CreateMessage::METHOD
                };
                decode_result(method, value).map(ClientResult::CreateTask)
            }
            (Ping::METHOD, _) => own::<Ping>(value, ClientResult::Empty),
            (CreateMessage::METHOD, _) => own::<CreateMessage>(value, ClientResult::CreateMessage),
            (ListRoots::METHOD, _) => own::<ListRoots>(value, ClientResult::ListRoots),
            (Elicit::METHOD, _) => own::<Elicit>(value, ClientResult::Elicit),
            (GetTask::METHOD, _) => own::<GetTask>(value, |r| ClientResult::Task(Box::new(r))),
            (GetTaskPayload::METHOD, _) => own::<GetTaskPayload>(value, ClientResult::TaskPayload),
            (CancelTask::METHOD, _) => {
                own::<CancelTask>(value, |r| ClientResult::Task(Box::new(r)))
            }
            (ListTasks::METHOD, _) => own::<ListTasks>(value, ClientResult::ListTasks),
            (other, _) => Err(DecodeError::UnknownMethod {
                method: other.to_owned(),
            }),
        }
    }
}

macro_rules! result_from {
    ($enum:ident { $($variant:ident($ty:ty),)* }) => {$(
        impl From<$ty> for $enum {
            fn from(result: $ty) -> Self {
                $enum::$variant(result)
            }
        }
    )*};
}

impl From<InitializeResult> for ServerResult {
    fn from(result: InitializeResult) -> Self {
        ServerResult::Initialize(Box::new(result))
    }
}

impl From<TaskResult> for ServerResult {
    fn from(result: TaskResult) -> Self {
        ServerResult::Task(Box::new(result))
    }
}

impl From<TaskResult> for ClientResult {
    fn from(result: TaskResult) -> Self {
        ClientResult::Task(Box::new(result))
    }
}

impl From<GetSkillResult> for ServerResult {
    fn from(result: GetSkillResult) -> Self {
        ServerResult::GetSkill(Box::new(result))
    }
}

impl From<DiscoverResult> for ServerResult {
    fn from(result: DiscoverResult) -> Self {
        ServerResult::Discover(Box::new(result))
    }
}

result_from!(ServerResult {
    Empty(EmptyResult),
    ListResources(ListResourcesResult),
    ListResourceTemplates(ListResourceTemplatesResult),
    ReadResource(ReadResourceResult),
    ListPrompts(ListPromptsResult),
    GetPrompt(GetPromptResult),
    ListTools(ListToolsResult),
    CallTool(CallToolResult),
    Complete(CompleteResult),
    SubscriptionsListen(SubscriptionsListenResult),
    InputRequired(InputRequiredResult),
    CreateTask(CreateTaskResult),
    ListTasks(ListTasksResult),
    ListSkills(ListSkillsResult),
    ReadDirectory(ReadDirectoryResult),
});

result_from!(ClientResult {
    Empty(EmptyResult),
    CreateMessage(CreateMessageResult),
    ListRoots(ListRootsResult),
    Elicit(ElicitResult),
    CreateTask(CreateTaskResult),
    ListTasks(ListTasksResult),
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::jsonrpc::{JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId};
    use crate::render::to_value;
    use serde_json::json;

    #[test]
    fn requests_decode_by_method() {
        let ping = ClientRequest::decode("ping", None).unwrap();
        assert_eq!(ping.method(), "ping");
        let list =
            ClientRequest::decode("tools/list", Some(&json!({"cursor": "c2"}).into())).unwrap();
        let ClientRequest::ListTools(params) = list else {
            panic!("tools/list")
        };
        assert_eq!(params.cursor.as_deref(), Some("c2"));
        assert_eq!(
            ClientRequest::decode("tools/explode", None),
            Err(DecodeError::UnknownMethod {
                method: "tools/explode".into()
            })
        );
        // A server request is not a client request.
        assert!(matches!(
            ClientRequest::decode("sampling/createMessage", None),
            Err(DecodeError::UnknownMethod { .. })
        ));
    }

    #[test]
    fn invalid_params_name_the_field() {
        let cases = [
            (
                "tools/call",
                json!({}),
                "Invalid params for tools/call: missing field `name`",
            ),
            (
                "tools/call",
                json!({"name": 3}),
                "Invalid params for tools/call: name: invalid type: integer `3`, expected a string",
            ),
            (
                "prompts/get",
                json!({"name": "p", "arguments": {"a": 1}}),
                "Invalid params for prompts/get: arguments.a: invalid type: integer `1`, expected a string",
            ),
            (
                "logging/setLevel",
                json!({"level": "loud"}),
                "Invalid params for logging/setLevel: level: unknown variant `loud`, expected one of `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`",
            ),
            (
                "resources/read",
                json!([1]),
                "Invalid params for resources/read: params must be an object",
            ),
        ];
        for (method, params, message) in cases {
            let err = ClientRequest::decode(method, Some(&params.into())).unwrap_err();
            assert_eq!(err.to_string(), message);
            assert_eq!(ErrorObject::from(err).code, ErrorCode::INVALID_PARAMS);
        }
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let call = ClientRequest::decode(
            "tools/call",
            Some(
                &json!({"name": "add", "arguments": {"a": 1}, "futureField": {"x": [1, 2]}}).into(),
            ),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}})
        );
    }

    #[test]
    fn envelopes_with_typed_payloads() {
        let note = ServerNotification::ToolListChanged(Default::default());
        assert_eq!(
            serde_json::to_value(JsonRpcNotification::new(note)).unwrap(),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        );
        let ping = ServerRequest::Ping(Default::default());
        assert_eq!(
            to_value(
                &JsonRpcRequest::new("s-1", ping),
                ProtocolVersion::V2025_11_25
            )
            .unwrap(),
            json!({"jsonrpc": "2.0", "id": "s-1", "method": "ping"})
        );
        let response = JsonRpcResponse::new(
            RequestId::Number(0),
            ServerResult::Empty(EmptyResult::default()),
        );
        assert_eq!(
            to_value(&response, ProtocolVersion::V2026_07_28).unwrap(),
            json!({"jsonrpc": "2.0", "id": 0, "result": {"resultType": "complete"}})
        );
    }

    #[test]
    fn methods_a_revision_lacks_are_not_rendered() {
        use ProtocolVersion::*;
        let cases: [(ClientRequest, &[ProtocolVersion]); 5] = [
            (
                ClientRequest::ListTasks(Default::default()),
                &[V2024_11_05, V2025_03_26, V2025_06_18, V2026_07_28],
            ),
            (
                ClientRequest::Discover(Default::default()),
                &[V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25],
            ),
            (
                ClientRequest::SubscriptionsListen(
                    serde_json::from_value(json!({"notifications": {}})).unwrap(),
                ),
                &[V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25],
            ),
            (ClientRequest::Ping(Default::default()), &[V2026_07_28]),
            (
                ClientRequest::SetLevel(serde_json::from_value(json!({"level": "info"})).unwrap()),
                &[V2026_07_28],
            ),
        ];
        for (request, refused) in cases {
            let method = request.method();
            for version in ProtocolVersion::ALL {
                let rendered = to_value(&JsonRpcRequest::new(1, request.clone()), version);
                if refused.contains(&version) {
                    assert_eq!(
                        rendered.unwrap_err().to_string(),
                        format!("`{method}` cannot be rendered for protocol revision {version}")
                    );
                } else {
                    assert_eq!(rendered.unwrap()["method"], method, "{version}");
                }
            }
        }
        let initialized = ClientNotification::Initialized(Default::default());
        assert_eq!(
            to_value(&initialized, V2026_07_28).unwrap_err().to_string(),
            "`notifications/initialized` cannot be rendered for protocol revision 2026-07-28"
        );
        let acknowledged = ServerNotification::SubscriptionsAcknowledged(
            serde_json::from_value(json!({"notifications": {}})).unwrap(),
        );
        assert_eq!(
            to_value(&acknowledged, V2025_11_25)
                .unwrap_err()
                .to_string(),
            "`notifications/subscriptions/acknowledged` cannot be rendered for protocol revision 2025-11-25"
        );
        let elicit = ServerRequest::Elicit(crate::elicitation::ElicitRequestParams::Form(
            crate::elicitation::ElicitRequestFormParams::new("Name?", Default::default()),
        ));
        assert_eq!(
            to_value(&elicit, V2025_03_26).unwrap_err().to_string(),
            "`elicitation/create` cannot be rendered for protocol revision 2025-03-26"
        );
    }

    #[test]
    fn errors_inside_chosen_variants_keep_the_full_path() {
        let cases = [
            (
                ServerRequest::decode(
                    "sampling/createMessage",
                    Some(&json!({"messages": [{"role": "user", "content": {"type": "text"}}],
                                "maxTokens": 5}).into()),
                )
                .map(drop),
                "Invalid params for sampling/createMessage: messages[0].content: missing field `text`",
            ),
            (
                ServerRequest::decode(
                    "sampling/createMessage",
                    Some(&json!({"messages": [{"role": "user", "content": [
                        {"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png"}]}],
                                "maxTokens": 5}).into()),
                )
                .map(drop),
                "Invalid params for sampling/createMessage: messages[0].content[1]: missing field `data`",
            ),
            (
                ServerRequest::decode(
                    "elicitation/create",
                    Some(&json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
                        "c": {"type": "string", "oneOf": [{"const": "r"}]}}}}).into()),
                )
                .map(drop),
                "Invalid params for elicitation/create: requestedSchema.properties.c.oneOf[0]: missing field `title`",
            ),
            (
                ClientRequest::decode(
                    "tools/call",
                    Some(&json!({"name": "t", "inputResponses": {"k": {"roots": [{}]}}}).into()),
                )
                .map(drop),
                "Invalid params for tools/call: inputResponses.k.roots[0]: missing field `uri`",
            ),
            (
                ServerResult::decode("resources/read", json!({"contents": [{"uri": "a"}]}))
                    .map(drop),
                "Invalid result for resources/read: contents[0]: missing field `text`",
            ),
            (
                ServerResult::decode(
                    "tools/call",
                    json!({"content": [{"type": "resource", "resource": {"text": "x"}}]}),
                )
                .map(drop),
                "Invalid result for tools/call: content[0].resource: missing field `uri`",
            ),
            (
                ServerResult::decode("tools/call", json!({"content": [{"type": "video"}]}))
                    .map(drop),
                "Invalid result for tools/call: content[0]: unknown variant `video`, expected one of `text`, `image`, `audio`, `resource_link`, `resource`",
            ),
            (
                ServerResult::decode("tools/call", json!({"content": [{"text": "x"}]})).map(drop),
                "Invalid result for tools/call: content[0]: missing field `type`",
            ),
            (
                ClientResult::decode(
                    "elicitation/create",
                    json!({"action": "accept", "content": {"a": null}}),
                )
                .map(drop),
                "Invalid result for elicitation/create: content.a: invalid type: null, expected a string, a number, a boolean or an array of strings",
            ),
            (
                ClientResult::decode(
                    "elicitation/create",
                    json!({"action": "accept", "content": {"a": ["x", 1]}}),
                )
                .map(drop),
                "Invalid result for elicitation/create: content.a[1]: invalid type: integer `1`, expected a string",
            ),
            // An input-required result is reported under the method it answers.
            (
                ServerResult::decode(
                    "prompts/get",
                    json!({"resultType": "input_required", "inputRequests": {
                        "x": {"method": "elicitation/create", "params": {"message": "m"}}}}),
                )
                .map(drop),
                "Invalid result for prompts/get: inputRequests.x.params: missing field `requestedSchema`",
            ),
        ];
        for (result, message) in cases {
            assert_eq!(result.unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn results_decode_by_method() {
        let call =
            ServerResult::decode("tools/call", json!({"content": [], "isError": true})).unwrap();
        assert!(matches!(call, ServerResult::CallTool(ref r) if r.is_error()));
        let irr = ServerResult::decode(
            "prompts/get",
            json!({"resultType": "input_required", "requestState": "s"}),
        )
        .unwrap();
        assert!(matches!(irr, ServerResult::InputRequired(_)));
        let task = ServerResult::decode(
            "tools/call",
            json!({"task": {"taskId": "t", "status": "working", "createdAt": "2025-11-25T00:00:00Z",
                            "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": 1000}}),
        )
        .unwrap();
        assert!(matches!(task, ServerResult::CreateTask(_)));
        let err =
            ServerResult::decode("tools/list", json!({"tools": [{"name": "x"}]})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid result for tools/list: tools[0]: missing field `inputSchema`"
        );
        let elicit =
            ClientResult::decode("elicitation/create", json!({"action": "decline"})).unwrap();
        assert_eq!(elicit, ClientResult::Elicit(ElicitResult::decline()));
    }
}
