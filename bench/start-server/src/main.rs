//! The benchmark tools (`echo`, `add`, `add_json`) on `mcp-runtime`'s default features, over
//! stdio or Streamable HTTP: what rmcp-server links, so that `bench/coldstart.py` compares the
//! starts of like servers (`examples/bench-server` links every feature: Redis, OpenTelemetry,
//! OAuth, the HTTP client).
//!
//! ```sh
//! cargo build --release --manifest-path bench/Cargo.toml -p start-server
//! bench/target/release/start-server stdio
//! bench/target/release/start-server http 127.0.0.1:8000
//! ```

use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, serve_on};

/// `echo`, `add` and `add_json`: bench-server's own definitions.
#[path = "../../../examples/src/bench_tools.rs"]
mod bench_tools;

const USAGE: &str = "usage: start-server stdio | start-server http ADDRESS";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let builder = McpServer::from_module(server_info!(), bench_tools::MODULE);
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => builder.serve_stdio().await?,
        ["http", address] => {
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            serve_on(listener, builder.build()?, HttpOptions::default()).await?;
        }
        _ => anyhow::bail!(USAGE),
    }
    Ok(())
}
