//! McpClient against servers that answer in ways ours does not: a scripted peer (the era probe's
//! fallbacks, a typed result, an output schema broken), and our HTTP server forgetting a session,
//! checking header mirrors, and streaming subscriptions.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{CancellationToken, ClientError, McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::subscriptions::SubscriptionFilter;
use mcp_runtime::protocol::{ErrorCode, ProtocolVersion};
use mcp_runtime::transport::http::HttpOptions;
use serde::Deserialize;
use serde_json::{Value, json};
use tests::http::TestHttpServer;
use tests::scripted::{Seen, discover_result, initialize_result, scripted};

/// The methods the scripted server received, once the last message had time to arrive.
async fn methods(seen: &Seen) -> Vec<String> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let seen = seen.lock().unwrap();
    seen.iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_server_that_never_answers_the_probe_is_spoken_to_with_the_handshake() {
    let builder = McpClient::builder(server_info!()).discovery_timeout(Duration::from_millis(100));
    let (client, seen) = scripted(builder, |method, _| match method {
        "initialize" => Some(Ok(initialize_result(json!({"tools": {}})))),
        _ => None,
    })
    .await;
    let client = client.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server().unwrap().server_info.name, "scripted");
    assert_eq!(
        methods(&seen).await,
        [
            "server/discover",
            "notifications/cancelled",
            "initialize",
            "notifications/initialized"
        ]
    );
}

#[tokio::test]
async fn an_unsupported_version_answer_is_retried_with_a_listed_version_never_the_handshake() {
    // The first probe is refused although it asked for a listed version: the client retries once.
    let refusals = Arc::new(Mutex::new(1));
    let remaining = refusals.clone();
    let (client, seen) =
        scripted(
            McpClient::builder(server_info!()),
            move |method, params| match method {
                "server/discover" if std::mem::take(&mut *remaining.lock().unwrap()) > 0 => {
                    Some(Err(
                        json!({"code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"],
                        "requested": params["_meta"]["io.modelcontextprotocol/protocolVersion"]}}),
                    ))
                }
                "server/discover" => Some(Ok(discover_result(json!({"tools": {}})))),
                _ => None,
            },
        )
        .await;
    assert_eq!(
        client.unwrap().protocol_version(),
        ProtocolVersion::V2026_07_28
    );
    assert_eq!(methods(&seen).await, ["server/discover", "server/discover"]);
    assert_eq!(*refusals.lock().unwrap(), 0);

    // A stateless error that names no revision the client speaks is final: no handshake.
    let (client, seen) = scripted(McpClient::builder(server_info!()), |method, _| {
        (method == "server/discover").then(|| {
            Err(
                json!({"code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2027-01-01"], "requested": "2026-07-28"}}),
            )
        })
    })
    .await;
    let error = client.unwrap_err();
    assert_eq!(
        error.server_error().map(|e| e.code),
        Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
    );
    assert_eq!(methods(&seen).await, ["server/discover"]);

    // Any other error marks a server of the handshake era.
    let (client, seen) = scripted(
        McpClient::builder(server_info!()),
        |method, _| match method {
            "initialize" => Some(Ok(initialize_result(json!({"tools": {}})))),
            _ => Some(Err(json!({"code": -32600, "message": "Not initialized"}))),
        },
    )
    .await;
    assert_eq!(
        client.unwrap().protocol_version(),
        ProtocolVersion::V2025_11_25
    );
    assert_eq!(
        methods(&seen).await,
        ["server/discover", "initialize", "notifications/initialized"]
    );
}

/// The scripted tools: `sum` declares an output schema; `broken` breaks it; `fails` fails.
fn tools_server(method: &str, params: &Value) -> Option<Result<Value, Value>> {
    let output = json!({"type": "object", "properties": {"total": {"type": "integer"}},
        "required": ["total"]});
    Some(Ok(match (method, params["name"].as_str()) {
        ("initialize", _) => initialize_result(json!({"tools": {}})),
        ("tools/list", _) => json!({"tools": [
            {"name": "sum", "inputSchema": {"type": "object"}, "outputSchema": output},
            {"name": "broken", "inputSchema": {"type": "object"}, "outputSchema": output},
            {"name": "fails", "inputSchema": {"type": "object"}}]}),
        ("tools/call", Some("sum")) => {
            let total = params["arguments"]["a"].as_i64()? + params["arguments"]["b"].as_i64()?;
            json!({"content": [{"type": "text", "text": total.to_string()}],
                "structuredContent": {"total": total}})
        }
        ("tools/call", Some("broken")) => {
            json!({"content": [], "structuredContent": {"total": "many"}})
        }
        ("tools/call", Some("fails")) => {
            json!({"content": [{"type": "text", "text": "no such thing"}], "isError": true})
        }
        _ => return Some(Err(json!({"code": -32601, "message": "Method not found"}))),
    }))
}

#[derive(Debug, Deserialize, PartialEq)]
struct Total {
    total: i64,
}

#[tokio::test]
async fn structured_results_are_typed_and_checked_against_the_output_schema() {
    let builder = McpClient::builder(server_info!()).protocol_version(ProtocolVersion::V2025_11_25);
    let (client, _) = scripted(builder, tools_server).await;
    let client = client.unwrap();
    // Before the tools are listed, nothing is known to check against.
    let unchecked = client.call_tool("broken", json!({})).await.unwrap();
    assert_eq!(unchecked.structured_content, Some(json!({"total": "many"})));
    assert_eq!(client.list_all_tools().await.unwrap().len(), 3);

    let total: Total = client
        .call_tool_as("sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(total, Total { total: 5 });
    assert_eq!(
        client.call_tool("broken", json!({})).await.unwrap_err(),
        ClientError::Protocol {
            method: "tools/call",
            detail: "the structured content of broken breaks its output schema: total: \"many\" \
                     is not of type \"integer\""
                .into()
        }
    );
    let ClientError::Tool { name, result } = client
        .call_tool_as::<Total>("fails", json!({}))
        .await
        .unwrap_err()
    else {
        panic!("a tool error")
    };
    assert_eq!((name.as_str(), result.is_error), ("fails", Some(true)));

    // The check can be switched off.
    let builder = McpClient::builder(server_info!())
        .protocol_version(ProtocolVersion::V2025_11_25)
        .validate_structured_content(false);
    let (lenient, _) = scripted(builder, tools_server).await;
    let lenient = lenient.unwrap();
    lenient.list_all_tools().await.unwrap();
    let result = lenient.call_tool("broken", json!({})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"total": "many"})));
}

#[tokio::test]
async fn a_call_has_its_own_timeout_and_cancellation_token() {
    let builder = McpClient::builder(server_info!()).protocol_version(ProtocolVersion::V2025_11_25);
    let (client, seen) = scripted(builder, |method, _| match method {
        "initialize" => Some(Ok(initialize_result(json!({"tools": {}})))),
        _ => None,
    })
    .await;
    let client = client.unwrap();
    let error = client
        .call_tool_with(
            "slow",
            json!({}),
            RequestOptions::new().timeout(Duration::from_millis(30)),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::TimedOut {
            method: "tools/call",
            timeout: Duration::from_millis(30)
        }
    );
    let stop = CancellationToken::new();
    let call = client.call_tool_with(
        "slow",
        json!({}),
        RequestOptions::new().cancel_on(stop.clone()),
    );
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        stop.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    assert_eq!(
        result.unwrap_err(),
        ClientError::Cancelled {
            method: "tools/call"
        }
    );
    // Both calls were cancelled on the wire, by id.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let seen = seen.lock().unwrap();
    let calls: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .collect();
    let cancels: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(cancels.len(), 2);
    for (call, cancel) in calls.iter().zip(&cancels) {
        assert_eq!(cancel["params"]["requestId"], call["id"]);
    }
}

/// Echoes its region, which the client mirrors into `Mcp-Param-Region`.
#[mcp_tool(input_schema = json!({
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"]
}))]
async fn where_am_i(region: String) -> String {
    format!("Region: {region}")
}

/// Announces a change of the tool list.
#[mcp_tool]
async fn change_tools(server: McpServer) -> String {
    let reached = server.notify(ServerNotification::ToolListChanged(Default::default()));
    format!("told {reached}")
}

fn server() -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .tools_list_changed()
        .build()
        .unwrap()
}

#[tokio::test]
async fn annotated_arguments_go_into_headers_and_a_mismatch_lists_the_tools_again() {
    let http = TestHttpServer::start(server(), HttpOptions::default()).await;
    let client = McpClient::builder(server_info!())
        .connect_http(http.url.clone())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    // Unlisted, the tool's annotation is unknown: the server refuses the call without the
    // header, and the client lists the tools and sends it again with `=?base64?…?=`.
    let result = client
        .call_tool("where_am_i", json!({"region": " Zürich "}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("Region:  Zürich "));
    let result = client
        .call_tool("where_am_i", json!({"region": "us-west1"}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("Region: us-west1"));
}

#[tokio::test]
async fn a_forgotten_session_is_replaced_by_a_fresh_handshake() {
    let http = TestHttpServer::start(server(), HttpOptions::default()).await;
    let client = McpClient::builder(server_info!())
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect_http(http.url.clone())
        .await
        .unwrap();
    let first = client.server().unwrap();
    let sessions = http.transport.session_ids();
    assert_eq!(sessions.len(), 1);
    // The server forgets the session (it ended, or the server restarted): the next request gets
    // 404, and the client initializes a new session and sends it again.
    // Right after the handshake, so that `notifications/initialized` may be the first message
    // to find the session gone.
    assert!(http.transport.end_session(&sessions[0]).await);
    assert_eq!(http.transport.session_count(), 0);
    let result = client
        .call_tool("where_am_i", json!({"region": "eu"}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("Region: eu"));
    assert_eq!(http.transport.session_count(), 1);
    assert!(!Arc::ptr_eq(&first, &client.server().unwrap()));
}

#[tokio::test]
async fn a_subscription_streams_what_it_asked_for_until_dropped() {
    let http = TestHttpServer::start(server(), HttpOptions::default()).await;
    let over_http = McpClient::builder(server_info!())
        .connect_http(http.url.clone())
        .await
        .unwrap();
    let in_process = McpClient::builder(server_info!())
        .connect_in_process(server())
        .await
        .unwrap();
    for client in [over_http, in_process] {
        assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = Some(true);
        filter.prompts_list_changed = Some(true);
        let mut subscription = client.listen(filter).await.unwrap();
        // The server announces only what it supports.
        let mut acknowledged = SubscriptionFilter::default();
        acknowledged.tools_list_changed = Some(true);
        assert_eq!(subscription.acknowledged(), &acknowledged);
        let told = client.call_tool("change_tools", json!({})).await.unwrap();
        assert_eq!(told.content[0].as_text(), Some("told 1"));
        let notification = tokio::time::timeout(Duration::from_secs(5), subscription.next())
            .await
            .unwrap();
        assert!(matches!(
            notification,
            Some(ServerNotification::ToolListChanged(_))
        ));
        // Dropping the subscription ends it on the server.
        drop(subscription);
        let mut told = String::new();
        for _ in 0..100 {
            let result = client.call_tool("change_tools", json!({})).await.unwrap();
            told = result.content[0].as_text().unwrap().to_owned();
            if told == "told 0" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(told, "told 0");
    }
}
