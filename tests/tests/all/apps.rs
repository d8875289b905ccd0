//! MCP Apps (`io.modelcontextprotocol/ui`): a tool names its interface, a `ui://` resource, and
//! who may call it; the listing carries `_meta.ui` and the flat key hosts still read.

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::apps::{ToolUi, Visibility};
use mcp_runtime::resource::ResourceDefinition;
use serde_json::json;

/// Show the board.
#[mcp_tool(ui = "ui://apps-test/board")]
async fn show_board() -> String {
    "the board".into()
}

/// Move a note on the board (the board's own button).
#[mcp_tool(ui = "ui://apps-test/board", visibility = "app")]
async fn move_note(id: u32) -> String {
    format!("moved {id}")
}

/// A 2025-11-25 client of `server`, in process.
async fn client(server: McpServer) -> tests::TestClient {
    tests::TestClient::initialized(
        server,
        mcp_runtime::protocol::ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await
}

#[tokio::test]
async fn a_tools_interface_is_in_its_listing() {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let mut client = client(server).await;
    let listed = client.request("tools/list", json!({})).await.unwrap();
    let meta = |name: &str| {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["_meta"].clone())
            .unwrap()
    };
    assert_eq!(
        meta("show_board"),
        json!({
            "ui": {"resourceUri": "ui://apps-test/board"},
            "ui/resourceUri": "ui://apps-test/board",
        })
    );
    assert_eq!(
        meta("move_note"),
        json!({
            "ui": {"resourceUri": "ui://apps-test/board", "visibility": ["app"]},
            "ui/resourceUri": "ui://apps-test/board",
        })
    );
}

#[test]
fn a_dynamic_tools_interface_joins_its_other_meta() {
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    let tool = ToolDefinition::new("t", schema, |_, _| async { "" })
        .meta(json!({"x": 1}).as_object().unwrap().clone())
        .ui(ToolUi::new("ui://a/b").visibility([Visibility::Model]));
    assert_eq!(
        serde_json::to_value(tool.tool()).unwrap()["_meta"],
        json!({
            "x": 1,
            "ui": {"resourceUri": "ui://a/b", "visibility": ["model"]},
            "ui/resourceUri": "ui://a/b",
        })
    );
    assert_eq!(
        tool.tool_ui(),
        Some(ToolUi::new("ui://a/b").visibility([Visibility::Model]))
    );
}

#[tokio::test]
async fn an_apps_interface_is_served_with_its_sandbox() {
    use mcp_runtime::protocol::apps::{Csp, ResourceUi};
    let mut csp = Csp::default();
    csp.connect_domains = Some(vec!["https://api.example.com".into()]);
    let mut ui = ResourceUi::default();
    ui.csp = Some(csp);
    ui.prefers_border = Some(true);
    let server = McpServer::builder(server_info!())
        .resource(
            ResourceDefinition::app("ui://apps-test/page", "page", "<!DOCTYPE html><p>hi</p>")
                .ui(ui),
        )
        .build()
        .unwrap();
    let mut client = client(server).await;
    let expected_ui = json!({
        "csp": {"connectDomains": ["https://api.example.com"]},
        "prefersBorder": true,
    });
    let listed = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        listed["resources"],
        json!([{
            "uri": "ui://apps-test/page", "name": "page",
            "mimeType": "text/html;profile=mcp-app",
            "_meta": {"ui": expected_ui},
        }])
    );
    let read = client
        .request("resources/read", json!({"uri": "ui://apps-test/page"}))
        .await
        .unwrap();
    assert_eq!(
        read["contents"],
        json!([{
            "uri": "ui://apps-test/page",
            "mimeType": "text/html;profile=mcp-app",
            "text": "<!DOCTYPE html><p>hi</p>",
            "_meta": {"ui": expected_ui},
        }])
    );
}
