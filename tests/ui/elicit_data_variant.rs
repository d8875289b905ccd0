use mcp_runtime::prelude::*;

#[derive(Elicit)]
enum Choice {
    Plain,
    WithData(String),
}

fn main() {}
