//! The trace backend of the telemetry tests, end to end: the official Python client 2.x
//! (`interop/otel_client.py`) calls `add` on the example notes server over stdio under a root span
//! of its own and exports its spans over OTLP/HTTP to Arize Phoenix (`tests::phoenix`), from which
//! the test reads the trace back, by its id and by its project, and checks every span: the root
//! span `agent` and, under it, the client's span of each request it sent. The server exports
//! nothing here.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use tests::interop::{example_binary, interop_script, python2, run_command_json_lines};
use tests::phoenix::{Phoenix, project_resource};

/// Runs `otel_client.py` in `mode` against `notes-server` over stdio, with its spans in the
/// Phoenix project `project`, calling `add` with 2 and 3; returns what it printed.
fn call_add(phoenix: &Phoenix, mode: &str, project: &str) -> Value {
    let mut command = Command::new(python2());
    phoenix
        .configure(&mut command)
        .env("OTEL_RESOURCE_ATTRIBUTES", project_resource(project))
        .arg(interop_script("otel_client.py"))
        .args(["--service", "otel-phoenix-test", "--mode", mode])
        .args(["add", r#"{"a":2,"b":3}"#, "stdio"])
        .arg(example_binary("notes-server"));
    let mut lines = run_command_json_lines(command, Duration::from_secs(60));
    assert_eq!(lines.len(), 1, "otel_client.py prints one line: {lines:?}");
    lines.remove(0)
}

/// The spans of the trace `printed` names, checked: `agent` at the root, then one client span per
/// request under it, named `MCP send <method>[ <tool>]`, with the method and the request's id as
/// attributes, in the order `requests` lists them.
fn check_trace(phoenix: &Phoenix, printed: &Value, requests: &[(&str, &str)]) -> Vec<Value> {
    let trace_id = printed["traceId"].as_str().expect("a trace id");
    let root_id = printed["rootSpanId"].as_str().expect("a root span id");
    assert_eq!(trace_id.len(), 32, "{trace_id}");
    assert_eq!(root_id.len(), 16, "{root_id}");
    let spans = phoenix.trace(trace_id, 1 + requests.len());
    let names: Vec<&str> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
    let mut expected_names = vec!["agent".to_owned()];
    expected_names.extend(requests.iter().map(|(method, _)| {
        let tool = if *method == "tools/call" { " add" } else { "" };
        format!("MCP send {method}{tool}")
    }));
    assert_eq!(names, expected_names, "{spans:#?}");

    let root = &spans[0];
    assert_eq!(
        root["context"],
        json!({"trace_id": trace_id, "span_id": root_id})
    );
    assert_eq!(root["parent_id"], Value::Null);
    assert_eq!(root["attributes"], json!({}));
    assert_eq!(root["status_code"], "UNSET");
    assert_eq!(root["span_kind"], "UNKNOWN");
    assert_eq!(root["events"], json!([]));

    for (span, (method, id)) in spans[1..].iter().zip(requests) {
        assert_eq!(span["context"]["trace_id"], trace_id, "{span:#}");
        assert_ne!(span["context"]["span_id"], root_id, "{span:#}");
        assert_eq!(span["parent_id"], root_id, "{span:#}");
        assert_eq!(
            span["attributes"],
            json!({"mcp.method.name": method, "jsonrpc.request.id": id}),
            "{span:#}"
        );
        assert_eq!(span["status_code"], "UNSET", "{span:#}");
        assert_eq!(span["status_message"], "", "{span:#}");
        assert_eq!(span["events"], json!([]), "{span:#}");
        // The request's span lies within the root span.
        let (start, end) = (span["start_time"].as_str(), span["end_time"].as_str());
        assert!(root["start_time"].as_str() <= start && end <= root["end_time"].as_str());
    }
    spans
}

#[test]
fn python_client_spans_reach_phoenix_2026_07_28() {
    let phoenix = Phoenix::shared();
    let printed = call_add(phoenix, "auto", "otel-phoenix-2026");
    assert_eq!(printed["protocolVersion"], "2026-07-28");
    assert_eq!(
        printed["result"],
        json!({
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "examples", "version": "0.1.0"}},
            "content": [{"type": "text", "text": "5"}],
            "resultType": "complete",
        })
    );
    // The client discovers the server, calls the tool, then lists the tools (to check the
    // result against the tool's output schema).
    let requests = [
        ("server/discover", "1"),
        ("tools/call", "2"),
        ("tools/list", "3"),
    ];
    let spans = check_trace(phoenix, &printed, &requests);
    // The resource named the project: the trace is there, and nothing else.
    assert_eq!(
        phoenix.project_spans("otel-phoenix-2026", spans.len()),
        spans
    );
}

#[test]
fn python_client_spans_reach_phoenix_2025_11_25() {
    let phoenix = Phoenix::shared();
    let printed = call_add(phoenix, "legacy", "otel-phoenix-2025");
    assert_eq!(printed["protocolVersion"], "2025-11-25");
    assert_eq!(
        printed["result"],
        json!({"content": [{"type": "text", "text": "5"}]})
    );
    // The handshake's `notifications/initialized` is a notification: it has no span.
    let requests = [
        ("initialize", "1"),
        ("tools/call", "2"),
        ("tools/list", "3"),
    ];
    let spans = check_trace(phoenix, &printed, &requests);
    assert_eq!(
        phoenix.project_spans("otel-phoenix-2025", spans.len()),
        spans
    );
    // The same spans, found by an attribute rather than by their trace.
    let trace_id = printed["traceId"].clone();
    let calls = phoenix.spans_where(1, |span| {
        span["context"]["trace_id"] == trace_id
            && span["attributes"]["mcp.method.name"] == "tools/call"
    });
    assert_eq!(calls, [spans[2].clone()]);
}
