//! Our McpClient against a server written with the official TypeScript SDK
//! (`interop/ts_server.mjs`, `@modelcontextprotocol/sdk` as `scripts/install-interop.sh` pins it),
//! over stdio and Streamable HTTP: the era probe falls back to the handshake, and every feature
//! of the server is used and its answers checked exactly.

use std::process::Command;

use mcp_runtime::client::{McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::elicitation::{ElicitResult, ElicitValue};
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::roots::Root;
use mcp_runtime::protocol::sampling::CreateMessageResult;
use serde::Deserialize;
use serde_json::json;
use tests::interop::{HttpExample, interop_script, node};

fn builder() -> mcp_runtime::client::McpClientBuilder {
    McpClient::builder(server_info!())
        .sampling(|_| async {
            Ok(serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": {"type": "text", "text": "Hello"},
                "model": "m"}))
            .unwrap())
        })
        // Only the name: the client fills in the language's default.
        .elicitation(|_| async {
            let content = [("name".to_owned(), ElicitValue::String("Ada".into()))];
            Ok(ElicitResult::accept(content.into_iter().collect()))
        })
        .roots(vec![Root::new("file:///work")])
}

#[derive(Debug, Deserialize, PartialEq)]
struct Sum {
    sum: f64,
}

/// Uses every feature of the TypeScript server through `client`.
async fn exercise(client: McpClient) {
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(
        client.server().unwrap().server_info.name,
        "ts-interop-server"
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "count", "ask"]);
    let sum: Sum = client
        .call_tool_as("add", json!({"a": 2, "b": 3.5}))
        .await
        .unwrap();
    assert_eq!(sum, Sum { sum: 5.5 });

    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    let mut notifications = client.notifications();
    let (progress, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let counted = client
        .call_tool_with(
            "count",
            json!({"n": 3}),
            RequestOptions::new().progress(progress),
        )
        .await
        .unwrap();
    assert_eq!(counted.content[0].as_text(), Some("counted to 3"));
    let mut steps = Vec::new();
    while let Ok(update) = updates.try_recv() {
        steps.push((update.progress, update.total));
    }
    assert_eq!(
        steps,
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );
    let mut logs = Vec::new();
    while logs.len() < 3 {
        if let ServerNotification::LoggingMessage(log) = notifications.recv().await.unwrap() {
            logs.push(log.data);
        }
    }
    assert_eq!(logs, [json!("step 1"), json!("step 2"), json!("step 3")]);

    let asked = client.call_tool("ask", json!({})).await.unwrap();
    assert_eq!(
        asked.content[0].as_text(),
        Some("Hello | accept | Ada | Rust | file:///work")
    );

    let prompt = client
        .get_prompt("greet", [("who".to_owned(), "Rust".to_owned())])
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Rust!"}}])
    );

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].uri, "test://motd");
    let motd = client.read_resource("test://motd").await.unwrap();
    assert_eq!(
        serde_json::to_value(&motd.contents).unwrap(),
        json!([{"uri": "test://motd", "mimeType": "text/plain", "text": "Keep calm."}])
    );
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "test://users/{id}");
    let user = client.read_resource("test://users/7").await.unwrap();
    assert_eq!(
        serde_json::to_value(&user.contents).unwrap(),
        json!([{"uri": "test://users/7", "text": "user 7"}])
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn our_client_uses_a_typescript_server_over_stdio() {
    let mut command = tokio::process::Command::new(node());
    command.arg(interop_script("ts_server.mjs")).arg("stdio");
    let client = builder().connect_stdio(command).await.unwrap();
    exercise(client).await;
}

#[tokio::test]
async fn our_client_uses_a_typescript_server_over_the_old_sse_transport() {
    let mut command = Command::new(node());
    command.arg(interop_script("ts_server.mjs")).arg("sse");
    let server = HttpExample::spawn(command);
    let client = builder().connect_sse(server.url.clone()).await.unwrap();
    exercise(client).await;
    // Given the URL as a Streamable HTTP endpoint, the client falls back as the spec says: the
    // official server refuses the POSTs with 404, and the GET opens the old transport.
    let client = builder().connect_http(server.url.clone()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(client).await;
}

#[tokio::test]
async fn our_client_uses_a_typescript_server_over_streamable_http() {
    let mut command = Command::new(node());
    command.arg(interop_script("ts_server.mjs")).arg("http");
    let server = HttpExample::spawn(command);
    let client = builder().connect_http(server.url.clone()).await.unwrap();
    exercise(client).await;
}
