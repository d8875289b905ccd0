//! The server's `tracing` spans: one per request, named and attributed by the OpenTelemetry
//! semantic conventions for MCP, with the handler's own spans inside; checked four ways (stdio
//! and HTTP, 2025-11-25 sessions and 2026-07-28 requests).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_runtime::client::McpClient;
use mcp_runtime::prelude::*;
use serde_json::json;
use tests::ways::{Peer, WAYS, Way};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as a subscriber saw it: its name, its parent's name, and its recorded fields.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    name: &'static str,
    parent: Option<&'static str>,
    fields: BTreeMap<String, String>,
}

/// The spans opened while a test runs, on its thread, in the order they opened.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<(u64, Seen)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let value = format!("{value:?}").trim_matches('"').to_owned();
        self.0.insert(field.name().to_owned(), value);
    }
}

impl<S> tracing_subscriber::Layer<S> for Spans
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let parent = ctx
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.name());
        let seen = Seen {
            name: attributes.metadata().name(),
            parent,
            fields,
        };
        self.0.lock().unwrap().push((id.into_u64(), seen));
    }

    fn on_follows_from(&self, id: &Id, follows: &Id, ctx: Context<'_, S>) {
        let Some(from) = ctx.span(follows).map(|span| span.name()) else {
            return;
        };
        let mut spans = self.0.lock().unwrap();
        if let Some((_, seen)) = spans.iter_mut().rev().find(|(i, _)| *i == id.into_u64()) {
            seen.fields
                .insert("follows from".to_owned(), from.to_owned());
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, seen)) = spans.iter_mut().rev().find(|(i, _)| *i == id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

impl Spans {
    /// Records the spans opened on this thread until the guard drops.
    fn capture() -> (Spans, tracing::subscriber::DefaultGuard) {
        let spans = Spans::default();
        let registry = tracing_subscriber::registry().with(spans.clone());
        (spans, tracing::subscriber::set_default(registry))
    }

    /// The spans seen since the last call, with the fields whose values vary from run to run
    /// (the request id, which each client picks, and the session id) checked and taken out.
    fn take(&self, way: Way) -> Vec<Seen> {
        let spans = std::mem::take(&mut *self.0.lock().unwrap());
        spans
            .into_iter()
            .map(|(_, mut seen)| {
                if seen.name == "mcp.request" {
                    let id = seen.fields.remove("jsonrpc.request.id");
                    assert!(
                        id.is_some_and(|id| !id.is_empty()),
                        "{way:?}: the request id"
                    );
                }
                // Only requests in an HTTP session have a session id (`initialize` opens it).
                let session = seen.fields.remove("mcp.session.id");
                if seen.name == "mcp.request" {
                    let method = seen.fields["mcp.method.name"].as_str();
                    let in_session = way == Way::Http2025 && method != "initialize";
                    assert_eq!(
                        session.is_some(),
                        in_session,
                        "{way:?} {method}: {session:?}"
                    );
                }
                seen
            })
            .collect()
    }
}

fn object(value: serde_json::Value) -> mcp_runtime::protocol::JsonObject {
    value.as_object().unwrap().clone()
}

/// Echoes `text`, inside a span of its own; fails when `text` is "fail".
fn echo() -> ToolDefinition {
    let schema = object(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
    ToolDefinition::new("echo", schema, |arguments, _| async move {
        let text = arguments["text"].as_str().unwrap_or_default().to_owned();
        let _inner = tracing::info_span!("inside the tool").entered();
        match text.as_str() {
            "fail" => Err(ToolError::new("it failed")),
            _ => Ok(text),
        }
    })
}

/// What the span of a request says, given what varies.
fn request_span(way: Way, fields: &[(&str, &str)]) -> Seen {
    let version = if way.is_2026() {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    let transport = match way {
        Way::Http2025 | Way::Http2026 => "tcp",
        Way::Stdio2025 | Way::Stdio2026 => "pipe",
    };
    let all: BTreeMap<String, String> = [
        ("otel.kind", "server"),
        ("mcp.protocol.version", version),
        ("network.transport", transport),
    ]
    .into_iter()
    .chain(fields.iter().copied())
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    Seen {
        name: "mcp.request",
        parent: over_http(way).then_some("http.request"),
        fields: all,
    }
}

fn over_http(way: Way) -> bool {
    matches!(way, Way::Http2025 | Way::Http2026)
}

/// The spans of one exchange: over HTTP, the POST's span first, the others inside it.
fn exchange(way: Way, spans: impl IntoIterator<Item = Seen>) -> Vec<Seen> {
    let http = Seen {
        name: "http.request",
        parent: None,
        fields: [
            ("otel.name", "POST"),
            ("otel.kind", "server"),
            ("http.request.method", "POST"),
            ("url.path", "/mcp"),
            ("http.response.status_code", "200"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect(),
    };
    over_http(way)
        .then_some(http)
        .into_iter()
        .chain(spans)
        .collect()
}

#[tokio::test]
async fn each_request_has_a_span_named_and_attributed_by_the_conventions() {
    let (spans, _capture) = Spans::capture();
    for way in WAYS {
        let server = McpServer::builder(Implementation::new("tests", "1"))
            .tool(echo())
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        spans.take(way);

        peer.call("echo", json!({"text": "a"})).await.unwrap();
        let inside = Seen {
            name: "inside the tool",
            parent: Some("mcp.request"),
            fields: BTreeMap::new(),
        };
        let call = |extra: &[(&'static str, &'static str)]| {
            let mut fields = vec![
                ("otel.name", "tools/call echo"),
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "echo"),
                ("gen_ai.operation.name", "execute_tool"),
            ];
            fields.extend_from_slice(extra);
            request_span(way, &fields)
        };
        assert_eq!(
            spans.take(way),
            exchange(way, [call(&[]), inside.clone()]),
            "{way:?}"
        );

        // A tool's error result is an error of the span.
        peer.call("echo", json!({"text": "fail"})).await.unwrap();
        let failed = call(&[("error.type", "tool_error"), ("otel.status_code", "error")]);
        assert_eq!(spans.take(way), exchange(way, [failed, inside]), "{way:?}");

        // A JSON-RPC error, even one refused before any handler ran: its code, and its message
        // as the status.
        let error = peer.call("nope", json!({})).await.unwrap_err();
        assert_eq!(error["code"], -32602, "{way:?}");
        let mut unknown = call(&[
            ("error.type", "-32602"),
            ("rpc.response.status_code", "-32602"),
            ("otel.status_code", "error"),
            ("otel.status_description", "Unknown tool: nope"),
        ]);
        unknown
            .fields
            .insert("otel.name".into(), "tools/call nope".into());
        unknown
            .fields
            .insert("gen_ai.tool.name".into(), "nope".into());
        assert_eq!(spans.take(way), exchange(way, [unknown]), "{way:?}");

        peer.request("tools/list", json!({})).await.unwrap();
        let list = request_span(
            way,
            &[
                ("otel.name", "tools/list"),
                ("mcp.method.name", "tools/list"),
            ],
        );
        assert_eq!(spans.take(way), exchange(way, [list]), "{way:?}");
    }
}

/// Asks the client's model for a word, and answers with it.
fn ask() -> ToolDefinition {
    ToolDefinition::new(
        "ask",
        object(json!({"type": "object"})),
        |_, ctx| async move {
            use mcp_runtime::protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
            let asked = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("?")], 5);
            match ctx.sample(asked).await {
                Ok(result) => Ok(result.model),
                Err(error) => Err(ToolError::new(error.to_string())),
            }
        },
    )
}

#[tokio::test]
async fn a_request_to_the_client_is_a_client_span_inside_the_call() {
    let (spans, _capture) = Spans::capture();
    let server = McpServer::builder(Implementation::new("tests", "1"))
        .tool(ask())
        .build()
        .unwrap();
    let mut client = tests::TestClient::initialized(
        server,
        mcp_runtime::protocol::ProtocolVersion::V2025_11_25,
        json!({"sampling": {}}),
    )
    .await;
    let way = Way::Stdio2025;
    for answer in [
        Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m-1"})),
        Err(json!({"code": -1, "message": "user rejected"})),
    ] {
        let answered = answer.clone();
        client.answer_requests_with(move |_, _| answered.clone());
        spans.take(way);
        client
            .request("tools/call", json!({"name": "ask", "arguments": {}}))
            .await
            .unwrap();
        let mut fields: BTreeMap<String, String> = [
            ("otel.name", "sampling/createMessage"),
            ("otel.kind", "client"),
            ("mcp.method.name", "sampling/createMessage"),
            ("mcp.protocol.version", "2025-11-25"),
            ("jsonrpc.request.id", "0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        if answer.is_err() {
            for (key, value) in [
                ("error.type", "-1"),
                ("rpc.response.status_code", "-1"),
                ("otel.status_code", "error"),
                ("otel.status_description", "user rejected"),
            ] {
                fields.insert(key.to_owned(), value.to_owned());
            }
        }
        let seen = spans.take(way);
        let names: Vec<&str> = seen.iter().map(|s| s.name).collect();
        assert_eq!(names, ["mcp.request", "mcp.server_request"]);
        let mut asked = seen[1].clone();
        // Each request to the client has an id of its own, counting from 0 on the connection.
        let id = asked.fields.remove("jsonrpc.request.id").unwrap();
        fields.remove("jsonrpc.request.id");
        assert_eq!(id, if answer.is_ok() { "0" } else { "1" });
        assert_eq!(
            asked,
            Seen {
                name: "mcp.server_request",
                parent: Some("mcp.request"),
                fields,
            }
        );
    }
    client.close().await;
}

#[tokio::test]
async fn a_tasks_work_has_a_span_linked_to_the_call_that_created_it() {
    let (spans, _capture) = Spans::capture();
    let server = McpServer::builder(Implementation::new("tests", "1"))
        .tool(echo().task(mcp_runtime::protocol::tools::TaskSupport::Optional))
        .build()
        .unwrap();
    let mut session = tests::tasks::Session::new(&server, json!({})).await;
    let way = Way::Stdio2025;
    spans.take(way);
    let id = session.start_task("echo", json!({"text": "a"})).await;
    let result = session
        .request("tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "a");
    let seen = spans.take(way);
    // The call's span, the task's (not its child: the call answered at once, but linked to
    // it) with the tool's own span inside, and the span of `tasks/result`, which may open
    // before the task's work starts.
    let mut shape: Vec<(&str, Option<&str>, Option<&str>, &str)> = seen
        .iter()
        .map(|s| {
            let field = |name: &str| s.fields.get(name).map(String::as_str);
            let name = field("otel.name").unwrap_or_default();
            (s.name, s.parent, field("follows from"), name)
        })
        .collect();
    shape.sort();
    assert_eq!(
        shape,
        [
            ("inside the tool", Some("mcp.task"), None, ""),
            ("mcp.request", None, None, "tasks/result"),
            ("mcp.request", None, None, "tools/call echo"),
            ("mcp.task", None, Some("mcp.request"), "task"),
        ]
    );
    let task = seen.iter().find(|s| s.name == "mcp.task").unwrap();
    assert_eq!(task.fields["mcp.task.id"], id);
}

#[tokio::test]
async fn the_client_has_a_span_for_each_request_it_sends() {
    use mcp_runtime::protocol::ProtocolVersion;
    let (spans, _capture) = Spans::capture();
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let server = McpServer::builder(Implementation::new("tests", "1"))
            .tool(echo())
            .build()
            .unwrap();
        let client = McpClient::builder(Implementation::new("client", "1"))
            .protocol_version(version)
            .connect_in_process(server)
            .await
            .unwrap();
        let way = Way::Stdio2025;
        spans.take(way);
        let client_span = |extra: &[(&str, &str)]| {
            let fields = [
                ("otel.name", "tools/call echo"),
                ("otel.kind", "client"),
                ("mcp.method.name", "tools/call"),
                ("mcp.protocol.version", version.as_str()),
                ("gen_ai.tool.name", "echo"),
                ("gen_ai.operation.name", "execute_tool"),
            ];
            Seen {
                name: "mcp.client_request",
                parent: None,
                fields: fields
                    .iter()
                    .chain(extra)
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }
        };
        let client_spans = || -> Vec<Seen> {
            let mut seen: Vec<Seen> = spans
                .take(way)
                .into_iter()
                .filter(|s| s.name == "mcp.client_request")
                .collect();
            for span in &mut seen {
                let id = span.fields.remove("jsonrpc.request.id");
                assert!(id.is_some_and(|id| !id.is_empty()), "{version}: the id");
            }
            seen
        };

        client
            .call_tool("echo", json!({"text": "a"}))
            .await
            .unwrap();
        assert_eq!(client_spans(), [client_span(&[])], "{version}");

        let failed = client.call_tool("echo", json!({"text": "fail"})).await;
        assert!(failed.unwrap().is_error(), "{version}");
        let tool_error =
            client_span(&[("error.type", "tool_error"), ("otel.status_code", "error")]);
        assert_eq!(client_spans(), [tool_error], "{version}");

        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.server_error().map(|e| e.code.0), Some(-32602));
        let mut refused = client_span(&[
            ("error.type", "-32602"),
            ("rpc.response.status_code", "-32602"),
            ("otel.status_code", "error"),
            ("otel.status_description", "Unknown tool: nope"),
        ]);
        refused
            .fields
            .insert("otel.name".into(), "tools/call nope".into());
        refused
            .fields
            .insert("gen_ai.tool.name".into(), "nope".into());
        assert_eq!(client_spans(), [refused], "{version}");
    }
}

/// Waits until it is cancelled.
fn wait() -> ToolDefinition {
    ToolDefinition::new(
        "wait",
        object(json!({"type": "object"})),
        |_, ctx| async move {
            ctx.cancelled().await;
            Err::<String, _>(ToolError::cancelled())
        },
    )
}

#[tokio::test]
async fn a_cancelled_request_is_an_error_of_its_span() {
    let (spans, _capture) = Spans::capture();
    let server = McpServer::builder(Implementation::new("tests", "1"))
        .tool(wait())
        .build()
        .unwrap();
    let way = Way::Stdio2025;
    let mut client = tests::TestClient::initialized(
        server,
        mcp_runtime::protocol::ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    spans.take(way);
    client
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "wait", "arguments": {}}}))
        .await;
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": 7, "reason": "no longer needed"}),
        )
        .await;
    client.sync().await;
    // The handler ends once it sees the cancellation, and its span says how (no answer goes).
    let mut seen = Vec::new();
    for _ in 0..200 {
        seen.extend(spans.take(way));
        if seen
            .iter()
            .any(|s| s.fields.get("error.type").is_some_and(|e| e == "cancelled"))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let call = seen.iter().find(|s| s.name == "mcp.request").unwrap();
    let expected: BTreeMap<String, String> = [
        ("otel.name", "tools/call wait"),
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
        ("gen_ai.tool.name", "wait"),
        ("gen_ai.operation.name", "execute_tool"),
        ("error.type", "cancelled"),
        ("otel.status_code", "error"),
        ("otel.status_description", "the client cancelled it"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(call.fields, expected, "{seen:#?}");
    let cancel = seen.iter().find(|s| s.name == "mcp.notification").unwrap();
    assert_eq!(cancel.fields["mcp.method.name"], "notifications/cancelled");
}
