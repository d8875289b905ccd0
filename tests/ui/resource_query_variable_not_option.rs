use mcp_runtime::prelude::*;

/// Items matching a query.
#[mcp_resource(uri = "search://items{?q,limit}")]
async fn search(q: String, limit: Option<u32>) -> String {
    format!("{q} {limit:?}")
}

fn main() {}
