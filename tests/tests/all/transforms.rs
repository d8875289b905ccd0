//! Tools offered otherwise than they are defined (renamed, arguments renamed, fixed or
//! described, descriptions rewritten) and filtered by name or tag, on a server's own tools
//! and on those it mirrors, at build time and when the upstream's list changes.

use std::time::Duration;

use mcp_runtime::client::McpClient;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::proxy::Proxy;
use mcp_runtime::server::{BuildError, ToolFilter, ToolTransform};
use serde_json::{Value, json};

/// A tool that says what it was called with.
fn echo_args(name: &str) -> ToolDefinition {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file."},
            "encoding": {"type": "string"}
        },
        "required": ["path", "encoding"]
    });
    ToolDefinition::new(
        name,
        schema.as_object().unwrap().clone(),
        |args, _| async move { Value::Object(args).to_string() },
    )
}

fn read_transform() -> ToolTransform {
    ToolTransform::new()
        .rename("read")
        .description("Reads a file of the project.")
        .rename_argument("path", "file")
        .describe_argument("file", "The file, from the project's root.")
        .fix_argument("encoding", "utf-8")
}

async fn client(server: McpServer, version: ProtocolVersion) -> McpClient {
    McpClient::builder(Implementation::new("client", "1.0.0"))
        .protocol_version(version)
        .connect_in_process(server)
        .await
        .unwrap()
}

/// What `client` lists: each tool's name, description and input schema.
async fn listed(client: &McpClient) -> Vec<Value> {
    let mut tools = client.list_all_tools().await.unwrap();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
        .into_iter()
        .map(|t| json!([t.name, t.description, t.input_schema]))
        .collect()
}

#[tokio::test]
async fn a_local_tool_is_offered_as_its_transform_says() {
    let server = McpServer::builder(Implementation::new("server", "1.0.0"))
        .tool(echo_args("read_file"))
        .tool(echo_args("delete_file").tags(["dangerous"]))
        .transform_tool("read_file", read_transform())
        .drop_tools(ToolFilter::tagged(["dangerous"]))
        .build()
        .unwrap();
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = client(server.clone(), version).await;
        assert_eq!(
            listed(&client).await,
            [json!(["read", "Reads a file of the project.", {
                "type": "object",
                "properties": {"file": {"type": "string",
                    "description": "The file, from the project's root."}},
                "required": ["file"]
            }])]
        );
        // The caller's names go back to the tool's own, the fixed value wins over a caller's.
        let result = client
            .call_tool("read", json!({"file": "a.txt", "encoding": "latin1"}))
            .await
            .unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some(r#"{"path":"a.txt","encoding":"utf-8"}"#)
        );
        let refused = client.call_tool("read_file", json!({})).await.unwrap_err();
        assert_eq!(
            refused.server_error().map(|e| e.code.0),
            Some(-32602),
            "{refused}"
        );
    }
}

#[tokio::test]
async fn a_transform_of_an_argument_the_tool_lacks_fails_the_build() {
    let error = McpServer::builder(Implementation::new("server", "1.0.0"))
        .tool(echo_args("read_file"))
        .transform_tool("read_file", ToolTransform::new().fix_argument("mode", "r"))
        .build()
        .map(drop)
        .expect_err("the build fails");
    assert!(matches!(error, BuildError::Registry(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "tool `read_file` is invalid: the transform of tool read_file names the argument \
         mode, which the tool does not have"
    );
}

#[tokio::test]
async fn mirrored_tools_are_transformed_and_filtered_also_when_the_upstream_changes() {
    let upstream = McpServer::builder(Implementation::new("upstream", "1.0.0"))
        .tool(echo_args("read_file"))
        .tool(echo_args("stat"))
        .tools_list_changed()
        .build()
        .unwrap();
    let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .mount("files", Proxy::in_process(upstream.clone()).await.unwrap())
        .transform_tool("files_read_file", read_transform())
        .keep_tools(ToolFilter::named(["read", "files_touch"]))
        .build()
        .unwrap();
    let client = client(server, ProtocolVersion::V2025_11_25).await;
    let names = |tools: Vec<Value>| -> Vec<String> {
        tools
            .into_iter()
            .map(|t| t[0].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(listed(&client).await), ["read"]);
    let result = client
        .call_tool("read", json!({"file": "b.txt"}))
        .await
        .unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some(r#"{"path":"b.txt","encoding":"utf-8"}"#)
    );
    // The upstream adds a tool the filter keeps: it is offered, and `read` stays transformed.
    upstream.add_tool(echo_args("touch")).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while names(listed(&client).await) != ["files_touch", "read"] {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the new tool never came"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(listed(&client).await[1][1], "Reads a file of the project.");
}
