//! `McpClient` calling tools that run as tasks, against the SDK's own server, on both eras: the
//! 2025-11-25 tasks (in process after the handshake, and over a stateful HTTP session) and the
//! tasks extension of 2026-07-28 (in process and over stateless HTTP). The server and the client
//! are [`tests::client_tasks`]'s; `client_tasks_wire` checks the wire against a scripted server.
//!
//! Every flow is bounded (see [`bounded`]); no assertion depends on how long anything took.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{CancellationToken, ClientError, McpClient, RequestOptions};

use mcp_runtime::protocol::tasks::TaskStatus;
use mcp_runtime::protocol::{ErrorCode, ProtocolVersion};
use mcp_runtime::transport::http::HttpOptions;
use serde_json::json;
use tests::client_tasks::{
    Asked, V2025, V2026, bounded, builder, call_as_task, call_reporting, connect, messages,
    reported, reports, server, statuses, text,
};
use tests::http::TestHttpServer;
use tokio::sync::{Notify, mpsc};

use TaskStatus::{Cancelled, Completed, Failed, InputRequired, Working};

/// Waits until the handler of the task `id` hears that it is cancelled, then checks that the
/// task ended so.
async fn assert_cancelled(client: &McpClient, cancelled: &Notify, id: &str) {
    cancelled.notified().await;
    let resumed = client.resume_task(id, RequestOptions::new()).await.unwrap();
    assert_eq!(resumed.status(), Some(Cancelled));
}

// The flows, each run on both eras (see `on_both_eras!` below).

async fn a_task_completes_and_reports_its_states(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (progress, mut progress_reports) = mpsc::unbounded_channel();
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
    let states = reports(seen).await;
    let mut progress = Vec::new();
    while let Some(report) = progress_reports.recv().await {
        progress.push((report.progress, report.total));
    }
    if version == V2025 {
        assert_eq!(statuses(&states, &id), [Working, Completed]);
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
        // The extension's tasks carry no progress notifications: the handler's progress is the
        // task's status message, reported when a poll catches it while the task works.
        assert_eq!(progress, []);
        let statuses = statuses(&states, &id);
        assert_eq!(
            (statuses.first(), statuses.last()),
            (Some(&Working), Some(&Completed))
        );
        for task in &states[1..states.len() - 1] {
            assert_eq!(task.status, Working);
            let message = task.status_message.as_deref();
            assert!(matches!(message, Some("1/2" | "2/2")), "{states:?}");
        }
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
    let (task, seen) = call_as_task(&client, "confirm", json!({"filename": "notes.txt"})).await;
    let id = task.id().expect("a task").to_owned();
    let result = task.wait().await.unwrap();
    assert_eq!(text(&result), "Deleted notes.txt");
    let statuses = reported(seen, &id).await;
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
    let (task, _) = call_as_task(&client, "two_inputs", json!({})).await;
    assert!(task.id().is_some());
    let result = task.wait().await.unwrap();
    assert_eq!(text(&result), "Ada confirmed: true");
    let mut messages = messages(&asked);
    messages.sort();
    assert_eq!(messages, ["Go ahead?", "Who are you?"]);
}

async fn a_cancelled_task_ends_cancelled(version: ProtocolVersion) {
    let cancelled = Arc::new(Notify::new());
    let client = connect(server(cancelled.clone()), version, &Asked::default()).await;
    let (mut task, seen) = call_as_task(&client, "endless", json!({})).await;
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
    let states = reports(seen).await;
    assert_eq!(
        states.last().unwrap().status_message.as_deref(),
        Some("The task was cancelled by request.")
    );
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
    assert_cancelled(&client, &cancelled, &created.task_id).await;
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
    let created = seen.recv().await.unwrap();
    assert_cancelled(&client, &cancelled, &created.task_id).await;
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
    assert_cancelled(&client, &cancelled, &created.task_id).await;
}

async fn a_tool_error_is_an_error_result(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (result, seen) = call_reporting(&client, "failing_job", json!({})).await;
    let result = result.unwrap();
    assert!(result.is_error());
    assert_eq!(text(&result), "The job failed: the input was rejected");
    let states = reports(seen).await;
    // 2025-11-25 counts a tool error as a failed task; the extension keeps `failed` for
    // protocol errors.
    let ended = if version == V2025 { Failed } else { Completed };
    assert_eq!(statuses(&states, &states[0].task_id), [Working, ended]);
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
    let (task, seen) = call_as_task(&client, "crashing_job", json!({})).await;
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
    assert_eq!(reported(seen, &id).await, [Working, Failed]);
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
    let (result, seen) = call_reporting(&client, "report", json!({"topic": "winds"})).await;
    assert_eq!(text(&result.unwrap()), "Report on winds");
    let states = reports(seen).await;
    assert_eq!(statuses(&states, &states[0].task_id), [Working, Completed]);
    // A tool that asks first: on 2026-07-28 in the call's own rounds, then in a task; on
    // 2025-11-25 from its task.
    let result = client.call_tool("greet_later", json!({})).await.unwrap();
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(messages(&asked), ["What is your name?"]);
    // An optional tool called plainly on 2025-11-25 is a plain call.
    let (result, seen) = call_reporting(&client, "square", json!({"n": 3})).await;
    assert_eq!(text(&result.unwrap()), "3 squared is 9");
    let states = reports(seen).await;
    assert_eq!(states.is_empty(), version == V2025, "{states:?}");
}

async fn a_tool_without_task_support_is_answered_at_once(version: ProtocolVersion) {
    let client = connect(server(Arc::default()), version, &Asked::default()).await;
    let (mut task, seen) = call_as_task(&client, "echo", json!({"text": "hi"})).await;
    assert_eq!((task.id(), task.status()), (None, None));
    task.refresh().await.unwrap();
    task.cancel().await.unwrap();
    assert_eq!(text(&task.wait().await.unwrap()), "hi");
    assert_eq!(reports(seen).await, []);
}

async fn sampling_and_roots_in_a_task_are_answered_by_the_clients_handlers(
    version: ProtocolVersion,
) {
    let asked = Asked::default();
    let client = connect(server(Arc::default()), version, &asked).await;
    let (task, seen) = call_as_task(&client, "summarize_roots", json!({})).await;
    let id = task.id().expect("a task").to_owned();
    let result = task.wait().await.unwrap();
    assert_eq!(
        text(&result),
        "Summary of Summarize file:///work (by test-model)"
    );
    assert_eq!(messages(&asked), ["Summarize file:///work"]);
    let statuses = reported(seen, &id).await;
    assert_eq!(
        (statuses.first(), statuses.last()),
        (Some(&Working), Some(&Completed))
    );
    if version == V2026 {
        // Each request became an input request of the task, seen by a poll.
        assert!(statuses.contains(&InputRequired), "{statuses:?}");
    }
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
    sampling_and_roots_in_a_task_are_answered_by_the_clients_handlers,
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
        let (quick, seen) = call_as_task(&client, "maybe_slow", json!({"slow": false})).await;
        assert_eq!((quick.id(), quick.task()), (None, None));
        assert_eq!(text(&quick.wait().await.unwrap()), "slow: false");
        assert_eq!(reports(seen).await, []);
        // The same tool, when it takes long, becomes a task.
        let (slow, seen) = call_as_task(&client, "maybe_slow", json!({"slow": true})).await;
        let id = slow.id().expect("a task").to_owned();
        assert_eq!(text(&slow.wait().await.unwrap()), "slow: true");
        assert_eq!(reported(seen, &id).await, [Working, Completed]);
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
            let (task, seen) =
                call_as_task(&client, "confirm", json!({"filename": "draft.md"})).await;
            let id = task.id().expect("a task").to_owned();
            assert_eq!(text(&task.wait().await.unwrap()), "Deleted draft.md");
            let statuses = reported(seen, &id).await;
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
            let (mut task, _) = call_as_task(&client, "endless", json!({})).await;
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
