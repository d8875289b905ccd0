//! The server the benchmarks measure: three small tools, over stdio or Streamable HTTP.
//!
//! ```sh
//! cargo run --release -p examples --bin bench-server -- stdio
//! cargo run --release -p examples --bin bench-server -- http 127.0.0.1:8000               # sessions
//! cargo run --release -p examples --bin bench-server -- http 127.0.0.1:8000 --stateless   # none
//! MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64) cargo run --release -p examples \
//!     --bin bench-server -- http 127.0.0.1:8000 --redis redis://127.0.0.1:6379/
//! ```
//!
//! Over HTTP the endpoint is `/mcp`; handshake-era clients get sessions unless `--stateless`
//! (`--stateful` names the default; 2026-07-28 requests are stateless either way), it answers with
//! `application/json` unless `--sse` (then every answer is a `text/event-stream`), registers N
//! more tools with `--extra-tools N` (`add_00000`, ...), admits N sessions with `--max-sessions N`
//! (10,000 by default), and prints
//! `MCP endpoint: http://ADDRESS/mcp` on stderr once it listens (port 0 picks a free one).
//! `bench/run.py` compares it with the same tools written with `rmcp` and with a bare server;
//! `BENCHMARKS.md` has the figures.

use examples::instance::InstanceArgs;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::server::TaskOptions;
use mcp_runtime::transport::http::{HttpOptions, serve_on};

const USAGE: &str = "usage: bench-server stdio | bench-server http ADDRESS \
     [--stateful|--stateless] [--sse] [--tasks] [--redis URL] [--extra-tools N] [--max-sessions N]";

/// The count that follows `flag`.
fn count(flag: &str, value: Option<&&str>) -> anyhow::Result<usize> {
    value
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("{flag} needs a count\n{USAGE}"))
}

/// The `n`th of the tools `--extra-tools` adds: `add` under another name, its schema given as
/// JSON.
fn extra_tool(n: usize) -> ToolDefinition {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("a JSON object")
    };
    ToolDefinition::new(format!("add_{n:05}"), schema, |args, _| async move {
        let number = |key: &str| args.get(key).and_then(serde_json::Value::as_i64);
        match (number("a"), number("b")) {
            (Some(a), Some(b)) => Ok((a + b).to_string()),
            _ => Err(ToolError::new("a and b must be integers")),
        }
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let builder = McpServer::from_module(server_info!(), examples::bench_tools::MODULE);
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => builder.serve_stdio().await?,
        ["http", address, flags @ ..] => {
            let mut builder = builder;
            let mut options = HttpOptions::default();
            let mut tasks = None;
            let mut instance = InstanceArgs {
                request_state_key: std::env::var("MCP_REQUEST_STATE_KEY").ok(),
                ..InstanceArgs::default()
            };
            let mut flags = flags.iter();
            while let Some(flag) = flags.next() {
                match *flag {
                    "--stateful" => builder = builder.stateful(),
                    "--stateless" => builder = builder.stateless(),
                    // Tasks kept 5 s, and room for every task a run creates meanwhile.
                    "--tasks" => {
                        builder = builder.registered_in(examples::bench::MODULE);
                        let options = TaskOptions::new()
                            .default_ttl(Duration::from_secs(5))
                            .max_tasks(1_000_000)
                            .max_tasks_per_owner(1_000_000);
                        tasks = Some(options);
                    }
                    "--sse" => options = options.always_stream(true),
                    "--max-sessions" => {
                        options = options.max_sessions(count(flag, flags.next())?);
                    }
                    // N more tools beside the three, for the cost of a large catalog.
                    "--extra-tools" => {
                        for n in 0..count(flag, flags.next())? {
                            builder = builder.tool(extra_tool(n));
                        }
                    }
                    "--redis" => match flags.next() {
                        Some(url) => instance.redis = Some((*url).to_owned()),
                        None => anyhow::bail!("--redis needs a URL\n{USAGE}"),
                    },
                    other => anyhow::bail!("unknown option {other}\n{USAGE}"),
                }
            }
            let (builder, options) = instance.apply(builder, options, tasks).await?;
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            serve_on(listener, builder.build()?, options).await?;
        }
        _ => anyhow::bail!(USAGE),
    }
    Ok(())
}
