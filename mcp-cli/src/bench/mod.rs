//! `mcp bench`: the throughput and latency percentiles of any MCP server under load.
//!
//! A closed loop of `tools/call`: over HTTP, each of `-c` keep-alive HTTP/1.1 connections keeps
//! one request in flight; on stdio, the server is started and `-c` requests are kept in flight
//! over its stdin and stdout. The wire is the server's era unless `--wire` says otherwise:
//!
//! - `stateless` (revision 2026-07-28): no `initialize`; protocol version, client capabilities
//!   and client info in each request's `_meta`, and the `Mcp-Method`/`Mcp-Name` headers;
//! - `session` (the handshake revisions): `initialize` and `notifications/initialized` once per
//!   connection, then the calls, with `Mcp-Session-Id` over HTTP.
//!
//! Answers may be `application/json` or `text/event-stream`. Latencies run from just before a
//! request is sent to when its whole answer has been read, and go into an HDR histogram
//! (microseconds); the results of the warmup are discarded. `--idle-sessions N --pid PID`
//! measures something else: the memory each idle session costs a stateful HTTP server, from the
//! growth of its `VmRSS`.
//!
//! ```sh
//! mcp bench http://127.0.0.1:8000/mcp --tool add --args '{"a":1,"b":2}' -c 16 -d 10
//! mcp bench --tool add --args '{"a":1,"b":2}' -c 32 -- ./my-server --stdio
//! mcp bench http://127.0.0.1:8000/mcp --idle-sessions 1000 --pid 12345
//! mcp --json bench ...   # one line of JSON on stdout instead of the summary
//! ```
//!
//! The summary (or the JSON line) goes to stdout, every diagnostic to stderr, among them the
//! details of the first failed request. The exit status is 0 when something was measured and
//! not every request failed, 1 otherwise. `bench/run.py` measures the SDK with this command.

mod http;
mod protocol;
mod sessions;
mod stats;
mod stdio;

use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::ValueEnum;
use mcp_runtime::protocol::{Era, ProtocolVersion};

use crate::Server;
use crate::target::{Connection, Target};

/// The options of `mcp bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    server: Server,
    /// The tool to call.
    #[arg(long, required_unless_present = "idle_sessions")]
    tool: Option<String>,
    /// The tool's arguments, a JSON object, or `@FILE` to read it from FILE.
    #[arg(long, value_name = "JSON", default_value = "{}", value_parser = parse_object)]
    args: serde_json::Value,
    /// HTTP connections, each with one request in flight; on stdio, the requests kept in
    /// flight; with --idle-sessions, the connections the sessions are opened over.
    #[arg(short = 'c', long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u64).range(1..))]
    concurrency: u64,
    /// Seconds to measure, after the warmup (fractions allowed, e.g. 2.5).
    #[arg(short = 'd', long, value_name = "SECONDS", default_value = "10",
          value_parser = parse_positive_seconds)]
    duration: Duration,
    /// Seconds of warmup whose results are discarded.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    warmup: Duration,
    /// Worker threads of the load generator; 1 leaves the other cores to the server.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub threads: u64,
    /// The wire: `stateless` (2026-07-28) or `session` (initialize first). Unless given, the
    /// era of --protocol-version, or else of the revision the server agrees to.
    #[arg(long, value_enum)]
    wire: Option<Wire>,
    /// Declare the tasks extension (stateless wire): a tool that may run as a task answers
    /// each call with a task the server creates.
    #[arg(long)]
    tasks: bool,
    /// Instead of calling a tool, open this many sessions on a stateful HTTP server and report
    /// the memory each idle session costs it (needs --pid).
    #[arg(long, value_name = "N", requires = "pid", conflicts_with_all = ["tool", "tasks", "wire"],
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_sessions: Option<u64>,
    /// The server's process id, whose `/proc/PID/status` gives its memory (--idle-sessions).
    #[arg(long, requires = "idle_sessions")]
    pid: Option<u32>,
    /// Seconds to wait after opening the idle sessions before reading the memory again.
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_seconds)]
    settle: Duration,
    /// End the idle sessions with DELETE once measured.
    #[arg(long, requires = "idle_sessions")]
    delete: bool,
}

/// The MCP wire a run speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Wire {
    /// Revision 2026-07-28: stateless, no `initialize`, protocol version and client info in
    /// every request (`_meta`, and headers over HTTP).
    Stateless,
    /// A handshake revision: `initialize` and `notifications/initialized` first, then the
    /// calls (with `Mcp-Session-Id` over HTTP).
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

/// What a load run does.
#[derive(Debug)]
pub struct Load {
    /// The tool called.
    pub tool: String,
    /// Its arguments, a JSON object.
    pub args: serde_json::Value,
    /// Connections, or requests in flight on stdio.
    pub concurrency: u64,
    /// How long to measure, after the warmup.
    pub duration: Duration,
    /// How long to warm up.
    pub warmup: Duration,
    /// The wire.
    pub wire: Wire,
    /// The revision the session wire initializes with.
    pub version: &'static str,
    /// Whether the calls declare the tasks extension.
    pub tasks: bool,
}

/// Runs `mcp bench` and prints its summary.
pub async fn run(args: BenchArgs, connection: &Connection, json: bool) -> anyhow::Result<()> {
    let (target, rest) = Target::take(args.server.positionals, args.server.command)?;
    if let Some(extra) = rest.first() {
        bail!(
            "unexpected argument {extra:?}: name the tool with --tool, its arguments with --args"
        );
    }
    let summary = match (args.idle_sessions, &target) {
        (Some(sessions), Target::Http(url)) => {
            let version = connection.protocol_version()?;
            let idle = sessions::IdleSessions {
                sessions,
                pid: args
                    .pid
                    .context("--idle-sessions needs the server's --pid")?,
                settle: args.settle,
                connections: args.concurrency,
                delete: args.delete,
                version: version.map_or(protocol::SESSION_VERSION, ProtocolVersion::as_str),
            };
            sessions::run(url, connection.header_map()?, &idle).await?
        }
        (Some(_), Target::Stdio { .. }) => {
            bail!("--idle-sessions measures the sessions of an HTTP server: give its URL")
        }
        (None, target) => {
            let tool = args
                .tool
                .context("name the tool to call with --tool NAME")?;
            let (wire, version) = wire(args.wire, connection, target, &tool).await?;
            let load = Load {
                tool,
                args: args.args,
                concurrency: args.concurrency,
                duration: args.duration,
                warmup: args.warmup,
                wire,
                version,
                tasks: args.tasks,
            };
            match target {
                Target::Http(url) => http::run(url, connection.header_map()?, &load).await?,
                Target::Stdio { program, args } => stdio::run(program, args, &load).await?,
            }
        }
    };
    if json {
        println!("{}", summary.to_json());
    } else {
        println!("{}", summary.to_text());
    }
    if summary.requests == 0 {
        bail!("nothing was measured");
    }
    if !summary.succeeded() {
        bail!("every request failed");
    }
    Ok(())
}

/// The wire and the revision of the session wire: as given, else from --protocol-version,
/// else from the revision the server agrees to when asked first (which also checks that it
/// has `tool`).
async fn wire(
    wire: Option<Wire>,
    connection: &Connection,
    target: &Target,
    tool: &str,
) -> anyhow::Result<(Wire, &'static str)> {
    let version = match (wire, connection.protocol_version()?) {
        (Some(Wire::Stateless), Some(version)) if version.era() != Era::Stateless => bail!(
            "--wire stateless speaks 2026-07-28, not {}: drop one of the two",
            version.as_str()
        ),
        (_, Some(version)) => version,
        (Some(Wire::Stateless), None) => ProtocolVersion::LATEST,
        (Some(Wire::Session), None) => return Ok((Wire::Session, protocol::SESSION_VERSION)),
        (None, None) => {
            let client = connection.connect(target).await?;
            let found = crate::commands::find_tool(&client, tool).await;
            let version = client.protocol_version();
            client.close().await?;
            found?;
            version
        }
    };
    let wire = wire.unwrap_or(match version.era() {
        Era::Stateless => Wire::Stateless,
        _ => Wire::Session,
    });
    Ok((wire, version.as_str()))
}

/// Parses a number of seconds (fractions allowed, not negative).
fn parse_seconds(text: &str) -> Result<Duration, String> {
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
    // `@FILE`: arguments too large for a command line (a few MiB of text).
    let read;
    let text = match text.strip_prefix('@') {
        Some(path) => {
            read = std::fs::read_to_string(path)
                .map_err(|e| format!("could not read the arguments from {path}: {e}"))?;
            read.as_str()
        }
        None => text,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !value.is_object() {
        return Err("the tool arguments must be a JSON object".to_owned());
    }
    Ok(value)
}
