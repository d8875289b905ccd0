use mcp_runtime::prelude::*;

/// Lists the names.
#[mcp_tool]
async fn names() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

fn main() {}
