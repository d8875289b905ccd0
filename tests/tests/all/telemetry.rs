//! The duration metrics of the OpenTelemetry conventions for MCP, as the `otel` feature exports
//! them over OTLP/HTTP: decoded by a receiver on loopback with the official protobuf definitions.
//! Every server request is timed, four ways (stdio and HTTP, 2025-11-25 sessions and 2026-07-28
//! requests), and so are a client's requests and both sides' sessions.

use std::collections::BTreeMap;

use mcp_runtime::client::McpClient;
use mcp_runtime::prelude::*;
use mcp_runtime::telemetry::Telemetry;
use mcp_runtime::transport::lines::{LineOptions, serve_lines};
use serde_json::json;
use tests::otlp::{HistogramPoint, OtlpReceiver};
use tests::ways::{Peer, WAYS, Way};
use tracing_subscriber::layer::SubscriberExt;

/// The conventions' bucket boundaries, in seconds.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Answers `text`; fails when `text` is "fail".
fn echo() -> ToolDefinition {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let schema = schema.as_object().unwrap().clone();
    ToolDefinition::new("echo", schema, |arguments, _| async move {
        match arguments["text"].as_str().unwrap_or_default() {
            "fail" => Err(ToolError::new("it failed")),
            text => Ok(text.to_owned()),
        }
    })
}

fn server() -> McpServer {
    McpServer::builder(Implementation::new("tests", "1"))
        .tool(echo())
        .build()
        .unwrap()
}

fn attributes(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The points of `points` with `attributes`, as (count, unit, bounds).
fn counted(points: &[HistogramPoint], attributes: &BTreeMap<String, String>) -> Vec<u64> {
    points
        .iter()
        .filter(|p| &p.attributes == attributes)
        .inspect(|p| {
            assert_eq!(p.unit, "s");
            assert_eq!(p.bounds, BOUNDARIES);
            assert_eq!(p.service, "metrics-test");
            assert!(p.sum >= 0.0 && p.sum < 30.0, "{p:?}");
        })
        .map(|p| p.count)
        .collect()
}

#[tokio::test]
async fn the_duration_metrics_arrive_with_the_conventions_attributes() {
    let receiver = OtlpReceiver::start();
    let telemetry = Telemetry::builder()
        .endpoint(receiver.endpoint())
        .service_name("metrics-test")
        .build()
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let guard = tracing::subscriber::set_default(subscriber);

    for way in WAYS {
        let mut peer = Peer::open(server(), way).await;
        peer.call("echo", json!({"text": "a"})).await.unwrap();
        peer.call("echo", json!({"text": "b"})).await.unwrap();
        peer.call("echo", json!({"text": "fail"})).await.unwrap();
        let error = peer.call("nope", json!({})).await.unwrap_err();
        assert_eq!(error["code"], -32602, "{way:?}");
    }
    // A client's requests, and both ends of its session (in process: a pipe).
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(serve_lines(
        server(),
        server_read,
        server_write,
        LineOptions::default(),
    ));
    let (client_read, client_write) = tokio::io::split(client_end);
    let client = McpClient::builder(Implementation::new("metrics-client", "1"))
        .connect_io(client_read, client_write)
        .await
        .unwrap();
    let client_version = client.protocol_version();
    client
        .call_tool("echo", json!({"text": "c"}))
        .await
        .unwrap();
    client.close().await.unwrap();
    // The server's session ends with its input.
    serving.await.unwrap().unwrap();
    drop(guard);
    // Exports what is left: the metrics, cumulative, once more.
    telemetry.shutdown();

    let server_points = receiver.histogram("mcp.server.operation.duration");
    for way in WAYS {
        let (version, transport) = match way {
            Way::Stdio2025 => ("2025-11-25", "pipe"),
            Way::Stdio2026 => ("2026-07-28", "pipe"),
            Way::Http2025 => ("2025-11-25", "tcp"),
            Way::Http2026 => ("2026-07-28", "tcp"),
        };
        let call = |tool: &'static str, extra: &[(&'static str, &'static str)]| {
            let mut pairs = vec![
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", tool),
                ("gen_ai.operation.name", "execute_tool"),
                ("mcp.protocol.version", version),
                ("network.transport", transport),
            ];
            pairs.extend_from_slice(extra);
            attributes(&pairs)
        };
        // The two calls that worked are one series (with the in-process client's, when it
        // spoke this way); each way of failing is one of its own.
        let client_spoke = transport == "pipe" && version == client_version.as_str();
        let worked = 2 + u64::from(client_spoke);
        assert_eq!(
            counted(&server_points, &call("echo", &[])),
            [worked],
            "{way:?}"
        );
        assert_eq!(
            counted(
                &server_points,
                &call("echo", &[("error.type", "tool_error")])
            ),
            [1],
            "{way:?}"
        );
        assert_eq!(
            counted(
                &server_points,
                &call(
                    "nope",
                    &[
                        ("error.type", "-32602"),
                        ("rpc.response.status_code", "-32602")
                    ]
                )
            ),
            [1],
            "{way:?}"
        );
    }

    let version = client_version.as_str();
    let client_points = receiver.histogram("mcp.client.operation.duration");
    let client_call = attributes(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", version),
    ]);
    assert_eq!(
        counted(&client_points, &client_call),
        [1],
        "{client_points:#?}"
    );

    let session = attributes(&[
        ("mcp.protocol.version", version),
        ("network.transport", "pipe"),
    ]);
    let client_sessions = receiver.histogram("mcp.client.session.duration");
    assert_eq!(
        counted(&client_sessions, &session),
        [1],
        "{client_sessions:#?}"
    );
    // The server's: those of the stdio ways and the client's; a connection of 2026-07-28
    // requests has no version of its own (each request names one).
    let server_sessions = receiver.histogram("mcp.server.session.duration");
    let client_2026 = client_version.as_str() == "2026-07-28";
    let handshake = attributes(&[
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ]);
    let unversioned = attributes(&[("network.transport", "pipe")]);
    assert_eq!(
        counted(&server_sessions, &handshake),
        [1 + u64::from(!client_2026)],
        "{server_sessions:#?}"
    );
    assert_eq!(
        counted(&server_sessions, &unversioned),
        [1 + u64::from(client_2026)],
        "{server_sessions:#?}"
    );
}
