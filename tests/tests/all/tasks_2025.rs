//! The 2025-11-25 form of tasks on the server, a test for each rule: the `tasks` capability and
//! `execution.taskSupport`, task-augmented `tools/call`, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel`, the status notifications and the requests to the client tagged
//! with their task; and the store's bounds (tasks per owner, TTL). The server and its clients are
//! in `tests::tasks`.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::server::MAX_TASK_TTL;
use serde_json::{Value, json};
use tests::tasks::*;

#[tokio::test]
async fn tasks_are_declared_as_each_revision_wants() {
    let (server, _fixture) = server();
    let (_, initialized) = Session::open(&server, ProtocolVersion::V2025_11_25, json!({})).await;
    assert_eq!(
        initialized["capabilities"],
        json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}})
    );
    let discovered = stateless(&server, "server/discover", json!({}), json!({}))
        .await
        .unwrap();
    assert_eq!(
        discovered["capabilities"],
        json!({"tools": {}, "extensions": {TASKS: {}}})
    );
    // A server with no tool that runs as a task declares neither; one that asks for tasks does.
    let bare = McpServer::builder(server_info!())
        .tool(tests::placeholder_tool("p"))
        .build()
        .unwrap();
    let (_, initialized) = Session::open(&bare, ProtocolVersion::V2025_11_25, json!({})).await;
    assert_eq!(initialized["capabilities"], json!({"tools": {}}));
    let discovered = stateless(&bare, "server/discover", json!({}), json!({}));
    assert_eq!(
        discovered.await.unwrap()["capabilities"],
        json!({"tools": {}})
    );
    // It knows no tasks/* method, and runs a call that asks for a task as a plain one.
    let unknown = |method: &str| {
        Err(json!({"code": -32601, "message": format!("Method not found: {method}")}))
    };
    let mut session = Session::new(&bare, json!({})).await;
    for method in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
        let params = json!({"taskId": "0123456789abcdef0123456789abcdef"});
        assert_eq!(session.request(method, params).await, unknown(method));
    }
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": "0123456789abcdef0123456789abcdef"});
        let answer = stateless(&bare, method, params, capabilities(true, false)).await;
        assert_eq!(answer, unknown(method));
    }
    let call = json!({"name": "p", "arguments": {}, "task": {}});
    assert_eq!(
        session.request("tools/call", call).await,
        Ok(json!({"content": [{"type": "text", "text": ""}]}))
    );
    let asked = McpServer::builder(server_info!())
        .tool(tests::placeholder_tool("p"))
        .tasks(TaskOptions::new())
        .build()
        .unwrap();
    let (_, initialized) = Session::open(&asked, ProtocolVersion::V2025_11_25, json!({})).await;
    assert_eq!(
        initialized["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
}

#[tokio::test]
async fn tools_list_shows_each_tools_task_support() {
    let (server, _fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let listed = session.request("tools/list", json!({})).await.unwrap();
    let mut support: Vec<(String, Value)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["execution"].clone(),
            )
        })
        .collect();
    let optional = json!({"taskSupport": "optional"});
    let required = json!({"taskSupport": "required"});
    let expected = vec![
        ("broken".to_owned(), required.clone()),
        ("confirm".to_owned(), optional.clone()),
        ("crash".to_owned(), required.clone()),
        ("explicit".to_owned(), required.clone()),
        ("grace".to_owned(), optional.clone()),
        ("must".to_owned(), required.clone()),
        ("plain".to_owned(), Value::Null),
        ("quick".to_owned(), optional.clone()),
        ("two_inputs".to_owned(), optional.clone()),
        ("work".to_owned(), optional),
    ];
    support.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(support, expected);
}

#[tokio::test]
async fn a_task_augmented_call_answers_with_the_task_and_its_ttl_within_bounds() {
    let (server, _fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let max = MAX_TASK_TTL.as_millis() as u64;
    for (asked, granted) in [
        (json!({"ttl": 60000}), 60000),
        (json!({"ttl": max + 1}), max),
        (json!({}), DEFAULT_TTL),
    ] {
        let created = session
            .request(
                "tools/call",
                json!({"name": "work", "arguments": {}, "task": asked}),
            )
            .await
            .unwrap();
        assert_eq!(
            masked(&created),
            json!({"task": task_2025("working", granted, None)})
        );
        // The task exists as soon as the call is answered.
        let id = created["task"]["taskId"].as_str().unwrap();
        let got = session
            .request("tasks/get", json!({"taskId": id}))
            .await
            .unwrap();
        assert_eq!(got, created["task"]);
    }
}

#[tokio::test]
async fn tasks_result_waits_for_the_end_and_returns_the_result_tagged_with_the_task() {
    let (server, fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let id = session.start_task("must", json!({})).await;
    let (result, _) = session.start("tasks/result", json!({"taskId": id}));
    settle().await;
    assert!(!result.is_finished(), "tasks/result waits for the task");
    fixture.gate.open(1);
    let result = tokio::time::timeout(WAIT, result).await.unwrap().unwrap();
    assert_eq!(
        result,
        Ok(json!({"content": [{"type": "text", "text": "done"}], "_meta": related(&id)}))
    );
    // The session heard of the end; tasks/get shows it, without the task's meta.
    assert_eq!(
        masked(&session.next().await),
        status_note("completed", None)
    );
    let got = session
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(masked(&got), task_2025("completed", DEFAULT_TTL, None));
    // tasks/result of an ended task answers at once, as often as asked.
    let again = session.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(again, result);
    assert_eq!(session.pending(), Vec::<Value>::new());
}

#[tokio::test]
async fn a_tool_error_fails_the_task_and_tasks_result_returns_the_error_result() {
    let (server, _fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let id = session.start_task("broken", json!({})).await;
    let result = session.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result,
        Ok(
            json!({"content": [{"type": "text", "text": "the input was rejected"}],
            "isError": true, "_meta": related(&id)})
        )
    );
    // tasks/get says why.
    let got = session
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    let message = Some("the input was rejected");
    assert_eq!(masked(&got), task_2025("failed", DEFAULT_TTL, message));
    assert_eq!(
        masked(&session.next().await),
        status_note("failed", message)
    );
}

#[tokio::test]
async fn a_panicking_handler_fails_the_task_with_an_internal_error() {
    let (server, _fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let id = session.start_task("crash", json!({})).await;
    let message = "Tool crash failed: it panicked (the worker crashed)";
    let result = session.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result, Err(json!({"code": -32603, "message": message})));
    let got = session
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(
        masked(&got),
        task_2025("failed", DEFAULT_TTL, Some(message))
    );
    assert_eq!(
        masked(&session.next().await),
        status_note("failed", Some(message))
    );
}

#[tokio::test]
async fn progress_and_logs_of_a_task_reach_the_session_tagged_with_the_task() {
    let (builder, fixture) = tests::tasks::builder();
    let server = builder.logging().build().unwrap();
    let mut session = Session::new(&server, json!({})).await;
    let level = session.request("logging/setLevel", json!({"level": "info"}));
    assert_eq!(level.await, Ok(json!({})));
    let created = session
        .request(
            "tools/call",
            json!({"name": "work", "arguments": {}, "task": {}, "_meta": {"progressToken": "p-7"}}),
        )
        .await
        .unwrap();
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        session.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": "p-7", "progress": 1.0, "total": 2.0, "_meta": related(&id)}})
    );
    assert_eq!(
        session.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {
            "level": "info", "data": "half way", "_meta": related(&id)}})
    );
    fixture.gate.open(1);
    assert_eq!(
        masked(&session.next().await),
        status_note("completed", None)
    );
}

/// The `elicitation/create` of `confirm` for `filename` in the task `id`, with its request id.
fn confirmation_request(id: &str, request_id: &Value, filename: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": request_id, "method": "elicitation/create", "params": {
        "mode": "form", "message": format!("Delete {filename}?"),
        "requestedSchema": {"type": "object", "properties": {
            "confirm": {"type": "boolean", "description": "Go ahead?"}}, "required": ["confirm"]},
        "_meta": related(id)}})
}

/// Checks that the task `id` waits for input: the session hears it, and `tasks/get` says it.
async fn assert_input_required(session: &mut Session, id: &str) {
    assert_eq!(
        masked(&session.next().await),
        status_note("input_required", None)
    );
    let got = session
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(got["status"], "input_required");
}

/// The client's answer that accepts the confirmation `request`.
fn confirmed(request: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"confirm": true}}})
}

/// What `tasks/result` returns for the task `id` that deleted `filename`.
fn deleted(filename: &str, id: &str) -> Result<Value, Value> {
    Ok(
        json!({"content": [{"type": "text", "text": format!("Deleted {filename}")}],
        "_meta": related(id)}),
    )
}

#[tokio::test]
async fn an_elicitation_in_a_task_goes_out_on_a_waiting_tasks_result_and_resumes_the_task() {
    let (server, fixture) = server();
    let mut session = Session::new(&server, json!({"elicitation": {"form": {}}})).await;
    let id = session
        .start_task("confirm", json!({"filename": "notes.txt"}))
        .await;
    let (result, mut stream) = session.start("tasks/result", json!({"taskId": id}));
    settle().await;
    fixture.gate.open(1);
    // The request travels on the stream of the waiting tasks/result, tagged with the task.
    let request = next_on(&mut stream, ProtocolVersion::V2025_11_25).await;
    assert_eq!(
        request,
        confirmation_request(&id, &request["id"], "notes.txt")
    );
    assert_input_required(&mut session, &id).await;
    assert_eq!(session.send(&confirmed(&request)).await, None);
    assert_eq!(masked(&session.next().await), status_note("working", None));
    assert_eq!(
        masked(&session.next().await),
        status_note("completed", None)
    );
    let result = tokio::time::timeout(WAIT, result).await.unwrap().unwrap();
    assert_eq!(result, deleted("notes.txt", &id));
    assert!(stream.try_recv().is_err(), "nothing else on the stream");
}

#[tokio::test]
async fn an_elicitation_waits_for_the_tasks_result_a_client_opens_on_seeing_input_required() {
    let (server, fixture) = server();
    let mut session = Session::new(&server, json!({"elicitation": {"form": {}}})).await;
    fixture.gate.open(1);
    let id = session
        .start_task("confirm", json!({"filename": "late.txt"}))
        .await;
    // The task asks, and says so; the request waits for a stream to carry it.
    assert_input_required(&mut session, &id).await;
    assert!(session.pending().is_empty(), "nothing went to the session");
    // The client, as the spec has it, opens tasks/result: the request travels there.
    let (result, mut stream) = session.start("tasks/result", json!({"taskId": id}));
    let request = next_on(&mut stream, ProtocolVersion::V2025_11_25).await;
    assert_eq!(
        request,
        confirmation_request(&id, &request["id"], "late.txt")
    );
    assert_eq!(session.send(&confirmed(&request)).await, None);
    let result = tokio::time::timeout(WAIT, result).await.unwrap().unwrap();
    assert_eq!(result, deleted("late.txt", &id));
}

#[tokio::test]
async fn an_elicitation_in_a_task_goes_to_the_session_when_no_tasks_result_waits() {
    let (server, fixture) = server();
    let mut session = Session::new(&server, json!({"elicitation": {"form": {}}})).await;
    fixture.gate.open(1);
    let id = session
        .start_task("confirm", json!({"filename": "a.txt"}))
        .await;
    assert_eq!(
        masked(&session.next().await),
        status_note("input_required", None)
    );
    let request = session.next().await;
    assert_eq!(request, confirmation_request(&id, &request["id"], "a.txt"));
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}});
    assert_eq!(session.send(&answer).await, None);
    assert_eq!(masked(&session.next().await), status_note("working", None));
    assert_eq!(
        masked(&session.next().await),
        status_note("completed", None)
    );
    let result = session.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result,
        Ok(json!({"content": [{"type": "text", "text": "Kept a.txt"}], "_meta": related(&id)}))
    );
}

#[tokio::test]
async fn tasks_list_pages_the_sessions_own_tasks() {
    let (builder, _fixture) = builder();
    let server = builder
        .tasks(TaskOptions::new().page_size(2))
        .build()
        .unwrap();
    let mut first = Session::new(&server, json!({})).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(first.start_task("work", json!({})).await);
    }
    let page = first.request("tasks/list", json!({})).await.unwrap();
    let listed = |page: &Value| -> Vec<String> {
        page["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["taskId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(listed(&page), ids[..2]);
    assert_eq!(
        masked(&page["tasks"][0]),
        task_2025("working", DEFAULT_TTL, None)
    );
    let cursor = page["nextCursor"].as_str().expect("a next page").to_owned();
    let last = first
        .request("tasks/list", json!({"cursor": cursor}))
        .await
        .unwrap();
    assert_eq!(listed(&last), ids[2..]);
    assert_eq!(last.get("nextCursor"), None);
    assert_eq!(
        first.request("tasks/list", json!({"cursor": "nope"})).await,
        Err(json!({"code": -32602, "message": "Invalid cursor: nope"}))
    );
    // Another session sees none of them, and none of them exists for it.
    let mut second = Session::new(&server, json!({})).await;
    assert_eq!(
        second.request("tasks/list", json!({})).await,
        Ok(json!({"tasks": []}))
    );
    assert_eq!(
        second
            .request("tasks/list", json!({"cursor": cursor}))
            .await,
        Err(json!({"code": -32602, "message": format!("Invalid cursor: {cursor}")}))
    );
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        assert_eq!(
            second.request(method, json!({"taskId": ids[0]})).await,
            Err(json!({"code": -32602,
                "message": format!("Failed to retrieve task: Task not found ({})", ids[0])})),
            "{method}"
        );
    }
    // The first session's task is untouched.
    let got = first.request("tasks/get", json!({"taskId": ids[0]})).await;
    assert_eq!(got.unwrap()["status"], "working");
}

#[tokio::test]
async fn tasks_cancel_cancels_for_good_and_refuses_an_ended_task() {
    let (server, mut fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let id = session.start_task("work", json!({})).await;
    let cancelled = session
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    let message = "The task was cancelled by request.";
    assert_eq!(
        masked(&cancelled),
        task_2025("cancelled", DEFAULT_TTL, Some(message))
    );
    // The handler saw it, and its answer changes nothing.
    assert_eq!(fixture.event().await, "cancelled: true");
    assert_eq!(fixture.event().await, "returned");
    let got = session
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(got, cancelled);
    // One status notification: the cancellation.
    assert_eq!(
        session.pending().iter().map(masked).collect::<Vec<_>>(),
        [status_note("cancelled", Some(message))]
    );
    assert_eq!(
        session.request("tasks/result", json!({"taskId": id})).await,
        Err(json!({"code": -32602,
            "message": format!("Task {id} was cancelled before it produced a result")}))
    );
    let refused = |status: &str| {
        Err(json!({"code": -32602,
            "message": format!("Cannot cancel task: already in terminal status '{status}'")}))
    };
    assert_eq!(
        session.request("tasks/cancel", json!({"taskId": id})).await,
        refused("cancelled")
    );
    let ended = session.start_task("quick", json!({})).await;
    session
        .request("tasks/result", json!({"taskId": ended}))
        .await
        .unwrap();
    assert_eq!(
        session
            .request("tasks/cancel", json!({"taskId": ended}))
            .await,
        refused("completed")
    );
    assert_eq!(
        session
            .request("tasks/cancel", json!({"taskId": "nope"}))
            .await,
        Err(json!({"code": -32602, "message": "Failed to retrieve task: Task not found (nope)"}))
    );
}

#[tokio::test]
async fn task_params_a_tool_does_not_support_are_refused_and_older_sessions_run_plainly() {
    let (server, fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    assert_eq!(
        session
            .request(
                "tools/call",
                json!({"name": "plain", "arguments": {}, "task": {}})
            )
            .await,
        Err(json!({"code": -32601,
            "message": "Tool plain does not run as a task: call it without `task`"}))
    );
    assert_eq!(
        session
            .request("tools/call", json!({"name": "must", "arguments": {}}))
            .await,
        Err(json!({"code": -32601,
            "message": "Tool must runs only as a task: call it with `task` params"}))
    );
    // An optional tool called without `task` runs as any tool does.
    assert_eq!(
        session
            .request("tools/call", json!({"name": "quick", "arguments": {}}))
            .await,
        Ok(json!({"content": [{"type": "text", "text": "quick"}]}))
    );
    // A revision without tasks runs a required tool as a plain call, and knows no tasks/*.
    let (mut older, _) = Session::open(&server, ProtocolVersion::V2025_06_18, json!({})).await;
    fixture.gate.open(1);
    assert_eq!(
        older
            .request("tools/call", json!({"name": "must", "arguments": {}}))
            .await,
        Ok(json!({"content": [{"type": "text", "text": "done"}]}))
    );
    assert_eq!(
        older.request("tasks/list", json!({})).await,
        Err(json!({"code": -32601, "message": "Method not found: tasks/list"}))
    );
}

// The store's bounds.

#[tokio::test]
async fn an_owner_runs_so_many_tasks_at_once_and_ended_ones_stay_until_their_ttl() {
    let (builder, _fixture) = builder();
    let server = builder
        .tasks(TaskOptions::new().max_tasks_per_owner(2).max_tasks(5))
        .build()
        .unwrap();
    let mut session = Session::new(&server, json!({})).await;
    let first = session.start_task("work", json!({})).await;
    let second = session.start_task("work", json!({})).await;
    let call = json!({"name": "work", "arguments": {}, "task": {}});
    assert_eq!(
        session.request("tools/call", call.clone()).await,
        Err(json!({"code": -32603, "message":
            "too many tasks: this caller already runs 2 that have not ended; wait for one to end or cancel one"}))
    );
    // Another session has room of its own.
    let mut other = Session::new(&server, json!({})).await;
    other.start_task("work", json!({})).await;
    // Once one has ended, the next is accepted, and the ended one is still there.
    session
        .request("tasks/cancel", json!({"taskId": first}))
        .await
        .unwrap();
    let third = session.request("tools/call", call).await.unwrap();
    let third = third["task"]["taskId"].as_str().unwrap().to_owned();
    let listed = session.request("tasks/list", json!({})).await.unwrap();
    let ids: Vec<&str> = listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [first.as_str(), second.as_str(), third.as_str()]);
    let kept = session
        .request("tasks/get", json!({"taskId": first}))
        .await
        .unwrap();
    assert_eq!(kept["status"], "cancelled");
    // The server keeps 5 tasks in all: a sixth waits for a TTL to pass.
    let fourth = other.start_task("work", json!({})).await;
    other
        .request("tasks/cancel", json!({"taskId": fourth}))
        .await
        .unwrap();
    let fifth = json!({"name": "work", "arguments": {}, "task": {}});
    assert_eq!(
        other.request("tools/call", fifth).await,
        Err(json!({"code": -32603, "message":
            "too many tasks: the server keeps 5 until their TTL passes; try again later"}))
    );
}

#[tokio::test]
async fn a_task_is_kept_until_its_ttl_passes() {
    let (server, _fixture) = server();
    let mut session = Session::new(&server, json!({})).await;
    let created = session
        .request(
            "tools/call",
            json!({"name": "quick", "arguments": {}, "task": {"ttl": 1000}}),
        )
        .await
        .unwrap();
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let got = session.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got.unwrap()["ttl"], 1000);
    let gone = json!({"code": -32602,
        "message": format!("Failed to retrieve task: Task not found ({id})")});
    let deadline = tokio::time::Instant::now() + WAIT;
    while session.request("tasks/get", json!({"taskId": id})).await != Err(gone.clone()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task expires in time"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        session.request("tasks/list", json!({})).await,
        Ok(json!({"tasks": []}))
    );
}
