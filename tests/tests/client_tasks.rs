//! `McpClient` calling tools that run as tasks, against the SDK's own server, on both eras: the
//! 2025-11-25 tasks (in process after the handshake, and over a stateful HTTP session) and the
//! tasks extension of 2026-07-28 (in process and over stateless HTTP).
//!
//! Every flow is bounded (see [`bounded`]); no assertion depends on how long anything took.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{CancellationToken, ClientError, McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcp_runtime::protocol::tasks::{Task, TaskStatus};
use mcp_runtime::protocol::{ErrorCode, ProtocolVersion};
use mcp_runtime::server::TaskOptions;
use mcp_runtime::transport::http::HttpOptions;
use serde_json::{Value, json};
use tests::http::TestHttpServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc};

const V2025: ProtocolVersion = ProtocolVersion::V2025_11_25;
const V2026: ProtocolVersion = ProtocolVersion::V2026_07_28;

use TaskStatus::{Cancelled, Completed, Failed, InputRequired, Working};

/// Squares a number, slowly, reporting progress.
#[mcp_tool(task = "optional")]
async fn square(ctx: RequestContext, n: i64) -> String {
    ctx.progress(1, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    ctx.progress(2, 2).await;
    format!("{n} squared is {}", n * n)
}

/// Whether to go ahead.
#[derive(Elicit)]
struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// A name.
#[derive(Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Deletes a file once the user confirms.
#[mcp_tool(task = "optional")]
async fn confirm_delete(ctx: RequestContext, filename: String) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirmation>(format!("Delete {filename}?"))
        .await?;
    Ok(match answer.accepted() {
        Some(Confirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// Asks for a name and a confirmation at once.
#[mcp_tool(task = "optional")]
async fn multi_input(ctx: RequestContext) -> Result<String, ToolError> {
    let (name, confirm) = tokio::join!(
        ctx.input("name").elicit::<Name>("What is your name?"),
        ctx.input("confirm").elicit::<Confirmation>("Go ahead?"),
    );
    let name = name?
        .accepted()
        .map_or_else(|| "someone".to_owned(), |n| n.name);
    let confirmed = confirm?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("{name} confirmed: {confirmed}"))
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

/// Echoes, never as a task.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// The server of these tests; `cancelled` hears of each cancelled `endless` call.
fn server(cancelled: Arc<Notify>) -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .tasks(TaskOptions::new().poll_interval(Duration::from_millis(100)))
        .stateful()
        .state(cancelled)
        .build()
        .unwrap()
}

/// What the client's elicitation handler was asked: each message, with the task it said it
/// belongs to.
type Asked = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A client builder whose elicitation handler answers "Ada" to a form asking a name, confirms
/// any other, and records what it was asked in `asked`.
fn builder(version: ProtocolVersion, asked: &Asked) -> mcp_runtime::client::McpClientBuilder {
    let asked = asked.clone();
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
}

/// A client of `server`, in process, speaking `version`.
async fn connect(server: McpServer, version: ProtocolVersion, asked: &Asked) -> McpClient {
    let client = builder(version, asked)
        .connect_in_process(server)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), version);
    client
}

/// Runs `flow`, failing the test if it takes more than a minute.
async fn bounded<T>(flow: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), flow)
        .await
        .expect("the flow ended in time")
}

/// Every state reported to `seen`, once its sender is gone (the call is over).
async fn states(mut seen: mpsc::UnboundedReceiver<Task>) -> Vec<(String, TaskStatus)> {
    let mut states = Vec::new();
    while let Some(task) = seen.recv().await {
        states.push((task.task_id, task.status));
    }
    states
}

/// The statuses of `states`, checking that they all belong to the task `id`.
fn statuses(states: &[(String, TaskStatus)], id: &str) -> Vec<TaskStatus> {
    states
        .iter()
        .map(|(task, status)| {
            assert_eq!(task, id);
            *status
        })
        .collect()
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().expect("a text block")
}

// The flows, each run on both eras (see `on_both_eras!` below).

async fn a_task_completes_and_reports_its_states(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (progress, mut reports) = mpsc::unbounded_channel();
    let (sink, seen) = mpsc::unbounded_channel();
    let options = RequestOptions::new().progress(progress).task_status(sink);
    let task = client
        .call_tool_as_task("square", json!({"n": 7}), options)
        .await
        .unwrap();
    let id = task.id().expect("a task").to_owned();
    assert_eq!(task.status(), Some(Working));
    assert_eq!(task.immediate_response(), None);
    let result = task.wait().await.unwrap();
    assert_eq!(text(&result), "7 squared is 49");
    assert!(!result.is_error());
    let reported = states(seen).await;
    assert_eq!(statuses(&reported, &id), [Working, Completed]);
    let mut progress = Vec::new();
    while let Some(report) = reports.recv().await {
        progress.push((report.progress, report.total));
    }
    if version == V2025 {
        // The progress of a 2025-11-25 task keeps its call's token.
        assert_eq!(progress, [(1.0, Some(2.0)), (2.0, Some(2.0))]);
        // The server lists the session's tasks.
        let listed = client.list_tasks(None).await.unwrap();
        let listed: Vec<_> = listed
            .tasks
            .iter()
            .map(|t| (t.task_id.as_str(), t.status))
            .collect();
        assert_eq!(listed, [(id.as_str(), Completed)]);
    } else {
        // The extension's tasks carry no progress.
        assert_eq!(progress, []);
    }
    // The task can be looked at again by its id.
    let resumed = client
        .resume_task(id.as_str(), RequestOptions::new())
        .await
        .unwrap();
    assert_eq!(resumed.status(), Some(Completed));
    assert_eq!(text(&resumed.wait().await.unwrap()), "7 squared is 49");
}

async fn an_elicitation_is_answered_by_the_clients_handler(version: ProtocolVersion) {
    let asked = Asked::default();
    let client = connect(server(Arc::default()), version, &asked).await;
    let (sink, seen) = mpsc::unbounded_channel();
    let task = client
        .call_tool_as_task(
            "confirm_delete",
            json!({"filename": "notes.txt"}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    let id = task.id().expect("a task").to_owned();
    let result = task.wait().await.unwrap();
    assert_eq!(text(&result), "Deleted notes.txt");
    let statuses = statuses(&states(seen).await, &id);
    assert_eq!(statuses.first(), Some(&Working));
    assert_eq!(statuses.last(), Some(&Completed));
    let asked = asked.lock().unwrap().clone();
    if version == V2025 {
        // The server's request names its task; whether the client's polls caught the task
        // waiting for the answer depends on how fast the handler answered.
        assert_eq!(asked, [("Delete notes.txt?".to_owned(), Some(id))]);
    } else {
        // The client saw the input request in a poll (and answered it once, however many polls
        // listed it before the task took the answer).
        assert!(statuses.contains(&InputRequired), "{statuses:?}");
        assert_eq!(asked, [("Delete notes.txt?".to_owned(), None)]);
    }
}

async fn two_questions_at_once_are_each_answered_once(version: ProtocolVersion) {
    let asked = Asked::default();
    let client = connect(server(Arc::default()), version, &asked).await;
    let task = client
        .call_tool_as_task("multi_input", json!({}), RequestOptions::new())
        .await
        .unwrap();
    assert!(task.id().is_some());
    let result = task.wait().await.unwrap();
    assert_eq!(text(&result), "Ada confirmed: true");
    let mut messages: Vec<String> = asked
        .lock()
        .unwrap()
        .iter()
        .map(|(message, _)| message.clone())
        .collect();
    messages.sort();
    assert_eq!(messages, ["Go ahead?", "What is your name?"]);
}

async fn a_cancelled_task_ends_cancelled(version: ProtocolVersion) {
    let cancelled = Arc::new(Notify::new());
    let client = connect(server(cancelled.clone()), version, &Asked::default()).await;
    let (sink, seen) = mpsc::unbounded_channel();
    let mut task = client
        .call_tool_as_task(
            "endless",
            json!({}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    let id = task.id().expect("a task").to_owned();
    task.cancel().await.unwrap();
    // The tool's handler hears of it.
    cancelled.notified().await;
    let error = task.wait().await.unwrap_err();
    assert_eq!(
        error,
        ClientError::TaskCancelled {
            task_id: id.clone()
        }
    );
    let mut seen = seen;
    let mut reported = Vec::new();
    while let Some(task) = seen.recv().await {
        reported.push(task);
    }
    let last = reported.last().unwrap();
    assert_eq!(
        last.status_message.as_deref(),
        Some("The task was cancelled by request.")
    );
    let states: Vec<_> = reported
        .into_iter()
        .map(|t| (t.task_id, t.status))
        .collect();
    assert_eq!(statuses(&states, &id), [Working, Cancelled]);
    // Cancelling an ended task: 2025-11-25 refuses, 2026-07-28 acknowledges.
    let mut ended = client
        .resume_task(id.as_str(), RequestOptions::new())
        .await
        .unwrap();
    assert_eq!(ended.status(), Some(Cancelled));
    match ended.cancel().await {
        Ok(()) => assert_eq!(version, V2026),
        Err(ClientError::Server { method, error }) => {
            assert_eq!(version, V2025);
            assert_eq!(
                (method, error.code, error.message.as_str()),
                (
                    "tasks/cancel",
                    ErrorCode(-32602),
                    "Cannot cancel task: already in terminal status 'cancelled'"
                )
            );
        }
        Err(other) => panic!("{other:?}"),
    }
}

async fn a_call_cancelled_by_its_token_cancels_its_task(version: ProtocolVersion) {
    let cancelled = Arc::new(Notify::new());
    let client = connect(server(cancelled.clone()), version, &Asked::default()).await;
    let token = CancellationToken::new();
    let (sink, mut seen) = mpsc::unbounded_channel();
    let options = RequestOptions::new()
        .cancel_on(token.clone())
        .task_status(sink);
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool_with("endless", json!({}), options).await })
    };
    // Once the call is a task, the caller gives up.
    let created = seen.recv().await.unwrap();
    assert_eq!(created.status, Working);
    token.cancel();
    let error = call.await.unwrap().unwrap_err();
    assert_eq!(
        error,
        ClientError::Cancelled {
            method: "tools/call"
        }
    );
    cancelled.notified().await;
    let resumed = client
        .resume_task(created.task_id.as_str(), RequestOptions::new())
        .await
        .unwrap();
    assert_eq!(resumed.status(), Some(Cancelled));
}

async fn a_call_that_times_out_cancels_its_task(version: ProtocolVersion) {
    let cancelled = Arc::new(Notify::new());
    let client = connect(server(cancelled.clone()), version, &Asked::default()).await;
    let (sink, mut seen) = mpsc::unbounded_channel();
    let timeout = Duration::from_secs(1);
    let options = RequestOptions::new().timeout(timeout).task_status(sink);
    let error = client
        .call_tool_with("endless", json!({}), options)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::TimedOut {
            method: "tools/call",
            timeout
        }
    );
    cancelled.notified().await;
    let created = seen.recv().await.unwrap();
    let resumed = client
        .resume_task(created.task_id.as_str(), RequestOptions::new())
        .await
        .unwrap();
    assert_eq!(resumed.status(), Some(Cancelled));
}

async fn dropping_a_call_cancels_its_task(version: ProtocolVersion) {
    let cancelled = Arc::new(Notify::new());
    let client = connect(server(cancelled.clone()), version, &Asked::default()).await;
    let (sink, mut seen) = mpsc::unbounded_channel();
    let call = {
        let client = client.clone();
        let options = RequestOptions::new().task_status(sink);
        tokio::spawn(async move { client.call_tool_with("endless", json!({}), options).await })
    };
    let created = seen.recv().await.unwrap();
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    // The task is cancelled in the background.
    cancelled.notified().await;
    let resumed = client
        .resume_task(created.task_id.as_str(), RequestOptions::new())
        .await
        .unwrap();
    assert_eq!(resumed.status(), Some(Cancelled));
}

async fn a_tool_error_is_an_error_result(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (sink, seen) = mpsc::unbounded_channel();
    let result = client
        .call_tool_with(
            "failing_job",
            json!({}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    assert!(result.is_error());
    assert_eq!(text(&result), "The job failed: the input was rejected");
    let reported = states(seen).await;
    let id = reported[0].0.clone();
    // 2025-11-25 counts a tool error as a failed task; the extension keeps `failed` for
    // protocol errors.
    let ended = if version == V2025 { Failed } else { Completed };
    assert_eq!(statuses(&reported, &id), [Working, ended]);
    // As a typed call, it is an error.
    let typed = client
        .call_tool_as::<String>("failing_job", json!({}))
        .await
        .unwrap_err();
    let ClientError::Tool { name, result } = typed else {
        panic!("{typed:?}")
    };
    assert_eq!(
        (name.as_str(), text(&result)),
        ("failing_job", "The job failed: the input was rejected")
    );
}

async fn a_protocol_error_fails_the_task(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (sink, seen) = mpsc::unbounded_channel();
    let task = client
        .call_tool_as_task(
            "crashing_job",
            json!({}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    let id = task.id().expect("a task").to_owned();
    let error = task.wait().await.unwrap_err();
    let ClientError::Server { method, error } = error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (method, error.code, error.message.as_str()),
        (
            "tools/call",
            ErrorCode(-32603),
            "Tool crashing_job failed: it panicked (the worker crashed)"
        )
    );
    assert_eq!(statuses(&states(seen).await, &id), [Working, Failed]);
}

async fn call_tool_runs_a_required_tool_as_a_task(version: ProtocolVersion) {
    let asked = Asked::default();
    // A fresh client, which has not listed the tools.
    let client = connect(server(Arc::default()), version, &asked).await;
    let result = client
        .call_tool("report", json!({"topic": "tides"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "Report on tides");
    let (sink, seen) = mpsc::unbounded_channel();
    let result = client
        .call_tool_with(
            "report",
            json!({"topic": "winds"}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "Report on winds");
    let reported = states(seen).await;
    assert_eq!(statuses(&reported, &reported[0].0), [Working, Completed]);
    // A tool that asks first: on 2026-07-28 in the call's own rounds, then in a task; on
    // 2025-11-25 from its task.
    let result = client.call_tool("greet_later", json!({})).await.unwrap();
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(asked.lock().unwrap()[0].0, "What is your name?");
    // An optional tool called plainly on 2025-11-25 is a plain call.
    let (sink, seen) = mpsc::unbounded_channel();
    let result = client
        .call_tool_with(
            "square",
            json!({"n": 3}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "3 squared is 9");
    let reported = states(seen).await;
    assert_eq!(reported.is_empty(), version == V2025, "{reported:?}");
}

async fn a_tool_without_task_support_is_answered_at_once(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (sink, seen) = mpsc::unbounded_channel();
    let mut task = client
        .call_tool_as_task(
            "echo",
            json!({"text": "hi"}),
            RequestOptions::new().task_status(sink),
        )
        .await
        .unwrap();
    assert_eq!((task.id(), task.status()), (None, None));
    task.refresh().await.unwrap();
    task.cancel().await.unwrap();
    assert_eq!(text(&task.wait().await.unwrap()), "hi");
    assert_eq!(states(seen).await, []);
}

macro_rules! on_both_eras {
    ($($flow:ident),* $(,)?) => {
        mod on_2025_11_25 {
            $(
                #[tokio::test]
                async fn $flow() {
                    super::bounded(super::$flow(super::V2025)).await
                }
            )*
        }
        mod on_2026_07_28 {
            $(
                #[tokio::test]
                async fn $flow() {
                    super::bounded(super::$flow(super::V2026)).await
                }
            )*
        }
    };
}

on_both_eras!(
    a_task_completes_and_reports_its_states,
    an_elicitation_is_answered_by_the_clients_handler,
    two_questions_at_once_are_each_answered_once,
    a_cancelled_task_ends_cancelled,
    a_call_cancelled_by_its_token_cancels_its_task,
    a_call_that_times_out_cancels_its_task,
    dropping_a_call_cancels_its_task,
    a_tool_error_is_an_error_result,
    a_protocol_error_fails_the_task,
    call_tool_runs_a_required_tool_as_a_task,
    a_tool_without_task_support_is_answered_at_once,
);

#[tokio::test]
async fn a_2026_07_28_server_may_answer_a_call_at_once() {
    bounded(async {
        let client = connect(server(Arc::default()), V2026, &Asked::default()).await;
        let (sink, seen) = mpsc::unbounded_channel();
        let quick = client
            .call_tool_as_task(
                "maybe_slow",
                json!({"slow": false}),
                RequestOptions::new().task_status(sink),
            )
            .await
            .unwrap();
        assert_eq!((quick.id(), quick.task()), (None, None));
        assert_eq!(text(&quick.wait().await.unwrap()), "slow: false");
        assert_eq!(states(seen).await, []);
        // The same tool, when it takes long, becomes a task.
        let (sink, seen) = mpsc::unbounded_channel();
        let slow = client
            .call_tool_as_task(
                "maybe_slow",
                json!({"slow": true}),
                RequestOptions::new().task_status(sink),
            )
            .await
            .unwrap();
        let id = slow.id().expect("a task").to_owned();
        assert_eq!(text(&slow.wait().await.unwrap()), "slow: true");
        assert_eq!(statuses(&states(seen).await, &id), [Working, Completed]);
    })
    .await
}

#[tokio::test]
async fn tasks_run_over_streamable_http_on_both_eras() {
    bounded(async {
        let http = TestHttpServer::start(server(Arc::default()), HttpOptions::default()).await;
        for version in [V2025, V2026] {
            let asked = Asked::default();
            let client = builder(version, &asked)
                .connect_http(http.url.clone())
                .await
                .unwrap();
            assert_eq!(client.protocol_version(), version);
            // An elicitation: on 2025-11-25 a request on the session's or tasks/result's
            // stream; on 2026-07-28 an input request answered with tasks/update, whose
            // Mcp-Name header the server checks.
            let (sink, seen) = mpsc::unbounded_channel();
            let task = client
                .call_tool_as_task(
                    "confirm_delete",
                    json!({"filename": "draft.md"}),
                    RequestOptions::new().task_status(sink),
                )
                .await
                .unwrap();
            let id = task.id().expect("a task").to_owned();
            assert_eq!(text(&task.wait().await.unwrap()), "Deleted draft.md");
            let statuses = statuses(&states(seen).await, &id);
            assert_eq!(
                (statuses.first(), statuses.last()),
                (Some(&Working), Some(&Completed)),
                "{version}"
            );
            let related = (version == V2025).then(|| id.clone());
            assert_eq!(
                asked.lock().unwrap().clone(),
                [("Delete draft.md?".to_owned(), related)]
            );
            // A required tool, transparently.
            let result = client
                .call_tool("report", json!({"topic": "tides"}))
                .await
                .unwrap();
            assert_eq!(text(&result), "Report on tides", "{version}");
            // A protocol error.
            let error = client
                .call_tool("crashing_job", json!({}))
                .await
                .unwrap_err();
            assert_eq!(
                error.server_error().map(|e| e.code),
                Some(ErrorCode(-32603)),
                "{version}"
            );
            // Cancellation.
            let mut task = client
                .call_tool_as_task("endless", json!({}), RequestOptions::new())
                .await
                .unwrap();
            task.cancel().await.unwrap();
            let id = task.id().unwrap().to_owned();
            assert_eq!(
                task.wait().await.unwrap_err(),
                ClientError::TaskCancelled { task_id: id },
                "{version}"
            );
        }
    })
    .await
}

// The wire, against a scripted server whose answers do not depend on time.

/// What a scripted server received.
type Seen = Arc<Mutex<Vec<Value>>>;

/// Connects a client built by `builder` to a scripted server that answers each request with
/// `answer(method, params)` and records every message.
async fn scripted(
    builder: mcp_runtime::client::McpClientBuilder,
    mut answer: impl FnMut(&str, &Value) -> Result<Value, Value> + Send + 'static,
) -> (McpClient, Seen) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let seen = Seen::default();
    let record = seen.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            record.lock().unwrap().push(message.clone());
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let reply = match answer(method, &message["params"]) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            let mut text = reply.to_string();
            text.push('\n');
            write.write_all(text.as_bytes()).await.unwrap();
        }
    });
    let (read, write) = tokio::io::split(client_end);
    (builder.connect_io(read, write).await.unwrap(), seen)
}

/// The requests `seen` holds of a method of tasks (or `tools/call`), with their params.
fn task_requests(seen: &Seen) -> Vec<(String, Value)> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|m| m.get("id").is_some())
        .filter_map(|m| {
            let method = m["method"].as_str()?;
            (method == "tools/call" || method.starts_with("tasks/"))
                .then(|| (method.to_owned(), m["params"].clone()))
        })
        .collect()
}

/// A task in `status`, as the wire of `version` writes it.
fn wire_task(status: &str, version: ProtocolVersion) -> Value {
    let mut task = json!({"taskId": "t-1", "status": status,
        "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"});
    if version == V2025 {
        task["ttl"] = json!(60000);
        task["pollInterval"] = json!(100);
    } else {
        task["ttlMs"] = json!(60000);
        task["pollIntervalMs"] = json!(100);
    }
    task
}

#[tokio::test]
async fn on_2025_11_25_the_client_polls_then_fetches_the_result_of_a_task_that_waits() {
    bounded(async {
        let mut polls = 0;
        let builder = McpClient::builder(server_info!()).protocol_version(V2025);
        let (client, seen) = scripted(builder, move |method, _| match method {
            "initialize" => Ok(json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "scripted", "version": "1"}})),
            "tools/list" => Ok(json!({"tools": [{"name": "job",
                "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]})),
            "tools/call" => Ok(json!({"task": wire_task("working", V2025), "_meta": {
                "io.modelcontextprotocol/model-immediate-response": "The job is under way."}})),
            "tasks/get" => {
                polls += 1;
                let status = match polls {
                    1 => "working",
                    2 => "input_required",
                    _ => "completed",
                };
                Ok(wire_task(status, V2025))
            }
            "tasks/result" => Ok(json!({"content": [{"type": "text", "text": "done"}],
                "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}})),
            other => panic!("unexpected {other}"),
        })
        .await;
        let (sink, seen_states) = mpsc::unbounded_channel();
        let options = RequestOptions::new()
            .task_ttl(Duration::from_secs(60))
            .task_status(sink);
        let task = client
            .call_tool_as_task("job", json!({"x": 1}), options)
            .await
            .unwrap();
        assert_eq!(task.id(), Some("t-1"));
        assert_eq!(task.immediate_response(), Some("The job is under way."));
        let result = task.wait().await.unwrap();
        assert_eq!(text(&result), "done");
        assert_eq!(
            statuses(&states(seen_states).await, "t-1"),
            [Working, InputRequired, Completed]
        );
        let requests = task_requests(&seen);
        // The client learned that the tool runs as a task, and asked for one.
        assert_eq!(
            requests[0],
            (
                "tools/call".to_owned(),
                json!({"name": "job", "arguments": {"x": 1}, "task": {"ttl": 60000}})
            )
        );
        let methods: Vec<&str> = requests.iter().map(|(m, _)| m.as_str()).collect();
        // Polls until the task waits for input, then tasks/result; a poll may run while
        // tasks/result waits, and one reads the ended state.
        assert_eq!(
            methods[..4],
            ["tools/call", "tasks/get", "tasks/get", "tasks/result"]
        );
        assert!(
            methods[4..].iter().all(|m| *m == "tasks/get"),
            "{methods:?}"
        );
        assert!(methods.len() > 4);
        for (_, params) in &requests[1..] {
            assert_eq!(params, &json!({"taskId": "t-1"}));
        }
    })
    .await
}

#[tokio::test]
async fn on_2026_07_28_the_client_answers_each_input_request_once_with_tasks_update() {
    bounded(async {
        let mut polls = 0;
        let asked = Asked::default();
        let builder = builder(V2026, &asked);
        let elicit = |message: &str| {
            json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
                "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}})
        };
        let (client, seen) = scripted(builder, move |method, _| match method {
            "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {},
                    "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "ttlMs": 0, "cacheScope": "private", "resultType": "complete"})),
            "tools/call" => {
                let mut created = wire_task("working", V2026);
                created["resultType"] = json!("task");
                Ok(created)
            }
            "tasks/get" => {
                polls += 1;
                let mut task = wire_task(if polls < 4 { "input_required" } else { "completed" }, V2026);
                task["resultType"] = json!("complete");
                match polls {
                    // The first question, listed until the task takes its answer.
                    1 | 2 => task["inputRequests"] = json!({"q1": elicit("What is your name?")}),
                    3 => {
                        task["inputRequests"] = json!({"q1": elicit("What is your name?"),
                            "q2": elicit("And your friend's?")})
                    }
                    _ => task["result"] = json!({"content": [{"type": "text", "text": "Hi, Ada and Ada"}]}),
                }
                Ok(task)
            }
            "tasks/update" => Ok(json!({"resultType": "complete"})),
            other => panic!("unexpected {other}"),
        })
        .await;
        let (sink, seen_states) = mpsc::unbounded_channel();
        let result = client
            .call_tool_with("greet", json!({}), RequestOptions::new().task_status(sink))
            .await
            .unwrap();
        assert_eq!(text(&result), "Hi, Ada and Ada");
        assert_eq!(
            statuses(&states(seen_states).await, "t-1"),
            [Working, InputRequired, Completed]
        );
        let messages: Vec<String> = asked.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
        assert_eq!(messages, ["What is your name?", "And your friend's?"]);
        let requests = task_requests(&seen);
        let methods: Vec<&str> = requests.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            methods,
            [
                "tools/call",
                "tasks/get",
                "tasks/update",
                "tasks/get",
                "tasks/get",
                "tasks/update",
                "tasks/get"
            ]
        );
        // Every request declares the extension, and names the task.
        for (method, params) in &requests {
            let meta = &params["_meta"];
            assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
            assert_eq!(
                meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]
                    ["io.modelcontextprotocol/tasks"],
                json!({}),
                "{method}"
            );
            if method != "tools/call" {
                assert_eq!(params["taskId"], "t-1");
            }
        }
        let accepted = json!({"action": "accept", "content": {"name": "Ada"}});
        assert_eq!(requests[2].1["inputResponses"], json!({"q1": accepted}));
        assert_eq!(requests[5].1["inputResponses"], json!({"q2": accepted}));
    })
    .await
}

#[tokio::test]
async fn a_task_asking_what_the_client_cannot_answer_is_cancelled() {
    bounded(async {
        // No elicitation handler.
        let builder = McpClient::builder(server_info!()).protocol_version(V2026);
        let (client, seen) = scripted(builder, move |method, _| match method {
            "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private", "resultType": "complete"})),
            "tools/call" => {
                let mut created = wire_task("working", V2026);
                created["resultType"] = json!("task");
                Ok(created)
            }
            "tasks/get" => {
                let mut task = wire_task("input_required", V2026);
                task["resultType"] = json!("complete");
                task["inputRequests"] = json!({"q1": {"method": "elicitation/create",
                    "params": {"mode": "form", "message": "Sure?",
                        "requestedSchema": {"type": "object", "properties": {}}}}});
                Ok(task)
            }
            "tasks/cancel" => Ok(json!({"resultType": "complete"})),
            other => panic!("unexpected {other}"),
        })
        .await;
        let error = client.call_tool("ask", json!({})).await.unwrap_err();
        let ClientError::Server { method, error } = error else {
            panic!("{error:?}")
        };
        assert_eq!((method, error.code), ("tools/call", ErrorCode(-32601)));
        let requests = task_requests(&seen);
        let methods: Vec<&str> = requests.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(methods, ["tools/call", "tasks/get", "tasks/cancel"]);
        assert_eq!(requests[2].1["taskId"], "t-1");
    })
    .await
}
