use mcp_runtime::prelude::*;

/// Greets.
#[mcp_tool]
async fn greet(#[ctx] name: String) -> String {
    format!("Hello {name}")
}

fn main() {}
