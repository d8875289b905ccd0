use std::collections::HashMap;

use mcp_runtime::prelude::*;

#[derive(Elicit)]
struct Labels {
    owner: String,
    labels: HashMap<String, String>,
}

fn main() {}
