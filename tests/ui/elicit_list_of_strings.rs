use mcp_runtime::prelude::*;

#[derive(Elicit)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
