//! An example MCP server: a small notebook, over stdio or Streamable HTTP.
//!
//! Its tools, prompt and resources are in the `examples::notes` module.
//!
//! ```sh
//! cargo run -p examples --bin notes-server                          # stdio
//! cargo run -p examples --bin notes-server -- --http 127.0.0.1:8000  # http://127.0.0.1:8000/mcp
//! ```
//!
//! On stdio, speak MCP on stdin, or point any MCP client at the command. Over HTTP the server is
//! stateful (sessions, a standalone stream, `logging/setLevel`) and prints its endpoint on
//! stderr once it listens (`--http 127.0.0.1:0` picks a free port). Logs go to stderr
//! (`RUST_LOG=debug` for more).

use examples::notes;
use mcp_runtime::transport::http::{HttpOptions, serve_on};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let builder = notes::builder();
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => builder.serve_stdio().await?,
        (Some("--http"), Some(address)) => {
            let listener = tokio::net::TcpListener::bind(&address).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            serve_on(
                listener,
                builder.stateful().build()?,
                HttpOptions::default(),
            )
            .await?;
        }
        _ => anyhow::bail!("usage: notes-server [--http ADDRESS]"),
    }
    Ok(())
}
