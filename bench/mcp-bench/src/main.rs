//! `mcp-bench`: a load generator for MCP (Model Context Protocol) servers.
//!
//! Three modes:
//!
//! - `http`: closed-loop `tools/call` over keep-alive HTTP/1.1 connections to a Streamable HTTP
//!   endpoint, one request in flight per connection, with the stateless wire of revision
//!   2026-07-28 (`--wire stateless`: no `initialize`, `Mcp-Method`/`Mcp-Name` headers, `_meta` in
//!   the params) or the session wire of 2025-11-25 (`--wire session`: `initialize`, then calls
//!   with `Mcp-Session-Id`). Answers may be `application/json` or `text/event-stream`.
//! - `stdio`: spawns the server and keeps `--in-flight` calls outstanding over its stdin and
//!   stdout; reports the server's peak RSS as well.
//! - `sessions`: opens many sessions on a stateful server and reports the memory each idle
//!   session costs, from the growth of the server's `VmRSS`.
//!
//! Latencies run from just before a request is sent to when its whole answer has been read,
//! and go into an HDR histogram (microseconds). Results of the warmup are discarded.
//!
//! ```sh
//! mcp-bench http --url http://127.0.0.1:8000/mcp [--connections 16] [--threads 1] \
//!     [--wire stateless|session] [--duration 10] [--warmup 2] [--tool add] [--args '{"a":1,"b":2}']
//! mcp-bench stdio [--in-flight 32] [--wire session|stateless] [--duration 10] [--warmup 2] \
//!     [--tool add] [--args '{"a":1,"b":2}'] -- ./my-server --stdio
//! mcp-bench sessions --url http://127.0.0.1:8000/mcp --sessions 1000 --pid 12345 \
//!     [--settle 1] [--connections 8] [--delete]
//! mcp-bench --json http --url ...   # one line of JSON on stdout instead of the summary
//! ```
//!
//! The summary (or the JSON line) goes to stdout, every diagnostic to stderr, among them the
//! details of the first failed request. The exit code is 0 when something was measured and not
//! every request failed, 1 otherwise, 2 when the run could not happen at all.

mod http;
mod protocol;
mod sessions;
mod stats;
mod stdio;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-bench",
    version,
    about = "A load generator for MCP servers: HTTP, stdio, and memory per idle session"
)]
struct Cli {
    /// Print exactly one line of JSON on stdout instead of the human-readable summary.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    mode: Mode,
}

/// The three modes.
#[derive(Debug, Subcommand)]
enum Mode {
    /// Closed-loop `tools/call` over keep-alive HTTP/1.1 connections.
    Http(http::HttpArgs),
    /// `tools/call` over the stdin and stdout of a spawned server, with requests in flight.
    Stdio(stdio::StdioArgs),
    /// Memory per idle session of a stateful HTTP server.
    Sessions(sessions::SessionsArgs),
}

/// The MCP wire a run speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Wire {
    /// Revision 2026-07-28: stateless, no `initialize`, protocol version and client info in
    /// every request (`_meta`, and headers over HTTP).
    Stateless,
    /// Revision 2025-11-25: `initialize` and `notifications/initialized` first, then the calls
    /// (with `Mcp-Session-Id` over HTTP).
    Session,
}

impl Wire {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Wire::Stateless => "stateless",
            Wire::Session => "session",
        }
    }
}

/// The options of the load modes (`http` and `stdio`).
#[derive(Debug, clap::Args)]
pub struct LoadOptions {
    /// Seconds to measure, after the warmup (fractions allowed, e.g. 2.5).
    #[arg(long, default_value = "10", value_parser = parse_positive_seconds)]
    pub duration: Duration,
    /// Seconds of warmup whose results are discarded (fractions allowed).
    #[arg(long, default_value = "2", value_parser = parse_seconds)]
    pub warmup: Duration,
    /// The tool to call.
    #[arg(long, default_value = "add")]
    pub tool: String,
    /// The arguments of the tool, a JSON object.
    #[arg(long, default_value = r#"{"a":1,"b":2}"#, value_parser = parse_object)]
    pub args: serde_json::Value,
    /// Declare the tasks extension (2026-07-28 wire): a tool that may run as a task answers
    /// each call with a task the server creates.
    #[arg(long)]
    pub tasks: bool,
}

impl LoadOptions {
    /// How long to measure.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// How long to warm up.
    pub fn warmup(&self) -> Duration {
        self.warmup
    }
}

/// Parses a number of seconds (fractions allowed, not negative).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is not a usable duration"))
}

/// Parses a number of seconds greater than zero.
fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    let duration = parse_seconds(text)?;
    if duration.is_zero() {
        return Err("the duration must be greater than zero".to_owned());
    }
    Ok(duration)
}

/// Parses the tool arguments, which must be a JSON object.
fn parse_object(text: &str) -> Result<serde_json::Value, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !value.is_object() {
        return Err("the tool arguments must be a JSON object".to_owned());
    }
    Ok(value)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let threads = match &cli.mode {
        Mode::Http(args) => usize::try_from(args.threads).unwrap_or(usize::MAX),
        // One writer and one reader, or a few sequential connections: one thread is plenty,
        // and leaves the other cores to the server.
        Mode::Stdio(_) | Mode::Sessions(_) => 1,
    };
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-bench: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match &cli.mode {
            Mode::Http(args) => http::run(args).await,
            Mode::Stdio(args) => stdio::run(args).await,
            Mode::Sessions(args) => sessions::run(args).await,
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            eprintln!("mcp-bench: {e:#}");
            return ExitCode::from(2);
        }
    };
    if cli.json {
        println!("{}", summary.to_json());
    } else {
        println!("{}", summary.to_text());
    }
    if summary.succeeded() {
        ExitCode::SUCCESS
    } else if summary.requests == 0 {
        eprintln!("mcp-bench: nothing was measured");
        ExitCode::FAILURE
    } else {
        eprintln!("mcp-bench: every request failed");
        ExitCode::FAILURE
    }
}
