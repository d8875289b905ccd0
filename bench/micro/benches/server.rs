//! Criterion micro-benchmarks of the server, in process.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::schema::CompiledSchema;
use mcp_runtime::sse;
use micro::{
    CALL_ADD, CALL_ADD_STATELESS, INITIALIZE, INITIALIZED, LIST_TOOLS, add_server,
    server_with_tools,
};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A connection past the 2025-11-25 handshake.
async fn session(server: &McpServer) -> Arc<ConnectionState> {
    let connection = ConnectionState::persistent(None);
    server.handle_raw(INITIALIZE, &connection, None).await;
    server.handle_raw(INITIALIZED, &connection, None).await;
    connection
}

fn handle_raw(c: &mut Criterion) {
    let rt = runtime();
    let server = add_server();
    let connection = rt.block_on(session(&server));
    let reply = rt.block_on(server.handle_raw(CALL_ADD, &connection, None));
    assert_eq!(
        reply.as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}"#)
    );
    let mut group = c.benchmark_group("handle_raw");
    group.bench_function("tools/call add (2025-11-25 session)", |b| {
        b.to_async(&rt).iter(|| async {
            server
                .handle_raw(black_box(CALL_ADD), &connection, None)
                .await
        })
    });
    group.bench_function("tools/call add (2026-07-28, stateless)", |b| {
        b.to_async(&rt).iter(|| async {
            let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
            server
                .handle_raw(black_box(CALL_ADD_STATELESS), &connection, None)
                .await
        })
    });
    group.finish();
}

fn list_tools(c: &mut Criterion) {
    let rt = runtime();
    let server = server_with_tools(100);
    let connection = rt.block_on(session(&server));
    let reply = rt
        .block_on(server.handle_raw(LIST_TOOLS, &connection, None))
        .expect("a reply");
    let listed: Value = serde_json::from_str(&reply).expect("JSON");
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(100)
    );
    c.bench_function("tools/list (100 tools)", |b| {
        b.to_async(&rt).iter(|| async {
            server
                .handle_raw(black_box(LIST_TOOLS), &connection, None)
                .await
        })
    });
}

fn validate_arguments(c: &mut Criterion) {
    let rt = runtime();
    let server = add_server();
    let connection = rt.block_on(session(&server));
    let reply = rt
        .block_on(server.handle_raw(LIST_TOOLS, &connection, None))
        .expect("a reply");
    let listed: Value = serde_json::from_str(&reply).expect("JSON");
    let Value::Object(input_schema) = listed["result"]["tools"][0]["inputSchema"].clone() else {
        panic!("add has an input schema: {reply}");
    };
    let schema = CompiledSchema::compile(&input_schema).expect("the schema compiles");
    let valid = json!({"a": 1, "b": 2});
    let invalid = json!({"a": "one"});
    assert!(schema.validate(&valid).is_ok());
    assert_eq!(schema.validate(&invalid).unwrap_err().problems.len(), 2);
    let mut group = c.benchmark_group("validate arguments of add");
    group.bench_function("valid", |b| b.iter(|| schema.validate(black_box(&valid))));
    group.bench_function("invalid", |b| {
        b.iter(|| schema.validate(black_box(&invalid)))
    });
    group.finish();
}

fn sse_encoder(c: &mut Criterion) {
    let reply = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}"#;
    assert_eq!(
        sse::encode_event("0:1", reply),
        format!("id: 0:1\ndata: {reply}\n\n")
    );
    c.bench_function("sse encode_event (one tools/call reply)", |b| {
        b.iter(|| sse::encode_event(black_box("0:1"), black_box(reply)))
    });
}

criterion_group!(
    benches,
    handle_raw,
    list_tools,
    validate_arguments,
    sse_encoder
);
criterion_main!(benches);
