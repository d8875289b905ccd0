use mcp_runtime::prelude::*;

/// Adds.
#[mcp_tool]
fn add(a: i64, #[arg(rename = "a")] b: i64) -> i64 {
    a + b
}

fn main() {}
