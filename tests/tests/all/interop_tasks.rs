//! The official TypeScript client's task API (`client.experimental.tasks` of
//! `@modelcontextprotocol/sdk`) drives the task tools of `conformance-server` over Streamable
//! HTTP on 2025-11-25: `callToolStream` (task created, polled, result), a task-augmented
//! `callTool` with a TTL and a progress token polled with `getTask` then read with
//! `getTaskResult`, `listTasks`, `cancelTask`, a tool error and a protocol error as failed tasks,
//! an elicitation tagged with its task, and a tool without task support called as one.
//!
//! `interop/tasks_client.mjs` prints one JSON line per step (ids and timestamps replaced by their
//! shape), which must equal `tests/expected/tasks-transcript.jsonl` exactly, then the wire: every
//! message the server wrote must validate against the 2025-11-25 schema, task results included.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::Value;
use tests::interop::{HttpExample, interop_script, node, repo_root, run_json_lines};
use tests::json_difference;
use tests::spec_schema;
use tests::wire::{check_response, check_server_message};

/// The longest the script may run (its own waits are bounded by less).
const SCRIPT_LIMIT: Duration = Duration::from_secs(120);

#[test]
fn typescript_task_api_drives_the_conformance_server_over_http() {
    let server = HttpExample::start("conformance-server", &["http", "127.0.0.1:0"]);
    let script = interop_script("tasks_client.mjs");
    let mut steps = run_json_lines(
        &node(),
        [script.as_os_str(), "http".as_ref(), server.url.as_ref()],
        SCRIPT_LIMIT,
    );
    drop(server);

    let wire = steps.pop().expect("the script printed its wire");
    assert_eq!(wire["step"], "wire", "the last line is the wire");
    let path = repo_root().join("tests/expected/tasks-transcript.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let expected: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each expected line is JSON"))
        .collect();
    let printed = || {
        steps
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        steps.len(),
        expected.len(),
        "the script printed another number of steps:\n{}",
        printed()
    );
    for (expected, step) in expected.iter().zip(&steps) {
        if let Some(difference) = json_difference(expected, step) {
            panic!(
                "step {} differs at {difference}; the transcript was:\n{}",
                expected["step"],
                printed()
            );
        }
    }
    check_task_wire(&wire);
}

/// Checks every message the server wrote against the 2025-11-25 schema: the responses to task
/// requests by their task definitions (a task-augmented `tools/call` is answered by a
/// `CreateTaskResult`, `tasks/result` by the call's `CallToolResult`), the others as
/// `tests::wire` checks them, and `notifications/tasks/status` as itself. Each task definition
/// must have been met.
fn check_task_wire(wire: &Value) {
    let version = ProtocolVersion::V2025_11_25;
    let schema = spec_schema(version);
    let check = |definition: &str, instance: &Value| {
        schema
            .check(definition, instance)
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let requests: HashMap<String, &Value> = wire["sent"]
        .as_array()
        .expect("sent messages")
        .iter()
        .filter(|m| m.get("method").is_some())
        .filter_map(|m| Some((m.get("id")?.to_string(), m)))
        .collect();
    let mut met = BTreeSet::new();
    for message in wire["received"].as_array().expect("received messages") {
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            check_server_message(version, message, method);
            if method == "notifications/tasks/status" {
                check("TaskStatusNotification", message);
                met.insert("TaskStatusNotification");
            }
            continue;
        }
        let request = requests
            .get(&message["id"].to_string())
            .unwrap_or_else(|| panic!("a response to no request: {message}"));
        let method = request["method"].as_str().expect("a request has a method");
        let task_augmented = request["params"].get("task").is_some();
        let definition = match method {
            "tools/call" if task_augmented => Some("CreateTaskResult"),
            "tasks/get" => Some("GetTaskResult"),
            "tasks/list" => Some("ListTasksResult"),
            "tasks/cancel" => Some("CancelTaskResult"),
            "tasks/result" => Some("CallToolResult"),
            _ => None,
        };
        match definition {
            Some(definition) if message.get("result").is_some() => {
                check("JSONRPCResultResponse", message);
                check(definition, &message["result"]);
                if method == "tasks/result" {
                    check("GetTaskPayloadResult", &message["result"]);
                }
                met.insert(definition);
            }
            _ => check_response(version, message, method),
        }
    }
    let expected = BTreeSet::from([
        "CallToolResult",
        "CancelTaskResult",
        "CreateTaskResult",
        "GetTaskResult",
        "ListTasksResult",
        "TaskStatusNotification",
    ]);
    assert_eq!(met, expected, "the task messages met on the wire");
}
