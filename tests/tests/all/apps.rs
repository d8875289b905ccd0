//! MCP Apps (`io.modelcontextprotocol/ui`): a tool names its interface, a `ui://` resource, and
//! who may call it; the listing carries `_meta.ui` and the flat key hosts still read.

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::apps::{ToolUi, Visibility};
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

#[tokio::test]
async fn a_tools_interface_is_in_its_listing() {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let mut client = tests::TestClient::initialized(
        server,
        mcp_runtime::protocol::ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
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
