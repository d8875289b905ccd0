//! The server and client of the tests of `McpClient` calling tools that run as tasks
//! (`client_tasks`, `client_tasks_wire`): a tool for each way a call becomes a task (slow with
//! progress, endless until cancelled, failing, crashing, required, started explicitly, never a
//! task), with the elicitation tools of [`tasks`](crate::tasks) behind a gate left open; a client
//! whose elicitation handler answers every form and records what it was asked; and the states a
//! call reported.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{ClientError, McpClient, McpClientBuilder, RequestOptions, ToolTask};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::content::TextContent;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcp_runtime::protocol::roots::Root;
use mcp_runtime::protocol::sampling::{
    CreateMessageRequestParams, CreateMessageResult, SamplingContentBlock, SamplingMessage,
};
use mcp_runtime::protocol::tasks::{Task, TaskStatus};
use mcp_runtime::server::TaskOptions;
use serde_json::Value;
use tokio::sync::{Notify, mpsc};

use crate::tasks::{Gate, Name};

/// The handshake era.
pub const V2025: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// The era of the tasks extension.
pub const V2026: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// Squares a number, slowly, reporting progress.
#[mcp_tool(task = "optional")]
async fn square(ctx: RequestContext, n: i64) -> String {
    ctx.progress(1, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    ctx.progress(2, 2).await;
    format!("{n} squared is {}", n * n)
}

/// Runs until cancelled.
#[mcp_tool(task = "required")]
async fn endless(
    ctx: RequestContext,
    State(seen): State<Arc<Notify>>,
) -> Result<String, ToolError> {
    ctx.cancelled().await;
    seen.notify_one();
    Err(ToolError::cancelled())
}

/// A job that fails, as a tool does.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(ToolError::new("The job failed: the input was rejected"))
}

/// A job whose worker crashes: its task fails with a protocol error.
#[mcp_tool(task = "required")]
async fn crashing_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the worker crashed")
}

/// Writes a report; it must run as a task.
#[mcp_tool(task = "required")]
async fn report(topic: String) -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    format!("Report on {topic}")
}

/// Answers at once unless asked to be slow (then it becomes a task, on 2026-07-28).
#[mcp_tool(task = "optional", task_start = "explicitly")]
async fn maybe_slow(ctx: RequestContext, slow: bool) -> String {
    if slow {
        ctx.start_task().await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    format!("slow: {slow}")
}

/// Asks for a name first (in the call's own rounds on 2026-07-28), then greets in a task.
#[mcp_tool(task = "required", task_start = "explicitly")]
async fn greet_later(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx
        .input("user_name")
        .elicit::<Name>("What is your name?")
        .await?;
    let name = answer
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    ctx.start_task().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}!"))
}

/// Reads the client's roots, then asks its model to summarize them, as a task.
#[mcp_tool(task = "required")]
async fn summarize_roots(ctx: RequestContext) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    let prompt = SamplingMessage::user_text(format!("Summarize {}", uris.join(", ")));
    let answer = ctx
        .sample(CreateMessageRequestParams::new(vec![prompt], 100))
        .await?;
    Ok(format!("{} (by {})", answer.content.text(), answer.model))
}

/// Echoes, never as a task.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// The server of these tests: this module's tools, and `confirm` (which asks to delete a file)
/// and `two_inputs` (which asks two questions at once) of [`tasks`](crate::tasks); `cancelled`
/// hears of each cancelled `endless` call.
pub fn server(cancelled: Arc<Notify>) -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .registered_tool("tests::tasks::confirm")
        .registered_tool("tests::tasks::two_inputs")
        .tasks(TaskOptions::new().poll_interval(Duration::from_millis(100)))
        .stateful()
        .state(cancelled)
        .state(Gate::always_open())
        .build()
        .unwrap()
}

/// What the client's handlers were asked: each elicitation's message, with the task it said it
/// belongs to, and each sampling request's prompt.
pub type Asked = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A client builder whose elicitation handler answers "Ada" to a form asking a name, confirms
/// any other, and records what it was asked in `asked`; whose model answers "Summary of" what it
/// was asked (recorded too); and whose one root is `file:///work`.
pub fn builder(version: ProtocolVersion, asked: &Asked) -> McpClientBuilder {
    let (asked, sampled) = (asked.clone(), asked.clone());
    McpClient::builder(server_info!())
        .protocol_version(version)
        .elicitation(move |params| {
            let asked = asked.clone();
            async move {
                let ElicitRequestParams::Form(form) = params else {
                    panic!("a form")
                };
                let task = form
                    .meta
                    .as_ref()
                    .and_then(|m| m.related_task.as_ref())
                    .map(|t| t.task_id.clone());
                asked.lock().unwrap().push((form.message.clone(), task));
                let (field, value) = if form.requested_schema.properties.contains_key("name") {
                    ("name", ElicitValue::String("Ada".into()))
                } else {
                    ("confirm", ElicitValue::Boolean(true))
                };
                let content = [(field.to_owned(), value)].into_iter().collect();
                Ok(ElicitResult::accept(content))
            }
        })
        .sampling(move |params| {
            let sampled = sampled.clone();
            async move {
                let prompt = params.messages[0].content.text();
                sampled.lock().unwrap().push((prompt.clone(), None));
                let text = TextContent::new(format!("Summary of {prompt}"));
                Ok(CreateMessageResult::new(
                    SamplingContentBlock::Text(text),
                    "test-model",
                ))
            }
        })
        .roots(vec![Root::new("file:///work")])
}

/// A client of `server`, in process, speaking `version`.
pub async fn connect(server: McpServer, version: ProtocolVersion, asked: &Asked) -> McpClient {
    let client = builder(version, asked)
        .connect_in_process(server)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), version);
    client
}

/// Calls `tool` with `arguments` as a task; the task, and the receiver of the states it reports.
pub async fn call_as_task(
    client: &McpClient,
    tool: &str,
    arguments: Value,
) -> (ToolTask, mpsc::UnboundedReceiver<Task>) {
    let (sink, seen) = mpsc::unbounded_channel();
    let options = RequestOptions::new().task_status(sink);
    let task = client.call_tool_as_task(tool, arguments, options).await;
    (task.unwrap(), seen)
}

/// Calls `tool` with `arguments` (as a task if the server makes it one); the outcome, and the
/// receiver of the states the task reported.
pub async fn call_reporting(
    client: &McpClient,
    tool: &str,
    arguments: Value,
) -> (
    Result<CallToolResult, ClientError>,
    mpsc::UnboundedReceiver<Task>,
) {
    let (sink, seen) = mpsc::unbounded_channel();
    let options = RequestOptions::new().task_status(sink);
    (client.call_tool_with(tool, arguments, options).await, seen)
}

/// The messages and prompts the client's handlers were asked, in order.
pub fn messages(asked: &Asked) -> Vec<String> {
    asked
        .lock()
        .unwrap()
        .iter()
        .map(|(message, _)| message.clone())
        .collect()
}

/// Runs `flow`, failing the test if it takes more than a minute.
pub async fn bounded<T>(flow: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), flow)
        .await
        .expect("the flow ended in time")
}

/// Every state reported to `seen`, once its sender is gone (the call is over).
pub async fn reports(mut seen: mpsc::UnboundedReceiver<Task>) -> Vec<Task> {
    let mut reports = Vec::new();
    while let Some(task) = seen.recv().await {
        reports.push(task);
    }
    reports
}

/// The statuses of `reports`, checking that they all belong to the task `id`.
pub fn statuses(reports: &[Task], id: &str) -> Vec<TaskStatus> {
    reports
        .iter()
        .map(|task| {
            assert_eq!(task.task_id, id);
            task.status
        })
        .collect()
}

/// The statuses reported to `seen` once the call is over, checking that they all belong to the
/// task `id`.
pub async fn reported(seen: mpsc::UnboundedReceiver<Task>, id: &str) -> Vec<TaskStatus> {
    statuses(&reports(seen).await, id)
}

/// The text of the first block of `result`.
pub fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().expect("a text block")
}
