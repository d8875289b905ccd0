//! `mcp`: explore, call and try any MCP server from the command line, over stdio or HTTP.
//!
//! ```sh
//! mcp inspect http://127.0.0.1:8000/mcp          # what a server offers, with every schema
//! mcp list tools -- cargo run -p my-server      # a server on stdio: its command after `--`
//! mcp call http://127.0.0.1:8000/mcp add a=2 b=3
//! mcp read http://127.0.0.1:8000/mcp notes://all
//! mcp bench http://127.0.0.1:8000/mcp --tool add --args '{"a":1,"b":2}' -c 16 -d 10
//! mcp proxy --http 127.0.0.1:8000 -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! Every command prints a readable summary, or JSON with `--json`. A failure is one line on
//! stderr and exit status 1.

mod arguments;
mod auth;
mod bench;
mod commands;
mod interact;
mod output;
mod pack;
mod proxy;
mod scaffold;
mod target;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use mcp_runtime::telemetry::Telemetry;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use target::{Connection, Target};

/// Explore, call and try any MCP server, over stdio or HTTP.
#[derive(Debug, Parser)]
#[command(name = "mcp", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print machine-readable JSON instead of a summary.
    #[arg(long, global = true)]
    json: bool,
    /// An HTTP header sent with every request, `Name: value` (repeat for more).
    #[arg(short = 'H', long = "header", global = true, value_name = "HEADER")]
    headers: Vec<String>,
    /// Speak this revision (2025-11-25, 2026-07-28, ...) instead of detecting the server's.
    #[arg(long, global = true, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// How many seconds each request may take.
    #[arg(long, global = true, default_value_t = 30.0, value_name = "SECONDS")]
    timeout: f64,
    /// Connect as a host that renders MCP Apps (the extension io.modelcontextprotocol/ui):
    /// servers then list the tools that only an app's page calls too.
    #[arg(long, global = true)]
    apps: bool,
    #[command(flatten)]
    client: auth::ClientOptions,
}

/// The server: a URL as the first argument, or the command that starts it after `--`.
#[derive(Debug, clap::Args)]
struct Server {
    /// The server's URL (unless its command follows `--`), then the command's arguments.
    #[arg(value_name = "URL | ARGS")]
    pub(crate) positionals: Vec<String>,
    /// The command that starts a server on stdio, and its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// What the server is and offers: its info, revision, capabilities, instructions, and
    /// every tool, prompt, resource and template with its schema.
    Inspect(Server),
    /// The server's tools, prompts, resources or resource templates.
    List {
        /// What to list.
        kind: Kind,
        #[command(flatten)]
        server: Server,
    },
    /// Calls a tool: `mcp call URL TOOL name=value ...` (values typed by the tool's input
    /// schema) or `mcp call URL TOOL '{"name": ...}'`.
    Call {
        /// Run the call as a task wherever the server and the tool allow it (not only where
        /// the tool requires it), and show its status until it is done.
        #[arg(long)]
        task: bool,
        #[command(flatten)]
        server: Server,
    },
    /// Reads a resource: `mcp read URL URI`.
    Read(Server),
    /// Gets a prompt: `mcp prompt URL NAME name=value ...`.
    Prompt(Server),
    /// Completes an argument: `mcp complete URL prompt NAME arg=partial [other=value ...]`,
    /// or `mcp complete URL template URI variable=partial [...]` (the pairs after the first are
    /// the values already chosen).
    Complete(Server),
    /// Checks that the server answers.
    Ping(Server),
    /// Serves another server where its clients are: a program on stdio over Streamable HTTP
    /// (`mcp proxy --http 127.0.0.1:8000 -- COMMAND ARGS`), a remote server on stdio
    /// (`mcp proxy --stdio URL`), or every server of a Claude Desktop configuration behind one
    /// (`mcp proxy --config FILE`), each under its name.
    Proxy(proxy::ProxyArgs),
    /// Measures the throughput and latency of a tool under load: `mcp bench URL --tool NAME
    /// --args JSON -c N -d SECONDS`.
    Bench(bench::BenchArgs),
    /// Packs a server crate for its users: an MCP Bundle (`.mcpb`, what Claude Desktop
    /// installs) of its release build, and its `server.json` for the MCP registry, in
    /// `target/mcp-pack/`.
    Pack(pack::PackArgs),
    /// Creates a server crate to start from: a tool, a prompt, a resource, a README and a test
    /// (`--template app`: a tool with an interface, MCP Apps).
    New {
        /// The crate's name.
        name: String,
        /// What to start from: `server` (a tool, a prompt and a resource) or `app` (a tool
        /// whose result a page shows, in hosts that render MCP Apps).
        #[arg(long, value_enum, default_value_t)]
        template: scaffold::Template,
        /// The folder to create (`./NAME` unless given).
        #[arg(long)]
        path: Option<std::path::PathBuf>,
        /// Depend on the SDK checkout at this folder (by default: the checkout `mcp` was built
        /// in, or else `mcp-runtime` from crates.io at `mcp`'s version).
        #[arg(long, value_name = "FOLDER", conflicts_with = "git")]
        sdk: Option<std::path::PathBuf>,
        /// Depend on the SDK from this git repository.
        #[arg(long, value_name = "URL")]
        git: Option<String>,
    },
}

impl Command {
    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Command::Inspect(_) => "inspect",
            Command::List { .. } => "list",
            Command::Call { .. } => "call",
            Command::Read(_) => "read",
            Command::Prompt(_) => "prompt",
            Command::Complete(_) => "complete",
            Command::Ping(_) => "ping",
            Command::Bench(_) => "bench",
            Command::Proxy(_) => "proxy",
            Command::Pack(_) => "pack",
            Command::New { .. } => "new",
        }
    }
}

/// What `mcp list` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Kind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

fn main() -> ExitCode {
    // Output piped into `head` ends quietly, as with other command-line tools, instead of
    // failing to print.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread writes.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // With OTEL_EXPORTER_OTLP_ENDPOINT set, the requests' spans (one trace per command) and the
    // client metrics go there.
    let telemetry = match Telemetry::from_env_if_configured() {
        Ok(telemetry) => telemetry,
        Err(error) => {
            eprintln!("mcp: {error}: check the OTEL_EXPORTER_OTLP_* variables");
            return ExitCode::FAILURE;
        }
    };
    if let Some(telemetry) = &telemetry {
        tracing_subscriber::registry()
            .with(telemetry.layer())
            .init();
    }
    let command = cli.command.name();
    // `mcp bench` runs on as many threads as it is told (one, unless asked: the other cores
    // are the server's); everything else on the default.
    let runtime = match &cli.command {
        Command::Bench(args) if args.threads == 1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Command::Bench(args) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(usize::try_from(args.threads).unwrap_or(usize::MAX))
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    };
    let outcome = match runtime {
        Ok(runtime) => {
            let span = tracing::info_span!("mcp", otel.name = format!("mcp {command}"));
            // Inside the trace of whoever ran `mcp`, when it says so (TRACEPARENT).
            mcp_runtime::telemetry::continue_environment_trace(&span);
            let outcome = runtime.block_on(run(cli).instrument(span));
            // A load run may leave requests in flight; they are not waited for.
            runtime.shutdown_timeout(Duration::from_secs(1));
            outcome
        }
        Err(error) => Err(anyhow::anyhow!("cannot start the async runtime: {error}")),
    };
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let error = auth::explain(error);
            let prefix = console::style("mcp:").for_stderr().red().bold();
            eprintln!("{prefix} {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    if !(cli.timeout.is_finite() && cli.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let connection = Connection {
        headers: cli.headers,
        protocol_version: cli.protocol_version,
        timeout: Some(Duration::from_secs_f64(cli.timeout)),
        apps: cli.apps,
        client: cli.client,
        env: Vec::new(),
    };
    let json = cli.json;
    let (server, what) = match cli.command {
        Command::New {
            name,
            template,
            path,
            sdk,
            git,
        } => return new(&name, template, path, sdk, git, json),
        Command::Bench(args) => return bench::run(args, &connection, json).await,
        Command::Proxy(args) => return proxy::run(args, &connection).await,
        Command::Pack(args) => return pack::run(args, &connection, json).await,
        Command::Inspect(server) => (server, What::Inspect),
        Command::List { kind, server } => (server, What::List(kind)),
        Command::Call { task, server } => (server, What::Call { task }),
        Command::Read(server) => (server, What::Read),
        Command::Prompt(server) => (server, What::Prompt),
        Command::Ping(server) => (server, What::Ping),
        Command::Complete(server) => (server, What::Complete),
    };
    let (target, rest) = Target::take(server.positionals, server.command)?;
    // Checked before connecting: a mistyped command starts no server. The usage shown is that
    // of the target given: the URL first, or everything before the server's command.
    let missing = |what: &str, command: &str, forms: &[&str]| {
        let forms: Vec<String> = forms
            .iter()
            .map(|form| match &target {
                Target::Http(_) => format!("mcp {command} URL {form}"),
                Target::Stdio { .. } => format!("mcp {command} {form} -- COMMAND [ARGS ...]"),
            })
            .collect();
        let hint = match &target {
            Target::Http(_) => "",
            Target::Stdio { .. } => " (everything after `--` is the server's command line)",
        };
        anyhow::anyhow!("{what}: {}{hint}", forms.join(", or "))
    };
    let (name, extra) = match (&what, rest.split_first()) {
        (What::Call { .. }, None) => {
            return Err(missing(
                "name the tool to call",
                "call",
                &["TOOL [name=value ...]"],
            ));
        }
        (What::Read, None) => return Err(missing("name the resource to read", "read", &["URI"])),
        (What::Prompt, None) => {
            return Err(missing(
                "name the prompt",
                "prompt",
                &["NAME [name=value ...]"],
            ));
        }
        (What::Complete, None) => {
            return Err(missing(
                "say what to complete",
                "complete",
                &["prompt NAME arg=partial", "template URI variable=partial"],
            ));
        }
        (What::Call { .. } | What::Read | What::Prompt | What::Complete, Some((name, extra))) => {
            (Some(name.clone()), extra.to_vec())
        }
        (_, None) => (None, Vec::new()),
        (_, Some((first, _))) => anyhow::bail!("unexpected argument {first:?}"),
    };
    if matches!(what, What::Read) && !extra.is_empty() {
        anyhow::bail!("unexpected argument {:?}: mcp read takes one URI", extra[0]);
    }
    let client = connection.connect(&target).await?;
    let name = name.unwrap_or_default();
    let outcome = match what {
        What::Inspect => commands::inspect(&client, json).await,
        What::List(kind) => commands::list(&client, kind, json).await,
        What::Call { task } => commands::call(&client, &name, &extra, task, json).await,
        What::Read => commands::read(&client, &name, json).await,
        What::Prompt => commands::prompt(&client, &name, &extra, json).await,
        What::Ping => commands::ping(&client, json).await,
        What::Complete => commands::complete(&client, &name, &extra, json).await,
    };
    // The server is told the session ends (and a program started for it stops) either way.
    let closed = client.close().await;
    outcome?;
    closed.map_err(Into::into)
}

/// `mcp new`.
fn new(
    name: &str,
    template: scaffold::Template,
    path: Option<std::path::PathBuf>,
    sdk: Option<std::path::PathBuf>,
    git: Option<String>,
    json: bool,
) -> anyhow::Result<()> {
    let sdk = match (sdk, git) {
        (Some(folder), _) => scaffold::Sdk::Path(folder),
        (None, Some(url)) => scaffold::Sdk::Git(url),
        (None, None) => scaffold::Sdk::own(),
    };
    let dir = path.unwrap_or_else(|| std::path::PathBuf::from(name));
    let files = scaffold::create(name, &dir, &sdk, &scaffold::Publisher::detect(), template)?;
    if json {
        workspace_note(name, &dir);
        return output::json(&serde_json::json!({
            "crate": name,
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        }));
    }
    println!("created {} in {}", name, dir.display());
    for file in &files {
        println!("  {}", file.display());
    }
    // An app's tools that only its page calls are listed to hosts that render apps.
    let apps = if template == scaffold::Template::App {
        " --apps"
    } else {
        ""
    };
    println!(
        "next: cd {} && cargo test && mcp inspect{apps} -- cargo run -q",
        dir.display()
    );
    println!("to ship it: mcp pack (check authors and registry-name in Cargo.toml first)");
    workspace_note(name, &dir);
    Ok(())
}

/// Tells that Cargo will refuse to build the crate in `dir` until the workspace enclosing it
/// lists it (on stderr: the output stays as it is).
fn workspace_note(name: &str, dir: &std::path::Path) {
    if let Some((workspace, member)) = scaffold::enclosing_workspace(dir) {
        eprintln!(
            "note: {} is a workspace, so Cargo builds {name} only as one of its members: add \
             \"{}\" to `members` there, or an empty `[workspace]` table to {name}'s Cargo.toml \
             to keep it apart",
            workspace.display(),
            member.display()
        );
    }
}

/// The command to run once connected.
enum What {
    Inspect,
    List(Kind),
    Call {
        /// Whether to run it as a task where allowed.
        task: bool,
    },
    Read,
    Prompt,
    Ping,
    Complete,
}
