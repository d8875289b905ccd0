use mcp_runtime::prelude::*;

/// Runs long.
#[mcp_tool(task = "sometimes")]
async fn long() -> String {
    String::new()
}

/// Starts when it likes.
#[mcp_tool(task = "optional", task_start = "later")]
async fn later() -> String {
    String::new()
}

/// Says when, but not whether.
#[mcp_tool(task_start = "2s")]
async fn when() -> String {
    String::new()
}

fn main() {}
