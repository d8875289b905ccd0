use mcp_runtime::prelude::*;

/// Asks the user.
#[mcp_tool(requires = "elicitaton")]
async fn ask() -> String {
    "asked".into()
}

fn main() {}
