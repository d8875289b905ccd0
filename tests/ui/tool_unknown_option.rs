use mcp_runtime::prelude::*;

/// Reads.
#[mcp_tool(readonly)]
fn read() -> String {
    String::new()
}

fn main() {}
