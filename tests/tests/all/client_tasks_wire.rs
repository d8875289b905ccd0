//! `McpClient` following a task, checked on the wire against a scripted server whose answers do
//! not depend on time: the requests it sends on each era, in order, with their params.

use std::time::Duration;

use mcp_runtime::client::{ClientError, McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::tasks::TaskStatus::{Completed, InputRequired, Working};
use serde_json::{Value, json};
use tests::client_tasks::{
    Asked, V2025, V2026, bounded, builder, call_reporting, messages, reported, text,
};
use tests::scripted::{Seen, discover_result, initialize_result, scripted};

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

/// The methods of `requests`, in order.
fn methods(requests: &[(String, Value)]) -> Vec<&str> {
    requests.iter().map(|(m, _)| m.as_str()).collect()
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
        task["resultType"] = json!("complete");
    }
    task
}

/// The 2026-07-28 answer to a `tools/call` that became the task `t-1`.
fn created_2026() -> Value {
    let mut created = wire_task("working", V2026);
    created["resultType"] = json!("task");
    created
}

#[tokio::test]
async fn on_2025_11_25_the_client_polls_then_fetches_the_result_of_a_task_that_waits() {
    bounded(async {
        let mut polls = 0;
        let builder = McpClient::builder(server_info!()).protocol_version(V2025);
        let (client, seen) = scripted(builder, move |method, _| {
            Some(Ok(match method {
                "initialize" => initialize_result(
                    json!({"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}),
                ),
                "tools/list" => json!({"tools": [{"name": "job",
                    "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]}),
                "tools/call" => json!({"task": wire_task("working", V2025), "_meta": {
                    "io.modelcontextprotocol/model-immediate-response": "The job is under way."}}),
                "tasks/get" => {
                    polls += 1;
                    let status = match polls {
                        1 => "working",
                        2 => "input_required",
                        _ => "completed",
                    };
                    wire_task(status, V2025)
                }
                "tasks/result" => json!({"content": [{"type": "text", "text": "done"}],
                    "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}),
                other => panic!("unexpected {other}"),
            }))
        })
        .await;
        let client = client.unwrap();
        let (sink, seen_states) = tokio::sync::mpsc::unbounded_channel();
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
            reported(seen_states, "t-1").await,
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
        let methods = methods(&requests);
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
        let elicit = |message: &str| {
            json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
                "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}})
        };
        let (client, seen) = scripted(builder(V2026, &asked), move |method, _| {
            Some(Ok(match method {
                "server/discover" => discover_result(
                    json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
                ),
                "tools/call" => created_2026(),
                "tasks/get" => {
                    polls += 1;
                    let status = if polls < 4 { "input_required" } else { "completed" };
                    let mut task = wire_task(status, V2026);
                    match polls {
                        // The first question, listed until the task takes its answer.
                        1 | 2 => task["inputRequests"] = json!({"q1": elicit("What is your name?")}),
                        3 => {
                            task["inputRequests"] = json!({"q1": elicit("What is your name?"),
                                "q2": elicit("And your friend's?")})
                        }
                        _ => {
                            task["result"] =
                                json!({"content": [{"type": "text", "text": "Hi, Ada and Ada"}]})
                        }
                    }
                    task
                }
                "tasks/update" => json!({"resultType": "complete"}),
                other => panic!("unexpected {other}"),
            }))
        })
        .await;
        let (result, seen_states) = call_reporting(&client.unwrap(), "greet", json!({})).await;
        assert_eq!(text(&result.unwrap()), "Hi, Ada and Ada");
        assert_eq!(
            reported(seen_states, "t-1").await,
            [Working, InputRequired, Completed]
        );
        assert_eq!(messages(&asked), ["What is your name?", "And your friend's?"]);
        let requests = task_requests(&seen);
        assert_eq!(
            methods(&requests),
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
        let (client, seen) = scripted(builder, move |method, _| {
            Some(Ok(match method {
                "server/discover" => discover_result(json!({"tools": {}})),
                "tools/call" => created_2026(),
                "tasks/get" => {
                    let mut task = wire_task("input_required", V2026);
                    task["inputRequests"] = json!({"q1": {"method": "elicitation/create",
                        "params": {"mode": "form", "message": "Sure?",
                            "requestedSchema": {"type": "object", "properties": {}}}}});
                    task
                }
                "tasks/cancel" => json!({"resultType": "complete"}),
                other => panic!("unexpected {other}"),
            }))
        })
        .await;
        let error = client
            .unwrap()
            .call_tool("ask", json!({}))
            .await
            .unwrap_err();
        let ClientError::Server { method, error } = error else {
            panic!("{error:?}")
        };
        assert_eq!((method, error.code), ("tools/call", ErrorCode(-32601)));
        let requests = task_requests(&seen);
        assert_eq!(
            methods(&requests),
            ["tools/call", "tasks/get", "tasks/cancel"]
        );
        assert_eq!(requests[2].1["taskId"], "t-1");
    })
    .await
}
