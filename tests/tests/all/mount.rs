//! Several servers behind one: `conformance-server` over stdio mounted as `conf`, a local server
//! of this process mounted as `notes`, and a tool of the gateway's own. Names stay unique,
//! everything is reached under its namespace, and one upstream that dies leaves the rest
//! serving.

use std::time::Duration;

use mcp_runtime::client::McpClient;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::logging::LoggingLevel;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::{JsonObject, ProtocolVersion};
use mcp_runtime::proxy::{Proxy, upstream_client};
use mcp_runtime::resource::ResourceDefinition;
use serde_json::json;
use tests::interop::example_binary;

/// The notes server mounted beside `conformance-server`: a tool, a prompt and a resource.
fn notes() -> McpServer {
    McpServer::builder(Implementation::new("notes", "1.0.0"))
        .tool(ToolDefinition::new(
            "count",
            JsonObject::new(),
            |_, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Info, "counting").await;
                "3 notes"
            },
        ))
        .resource(ResourceDefinition::new("notes://all", "all", |_| async {
            "# Shopping\n# Work"
        }))
        .resource_subscriptions()
        .logging()
        .build()
        .unwrap()
}

/// The gateway, and the client of `conformance-server` behind it.
async fn gateway() -> (McpServer, McpClient) {
    let mut command = tokio::process::Command::new(example_binary("conformance-server"));
    command.arg("stdio");
    let conformance = upstream_client(Implementation::new("gateway", "1.0.0"))
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect_stdio(command)
        .await
        .unwrap();
    let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .tool(ToolDefinition::new(
            "own",
            JsonObject::new(),
            |_, _| async { "the gateway's own" },
        ))
        .mount("conf", Proxy::new(conformance.clone()).await.unwrap())
        .mount("notes", Proxy::in_process(notes()).await.unwrap())
        .build()
        .unwrap();
    (server, conformance)
}

async fn client(server: McpServer, version: ProtocolVersion) -> McpClient {
    McpClient::builder(Implementation::new("downstream", "1.0.0"))
        .protocol_version(version)
        .connect_in_process(server)
        .await
        .unwrap()
}

fn text(result: &mcp_runtime::protocol::tools::CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[tokio::test]
async fn mounted_servers_are_reached_under_their_namespaces() {
    let (server, _conformance) = gateway().await;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = client(server.clone(), version).await;
        let tools: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(tools.len(), 1 + 35 + 1, "{tools:?}");
        assert!(tools.contains(&"own".to_owned()));
        assert!(tools.contains(&"conf_test_simple_text".to_owned()));
        assert!(tools.contains(&"notes_count".to_owned()));
        assert_eq!(
            text(
                &client
                    .call_tool("conf_test_simple_text", json!({}))
                    .await
                    .unwrap()
            ),
            "This is a simple text response for testing."
        );
        assert_eq!(
            text(&client.call_tool("notes_count", json!({})).await.unwrap()),
            "3 notes"
        );
        assert_eq!(
            text(&client.call_tool("own", json!({})).await.unwrap()),
            "the gateway's own"
        );
        // Resource URIs take the namespace after their scheme, templates too; the contents
        // name the URI read.
        let read = client.read_resource("notes://notes/all").await.unwrap();
        assert_eq!(read.contents[0].uri(), "notes://notes/all");
        assert_eq!(read.contents[0].as_text(), Some("# Shopping\n# Work"));
        let templates: Vec<String> = client
            .list_all_resource_templates()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.uri_template)
            .collect();
        assert!(
            templates.contains(&"test://conf/template/{id}/data".to_owned()),
            "{templates:?}"
        );
        let read = client
            .read_resource("test://conf/template/7/data")
            .await
            .unwrap();
        assert_eq!(read.contents[0].uri(), "test://conf/template/7/data");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(read.contents[0].as_text().unwrap()).unwrap()
                ["id"],
            "7"
        );
        let prompt = client
            .get_prompt("conf_test_simple_prompt", Vec::<(String, String)>::new())
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&prompt.messages).unwrap(),
            json!([{"role": "user", "content": {"type": "text",
                "text": "This is a simple prompt for testing."}}])
        );
        let completed = client
            .complete(
                serde_json::from_value(json!({
                    "ref": {"type": "ref/prompt", "name": "conf_test_prompt_with_arguments"},
                    "argument": {"name": "arg1", "value": "tes"}
                }))
                .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(completed.completion.values, ["test", "testing", "tested"]);
    }
}

#[tokio::test]
async fn a_mounted_servers_logs_and_updates_name_it() {
    let local = notes();
    let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .mount("notes", Proxy::in_process(local.clone()).await.unwrap())
        .build()
        .unwrap();
    let client = client(server, ProtocolVersion::V2025_11_25).await;
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    client.subscribe("notes://notes/all").await.unwrap();
    let mut notifications = client.notifications();
    client.call_tool("notes_count", json!({})).await.unwrap();
    assert!(local.notify_resource_updated("notes://all") >= 1);
    let (mut logged, mut updated) = (None, None);
    while logged.is_none() || updated.is_none() {
        let next = tokio::time::timeout(Duration::from_secs(10), notifications.recv())
            .await
            .unwrap()
            .unwrap();
        match next {
            ServerNotification::LoggingMessage(message) => {
                logged = Some((message.logger, message.data));
            }
            ServerNotification::ResourceUpdated(update) => updated = Some(update.uri),
            _ => {}
        }
    }
    assert_eq!(logged, Some((Some("notes".into()), json!("counting"))));
    assert_eq!(updated.as_deref(), Some("notes://notes/all"));
}

#[tokio::test]
async fn one_upstream_that_dies_leaves_the_others_serving() {
    let (server, conformance) = gateway().await;
    let client = client(server, ProtocolVersion::V2025_11_25).await;
    let pid = conformance.process_id().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Once the gateway sees the pipe close, calls to the dead upstream fail, saying so.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let error = loop {
        match client.call_tool("conf_test_simple_text", json!({})).await {
            Err(error) => break error,
            Ok(_) => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the upstream never died"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    assert_eq!(
        error.server_error().map(|e| e.message.as_str()),
        Some("tools/call failed: the server behind this gateway is gone (its connection closed)")
    );
    assert_eq!(
        text(&client.call_tool("notes_count", json!({})).await.unwrap()),
        "3 notes"
    );
    assert_eq!(
        text(&client.call_tool("own", json!({})).await.unwrap()),
        "the gateway's own"
    );
}
