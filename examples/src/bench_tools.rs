//! The three tools every benchmark server offers: `echo`, `add` and `add_json`. `bench-server`
//! serves them from here; `bench/start-server` (the same tools on the SDK's default features)
//! and `bench/micro` (whose in-process server offers `add`), in the benchmarks' own workspace,
//! include this file as a module of their own, so that every benchmark serves one definition.

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

/// This module, for `McpServer::from_module`.
pub const MODULE: &str = module_path!();

/// Echo the text back.
#[mcp_tool(read_only, idempotent)]
async fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// Add two integers.
#[mcp_tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// A sum, as structured output.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum of the addends.
    sum: i64,
}

/// Add two integers, answering with structured output.
#[mcp_tool(read_only, idempotent)]
async fn add_json(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Json<Sum> {
    Json(Sum { sum: a + b })
}
