use mcp_runtime::prelude::*;

/// The read-me.
#[mcp_resource(uri = "file:///readme")]
async fn readme(lang: String) -> String {
    lang
}

fn main() {}
