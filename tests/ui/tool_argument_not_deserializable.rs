use mcp_runtime::prelude::*;

/// Not JSON: neither `Deserialize` nor `JsonSchema`.
struct Opaque {
    handle: u64,
}

/// Looks something up.
#[mcp_tool]
async fn look_up(key: String, target: Opaque) -> String {
    format!("{key}: {}", target.handle)
}

fn main() {}
