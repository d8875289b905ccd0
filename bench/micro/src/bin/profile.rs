//! Runs one in-process case many times, for a profiler:
//!
//! ```sh
//! cargo build --release --manifest-path bench/Cargo.toml -p micro --bin profile
//! valgrind --tool=callgrind bench/target/release/profile call 20000
//! ```
//!
//! Cases: `call` (`tools/call add`, 2025-11-25 session), `call-stateless` (2026-07-28, stateless),
//! `list` (`tools/list` of 100 tools), `task` (a `tools/call` run as a task and its
//! `tasks/result`, 2025-11-25 session, the tasks kept in memory). A third argument puts one layer on the server of `call`
//! and `call-stateless` (what one layer costs): `empty` (a `from_fn` that passes the request
//! on), `timeout`, `concurrency`, `rate-limit`, `response-size`, `hide`, `audit`, or
//! `tool-empty` (an empty layer on the tool `add` alone).
//!
//! `PROFILE_SUBSCRIBER` says who listens to the spans: nobody (unset), `registry` (a `tracing`
//! subscriber that takes every span and drops it), `fmt` (every span and event formatted, to
//! nowhere), or `otel` (every span exported over OTLP/HTTP, and the duration metrics, to the
//! receiver `OTEL_EXPORTER_OTLP_ENDPOINT` names).

use std::sync::Arc;

use mcp_runtime::prelude::*;
use std::time::Duration;

use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::server::middleware;
use mcp_runtime::telemetry::Telemetry;
use micro::{
    CALL_ADD, CALL_ADD_STATELESS, CALL_AS_TASK, INITIALIZE, INITIALIZED, LIST_TOOLS, add_server,
    add_server_builder, server_with_tools, task_server,
};

const USAGE: &str = "usage: profile call|call-stateless|list|task ITERATIONS [LAYER]";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (case, iterations, layer) = match args.as_slice() {
        [case, n] => (case.as_str(), n.parse::<usize>().expect(USAGE), None),
        [case, n, layer] => (
            case.as_str(),
            n.parse::<usize>().expect(USAGE),
            Some(layer.as_str()),
        ),
        _ => panic!("{USAGE}"),
    };
    let telemetry = listen();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (server, message) = match case {
            "call" | "call-stateless" => match layer {
                None => (add_server(), CALL_ADD),
                Some(layer) => (layered(layer), CALL_ADD),
            },
            "list" => (server_with_tools(100), LIST_TOOLS),
            "task" => (task_server(), CALL_AS_TASK),
            _ => panic!("{USAGE}"),
        };
        let session = session(&server).await;
        let mut bytes = 0;
        for _ in 0..iterations {
            let reply = if case == "task" {
                let created = server.handle_raw(message, &session, None).await;
                let created = created.expect("the task is created");
                let id = task_id(&created);
                let result = format!(
                    r#"{{"jsonrpc":"2.0","id":10,"method":"tasks/result","params":{{"taskId":"{id}"}}}}"#
                );
                bytes += created.len();
                server.handle_raw(result.as_bytes(), &session, None).await
            } else if case == "call-stateless" {
                let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
                server
                    .handle_raw(CALL_ADD_STATELESS, &connection, None)
                    .await
            } else {
                server.handle_raw(message, &session, None).await
            };
            bytes += reply.map_or(0, |r| r.len());
        }
        eprintln!("{iterations} replies, {bytes} bytes");
    });
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
}

/// The `taskId` of a `CreateTaskResult`, found in its text.
fn task_id(text: &str) -> String {
    let start = text.find(r#""taskId":""#).expect("a task id") + r#""taskId":""#.len();
    let end = start + text[start..].find('"').expect("the id's end");
    text[start..end].to_owned()
}

/// Installs the subscriber `PROFILE_SUBSCRIBER` names; the telemetry to shut down, for `otel`.
fn listen() -> Option<Telemetry> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    match std::env::var("PROFILE_SUBSCRIBER").as_deref() {
        Err(_) => None,
        Ok("registry") => {
            tracing_subscriber::registry().init();
            None
        }
        Ok("fmt") => {
            tracing_subscriber::fmt()
                .with_writer(std::io::sink)
                .with_max_level(tracing::Level::TRACE)
                .init();
            None
        }
        Ok("otel") => {
            let telemetry =
                Telemetry::from_env().expect("OTEL_EXPORTER_OTLP_ENDPOINT names a receiver");
            tracing_subscriber::registry()
                .with(telemetry.layer())
                .init();
            Some(telemetry)
        }
        Ok(other) => panic!("PROFILE_SUBSCRIBER={other}: registry, fmt or otel"),
    }
}

/// The `add` server with `layer`.
fn layered(layer: &str) -> McpServer {
    let builder = add_server_builder();
    let builder = match layer {
        "empty" => builder.layer(middleware::from_fn(|request, next: middleware::Next| {
            next.run(request)
        })),
        "tool-empty" => builder.tool_layer(
            "add",
            middleware::from_fn(|request, next: middleware::Next| next.run(request)),
        ),
        "timeout" => builder.layer(middleware::Timeout::new(Duration::from_secs(30))),
        "concurrency" => builder.layer(middleware::ConcurrencyLimit::new(64)),
        "rate-limit" => builder.layer(middleware::RateLimit::per_second(1_000_000_000)),
        "response-size" => builder.layer(middleware::ResponseSizeLimit::new(1 << 20)),
        "hide" => builder.layer(middleware::Hide::new(|_, item| {
            item.name().starts_with("admin_")
        })),
        "audit" => builder.layer(middleware::Audit),
        _ => panic!("{USAGE}"),
    };
    builder.build().expect("the layered add server builds")
}

async fn session(server: &McpServer) -> Arc<ConnectionState> {
    let connection = ConnectionState::persistent(None);
    server.handle_raw(INITIALIZE, &connection, None).await;
    server.handle_raw(INITIALIZED, &connection, None).await;
    connection
}
