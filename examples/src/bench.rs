//! The tool of `bench-server`'s task scenarios, offered only with `--tasks`: a server with a tool
//! that may run as a task looks each call up for it, and the other scenarios do without.

use mcp_runtime::prelude::*;

/// This module, for `McpServerBuilder::registered_in`.
pub const MODULE: &str = module_path!();

/// Add two integers; a client that declares the tasks extension gets a task.
#[mcp_tool(task = "optional")]
async fn add_task(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}
