//! What the micro-benchmarks measure: the SDK's server with the `add` tool of the bench server,
//! and one with 100 tools, driven in process (no transport).
//!
//! ```sh
//! cargo bench --manifest-path bench/Cargo.toml -p micro
//! ```

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::tool::ToolDefinition;
use schemars::JsonSchema;
use serde::Deserialize;

/// The bench server's tools, of which [`add_server`] serves `add`: one definition for both.
#[path = "../../../examples/src/bench_tools.rs"]
mod bench_tools;

/// The arguments of the generated tools.
#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// What to look for.
    pub text: String,
    /// The most results to return.
    pub limit: Option<u32>,
}

/// A server with the `add` tool only.
pub fn add_server() -> McpServer {
    add_server_builder().build().expect("the add server builds")
}

/// The builder of [`add_server`], to add layers to.
pub fn add_server_builder() -> McpServerBuilder {
    McpServer::builder(info()).registered_tool(&format!("{}::add", bench_tools::MODULE))
}

/// A server with the tool `add_later`, which may run as a task (2025-11-25 tasks).
pub fn task_server() -> McpServer {
    McpServer::builder(info())
        .tool(
            ToolDefinition::typed(
                "add_later",
                |args: AddArgs, _ctx| async move { args.a + args.b },
            )
            .task(mcp_runtime::protocol::tools::TaskSupport::Optional),
        )
        .build()
        .expect("the task server builds")
}

/// The arguments of `add_later`.
#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// A server with `count` tools, each with a described two-field input schema.
pub fn server_with_tools(count: usize) -> McpServer {
    (0..count)
        .fold(McpServer::builder(info()), |builder, i| {
            builder.tool(
                ToolDefinition::typed(format!("search_{i}"), |query: Query, _ctx| async move {
                    format!("{} {:?}", query.text, query.limit)
                })
                .description(format!("Search the collection number {i}.")),
            )
        })
        .build()
        .expect("the listing server builds")
}

fn info() -> Implementation {
    Implementation::new("micro", "0.1.0")
}

/// A `tools/call` of `add_later` run as a task, as a 2025-11-25 session asks for it.
pub const CALL_AS_TASK: &[u8] = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add_later","arguments":{"a":1,"b":2},"task":{}}}"#;

/// A `tools/call` of `add` as a 2025-11-25 session sends it.
pub const CALL_ADD: &[u8] =
    br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;

/// A `tools/call` of `add` as a 2026-07-28 client sends it (no handshake, `_meta` on the request).
pub const CALL_ADD_STATELESS: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}}"#;

/// `tools/list` (2025-11-25).
pub const LIST_TOOLS: &[u8] = br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#;

/// `initialize` at 2025-11-25.
pub const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"micro","version":"0.1.0"}}}"#;

/// `notifications/initialized`.
pub const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
