use mcp_runtime::prelude::*;

/// Greets.
#[mcp_tool]
fn greet(name: &str) -> String {
    format!("Hello {name}")
}

fn main() {}
