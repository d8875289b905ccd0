//! The benchmark tools (`echo`, `add`, `add_json`) written with the official Rust MCP SDK,
//! [`rmcp`](https://docs.rs/rmcp) 3.9, so the benchmarks can compare our SDK with it.
//!
//! It is written the way rmcp's documentation recommends (`#[tool_router]`, `#[tool_handler]`,
//! `Parameters<T>`, `Json<T>`, `StreamableHttpService` behind axum, `serve` over stdio), then
//! tuned as far as rmcp allows: the tool router is built once and shared, accepted sockets get
//! `TCP_NODELAY`, answers are `application/json` unless `--sse`, SSE keep-alive pings and
//! priming events are off, sessions keep no finished answers for resumption, stdio goes
//! through rmcp's non-blocking pipe transport. `Host` and `Origin` are checked against
//! loopback names, on any port.
//!
//! ```sh
//! cargo run --release --manifest-path bench/Cargo.toml -p rmcp-server -- stdio
//! cargo run --release --manifest-path bench/Cargo.toml -p rmcp-server -- http 127.0.0.1:8000
//! cargo run --release --manifest-path bench/Cargo.toml -p rmcp-server -- http 127.0.0.1:8000 --stateful
//! cargo run --release --manifest-path bench/Cargo.toml -p rmcp-server -- http 127.0.0.1:0 --sse
//! ```
//!
//! Over HTTP the endpoint is `/mcp`. Without `--stateful` the server is stateless (rmcp's
//! `legacy_session_mode: false`); with it, a 2025-era `initialize` opens a session named by
//! `Mcp-Session-Id` (requests at revision 2026-07-28 are served statelessly either way). Note
//! that rmcp answers every request of a session with `text/event-stream`: its `json_response`
//! option only applies to stateless serving. `--sse` makes stateless answers SSE too. The
//! server prints `MCP endpoint: http://ADDRESS/mcp` on stderr once it listens (port 0 picks
//! a free one). Logs go to stderr, filtered by `RUST_LOG` (errors only by default).

use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use rmcp::{
    Json, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    tool, tool_handler, tool_router,
    transport::{
        stdio_pipes,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService,
            session::{SessionManager, local::LocalSessionManager, never::NeverSessionManager},
        },
    },
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The arguments of `echo`.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

/// The arguments of `add` and `add_json`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// A sum, as structured output.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The sum of the addends.
    sum: i64,
}

/// The server: its only state is the tool router, built once and shared by every clone (rmcp
/// asks the service factory for a fresh server on every stateless request).
#[derive(Clone)]
struct BenchServer {
    tool_router: Arc<ToolRouter<Self>>,
}

#[tool_router]
impl BenchServer {
    fn new() -> Self {
        Self {
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    /// Echo the text back.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Add two integers.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    /// Add two integers, answering with structured output.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn add_json(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router, name = "rmcp-server", version = "0.1.0")]
impl ServerHandler for BenchServer {}

const USAGE: &str = "usage: rmcp-server stdio | rmcp-server http ADDRESS [--stateful] [--sse]";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => {
            BenchServer::new()
                .serve(stdio_pipes())
                .await?
                .waiting()
                .await?;
        }
        ["http", address, flags @ ..] => {
            let (mut stateful, mut sse) = (false, false);
            for flag in flags {
                match *flag {
                    "--stateful" => stateful = true,
                    "--sse" => sse = true,
                    other => anyhow::bail!("unknown option {other}\n{USAGE}"),
                }
            }
            let config = StreamableHttpServerConfig::default()
                // Sessions only with `--stateful`; 2026-07-28 requests are stateless anyway.
                .with_legacy_session_mode(stateful)
                // `application/json` for stateless answers unless `--sse`.
                .with_json_response(!sse)
                // No keep-alive pings nor priming events: a benchmark's SSE answers are one
                // event long, and the timer and extra event would only cost.
                .with_sse_keep_alive(None)
                .with_sse_retry(None)
                // The DNS-rebinding guards a local production server wants: loopback `Host`s
                // (rmcp's default, spelled out) and loopback browser `Origin`s (rmcp checks
                // none unless given a list), on any port. Requests with no `Origin` pass.
                .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
                .with_allowed_origins([
                    "http://localhost:*",
                    "http://127.0.0.1:*",
                    "http://[::1]:*",
                ]);
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            if stateful {
                let mut sessions = LocalSessionManager::default();
                // As above, no priming event at the head of each answer's stream.
                sessions.session_config.sse_retry = None;
                // No keeping of finished answers for `Last-Event-ID` resumption: rmcp keeps
                // them 60 s by default and scans them all on every event of the session, so
                // under load each request costs time in proportion to the recent request rate.
                sessions.session_config.completed_cache_ttl = Duration::ZERO;
                serve_http(listener, config, sessions).await?;
            } else {
                serve_http(listener, config, NeverSessionManager::default()).await?;
            }
        }
        _ => anyhow::bail!(USAGE),
    }
    Ok(())
}

/// Serves the Streamable HTTP endpoint `/mcp` on `listener` until the process is stopped.
async fn serve_http<M: SessionManager>(
    listener: tokio::net::TcpListener,
    config: StreamableHttpServerConfig,
    sessions: M,
) -> anyhow::Result<()> {
    let server = BenchServer::new();
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(sessions), config);
    let router = axum::Router::new().route_service("/mcp", service);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await?;
    Ok(())
}
