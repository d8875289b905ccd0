//! Criterion micro-benchmarks of tasks, in process: what a plain `tools/call` costs on a server
//! that offers tasks (the task plan is consulted on every call), and the whole life of a task on
//! each era: created, run in the background, and its outcome fetched (`tasks/result` on a
//! 2025-11-25 session; `tasks/get` until it is `completed` on 2026-07-28).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::implementation::Implementation;
use micro::{CALL_ADD, INITIALIZE, INITIALIZED};
use serde_json::Value;
use tokio::runtime::Runtime;

/// Add two integers, as a task when the client wants one.
#[mcp_tool(task = "optional")]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

const CALL_AS_TASK: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"task":{"ttl":60000}}}"#;

const META_2026: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0.1.0"}}"#;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn server() -> McpServer {
    McpServer::from_module(Implementation::new("micro", "0.1.0"), module_path!())
        .build()
        .expect("the task server builds")
}

async fn session(server: &McpServer) -> Arc<ConnectionState> {
    let connection = ConnectionState::persistent(None);
    server.handle_raw(INITIALIZE, &connection, None).await;
    server.handle_raw(INITIALIZED, &connection, None).await;
    connection
}

/// The task id in the answer to a call made as a task, for either era.
fn task_id(reply: &str) -> String {
    let reply: Value = serde_json::from_str(reply).expect("a JSON reply");
    let result = &reply["result"];
    let id = result["task"]["taskId"]
        .as_str()
        .or_else(|| result["taskId"].as_str());
    id.expect("the call became a task").to_owned()
}

/// A whole 2025-11-25 task: created, then its result fetched.
async fn task_2025(server: &McpServer, connection: &Arc<ConnectionState>) -> String {
    let created = server
        .handle_raw(black_box(CALL_AS_TASK), connection, None)
        .await
        .expect("an answer");
    let id = task_id(&created);
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tasks/result","params":{{"taskId":"{id}"}}}}"#
    );
    server
        .handle_raw(result.as_bytes(), connection, None)
        .await
        .expect("the task's result")
}

/// A whole 2026-07-28 task: created by the server, then polled until completed.
async fn task_2026(server: &McpServer) -> String {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{META_2026}}}}}"#
    );
    let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
    let created = server
        .handle_raw(black_box(call.as_bytes()), &connection, None)
        .await
        .expect("an answer");
    let id = task_id(&created);
    let get = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{{"taskId":"{id}",{META_2026}}}}}"#
    );
    loop {
        let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
        let reply = server
            .handle_raw(get.as_bytes(), &connection, None)
            .await
            .expect("the task's state");
        if reply.contains(r#""status":"completed""#) {
            return reply;
        }
        tokio::task::yield_now().await;
    }
}

fn tasks(c: &mut Criterion) {
    let rt = runtime();
    let server = server();
    let connection = rt.block_on(session(&server));
    let plain = rt.block_on(server.handle_raw(CALL_ADD, &connection, None));
    assert_eq!(
        plain.as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}"#)
    );
    let outcome = rt.block_on(task_2025(&server, &connection));
    assert!(outcome.contains(r#""content":[{"type":"text","text":"3"}]"#));
    let outcome = rt.block_on(task_2026(&server));
    assert!(outcome.contains(r#""result":{"content":[{"type":"text","text":"3"}]"#));

    let mut group = c.benchmark_group("tasks");
    group.bench_function(
        "plain tools/call add on a server with tasks (2025-11-25)",
        |b| {
            b.to_async(&rt).iter(|| async {
                server
                    .handle_raw(black_box(CALL_ADD), &connection, None)
                    .await
            })
        },
    );
    group.bench_function("task: create + tasks/result (2025-11-25 session)", |b| {
        b.to_async(&rt)
            .iter(|| async { task_2025(&server, &connection).await })
    });
    group.bench_function(
        "task: create + tasks/get until completed (2026-07-28)",
        |b| b.to_async(&rt).iter(|| async { task_2026(&server).await }),
    );
    group.finish();
}

criterion_group!(benches, tasks);
criterion_main!(benches);
