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

/// The board's page.
#[mcp_resource(uri = "ui://apps-test/board", app)]
async fn board_page() -> &'static str {
    "<!DOCTYPE html><p>the board</p>"
}

/// A 2025-11-25 client of `server`, in process, whose host renders apps.
async fn client(server: McpServer) -> tests::TestClient {
    tests::TestClient::initialized(
        server,
        mcp_runtime::protocol::ProtocolVersion::V2025_11_25,
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}),
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

/// A page whose sandbox allows an API.
fn chart_sandbox() -> mcp_runtime::protocol::apps::ResourceUi {
    use mcp_runtime::protocol::apps::{Csp, ResourceUi};
    ResourceUi::new().csp(Csp::new().connect(["https://api.example.com"]))
}

/// The chart's page.
#[mcp_resource(uri = "ui://apps-test/chart", app = chart_sandbox)]
async fn chart_page() -> String {
    "<!DOCTYPE html><canvas></canvas>".to_owned()
}

/// The values a chart draws.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Series {
    values: Vec<u32>,
}

/// Whether the host renders apps, as the tool sees it.
#[mcp_tool(ui = "ui://apps-test/chart")]
async fn chart(ctx: RequestContext) -> Structured<Series> {
    let text = if ctx.client_capabilities().renders_apps() {
        "the chart is drawn"
    } else {
        "1, 2, 3"
    };
    Structured::new(
        text,
        Series {
            values: vec![1, 2, 3],
        },
    )
}

#[tokio::test]
async fn a_page_declared_with_the_macro_is_an_app_with_its_sandbox() {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let mut client = client(server).await;
    let listed = client.request("resources/list", json!({})).await.unwrap();
    let chart = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "ui://apps-test/chart")
        .cloned()
        .unwrap();
    assert_eq!(
        chart,
        json!({
            "uri": "ui://apps-test/chart", "name": "chart_page",
            "description": "The chart's page.",
            "mimeType": "text/html;profile=mcp-app",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}},
        })
    );
}

/// A server with `chart`, its page, and the board's tools and page, for `client`.
async fn connected(
    client: mcp_runtime::client::McpClientBuilder,
    version: mcp_runtime::protocol::ProtocolVersion,
) -> mcp_runtime::client::McpClient {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    client
        .protocol_version(version)
        .connect_in_process(server)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_tool_knows_whether_the_host_renders_apps_in_both_eras() {
    use mcp_runtime::client::McpClient;
    use mcp_runtime::protocol::ProtocolVersion;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        for (host, expected) in [
            (
                McpClient::builder(server_info!()).apps(),
                "the chart is drawn",
            ),
            (McpClient::builder(server_info!()), "1, 2, 3"),
        ] {
            let client = connected(host, version).await;
            let result = client.call_tool("chart", json!({})).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some(expected), "{version}");
            assert_eq!(
                result.structured_content,
                Some(json!({"values": [1, 2, 3]}))
            );
        }
    }
}

#[tokio::test]
async fn a_host_lists_the_models_tools_and_reads_an_interface() {
    use mcp_runtime::client::{ClientError, McpClient};
    use mcp_runtime::protocol::ProtocolVersion;
    use mcp_runtime::protocol::apps::{Csp, ResourceUi, ToolUi, Visibility};
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = connected(McpClient::builder(server_info!()).apps(), version).await;
        let mut names: Vec<String> = (client.list_model_tools().await.unwrap())
            .into_iter()
            .map(|t| t.name)
            .collect();
        names.sort();
        assert_eq!(names, ["chart", "show_board"], "{version}");
        let all = client.list_all_tools().await.unwrap();
        let move_note = all.iter().find(|t| t.name == "move_note").unwrap();
        assert_eq!(
            move_note.ui(),
            Some(ToolUi::new("ui://apps-test/board").visibility([Visibility::App]))
        );
        assert!(!move_note.is_for_model());

        let page = client.read_app("ui://apps-test/chart").await.unwrap();
        assert_eq!(page.uri, "ui://apps-test/chart");
        assert_eq!(page.html, "<!DOCTYPE html><canvas></canvas>");
        assert_eq!(
            page.ui,
            Some(ResourceUi::new().csp(Csp::new().connect(["https://api.example.com"])))
        );
        let board = client.read_app("ui://apps-test/board").await.unwrap();
        assert_eq!(board.ui, None);

        // The app may call its own tools and the model's, and nothing the server does not list.
        let moved = client
            .call_tool_for_app("move_note", json!({"id": 7}))
            .await
            .unwrap();
        assert_eq!(moved.content[0].as_text(), Some("moved 7"));
        let refused = client.call_tool_for_app("nothing", json!({})).await;
        assert_eq!(
            refused,
            Err(ClientError::NotForApp {
                name: "nothing".into()
            })
        );
    }
}

/// A tool `name`, answering nothing, whose interface is `ui`.
fn tool_with(name: &str, ui: ToolUi) -> ToolDefinition {
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    ToolDefinition::new(name, schema, |_, _| async { "" }).ui(ui)
}

/// A page at `uri` served as `mime_type`, not as an app's.
fn plain_page(uri: &str, mime_type: &str) -> mcp_runtime::resource::ResourceDefinition {
    mcp_runtime::resource::ResourceDefinition::new(uri, "plain", |_| async { "<p>hi</p>" })
        .mime_type(mime_type)
}

#[tokio::test]
async fn a_host_refuses_what_is_not_an_apps_page() {
    use mcp_runtime::client::{ClientError, McpClient};
    use mcp_runtime::resource::ResourceDefinition;
    let model_only = |uri: &str| {
        tool_with(
            "model_only",
            ToolUi::new(uri).visibility([Visibility::Model]),
        )
    };
    let server = McpServer::builder(server_info!())
        .resource(plain_page("ui://x/plain", "text/html"))
        .tool(model_only("ui://x/plain"));
    // The builder refuses the tool first: its page is not an app's.
    assert_eq!(
        server.build().err().map(|e| e.to_string()),
        Some("tool `model_only` names `ui://x/plain` as its interface, which is served as text/html; hosts render only text/html;profile=mcp-app: declare the page with `app` (`#[mcp_resource(uri = \"ui://x/plain\", app)]`, or `ResourceDefinition::app`)".into())
    );
    let server = McpServer::builder(server_info!())
        .resource(plain_page("ui://x/plain", "text/html"))
        .tool(model_only("ui://x/app"))
        .resource(ResourceDefinition::app(
            "ui://x/app",
            "app",
            "<!DOCTYPE html>",
        ))
        .build()
        .unwrap();
    let client = McpClient::builder(server_info!())
        .apps()
        .connect_in_process(server)
        .await
        .unwrap();
    assert_eq!(
        client.read_app("ui://x/plain").await.err().map(|e| e.to_string()),
        Some("resources/read: ui://x/plain is served as text/html, not as an app's page (text/html;profile=mcp-app)".into())
    );
    assert_eq!(
        client
            .read_app("notes://1")
            .await
            .err()
            .map(|e| e.to_string()),
        Some(
            "resources/read: notes://1 is not an app's interface: those are ui:// resources".into()
        )
    );
    assert_eq!(
        client.call_tool_for_app("model_only", json!({})).await,
        Err(ClientError::NotForApp {
            name: "model_only".into()
        })
    );
}

#[test]
fn build_says_which_tool_or_page_is_wrong() {
    use mcp_runtime::protocol::apps::{Csp, ResourceUi};
    use mcp_runtime::resource::ResourceDefinition;
    let tool = |ui: ToolUi| tool_with("show", ui);
    let error = |builder: mcp_runtime::server::McpServerBuilder| {
        builder.build().err().map(|e| e.to_string()).unwrap()
    };
    assert_eq!(
        error(McpServer::builder(server_info!()).tool(tool(ToolUi::new("ui://x/missing")))),
        "tool `show` names the interface `ui://x/missing`, and the server has no resource at that URI: add the page, as `#[mcp_resource(uri = \"ui://x/missing\", app)]` or `ResourceDefinition::app(\"ui://x/missing\", name, html)`, or fix the URI"
    );
    assert_eq!(
        error(McpServer::builder(server_info!()).tool(tool(ToolUi::new("https://x/page")))),
        "tool `show` names `https://x/page` as its interface, which is not a ui:// URI: an app's page is a resource at ui://..., as `ui = \"ui://notes/board\"`"
    );
    assert_eq!(
        error(
            McpServer::builder(server_info!())
                .tool(tool(ToolUi::new("ui://x/p").visibility([])))
                .resource(ResourceDefinition::app("ui://x/p", "p", ""))
        ),
        "tool `show` may be called by nobody: its visibility is empty; list `model`, `app` or both, or leave it out for both"
    );
    assert_eq!(
        error(
            McpServer::builder(server_info!()).resource(ResourceDefinition::app(
                "https://x/p",
                "p",
                ""
            ))
        ),
        "resource `https://x/p` is served as an app's page (text/html;profile=mcp-app), which hosts look for only at ui:// URIs: give it a ui://... URI"
    );
    let bad_csp = ResourceUi::new().csp(Csp::new().resources(["https://cdn.example.com/lib.js"]));
    assert_eq!(
        error(
            McpServer::builder(server_info!())
                .resource(ResourceDefinition::app("ui://x/p", "p", "").ui(bad_csp))
        ),
        "resource `ui://x/p` allows in _meta.ui.csp.resourceDomains: \"https://cdn.example.com/lib.js\" is not an origin (a path, query or fragment); write scheme://host[:port], as https://api.example.com or https://*.example.com"
    );
    // A template may serve the pages.
    let template = mcp_runtime::resource::ResourceTemplateDefinition::new(
        "ui://charts/{kind}",
        "charts",
        |_, _, _| async { "" },
    )
    .unwrap();
    assert!(
        McpServer::builder(server_info!())
            .tool(tool(ToolUi::new("ui://charts/bar")))
            .resource_template(template)
            .build()
            .is_ok()
    );
}

#[test]
fn tools_and_pages_added_at_run_time_are_checked_alone() {
    use mcp_runtime::protocol::apps::{Csp, ResourceUi};
    use mcp_runtime::resource::ResourceDefinition;
    use mcp_runtime::server::{AppError, RegistryError};
    let tool = tool_with;
    let server = McpServer::builder(server_info!()).build().unwrap();
    // A tool may come before its page.
    server
        .add_tool(tool("first", ToolUi::new("ui://x/later")))
        .unwrap();
    server
        .add_resource(ResourceDefinition::app(
            "ui://x/later",
            "later",
            "<!DOCTYPE html>",
        ))
        .unwrap();
    assert_eq!(
        server.add_tool(tool("nobody", ToolUi::new("ui://x/later").visibility([]))),
        Err(RegistryError::App(AppError::Unreachable {
            tool: "nobody".into()
        }))
    );
    server
        .add_resource(plain_page("ui://x/text", "text/plain"))
        .unwrap();
    assert_eq!(
        server.add_tool(tool("texts", ToolUi::new("ui://x/text"))),
        Err(RegistryError::App(AppError::NotAnApp {
            tool: "texts".into(),
            uri: "ui://x/text".into(),
            mime_type: "text/plain".into(),
        }))
    );
    let page = ResourceDefinition::app("ui://x/api", "api", "")
        .ui(ResourceUi::new().csp(Csp::new().connect(["api.example.com"])));
    assert_eq!(
        server.add_resource(page).err().map(|e| e.to_string()),
        Some("resource `ui://x/api` allows in _meta.ui.csp.connectDomains: \"api.example.com\" is not an origin (no scheme); write scheme://host[:port], as https://api.example.com or https://*.example.com".into())
    );
}

#[tokio::test]
async fn a_host_without_apps_is_not_shown_the_tools_only_pages_call() {
    use mcp_runtime::client::McpClient;
    use mcp_runtime::protocol::ProtocolVersion;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let plain = connected(McpClient::builder(server_info!()), version).await;
        let mut names: Vec<String> = (plain.list_all_tools().await.unwrap())
            .into_iter()
            .map(|t| t.name)
            .collect();
        names.sort();
        assert_eq!(names, ["chart", "show_board"], "{version}");
        // Left out of the list, not refused: a client may still call it.
        let moved = plain
            .call_tool("move_note", json!({"id": 2}))
            .await
            .unwrap();
        assert_eq!(moved.content[0].as_text(), Some("moved 2"));
        let host = connected(McpClient::builder(server_info!()).apps(), version).await;
        assert_eq!(host.list_all_tools().await.unwrap().len(), 3, "{version}");
    }
}
