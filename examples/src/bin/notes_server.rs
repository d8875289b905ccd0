//! An example MCP server: a small notebook, over stdio or Streamable HTTP.
//!
//! Its tools, prompt and resources are in the `examples::notes` module.
//!
//! ```sh
//! cargo run -p examples --bin notes-server                          # stdio
//! cargo run -p examples --bin notes-server -- --http 127.0.0.1:8000  # http://127.0.0.1:8000/mcp
//! cargo run -p examples --bin notes-server -- --http 127.0.0.1:8000 \
//!     --auth-issuer https://auth.example.com/realms/notes --resource http://127.0.0.1:8000/mcp
//! MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64) \
//!     cargo run -p examples --bin notes-server -- --http 127.0.0.1:8001 --redis redis://127.0.0.1:6379/
//! ```
//!
//! On stdio, speak MCP on stdin, or point any MCP client at the command. Over HTTP the server is
//! stateful (sessions, a standalone stream, `logging/setLevel`) and prints its endpoint on
//! stderr once it listens (`--http 127.0.0.1:0` picks a free port). Logs go to stderr
//! (`RUST_LOG=debug` for more).
//!
//! With `--auth-issuer`, the HTTP server is an OAuth 2.1 protected resource: every request needs a
//! JWT access token of that issuer (checked against the keys its metadata names) whose audience is
//! the `--resource` URI, and the tools and resources that read notes need the scope `notes:read`,
//! those that write them `notes:write`. With `--introspection-client ID` (and the client's secret
//! in `NOTES_INTROSPECTION_SECRET`), opaque tokens are accepted too, as the issuer's
//! introspection endpoint judges them. `--leeway SECONDS` sets how far the clocks of the issuer
//! and the server may disagree (60 by default), and `--max-key-age SECONDS` how long the issuer's
//! keys are used before they are fetched again (600 by default): how long a key the issuer
//! withdrew is still trusted.
//!
//! `--memory-budget MIB` bounds what clients can make the HTTP server hold (64 MiB by default:
//! bodies being read, events queued for them and kept for resumption, requests in flight), and
//! `--max-sessions-per-client N` how many sessions one client (the caller its token speaks for,
//! else its address) may keep.
//!
//! With `--redis URL` (or `MCP_REDIS_URL`), sessions, SSE events and tasks are kept in that Redis,
//! so that several instances behind a load balancer serve one deployment; every instance then
//! needs the same `--request-state-key` (or `MCP_REQUEST_STATE_KEY`). The notebook itself stays
//! in each instance's memory.
//!
//! `--board` adds the board, an MCP App: the tool `show_board`, whose answer hosts that render
//! apps (Claude, VS Code, Goose, ...) show as an interactive page, `ui://notes/board`. A host
//! that runs in a browser page (such as the `ext-apps` basic host at http://localhost:8080)
//! reaches the HTTP server from another origin: `--allow-origin http://localhost:8080` accepts
//! that page's requests and answers its CORS preflight.
//!
//! `--import-from URL` adds the tool `import_notes`, which copies the notes that the notes server
//! at that MCP endpoint finds for a word, calling its `search_notes` with an `McpClient`.
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans and the MCP duration metrics go to that
//! OTLP/HTTP receiver (the other `OTEL_*` variables apply: `OTEL_SERVICE_NAME`, ...); a trace
//! that a client started in `_meta` goes on here, and on into the server `import_notes` asks.
//! The server stops on end of input (stdio), `^C` or SIGTERM, sending what is still buffered.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use examples::instance::InstanceArgs;
use examples::{import, notes};
use std::sync::Arc;

use mcp_runtime::auth::HostPolicy;
use mcp_runtime::auth::{
    AccessToken, IntrospectionVerifier, JwtVerifier, ResourceServer, TokenError, TokenVerifier,
};
use mcp_runtime::telemetry::Telemetry;
use mcp_runtime::transport::Serve;
use mcp_runtime::transport::http::axum::http::{HeaderName, HeaderValue, Method};
use mcp_runtime::transport::http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer};
use mcp_runtime::transport::http::{HttpOptions, serve_on};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// A small notebook, served over MCP.
#[derive(Parser, Debug)]
#[command(name = "notes-server", version)]
struct Args {
    /// Serve Streamable HTTP at http://ADDRESS/mcp instead of stdio (port 0 picks a free one).
    #[arg(long, value_name = "ADDRESS")]
    http: Option<String>,
    /// Require access tokens issued by this OAuth authorization server (its issuer URL); its
    /// signing keys are found through its metadata (RFC 8414, or OpenID Connect discovery).
    #[arg(long, value_name = "URL", requires = "http")]
    auth_issuer: Option<String>,
    /// The canonical URI of this server, which tokens must name as their audience (by default
    /// http://ADDRESS/mcp, the endpoint served).
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    resource: Option<String>,
    /// Also accept opaque (non-JWT) access tokens, by asking the issuer's introspection endpoint
    /// (RFC 7662) as this client; its secret is read from the environment variable
    /// NOTES_INTROSPECTION_SECRET.
    #[arg(long, value_name = "CLIENT_ID", requires = "auth_issuer")]
    introspection_client: Option<String>,
    /// How far a token's expiry (exp) and start of validity (nbf) may be off, for clocks that
    /// disagree [default: 60].
    #[arg(long, value_name = "SECONDS", requires = "auth_issuer")]
    leeway: Option<u64>,
    /// How long the issuer's keys are used before they are fetched again, and so how long a key
    /// the issuer withdrew is still trusted [default: 600].
    #[arg(long, value_name = "SECONDS", requires = "auth_issuer")]
    max_key_age: Option<u64>,
    /// How many MiB clients can make the server hold, in all [default: 64].
    #[arg(long, value_name = "MIB", requires = "http")]
    memory_budget: Option<usize>,
    /// How many sessions one client may keep (by default, no limit but that of all sessions).
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions_per_client: Option<usize>,
    /// Offer the tool `import_notes`, which copies notes from the notes server at this MCP
    /// endpoint (http://HOST:PORT/mcp).
    #[arg(long, value_name = "URL")]
    import_from: Option<String>,
    /// Offer the board (an MCP App): the tool `show_board`, whose answer hosts that render apps
    /// show as a page where the user adds notes.
    #[arg(long)]
    board: bool,
    /// Accept requests from web pages of this origin (`scheme://host:port`), such as a
    /// browser-based host at http://localhost:8080, answering their CORS preflight; repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Also serve the HTTP+SSE transport of 2024-11-05, for older clients: GET /sse opens a
    /// connection, POST /messages?sessionId=ID sends it messages.
    #[arg(long, requires = "http", conflicts_with = "auth_issuer")]
    legacy_sse: bool,
    #[command(flatten)]
    instance: InstanceArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // Spans and metrics go to the OTLP receiver that OTEL_EXPORTER_OTLP_ENDPOINT names, if any;
    // log lines to stderr, as RUST_LOG asks.
    let telemetry = Telemetry::from_env_if_configured()?;
    tracing_subscriber::registry()
        .with(telemetry.as_ref().map(Telemetry::layer))
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(tracing_subscriber::EnvFilter::from_default_env()),
        )
        .init();
    let served = serve(args).await;
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    served
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let mut builder = notes::builder();
    if let Some(url) = args.import_from {
        builder = builder
            .registered_tool("import_notes")
            .state(import::Upstream(url));
    }
    if args.board {
        builder = builder.registered_in("examples::board");
    }
    let Some(address) = args.http else {
        if args.instance.redis.is_some() {
            anyhow::bail!("--redis is for several instances over HTTP: add --http ADDRESS");
        }
        // Ends on end of input, or on ^C (SIGINT) or SIGTERM, so that spans still buffered go.
        tokio::select! {
            served = builder.serve_stdio() => served?,
            () = stopped() => {}
        }
        return Ok(());
    };
    let mut options = HttpOptions::default().legacy_sse(args.legacy_sse);
    if !args.allow_origin.is_empty() {
        options = options
            .host_policy(HostPolicy::loopback().allow_origins(args.allow_origin.clone()))
            .cors(cors(&args.allow_origin)?);
    }
    if let Some(mib) = args.memory_budget {
        options = options.memory_budget(mib.saturating_mul(1024 * 1024));
    }
    if let Some(max) = args.max_sessions_per_client {
        options = options.max_sessions_per_client(max);
    }
    let (builder, mut options) = args.instance.apply(builder, options, None).await?;
    let listener = tokio::net::TcpListener::bind(&address).await?;
    let local: SocketAddr = listener.local_addr()?;
    if let Some(issuer) = args.auth_issuer {
        let resource = args
            .resource
            .unwrap_or_else(|| format!("http://{local}/mcp"));
        let mut jwt = JwtVerifier::try_new(issuer.clone(), resource.clone())?;
        if let Some(seconds) = args.leeway {
            jwt = jwt.leeway(Duration::from_secs(seconds));
        }
        if let Some(seconds) = args.max_key_age {
            jwt = jwt.max_key_age(Duration::from_secs(seconds));
        }
        let authorization = match args.introspection_client {
            None => ResourceServer::try_new(resource.clone(), jwt)?,
            Some(client) => {
                let secret = std::env::var("NOTES_INTROSPECTION_SECRET").map_err(|_| {
                    anyhow::anyhow!(
                        "--introspection-client needs the client's secret in the environment \
                         variable NOTES_INTROSPECTION_SECRET"
                    )
                })?;
                let verifier = jwt_or_introspection(jwt, &issuer, &resource, client, secret);
                ResourceServer::try_new(resource.clone(), verifier)?
            }
        };
        options = options.authorization(authorization.authorization_server(issuer.clone()));
        eprintln!("Access tokens of {issuer} for {resource} are required");
    }
    eprintln!("MCP endpoint: http://{local}/mcp");
    tokio::select! {
        served = serve_on(listener, builder.stateful().build()?, options) => served?,
        () = stopped() => {}
    }
    Ok(())
}

/// CORS for web pages of `origins`: they may send the protocol's requests and headers, and
/// read the session id and the authorization challenge of the answers.
fn cors(origins: &[String]) -> anyhow::Result<CorsLayer> {
    let origins = origins
        .iter()
        .map(|o| HeaderValue::from_str(o))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| anyhow::anyhow!("--allow-origin takes origins, as http://localhost:8080"))?;
    Ok(CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods(AllowMethods::list([
            Method::GET,
            Method::POST,
            Method::DELETE,
        ]))
        // The headers a preflight asks for, echoed: `Authorization` and the `Mcp-Param-*` headers
        // of 2026-07-28 are not covered by a wildcard.
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("www-authenticate"),
        ]))
}

/// Waits for ^C (SIGINT) or SIGTERM.
async fn stopped() {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        Some(()) = async { terminate.as_mut()?.recv().await } => {}
    }
}

/// A verifier of both kinds of tokens `issuer` issues: JWTs (three dot-separated parts) checked
/// by `jwt`, anything else introspected as `client`.
fn jwt_or_introspection(
    jwt: JwtVerifier,
    issuer: &str,
    resource: &str,
    client: String,
    secret: String,
) -> impl TokenVerifier {
    let jwt = Arc::new(jwt);
    let introspection = Arc::new(IntrospectionVerifier::discover(
        issuer, client, secret, resource,
    ));
    move |token: String| {
        let (jwt, introspection) = (jwt.clone(), introspection.clone());
        async move {
            let verified: Result<AccessToken, TokenError> = if token.split('.').count() == 3 {
                jwt.verify(&token).await
            } else {
                introspection.verify(&token).await
            };
            verified
        }
    }
}
