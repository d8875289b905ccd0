//! `mcp proxy`: serves another server where its clients are. A program on stdio over
//! Streamable HTTP (`mcp proxy --http 127.0.0.1:8000 -- npx -y @modelcontextprotocol/server-everything`),
//! a remote server to a client that only starts programs (`mcp proxy --stdio https://host/mcp`),
//! or every server of a Claude Desktop configuration behind one (`mcp proxy --config FILE`),
//! each under its name. Both eras are served whatever the upstream speaks (see
//! `mcp_runtime::proxy`).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use mcp_runtime::auth::{HostPolicy, JwtVerifier, ResourceServer};
use mcp_runtime::client::McpClient;
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::proxy::{Proxy, upstream_client};
use mcp_runtime::request_state::RequestStateCodec;
use mcp_runtime::server::{McpServer, McpServerBuilder, TaskOptions};
use mcp_runtime::store::RedisStore;
use mcp_runtime::transport::Serve;
use mcp_runtime::transport::http::{HttpOptions, serve_on};
use serde::Deserialize;

use crate::Server;
use crate::target::{Connection, Target};

/// The options of `mcp proxy`. Its `Debug` shows neither the Redis URL (which may carry a
/// password) nor the key.
#[derive(clap::Args)]
pub struct ProxyArgs {
    /// Serve Streamable HTTP at http://ADDRESS/mcp (port 0 picks a free one); without it, serve
    /// on stdin and stdout.
    #[arg(long, value_name = "ADDRESS")]
    http: Option<String>,
    /// Serve on stdin and stdout (the default without --http): for a client that starts
    /// programs, such as Claude Desktop.
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Accept requests addressed to this host name (the `Host` header) besides the loopback
    /// names, for a proxy that clients reach by another name; repeatable.
    #[arg(long = "host", value_name = "NAME", requires = "http")]
    hosts: Vec<String>,
    /// Require OAuth access tokens issued by this authorization server (its issuer URL), JWTs
    /// checked against the keys its metadata names.
    #[arg(long, value_name = "URL", requires = "http")]
    auth_issuer: Option<String>,
    /// The canonical URI of the proxy, which tokens must name as their audience (by default
    /// http://ADDRESS/mcp).
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    resource: Option<String>,
    /// Also serve the HTTP+SSE transport of 2024-11-05, for older clients: GET /sse, POST
    /// /messages?sessionId=ID.
    #[arg(long, requires = "http", conflicts_with = "auth_issuer")]
    legacy_sse: bool,
    /// Keep sessions, SSE events and tasks in the Redis at URL (redis://HOST:PORT/DB), so that
    /// several proxies behind a load balancer serve one deployment (each with its own
    /// upstream).
    #[arg(
        long,
        value_name = "URL",
        env = "MCP_REDIS_URL",
        hide_env_values = true,
        requires = "http"
    )]
    redis: Option<String>,
    /// The key that seals `requestState` (base64 of at least 32 random bytes), the same on
    /// every proxy of the deployment; required with --redis.
    #[arg(
        long,
        value_name = "KEY",
        env = "MCP_REQUEST_STATE_KEY",
        hide_env_values = true
    )]
    request_state_key: Option<String>,
    /// Serve every server of FILE, in the `mcpServers` format of Claude Desktop's
    /// configuration, each under its name (its tool `read` becomes `NAME_read`).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    server: Server,
}

impl std::fmt::Debug for ProxyArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |value: bool| if value { "(set)" } else { "(none)" };
        f.debug_struct("ProxyArgs")
            .field("http", &self.http)
            .field("stdio", &self.stdio)
            .field("hosts", &self.hosts)
            .field("auth_issuer", &self.auth_issuer)
            .field("resource", &self.resource)
            .field("legacy_sse", &self.legacy_sse)
            .field("redis", &set(self.redis.is_some()))
            .field("request_state_key", &set(self.request_state_key.is_some()))
            .field("config", &self.config)
            .field("server", &self.server)
            .finish()
    }
}

/// A configuration file of Claude Desktop (and other clients): the servers by name.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    mcp_servers: BTreeMap<String, Upstream>,
}

/// One server of a configuration file: a program to start, or a URL.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Upstream {
    Program {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    Remote {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

/// Runs `mcp proxy`.
pub async fn run(args: ProxyArgs, connection: &Connection) -> anyhow::Result<()> {
    // The options are checked before any server starts.
    let codec = match &args.request_state_key {
        Some(key) => Some(RequestStateCodec::from_base64(key).map_err(|e| {
            anyhow::anyhow!("--request-state-key (or MCP_REQUEST_STATE_KEY) cannot be used: {e}")
        })?),
        None => None,
    };
    if args.redis.is_some() && codec.is_none() {
        bail!(
            "--redis needs --request-state-key (or MCP_REQUEST_STATE_KEY): every proxy of the \
             deployment must seal requestState with the same key; make one with \
             `head -c 32 /dev/urandom | base64`"
        );
    }
    let info = Implementation::new("mcp-proxy", env!("CARGO_PKG_VERSION"));
    let builder = match &args.config {
        Some(path) => {
            if !args.server.positionals.is_empty() || !args.server.command.is_empty() {
                bail!("--config names the servers: give no URL or command besides it");
            }
            mount_all(McpServer::builder(info.clone()), path, connection).await?
        }
        None => {
            let (target, rest) =
                Target::take(args.server.positionals.clone(), args.server.command.clone())?;
            if let Some(extra) = rest.first() {
                bail!("unexpected argument {extra:?}: `mcp proxy` serves one server (or --config)");
            }
            let upstream = connect(connection, &target).await?;
            // The proxy says it is the server behind it.
            let (name, instructions) = match (upstream.server(), upstream.discovered()) {
                (Some(init), _) => (init.server_info.clone(), init.instructions.clone()),
                (None, Some(found)) => {
                    let named = found.meta.as_ref().and_then(|m| m.server_info.clone());
                    (named.map_or(info, |n| *n), found.instructions.clone())
                }
                (None, None) => (info, None),
            };
            let mut builder = McpServer::builder(name);
            if let Some(instructions) = instructions {
                builder = builder.instructions(instructions);
            }
            builder.proxy(Proxy::new(upstream).await?)
        }
    };
    let builder = match codec {
        Some(codec) => builder.request_state_codec(codec),
        None => builder,
    };
    match args.http.clone() {
        Some(address) => serve_http(builder, &address, &args).await,
        None => builder.serve_stdio().await.context("serving on stdio"),
    }
}

/// Connects to the upstream `target` as a proxy does (see `upstream_client`): with the
/// headers, revision and OAuth options of `connection`, and no timeout of its own (a call
/// lasts as long as the client that made it waits).
async fn connect(connection: &Connection, target: &Target) -> anyhow::Result<McpClient> {
    let builder = upstream_client(Implementation::new("mcp-proxy", env!("CARGO_PKG_VERSION")));
    connection.connect_with(builder, target, false).await
}

/// Mounts every server of the configuration file at `path`; one that cannot be reached is
/// reported on stderr and left out, and the others are served.
async fn mount_all(
    mut builder: McpServerBuilder,
    path: &Path,
    connection: &Connection,
) -> anyhow::Result<McpServerBuilder> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let config: Config = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not an mcpServers configuration ({{\"mcpServers\": {{\"NAME\": {{\"command\": \
             ..., \"args\": [...]}} or {{\"url\": ...}}}}}})",
            path.display()
        )
    })?;
    let mut mounted = 0;
    for (name, upstream) in config.mcp_servers {
        match reach(&upstream, connection).await {
            Ok(client) => match Proxy::new(client).await {
                Ok(proxy) => {
                    builder = builder.mount(name, proxy);
                    mounted += 1;
                }
                Err(error) => eprintln!("mcp proxy: {name} left out: {error}"),
            },
            Err(error) => eprintln!("mcp proxy: {name} left out: {error:#}"),
        }
    }
    if mounted == 0 {
        bail!("none of the servers of {} could be reached", path.display());
    }
    Ok(builder)
}

/// Connects to one server of a configuration file.
async fn reach(upstream: &Upstream, connection: &Connection) -> anyhow::Result<McpClient> {
    match upstream {
        Upstream::Program { command, args, env } => {
            let target = Target::Stdio {
                program: command.clone(),
                args: args.clone(),
            };
            let mut connection = connection.clone();
            connection.env = env.clone().into_iter().collect();
            connect(&connection, &target).await
        }
        Upstream::Remote { url, headers } => {
            let mut connection = connection.clone();
            connection.headers.extend(
                headers
                    .iter()
                    .map(|(name, value)| format!("{name}: {value}")),
            );
            connect(&connection, &Target::Http(url.clone())).await
        }
    }
}

/// Serves Streamable HTTP at `address`, as `args` asks.
async fn serve_http(
    builder: McpServerBuilder,
    address: &str,
    args: &ProxyArgs,
) -> anyhow::Result<()> {
    let mut builder = builder;
    let mut options = HttpOptions::default().legacy_sse(args.legacy_sse);
    if let Some(url) = &args.redis {
        let redis = RedisStore::connect(url).await?;
        builder = builder.tasks(TaskOptions::default().store(redis.task_store()));
        options = options.redis(&redis);
    }
    if !args.hosts.is_empty() {
        options = options.host_policy(HostPolicy::hosts(args.hosts.clone()).and_loopback());
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    let local: SocketAddr = listener.local_addr()?;
    if let Some(issuer) = &args.auth_issuer {
        let resource = args
            .resource
            .clone()
            .unwrap_or_else(|| format!("http://{local}/mcp"));
        let jwt = JwtVerifier::try_new(issuer.clone(), resource.clone())?;
        let authorization = ResourceServer::try_new(resource.clone(), jwt)?;
        options = options.authorization(authorization.authorization_server(issuer.clone()));
        eprintln!("Access tokens of {issuer} for {resource} are required");
    }
    eprintln!("MCP endpoint: http://{local}/mcp");
    if args.legacy_sse {
        eprintln!("HTTP+SSE endpoint (2024-11-05): http://{local}/sse");
    }
    serve_on(listener, builder.build()?, options)
        .await
        .context("serving HTTP")
}
