//! Tools: their definitions, what handlers may return, and the errors they report.
//!
//! `#[mcp_tool]` builds a [`ToolDefinition`] from a function; [`ToolDefinition::new`] and
//! [`ToolDefinition::typed`] build one from a closure, for tools registered at run time.
//!
//! What a handler returns becomes a `CallToolResult` through [`IntoToolResult`]:
//!
//! | returned | result |
//! |---|---|
//! | `String`, `&str`, numbers, `bool` | one text block |
//! | `()` | no content |
//! | [`ContentBlock`], `Vec<ContentBlock>` | those blocks |
//! | [`CallToolResult`] | itself |
//! | [`Json<T>`] | `structuredContent` plus its JSON text; the tool's `outputSchema` is `T`'s schema |
//! | `Result<T, E>` with `E: Display` (e.g. [`ToolError`]) | `T`'s result, or `isError: true` with `E`'s text |
//!
//! A tool's `outputSchema` describes an object (`structuredContent` is one), so `T` of a
//! [`Json<T>`] result must serialize to an object, such as a struct: a server with a tool whose
//! output schema is not an object schema refuses to start:
//! [`McpServerBuilder::build`](crate::server::McpServerBuilder::build) (and so
//! `serve_stdio`/`serve_http`) fails with an error that names the tool. The guide's chapter
//! "What is checked, and when" (`docs/src/checks.md`) lists every such start-up check. A `None`
//! field of `T` is left out of `structuredContent` and its text, as its schema (not required,
//! not nullable) says; see [`omit_disallowed_nulls`](mcp_runtime_core::schema::omit_disallowed_nulls).
//!
//! A long tool runs as a task with `#[mcp_tool(task = "optional")]` (or `"required"`, or
//! [`ToolDefinition::task`]): the client gets a task id at once and polls for the outcome, and the
//! handler stays an ordinary async function (see [`TaskStart`] for when the call becomes a task).
//!
//! On a server that is an OAuth protected resource, `#[mcp_tool(scopes = "notes:write")]` (or
//! [`ToolDefinition::scopes`]) names the scopes a caller's token needs to call the tool; prompts
//! and resources take the same option. See [`auth`](crate::auth).
//!
//! The guide's chapter "Tools" (`docs/src/tools.md`) teaches it with examples.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::capabilities::ClientCapabilities;
use mcp_runtime_core::content::ContentBlock;
use mcp_runtime_core::implementation::Icon;
use mcp_runtime_core::schema::{input_schema_for, schema_for};
use mcp_runtime_core::tools::{CallToolResult, TaskSupport, Tool, ToolAnnotations, ToolExecution};
use mcp_runtime_core::{ErrorObject, JsonObject};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::extract::StateRequirement;
pub use super::task::TaskStart;
use crate::handler::RequestContext;

/// The future a tool handler returns: the call's result, or the JSON-RPC error that answers it
/// instead (only a forwarded call has one: the error of the server it went to).
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<CallToolResult, ErrorObject>> + Send>>;

pub(crate) type ToolHandler = dyn Fn(JsonObject, RequestContext) -> ToolFuture + Send + Sync;

/// A tool: its description for clients and its handler.
#[derive(Clone)]
pub struct ToolDefinition {
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<ToolHandler>,
    pub(crate) required_state: Vec<StateRequirement>,
    pub(crate) required_capabilities: Option<ClientCapabilities>,
    pub(crate) defect: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) task_start: TaskStart,
    /// Its calls go to another server, which checks their arguments and results.
    pub(crate) forwarded: bool,
    /// What filters pick it by ([`tags`](Self::tags)).
    pub(crate) tags: Vec<String>,
    /// Its schemas were generated from Rust types (valid by construction), none given as JSON:
    /// they are compiled when first used rather than checked when the server is built.
    pub(crate) schemas_derived: bool,
}

impl fmt::Debug for ToolDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl ToolDefinition {
    /// A tool whose handler takes the arguments as a JSON object, described by `input_schema`.
    pub fn new<F, Fut, R>(name: impl Into<String>, input_schema: JsonObject, handler: F) -> Self
    where
        F: Fn(JsonObject, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let handler: Arc<ToolHandler> = Arc::new(move |args, ctx| {
            let future = handler(args, ctx);
            Box::pin(async move { Ok(future.await.into_tool_result()) })
        });
        ToolDefinition::with_handler(Tool::new(name, input_schema), handler)
    }

    /// The tool `tool`, whose handler answers with a result or a JSON-RPC error.
    pub(crate) fn with_handler(tool: Tool, handler: Arc<ToolHandler>) -> Self {
        ToolDefinition {
            tool,
            handler,
            required_state: Vec::new(),
            required_capabilities: None,
            defect: None,
            scopes: Vec::new(),
            task_start: TaskStart::default(),
            forwarded: false,
            tags: Vec::new(),
            schemas_derived: false,
        }
    }

    /// A tool whose arguments deserialize into `A`; its input schema is `A`'s. Arguments that do
    /// not deserialize give an `isError` result naming the problem.
    pub fn typed<A, F, Fut, R>(name: impl Into<String>, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let name = name.into();
        let (schema, defect) = match input_schema_for::<A>() {
            Ok(schema) => (schema, None),
            Err(e) => (JsonObject::new(), Some(e.to_string())),
        };
        let tool_name = name.clone();
        let handler = Arc::new(handler);
        let mut definition = ToolDefinition::new(name, schema, move |args, ctx| {
            let parsed = serde_json::from_value::<A>(Value::Object(args));
            let handler = handler.clone();
            let tool_name = tool_name.clone();
            async move {
                match parsed {
                    Ok(args) => handler(args, ctx).await.into_tool_result(),
                    Err(e) => CallToolResult::error(format!(
                        "Invalid arguments for tool {tool_name}: {e}"
                    )),
                }
            }
        });
        definition.defect = defect;
        definition.schemas_derived = true;
        definition
    }

    /// The tool as clients see it.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Tags the server's filters pick the tool by
    /// ([`ToolFilter::tagged`](crate::server::ToolFilter::tagged)); clients do not see them.
    pub fn tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Its tags: those given to [`tags`](Self::tags), and those a FastMCP server put in the
    /// tool's `_meta` (`fastmcp.tags`, or `_fastmcp.tags` before FastMCP 3) for a tool mirrored
    /// from one.
    pub(crate) fn all_tags(&self) -> Vec<String> {
        let meta = self.tool.meta.as_ref();
        let fastmcp = ["fastmcp", "_fastmcp"]
            .into_iter()
            .filter_map(|key| meta?.get(key)?.get("tags")?.as_array())
            .flatten()
            .filter_map(|tag| tag.as_str().map(str::to_owned));
        self.tags.iter().cloned().chain(fastmcp).collect()
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The OAuth scopes a caller's access token must have been granted to call the tool, on a
    /// server whose HTTP transport has authorization
    /// ([`HttpOptions::authorization`](crate::transport::http::HttpOptions::authorization));
    /// without them the call gets `403` with an `insufficient_scope` challenge naming them.
    /// Elsewhere (stdio, in process) scopes are not checked.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = crate::auth::scope_list(scopes);
        self
    }

    /// The OAuth scopes a call needs ([`scopes`](Self::scopes)).
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Sets the display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Sets the description (what the model reads).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Sets the behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    fn hints(&mut self) -> &mut ToolAnnotations {
        self.tool
            .annotations
            .get_or_insert_with(ToolAnnotations::default)
    }

    /// Marks the tool as not changing its environment (`readOnlyHint: true`).
    pub fn read_only(self) -> Self {
        self.read_only_hint(true)
    }

    /// Sets whether the tool leaves its environment unchanged (`readOnlyHint`).
    pub fn read_only_hint(mut self, read_only: bool) -> Self {
        self.hints().read_only_hint = Some(read_only);
        self
    }

    /// Marks whether the tool may destroy things (`destructiveHint`).
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.hints().destructive_hint = Some(destructive);
        self
    }

    /// Marks the tool as idempotent (`idempotentHint: true`).
    pub fn idempotent(self) -> Self {
        self.idempotent_hint(true)
    }

    /// Sets whether calling the tool again with the same arguments has no further effect
    /// (`idempotentHint`).
    pub fn idempotent_hint(mut self, idempotent: bool) -> Self {
        self.hints().idempotent_hint = Some(idempotent);
        self
    }

    /// Marks whether the tool reaches an open world of entities (`openWorldHint`).
    pub fn open_world(mut self, open_world: bool) -> Self {
        self.hints().open_world_hint = Some(open_world);
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.tool.icons = Some(icons);
        self
    }

    /// Sets the `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// Gives the tool an interface (MCP Apps): the host renders its results with the `ui://`
    /// resource `ui` names, and only those `ui` lets call it may (`_meta.ui`, and the flat
    /// `ui/resourceUri` key that hosts still read). Keeps the rest of `_meta`.
    pub fn ui(mut self, ui: mcp_runtime_core::apps::ToolUi) -> Self {
        ui.write_to(self.tool.meta.get_or_insert_with(JsonObject::new));
        self
    }

    /// The tool's interface (MCP Apps), if it has one.
    pub fn tool_ui(&self) -> Option<mcp_runtime_core::apps::ToolUi> {
        self.tool.ui()
    }

    /// Replaces the input schema (kept verbatim: `$schema`, `$defs` and all).
    pub fn input_schema(mut self, schema: JsonObject) -> Self {
        self.tool.input_schema = schema;
        self.schemas_derived = false;
        self
    }

    /// Sets the output schema (kept verbatim).
    pub fn output_schema(mut self, schema: JsonObject) -> Self {
        self.tool.output_schema = Some(schema);
        self.schemas_derived = false;
        self
    }

    /// Replaces the input schema with `schema`, which must be a JSON object (else building the
    /// server fails). Used by `#[mcp_tool(input_schema = ...)]`.
    pub fn verbatim_input_schema(mut self, schema: Value) -> Self {
        match schema {
            Value::Object(schema) => {
                self.tool.input_schema = schema;
                self.schemas_derived = false;
            }
            other => {
                self.defect = Some(format!(
                    "the input schema must be a JSON object, not {other}"
                ))
            }
        }
        self
    }

    /// Sets the output schema to `schema`, which must be a JSON object (else building the server
    /// fails). Used by `#[mcp_tool(output_schema = ...)]`.
    pub fn verbatim_output_schema(mut self, schema: Value) -> Self {
        match schema {
            Value::Object(schema) => {
                self.tool.output_schema = Some(schema);
                self.schemas_derived = false;
            }
            other => {
                self.defect = Some(format!(
                    "the output schema must be a JSON object, not {other}"
                ))
            }
        }
        self
    }

    /// Sets the `_meta` to `meta`, which must be a JSON object (else building the server fails).
    /// Used by `#[mcp_tool(meta = ...)]`.
    pub fn verbatim_meta(mut self, meta: Value) -> Self {
        match meta {
            Value::Object(meta) => self.tool.meta = Some(meta),
            other => self.defect = Some(format!("`_meta` must be a JSON object, not {other}")),
        }
        self
    }

    /// Sets the output schema to the one `R` declares ([`Json<T>`] declares `T`'s).
    pub fn output_schema_of<R: IntoToolResult>(mut self) -> Self {
        if let Some(schema) = R::output_schema() {
            self.tool.output_schema = Some(schema);
        }
        self
    }

    /// Declares that the handler needs shared state of type `T`; building a server without it
    /// fails.
    pub fn requires_state<T: 'static>(mut self) -> Self {
        self.required_state.push(StateRequirement::of::<T>());
        self
    }

    /// Declares the client capabilities the tool needs; a call from a client without them fails.
    pub fn requires_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.required_capabilities = Some(capabilities);
        self
    }

    /// Lets calls run as tasks (`TaskSupport::Optional`), or requires it
    /// (`TaskSupport::Required`), as the tool's `execution.taskSupport` says (2025-11-25). The
    /// server then offers tasks: the `tasks` capability (2025-11-25) and the
    /// `io.modelcontextprotocol/tasks` extension (2026-07-28).
    ///
    /// On 2025-11-25 the client chooses: a call with `task` params runs as a task, one without
    /// runs as usual (a `Required` tool refuses it with `-32601`). On 2026-07-28 the server
    /// chooses: a call from a client that declares the extension becomes a task as
    /// [`task_start`](Self::task_start) says; one from a client that does not runs as usual (a
    /// `Required` tool refuses it with `-32021`, naming the extension).
    pub fn task(mut self, support: TaskSupport) -> Self {
        let execution = self
            .tool
            .execution
            .get_or_insert_with(ToolExecution::default);
        execution.task_support = Some(support);
        self
    }

    /// When a 2026-07-28 call becomes a task (see [`TaskStart`]); the default is at once.
    pub fn task_start(mut self, start: TaskStart) -> Self {
        self.task_start = start;
        self
    }

    /// Whether calls may (`Optional`) or must (`Required`) run as tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or_default()
    }
}

/// What a tool handler may return.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`",
    label = "not a tool result",
    note = "return text (`String`, `&str`), a number or `bool`, `()`, `Json<T>` of a struct \
            (structured content), `Structured<T>` (the same with a text of your own), `ContentBlock`s, a `CallToolResult`, or `Result<T, E>` of one \
            of these with `E: Display` (such as `ToolError`); for a list, return `Json` of a \
            struct that holds it"
)]
pub trait IntoToolResult {
    /// The result sent to the client.
    fn into_tool_result(self) -> CallToolResult;

    /// The tool's output schema, when the returned type declares one.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(self)])
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(self)])
    }
}

macro_rules! text_results {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::success(vec![ContentBlock::text(self.to_string())])
            }
        }
    )*};
}

text_results!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char
);

impl<T: IntoToolResult, E: fmt::Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => CallToolResult::error(error.to_string()),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// Structured data: as a tool result, `structuredContent` plus its JSON text, with `T`'s schema as
/// the tool's `outputSchema`; as the only argument of a tool, the whole input object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => {
                CallToolResult::error(format!("the tool's result could not be serialized: {e}"))
            }
        }
    }

    fn output_schema() -> Option<JsonObject> {
        Some(schema_for::<T>())
    }
}

impl<T: JsonSchema> JsonSchema for Json<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }

    fn inline_schema() -> bool {
        T::inline_schema()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Json<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Json)
    }
}

/// Structured content with a text of your own: `structuredContent` for what reads data (an app's
/// interface, a client that checks the `outputSchema`), and `text` for the model and for hosts
/// that show only text. ([`Json`] sends the JSON itself as the text.)
///
/// An app's tool returns this: the host renders `value` in the app's page, while a host without
/// apps still has a meaningful answer to show.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Weather {
///     celsius: f64,
/// }
///
/// /// Today's weather, shown as a chart by hosts that render apps.
/// #[mcp_tool(ui = "ui://weather/chart")]
/// async fn weather() -> Structured<Weather> {
///     Structured::new("12.5 °C and cloudy.", Weather { celsius: 12.5 })
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Structured<T> {
    /// The text content.
    pub text: String,
    /// The structured content.
    pub value: T,
}

impl<T> Structured<T> {
    /// `value` as structured content, `text` as the text content.
    pub fn new(text: impl Into<String>, value: T) -> Self {
        Structured {
            text: text.into(),
            value,
        }
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> CallToolResult {
        let mut result = Json(self.value).into_tool_result();
        if !result.is_error() {
            result.content = vec![ContentBlock::text(self.text)];
        }
        result
    }

    fn output_schema() -> Option<JsonObject> {
        Json::<T>::output_schema()
    }
}

/// A tool's failure, reported to the model as a result with `isError: true` and the message as
/// its text, so that the model can read what went wrong and try again differently. (A JSON-RPC
/// error, by contrast, is for requests the server could not take at all, such as an unknown
/// tool; see [`ErrorObject`](mcp_runtime_core::ErrorObject).)
///
/// Any error type converts into it with `?`, like `anyhow::Error` (and, like it, `ToolError` does
/// not itself implement `std::error::Error`): its `Display` text becomes the message.
///
/// ```standalone_crate
/// use mcp_runtime::prelude::*;
///
/// /// Read a file of the project.
/// #[mcp_tool]
/// async fn read_file(path: String) -> Result<String, ToolError> {
///     if path.contains("..") {
///         return Err(ToolError::new(format!("{path} leaves the project: give a path inside it")));
///     }
///     // An I/O error becomes the message, e.g. "No such file or directory (os error 2)".
///     Ok(std::fs::read_to_string(&path)?)
/// }
/// # let _ = McpServer::builder(server_info!()).registered_tool("read_file").build().unwrap();
/// ```
///
/// The guide's chapter "Errors" (`docs/src/errors.md`) has the whole story.
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure described by `message`, which the model reads: say what went wrong and, when
    /// the model can do something about it, what to do.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// let error = ToolError::new("no note 7: list the notes to see their ids");
    /// assert_eq!(error.message(), "no note 7: list the notes to see their ids");
    /// assert_eq!(error.to_string(), "no note 7: list the notes to see their ids");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The failure of a call the client cancelled: return it when
    /// [`RequestContext::cancelled`](crate::handler::RequestContext::cancelled) fires. Its
    /// result is never sent, as the protocol asks.
    ///
    /// ```standalone_crate
    /// use mcp_runtime::prelude::*;
    ///
    /// /// Wait, unless the client gives up first.
    /// #[mcp_tool]
    /// async fn wait(seconds: u64, ctx: RequestContext) -> Result<String, ToolError> {
    ///     tokio::select! {
    ///         () = tokio::time::sleep(std::time::Duration::from_secs(seconds)) => Ok("done".into()),
    ///         () = ctx.cancelled() => Err(ToolError::cancelled()),
    ///     }
    /// }
    /// # let _ = McpServer::builder(server_info!()).registered_tool("wait").build().unwrap();
    /// assert_eq!(ToolError::cancelled().message(), "cancelled");
    /// ```
    pub fn cancelled() -> Self {
        ToolError::new("cancelled")
    }

    /// What went wrong: the text the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolError({:?})", self.message)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::new(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime_core::ProtocolVersion;
    use serde_json::json;

    fn rendered(result: &CallToolResult) -> Value {
        mcp_runtime_core::render::to_value(result, ProtocolVersion::V2025_11_25).unwrap()
    }

    #[test]
    fn returned_values_become_results() {
        assert_eq!(
            rendered(&"hi".into_tool_result()),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );
        assert_eq!(
            rendered(&42_i64.into_tool_result()),
            json!({"content": [{"type": "text", "text": "42"}]})
        );
        let failed: Result<String, ToolError> = Err(ToolError::new("no such file"));
        assert_eq!(
            rendered(&failed.into_tool_result()),
            json!({"content": [{"type": "text", "text": "no such file"}], "isError": true})
        );
        let io: Result<(), ToolError> = Err(std::io::Error::other("disk full").into());
        assert_eq!(
            io.into_tool_result().content[0].as_text(),
            Some("disk full")
        );
    }

    #[derive(Serialize, JsonSchema)]
    struct Sum {
        sum: i64,
    }

    #[test]
    fn json_results_are_structured() {
        let result = Json(Sum { sum: 3 }).into_tool_result();
        assert_eq!(
            rendered(&result),
            json!({"content": [{"type": "text", "text": "{\"sum\":3}"}],
                   "structuredContent": {"sum": 3}})
        );
        assert_eq!(
            Value::Object(<Result<Json<Sum>, ToolError>>::output_schema().unwrap()),
            json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]})
        );
        assert_eq!(<String as IntoToolResult>::output_schema(), None);
    }
}
