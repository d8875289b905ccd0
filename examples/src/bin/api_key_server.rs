//! An MCP server behind authentication middleware of your own: API keys in an `X-Api-Key`
//! header, checked by an axum middleware, whose verdict the tools read.
//!
//! ```sh
//! API_KEYS="k-alice=alice,k-bob=bob" cargo run -p examples --bin api-key-server
//! cargo run -p examples --bin api-key-server -- --key k-alice=alice --listen 127.0.0.1:0
//! ```
//!
//! The keys, and the user each stands for, come from the environment variable `API_KEYS`
//! (`key=user` entries separated by commas; the user is what follows the last `=`, so that
//! a key may end in `=`) and from `--key KEY=USER` options (repeatable). Prefer the
//! variable: other users of the machine can read a process's command line. The server prints
//! its endpoint on stderr once it listens (`MCP endpoint: http://127.0.0.1:8000/mcp`; port 0
//! picks a free one), and never prints or logs a key.
//!
//! ```sh
//! curl -s http://127.0.0.1:8000/mcp -H 'X-Api-Key: k-alice' \
//!     -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
//!     -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}'
//! # {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice"}]}}
//! ```
//!
//! Without a key, or with one the table does not hold, the middleware answers `401` itself and
//! the MCP server never sees the request.
//!
//! # The pattern, step by step
//!
//! 1. **A type for what the middleware finds out**: here [`User`]. It must be
//!    `Clone + Send + Sync + 'static`, since it travels as an `http::Extensions` entry.
//! 2. **The middleware** ([`require_api_key`], an `axum::middleware::from_fn_with_state`
//!    function): it reads the credentials, answers `401` itself when they are missing or
//!    wrong, and otherwise inserts the `User` into the request's extensions with
//!    `request.extensions_mut().insert(user)` before calling `next.run(request)`. It also
//!    removes the `X-Api-Key` header, so that no handler (or log of headers) ever sees the key.
//! 3. **The handlers read it** from their context: a parameter
//!    `#[ctx] HttpExtension(user): HttpExtension<User>` gets the extension the middleware
//!    inserted ([`whoami`], [`remember`], [`recall`]), and `#[ctx] request: HttpRequest` gets the
//!    whole HTTP request without its body: method, URI, headers and extensions ([`user_agent`]).
//!    A handler whose extension is missing fails with an error that names the type, so a
//!    forgotten layer shows at once.
//! 4. **Mount the MCP router behind the middleware**: `transport.router()` nested at `/mcp`,
//!    with the middleware as a layer of that router only. Other routes of the application (a
//!    health check, say) are not behind it.
//! 5. **Serve the application** with `axum::serve`. The transport's router still checks `Host`
//!    and `Origin` on every request it gets (DNS-rebinding protection: loopback names by
//!    default, the `--host` names otherwise), after the middleware, so a web page reaching a
//!    local server through DNS rebinding is refused without a key and by the host check with
//!    one. `serve_http`'s connection limits (header read timeout, write timeout, connection
//!    count) are not applied by `axum::serve`: a public deployment sets them on its HTTP
//!    stack, or sits behind a proxy that does.
//!
//! The server is built `.stateless()`: each POST stands on its own, even from a handshake-era
//! client, so nothing but the key of the request at hand decides who is calling. (A stateful server binds its sessions to the subject of an
//! OAuth access token; middleware of your own would have to bind them itself.) When keys can
//! travel as `Authorization: Bearer <key>`, a custom token verifier does all of this for you,
//! with sessions bound to the user and per-tool scopes:
//! `HttpOptions::default().authorization(ResourceServer::new(resource, |key: String| async move
//! { ... }))`, and the tools take `#[ctx] token: AccessToken` (see the README's Authorization
//! section).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use clap::Parser;
use mcp_runtime::auth::HostPolicy;
use mcp_runtime::extract::{HttpExtension, HttpRequest};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};

/// The header that carries the API key.
const API_KEY_HEADER: HeaderName = HeaderName::from_static("x-api-key");

/// The environment variable holding `key=user` entries, separated by commas.
const API_KEYS_VARIABLE: &str = "API_KEYS";

/// An MCP server whose callers authenticate with API keys, checked by middleware of its own.
#[derive(Parser)]
#[command(name = "api-key-server", version)]
struct Args {
    /// Listen on ADDRESS and serve MCP at http://ADDRESS/mcp (port 0 picks a free one).
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:8000")]
    listen: String,
    /// An API key and the user it stands for, as KEY=USER (repeatable). Keys given here are
    /// visible to other users of the machine in the process list: prefer the API_KEYS
    /// environment variable ("key=user,key2=user2").
    #[arg(long = "key", value_name = "KEY=USER")]
    keys: Vec<String>,
    /// A host name clients reach the server by (repeatable), accepted in the Host header besides
    /// the loopback names. Required to listen on an address that is not a loopback one.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
}

/// Who the middleware found the caller to be: what the tools read with
/// `#[ctx] HttpExtension(user): HttpExtension<User>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// The user's name, as the key table gives it.
    pub name: String,
}

/// The API keys and the user each stands for. Its `Debug` output names the users, never the
/// keys.
#[derive(Clone)]
struct ApiKeys(Arc<Vec<(String, User)>>);

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(_, user)| &user.name))
            .finish()
    }
}

impl ApiKeys {
    /// The table of `entries`: each a `key=user` entry with what to call it in errors (which
    /// never repeat an entry: it holds a key), such as "entry 2 of API_KEYS".
    fn parse<'a>(entries: impl IntoIterator<Item = (String, &'a str)>) -> Result<ApiKeys, String> {
        let mut table: Vec<(String, User)> = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        for (source, entry) in entries {
            let Some((key, name)) = entry.trim().rsplit_once('=') else {
                return Err(format!("{source} is not of the form KEY=USER"));
            };
            let (key, name) = (key.trim(), name.trim());
            if key.is_empty() || name.is_empty() {
                return Err(format!("{source} has an empty key or user: write KEY=USER"));
            }
            if HeaderValue::from_str(key).is_err() {
                return Err(format!(
                    "the key of {source} cannot be sent in an HTTP header: use printable ASCII"
                ));
            }
            if let Some(first) = table.iter().position(|(known, _)| known == key) {
                return Err(format!(
                    "{source} repeats the key of {}: give each key once",
                    sources[first]
                ));
            }
            table.push((
                key.to_owned(),
                User {
                    name: name.to_owned(),
                },
            ));
            sources.push(source);
        }
        if table.is_empty() {
            return Err(format!(
                "no API keys: set {API_KEYS_VARIABLE}=\"key=user,key2=user2\" or give --key KEY=USER"
            ));
        }
        Ok(ApiKeys(Arc::new(table)))
    }

    /// The user `presented` stands for. Every key is compared, each in constant time, so that
    /// the time taken does not tell how much of a guess was right. (A real deployment would
    /// keep hashes of its keys, in a database, rather than the keys themselves.)
    fn find(&self, presented: &[u8]) -> Option<&User> {
        let mut found = None;
        for (key, user) in self.0.iter() {
            if same_bytes(key.as_bytes(), presented) {
                found = Some(user);
            }
        }
        found
    }
}

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

/// The middleware: lets through only the requests with a known key in `X-Api-Key`, with the
/// [`User`] it stands for as an extension, and answers the others `401` itself.
async fn require_api_key(
    axum::extract::State(keys): axum::extract::State<ApiKeys>,
    mut request: Request,
    next: Next,
) -> Response {
    let mut values = request.headers().get_all(&API_KEY_HEADER).iter();
    let user = match (values.next(), values.next()) {
        (None, _) => return unauthorized("the request has no X-Api-Key header"),
        (Some(_), Some(_)) => {
            return unauthorized("the request has more than one X-Api-Key header");
        }
        (Some(key), None) => match keys.find(key.as_bytes()) {
            Some(user) => user.clone(),
            None => return unauthorized("the API key is not valid"),
        },
    };
    tracing::debug!(user = %user.name, "API key accepted");
    // The handlers learn who is calling from the extension; the key itself goes no further.
    request.headers_mut().remove(&API_KEY_HEADER);
    request.extensions_mut().insert(user);
    next.run(request).await
}

/// A `401` saying `why`, as a JSON-RPC error like those the MCP transport refuses requests with
/// (without an `id`, as 2025-11-25 allows when the request's is unknown), and a
/// `WWW-Authenticate` challenge naming the header the key goes in.
fn unauthorized(why: &str) -> Response {
    tracing::debug!(why, "refused a request");
    let body = json!({
        "jsonrpc": "2.0",
        "error": {"code": -32600, "message": format!("Unauthorized: {why}")},
    });
    (
        StatusCode::UNAUTHORIZED,
        [
            (header::WWW_AUTHENTICATE, "ApiKey header=\"X-Api-Key\""),
            (header::CONTENT_TYPE, "application/json"),
        ],
        body.to_string(),
    )
        .into_response()
}

/// Each user's memos: data the tools keep apart by user.
#[derive(Clone, Default)]
struct Memos(Arc<Mutex<HashMap<String, Vec<String>>>>);

impl Memos {
    /// Every user's memos, by user name.
    fn of(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<String>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Who am I? The name of the user the API key stands for.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn whoami(#[ctx] HttpExtension(user): HttpExtension<User>) -> String {
    user.name
}

/// The User-Agent header of the HTTP request that carried this call.
#[mcp_tool(read_only, idempotent, open_world = false)]
async fn user_agent(#[ctx] request: HttpRequest) -> Result<String, ToolError> {
    let Some(agent) = request.headers.get(header::USER_AGENT) else {
        return Err(ToolError::new("the request has no User-Agent header"));
    };
    agent
        .to_str()
        .map(str::to_owned)
        .map_err(|_| ToolError::new("the User-Agent header is not ASCII text"))
}

/// Keep a memo, which only its author can recall.
#[mcp_tool(open_world = false)]
async fn remember(
    /// The text to keep.
    text: String,
    #[ctx] HttpExtension(user): HttpExtension<User>,
    State(memos): State<Memos>,
) -> String {
    let mut all = memos.of();
    let mine = all.entry(user.name).or_default();
    mine.push(text);
    format!("Kept memo {}.", mine.len())
}

/// The memos the caller kept, one a line, numbered.
#[mcp_tool(read_only, open_world = false)]
async fn recall(
    #[ctx] HttpExtension(user): HttpExtension<User>,
    State(memos): State<Memos>,
) -> String {
    let all = memos.of();
    match all.get(&user.name) {
        Some(mine) if !mine.is_empty() => mine
            .iter()
            .enumerate()
            .map(|(i, text)| format!("{}. {text}", i + 1))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => format!("{} has no memos.", user.name),
    }
}

/// The keys of `API_KEYS` and of the `--key` options.
fn api_keys(options: &[String]) -> anyhow::Result<ApiKeys> {
    let variable = match std::env::var(API_KEYS_VARIABLE) {
        Ok(value) => value,
        Err(std::env::VarError::NotPresent) => String::new(),
        Err(std::env::VarError::NotUnicode(_)) => {
            anyhow::bail!("{API_KEYS_VARIABLE} is not valid UTF-8")
        }
    };
    let from_variable = variable
        .split(',')
        .filter(|entry| !entry.trim().is_empty())
        .enumerate()
        .map(|(i, entry)| (format!("entry {} of {API_KEYS_VARIABLE}", i + 1), entry));
    let from_options = options
        .iter()
        .enumerate()
        .map(|(i, entry)| (format!("--key option {}", i + 1), entry.as_str()));
    ApiKeys::parse(from_variable.chain(from_options)).map_err(anyhow::Error::msg)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = Args::parse();
    let keys = api_keys(&args.keys)?;
    tracing::info!(users = ?keys, "API keys loaded");

    let listener = tokio::net::TcpListener::bind(&args.listen).await?;
    let local: SocketAddr = listener.local_addr()?;
    let mut options = HttpOptions::default();
    if !args.hosts.is_empty() {
        options = options.host_policy(HostPolicy::hosts(args.hosts).and_loopback());
    } else if !local.ip().is_loopback() {
        anyhow::bail!(
            "refusing to listen on {local}, which is not a loopback address, without \
             DNS-rebinding protection: name the hosts clients reach the server by with --host"
        );
    }

    let server = McpServer::from_module(server_info!(), module_path!())
        .instructions("Tools that know who is calling: whoami, user_agent, remember, recall.")
        .state(Memos::default())
        // No sessions: nothing would bind one to the user the key names.
        .stateless()
        .build()?;
    let transport = HttpTransport::new(server, options);
    // The middleware wraps the MCP router only: routes added next to it stay open.
    let mcp = transport
        .router()
        .layer(middleware::from_fn_with_state(keys, require_api_key));
    let app = axum::Router::new().nest("/mcp", mcp);

    eprintln!("MCP endpoint: http://{local}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
