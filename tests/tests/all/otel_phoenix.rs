//! Traces across an official client, our servers and our client, read back from a trace backend
//! nobody here wrote: Arize Phoenix (`tests::phoenix`), which the programs export to over
//! OTLP/HTTP as they would to any collector, set up by the standard `OTEL_*` variables alone.
//!
//! The official Python client 2.x (`interop/otel_client.py`, with the SDK's own OpenTelemetry
//! support) calls a tool of `notes-server` (server A) under a root span `agent`; the tool
//! `import_notes` calls `search_notes` on a second `notes-server` (server B, over HTTP) with an
//! `McpClient`. Each case checks the whole trace, span by span: its name, its parent, its status
//! and its MCP attributes, exactly. Over stdio and over HTTP in both eras, with an elicitation,
//! a failing call, and a task (driven by the `mcp` command, which continues the trace that
//! `TRACEPARENT` names), and through instances that share their sessions in Redis behind
//! HAProxy. The servers' duration metrics go to a receiver of OTLP metrics at the same time
//! (Phoenix takes no metrics).

use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tests::deployment::Deployment;
use tests::interop::{
    HttpExample, example_binary, interop_script, package_binary, python2, run_command_json_lines,
};
use tests::otlp::OtlpReceiver;
use tests::phoenix::Phoenix;

/// The attributes a span is checked by: the conventions' (the exporter adds its own, such as the
/// thread and the code's location, which vary).
const CHECKED: [&str; 6] = ["mcp.", "gen_ai.", "error.", "rpc.", "jsonrpc.", "http."];

/// A span as checked: its label (its name, and the transport of a server's span), its parent's
/// label, its status and its checked attributes.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    label: String,
    parent: String,
    status: String,
    attributes: Value,
}

fn seen(label: &str, parent: &str, status: &str, attributes: Value) -> Seen {
    Seen {
        label: label.to_owned(),
        parent: parent.to_owned(),
        status: status.to_owned(),
        attributes,
    }
}

/// The spans of a trace as checked, in the order they started; session and task ids, which vary,
/// checked (32 hex digits) and replaced by `S` and `T`.
fn tree(spans: &[Value]) -> Vec<Seen> {
    let label = |span: &Value| {
        let name = span["name"].as_str().unwrap_or_default();
        match span["attributes"]["network.transport"].as_str() {
            Some(transport) => format!("{name} [{transport}]"),
            None => name.to_owned(),
        }
    };
    spans
        .iter()
        .map(|span| {
            let parent = spans
                .iter()
                .find(|p| p["context"]["span_id"] == span["parent_id"])
                .map(label)
                .unwrap_or_else(|| format!("{}", span["parent_id"]));
            let mut attributes = Map::new();
            for (key, value) in span["attributes"].as_object().unwrap() {
                if !CHECKED.iter().any(|prefix| key.starts_with(prefix)) {
                    continue;
                }
                let value = match key.as_str() {
                    "mcp.session.id" | "mcp.task.id" => {
                        let id = value.as_str().unwrap();
                        assert!(
                            id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
                            "{key}: {id}"
                        );
                        json!(if key == "mcp.session.id" { "S" } else { "T" })
                    }
                    _ => value.clone(),
                };
                attributes.insert(key.clone(), value);
            }
            let status = span["status_code"].as_str().unwrap_or_default();
            let message = span["status_message"].as_str().unwrap_or_default();
            Seen {
                label: label(span),
                parent,
                status: if message.is_empty() {
                    status.to_owned()
                } else {
                    format!("{status}: {message}")
                },
                attributes: Value::Object(attributes),
            }
        })
        .collect()
}

/// A trace's spans, checked to be one tree: one root, every other span's parent in the trace.
fn one_tree(phoenix: &Phoenix, trace_id: &str, expected: usize) -> Vec<Seen> {
    let spans = phoenix.trace(trace_id, expected);
    assert_eq!(spans.len(), expected, "{spans:#?}");
    for span in &spans {
        assert_eq!(span["context"]["trace_id"], trace_id);
    }
    tree(&spans)
}

/// Checks that the trace `trace_id` is `expected`, span for span (see [`one_tree`]).
fn assert_trace(phoenix: &Phoenix, trace_id: &str, expected: &[Seen]) {
    assert_eq!(one_tree(phoenix, trace_id, expected.len()), expected);
}

/// Points `command`, a program of ours, at Phoenix for its spans and at `metrics` for its
/// metrics, under `service`.
fn exporting<'a>(
    command: &'a mut Command,
    phoenix: &Phoenix,
    metrics: Option<&OtlpReceiver>,
    service: &str,
) -> &'a mut Command {
    phoenix.configure(command).env("OTEL_SERVICE_NAME", service);
    match metrics {
        Some(receiver) => command
            .env(
                "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                format!("{}/v1/metrics", receiver.endpoint()),
            )
            .env("OTEL_METRIC_EXPORT_INTERVAL", "300"),
        None => command.env("OTEL_METRICS_EXPORTER", "none"),
    }
}

/// Server B: a notes server over HTTP that exports its spans.
fn server_b(phoenix: &Phoenix, metrics: Option<&OtlpReceiver>) -> HttpExample {
    let mut command = Command::new(example_binary("notes-server"));
    exporting(&mut command, phoenix, metrics, "notes-b").args(["--http", "127.0.0.1:0"]);
    HttpExample::spawn(command)
}

/// Server A over HTTP, importing from `b`.
fn server_a(phoenix: &Phoenix, b: &HttpExample, metrics: Option<&OtlpReceiver>) -> HttpExample {
    let mut command = Command::new(example_binary("notes-server"));
    exporting(&mut command, phoenix, metrics, "notes-a").args([
        "--http",
        "127.0.0.1:0",
        "--import-from",
        &b.url,
    ]);
    HttpExample::spawn(command)
}

/// Runs `otel_client.py` in `mode` (`legacy`: 2025-11-25; `auto`: 2026-07-28), calling `tool`
/// with `arguments` on `target` (`["http", URL]`, or `["stdio", command...]`, a server it starts
/// with its own environment: exporting to Phoenix). Returns what it printed.
fn python(phoenix: &Phoenix, mode: &str, tool: &str, arguments: Value, target: &[&str]) -> Value {
    let mut command = Command::new(python2());
    phoenix
        .configure(&mut command)
        .env("OTEL_SERVICE_NAME", "notes-a")
        .env("OTEL_METRICS_EXPORTER", "none")
        .arg(interop_script("otel_client.py"))
        .args(["--service", "agent", "--mode", mode, tool])
        .arg(arguments.to_string())
        .args(target);
    let mut lines = run_command_json_lines(command, Duration::from_secs(60));
    assert_eq!(lines.len(), 1, "otel_client.py prints one line: {lines:?}");
    lines.remove(0)
}

fn trace_id(printed: &Value) -> &str {
    printed["traceId"].as_str().expect("a trace id")
}

/// What `import_notes` on server A (its span labelled `a`) adds under its span: its `McpClient`
/// discovers B (2026-07-28), then calls `search_notes` there. Each of the client's requests is
/// a span of A, with B's POST inside it (the `traceparent` header) and B's span of the request,
/// whose parent is A's span (`_meta`).
fn import_spans(a: &str) -> Vec<Seen> {
    let discover = json!({
        "mcp.method.name": "server/discover", "mcp.protocol.version": "2026-07-28",
        "jsonrpc.request.id": "0",
    });
    let search = json!({
        "mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28",
        "gen_ai.tool.name": "search_notes", "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": "1",
    });
    let post = json!({
        "http.request.method": "POST", "http.response.status_code": "200",
    });
    vec![
        seen("server/discover", a, "UNSET", discover.clone()),
        seen("POST", "server/discover", "UNSET", post.clone()),
        seen(
            "server/discover [tcp]",
            "server/discover",
            "UNSET",
            discover,
        ),
        seen("tools/call search_notes", a, "UNSET", search.clone()),
        seen("POST", "tools/call search_notes", "UNSET", post),
        seen(
            "tools/call search_notes [tcp]",
            "tools/call search_notes",
            "UNSET",
            search,
        ),
    ]
}

/// The span of the Python client's request `method` (` tool`), id `id`, under `agent`.
fn python_span(method: &str, tool: Option<&str>, id: &str) -> Seen {
    let name = match tool {
        Some(tool) => format!("MCP send {method} {tool}"),
        None => format!("MCP send {method}"),
    };
    seen(
        &name,
        "agent",
        "UNSET",
        json!({"mcp.method.name": method, "jsonrpc.request.id": id}),
    )
}

/// Server A's span of the request `method` (` tool`) with `id`, of `version`, over `transport`,
/// under the Python client's span of it.
fn a_span(method: &str, tool: Option<&str>, id: &str, version: &str, transport: &str) -> Seen {
    let name = match tool {
        Some(tool) => format!("{method} {tool}"),
        None => method.to_owned(),
    };
    let parent = match tool {
        Some(tool) => format!("MCP send {method} {tool}"),
        None => format!("MCP send {method}"),
    };
    let mut attributes = json!({
        "mcp.method.name": method, "mcp.protocol.version": version, "jsonrpc.request.id": id,
    });
    if let Some(tool) = tool {
        attributes["gen_ai.tool.name"] = json!(tool);
        attributes["gen_ai.operation.name"] = json!("execute_tool");
    }
    // A request in an HTTP session (after `initialize`, which opens it) names the session.
    if transport == "tcp" && version == "2025-11-25" && method != "initialize" {
        attributes["mcp.session.id"] = json!("S");
    }
    seen(
        &format!("{name} [{transport}]"),
        &parent,
        "UNSET",
        attributes,
    )
}

/// The trace of the Python client sending `requests` (method and tool), its ids 1, 2, ... in
/// turn, to server A, in `version` over `transport`: its root span `agent`, and for each request
/// the client's span and A's.
fn exchange(version: &str, transport: &str, requests: &[(&str, Option<&str>)]) -> Vec<Seen> {
    let mut expected = vec![seen("agent", "null", "UNSET", json!({}))];
    for (n, (method, tool)) in requests.iter().enumerate() {
        let id = (n + 1).to_string();
        expected.push(python_span(method, *tool, &id));
        expected.push(a_span(method, *tool, &id, version, transport));
    }
    expected
}

/// The request that opens a connection in `version`.
fn opening(version: &str) -> &'static str {
    if version == "2025-11-25" {
        "initialize"
    } else {
        "server/discover"
    }
}

/// The whole trace of `import_notes` called by the Python client in `version` over `transport`.
/// The client lists the tools after a call that worked, to check its result against the tool's
/// output schema.
fn import_trace(version: &str, transport: &str) -> Vec<Seen> {
    let import = ("tools/call", Some("import_notes"));
    let mut expected = exchange(
        version,
        transport,
        &[(opening(version), None), import, ("tools/list", None)],
    );
    let a = format!("tools/call import_notes [{transport}]");
    let after = expected.iter().position(|s| s.label == a).unwrap() + 1;
    expected.splice(after..after, import_spans(&a));
    expected
}

/// Deletes note `id` at `url` in 2026-07-28, where the server asks for confirmation with an
/// input-required result: the client sends the call again with the answer, a request of its
/// own, and the server continues each in the client's span of it. Checks the trace.
fn delete_in_two_rounds(phoenix: &Phoenix, url: &str, id: u32) {
    let printed = python(
        phoenix,
        "auto",
        "delete_note",
        json!({ "id": id }),
        &["http", url],
    );
    assert_eq!(
        printed["result"]["content"],
        json!([{"type": "text", "text": format!("Deleted note {id}.")}])
    );
    let delete = ("tools/call", Some("delete_note"));
    let expected = exchange(
        "2026-07-28",
        "tcp",
        &[
            ("server/discover", None),
            delete,
            delete,
            ("tools/list", None),
        ],
    );
    assert_trace(phoenix, trace_id(&printed), &expected);
}

#[test]
fn a_call_through_two_servers_is_one_trace_over_stdio() {
    let phoenix = Phoenix::shared();
    let b = server_b(phoenix, None);
    let a = example_binary("notes-server");
    let a = a.to_str().unwrap();
    let printed = python(
        phoenix,
        "legacy",
        "import_notes",
        json!({"text": "rust"}),
        &["stdio", a, "--import-from", &b.url],
    );
    assert_eq!(printed["result"]["structuredContent"], json!({"ids": [3]}));
    let expected = import_trace("2025-11-25", "pipe");
    assert_trace(phoenix, trace_id(&printed), &expected);
}

/// Starts B and A over HTTP (their metrics going to `metrics`), has the Python client call
/// `import_notes` on A in `version`, and checks the trace. A's own POST spans are not in it:
/// the Python client sends no `traceparent` header, so they start traces of their own, to which
/// A's request spans are linked. Returns the servers, still running.
fn import_over_http(
    phoenix: &Phoenix,
    version: &str,
    metrics: Option<&OtlpReceiver>,
) -> (HttpExample, HttpExample) {
    let b = server_b(phoenix, metrics);
    let a = server_a(phoenix, &b, metrics);
    let mode = if version == "2025-11-25" {
        "legacy"
    } else {
        "auto"
    };
    let printed = python(
        phoenix,
        mode,
        "import_notes",
        json!({"text": "rust"}),
        &["http", &a.url],
    );
    assert_eq!(printed["protocolVersion"], version);
    assert_eq!(printed["result"]["structuredContent"], json!({"ids": [3]}));
    let expected = import_trace(version, "tcp");
    assert_trace(phoenix, trace_id(&printed), &expected);
    (a, b)
}

#[test]
fn a_call_through_two_servers_is_one_trace_over_http_2025_11_25() {
    import_over_http(Phoenix::shared(), "2025-11-25", None);
}

#[test]
fn a_call_through_two_servers_is_one_trace_over_http_2026_07_28_and_both_time_it() {
    let metrics = OtlpReceiver::start();
    let _servers = import_over_http(Phoenix::shared(), "2026-07-28", Some(&metrics));

    // The duration metrics of both servers, as they export them every 300 ms.
    let call = |tool: &str| {
        let mut attributes = std::collections::BTreeMap::new();
        for (key, value) in [
            ("mcp.method.name", "tools/call"),
            ("mcp.protocol.version", "2026-07-28"),
            ("gen_ai.tool.name", tool),
            ("gen_ai.operation.name", "execute_tool"),
            ("network.transport", "tcp"),
        ] {
            attributes.insert(key.to_owned(), value.to_owned());
        }
        attributes
    };
    let served = |service: &'static str, tool: &'static str| {
        let attributes = call(tool);
        move |p: &tests::otlp::HistogramPoint| p.service == service && p.attributes == attributes
    };
    let points = metrics.wait_for(
        "mcp.server.operation.duration",
        served("notes-a", "import_notes"),
    );
    let import = points
        .iter()
        .find(|p| served("notes-a", "import_notes")(p))
        .unwrap();
    assert_eq!((import.count, import.unit.as_str()), (1, "s"));
    let points = metrics.wait_for(
        "mcp.server.operation.duration",
        served("notes-b", "search_notes"),
    );
    assert_eq!(
        points
            .iter()
            .filter(|p| served("notes-b", "search_notes")(p))
            .map(|p| p.count)
            .collect::<Vec<_>>(),
        [1]
    );
    // A's client timed its call of B (no transport: the client's request is not bound to one).
    let mut asked = call("search_notes");
    asked.remove("network.transport");
    let points = metrics.wait_for("mcp.client.operation.duration", |p| {
        p.service == "notes-a" && p.attributes == asked
    });
    let search = points
        .iter()
        .find(|p| p.service == "notes-a" && p.attributes == asked)
        .unwrap();
    assert_eq!(search.count, 1);
    // The tool's duration covers its call of B.
    assert!(import.sum >= search.sum, "{import:?} {search:?}");
}

#[test]
fn an_elicitation_is_in_the_trace_of_its_call() {
    let phoenix = Phoenix::shared();
    let b = server_b(phoenix, None);
    let a = server_a(phoenix, &b, None);

    // 2025-11-25: the server asks its client with a request of its own, a client span inside
    // the call; the Python client answers yes.
    let printed = python(
        phoenix,
        "legacy",
        "delete_note",
        json!({"id": 1}),
        &["http", &a.url],
    );
    assert_eq!(
        printed["result"]["content"],
        json!([{"type": "text", "text": "Deleted note 1."}])
    );
    let delete = ("tools/call", Some("delete_note"));
    let mut expected = exchange(
        "2025-11-25",
        "tcp",
        &[("initialize", None), delete, ("tools/list", None)],
    );
    let asked = seen(
        "elicitation/create",
        "tools/call delete_note [tcp]",
        "UNSET",
        json!({
            "mcp.method.name": "elicitation/create", "mcp.protocol.version": "2025-11-25",
            "jsonrpc.request.id": "0",
        }),
    );
    expected.insert(5, asked);
    assert_trace(phoenix, trace_id(&printed), &expected);

    // 2026-07-28: the input-required round.
    delete_in_two_rounds(phoenix, &a.url, 2);
}

#[test]
fn a_failing_call_is_an_error_span() {
    let phoenix = Phoenix::shared();
    let a = example_binary("notes-server");
    let printed = python(
        phoenix,
        "auto",
        "delete_note",
        json!({"id": 99}),
        &["stdio", a.to_str().unwrap()],
    );
    assert_eq!(printed["result"]["isError"], true);
    // A result with `isError` is not checked against the output schema: no `tools/list`.
    let delete = ("tools/call", Some("delete_note"));
    let mut expected = exchange("2026-07-28", "pipe", &[("server/discover", None), delete]);
    let failed = &mut expected[4];
    failed.status = "ERROR".into();
    failed.attributes["error.type"] = json!("tool_error");
    assert_trace(phoenix, trace_id(&printed), &expected);
}

#[test]
fn a_task_is_in_the_trace_of_the_call_that_created_it() {
    let phoenix = Phoenix::shared();
    let b = server_b(phoenix, None);
    let a = server_a(phoenix, &b, None);
    // The trace `mcp` runs in: its caller's, named by TRACEPARENT.
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
    exporting(&mut command, phoenix, None, "mcp")
        .env("TRACEPARENT", format!("00-{trace_id}-00f067aa0ba902b7-01"))
        .args(["call", "--task", "--protocol-version", "2025-11-25", &a.url])
        .args(["export_notes", "pause_ms=50"]);
    let output = command.output().expect("mcp runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains(": completed"), "{stderr}");

    let v = "2025-11-25";
    let client = |method: &str, id: &str| {
        seen(
            method,
            "mcp call",
            "UNSET",
            json!({"mcp.method.name": method, "mcp.protocol.version": v, "jsonrpc.request.id": id}),
        )
    };
    let post = |parent: &str| {
        seen(
            "POST",
            parent,
            "UNSET",
            json!({"http.request.method": "POST", "http.response.status_code": "200"}),
        )
    };
    let server = |method: &str, id: &str| {
        let mut attributes =
            json!({"mcp.method.name": method, "mcp.protocol.version": v, "jsonrpc.request.id": id});
        if method != "initialize" {
            attributes["mcp.session.id"] = json!("S");
        }
        seen(&format!("{method} [tcp]"), method, "UNSET", attributes)
    };
    let mut call = client("tools/call", "4");
    call.label = "tools/call export_notes".into();
    call.attributes["gen_ai.tool.name"] = json!("export_notes");
    call.attributes["gen_ai.operation.name"] = json!("execute_tool");
    let mut served = server("tools/call", "4");
    served.label = "tools/call export_notes [tcp]".into();
    served.parent = "tools/call export_notes".into();
    served.attributes["gen_ai.tool.name"] = json!("export_notes");
    served.attributes["gen_ai.operation.name"] = json!("execute_tool");
    // The client polls with `tasks/get` until the task is done (once, or more when the machine
    // is slow), then fetches the result.
    let expected = |polls: usize| {
        let mut expected = vec![seen("mcp call", "\"00f067aa0ba902b7\"", "UNSET", json!({}))];
        for (method, id) in [
            ("initialize", "0"),
            ("tools/list", "1"),
            ("logging/setLevel", "2"),
        ] {
            expected.extend([client(method, id), post(method), server(method, id)]);
        }
        expected.extend([
            call.clone(),
            post("tools/call export_notes"),
            served.clone(),
            // The task's work, after the call answered: a child of the call's span.
            seen(
                "task",
                "tools/call export_notes [tcp]",
                "UNSET",
                json!({"mcp.task.id": "T"}),
            ),
        ]);
        for poll in 0..polls {
            let id = (5 + poll).to_string();
            expected.extend([
                client("tasks/get", &id),
                post("tasks/get"),
                server("tasks/get", &id),
            ]);
        }
        let id = (5 + polls).to_string();
        expected.extend([
            client("tasks/result", &id),
            post("tasks/result"),
            server("tasks/result", &id),
        ]);
        expected
    };
    let first = tree(&phoenix.trace(trace_id, expected(1).len()));
    let polls = first.iter().filter(|s| s.label == "tasks/get").count();
    assert!(polls >= 1, "{first:#?}");
    assert_trace(phoenix, trace_id, &expected(polls));
}

#[test]
fn requests_spread_over_instances_sharing_redis_are_one_trace() {
    let phoenix = Phoenix::shared();
    // Two instances behind HAProxy, which sends each request to the next instance in turn.
    let deployment = Deployment::start_with("notes-server", 2, |command| {
        exporting(command, phoenix, None, "notes");
    });

    // A 2025-11-25 session: `initialize`, the call and the listing meet different instances,
    // which know the session from Redis; the context travels in each request.
    let printed = python(
        phoenix,
        "legacy",
        "add",
        json!({"a": 2, "b": 3}),
        &["http", &deployment.url],
    );
    assert_eq!(
        printed["result"]["content"],
        json!([{"type": "text", "text": "5"}])
    );
    let expected = exchange(
        "2025-11-25",
        "tcp",
        &[
            ("initialize", None),
            ("tools/call", Some("add")),
            ("tools/list", None),
        ],
    );
    assert_trace(phoenix, trace_id(&printed), &expected);

    // 2026-07-28: the input-required round's two requests meet two instances.
    delete_in_two_rounds(phoenix, &deployment.url, 1);
}
