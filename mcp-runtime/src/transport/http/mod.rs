//! The Streamable HTTP transport, on axum.
//!
//! [`HttpTransport::router`] is an axum [`Router`] for the MCP endpoint, to mount at any path of
//! an application (`Router::new().nest("/mcp", transport.router())`) with any tower layers;
//! [`serve_http`] serves one at `/mcp` with graceful shutdown on Ctrl-C and SIGTERM.
//!
//! - `POST` carries a request, a notification, a response, or (2025-03-26) a batch. Requests get an
//!   `application/json` answer when their handlers send nothing while they run, and an SSE stream
//!   (what the handlers send, then the replies) when they do or when the server always streams;
//!   notifications and responses get `202 Accepted`. A wrong `Accept` gets 406, a wrong
//!   `Content-Type` 415, a body over the limit 413, malformed JSON 400 with a parse error.
//! - Stateful servers mint a session at `initialize` (`Mcp-Session-Id`, from a secure random
//!   source), require it on later requests (400 without, 404 for an unknown or ended one), keep
//!   the standalone SSE stream on `GET`, and end the session on `DELETE` or after it was idle for
//!   the configured time. Stateless servers have no session: `GET` and `DELETE` get 405, and what
//!   needs a session answers with an error that says so.
//! - Every SSE event has an id naming its stream; for 2025-11-25 a stream starts with a priming
//!   event and a `retry` field, and a `GET` with `Last-Event-ID` replays what the client missed
//!   from the [`EventStore`] (bounded, in memory by default).
//! - `Host` and `Origin` are checked before anything else (403) unless the policy allows all; the
//!   default allows loopback names only.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = McpServer::from_registry(server_info!()).stateful().build().unwrap();
//! let app = axum::Router::new().nest("/mcp", HttpTransport::new(server, HttpOptions::default()).router());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! axum::serve(listener, app).await
//! # }
//! ```

mod extract;
mod handlers;
mod headers;
mod post;
mod response;
mod sessions;
pub mod sse;
mod streams;

use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Router;
use axum::routing::any;
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, ToSocketAddrs};
use tower_http::cors::CorsLayer;

/// The axum version the transport is built on, for mounting [`HttpTransport::router`].
pub use axum;
/// CORS for browser clients ([`HttpOptions::cors`]).
pub use tower_http::cors;

pub use crate::auth::HostPolicy;
pub use crate::store::{EventStore, InMemoryEventStore, StoreFuture};

use crate::server::{McpServer, PeerRequestError};
use sessions::Sessions;
use streams::Streams;

/// The tunables of the HTTP transport.
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) body_limit: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) always_stream: bool,
    pub(crate) host_policy: HostPolicy,
    pub(crate) event_store: Arc<dyn EventStore>,
    pub(crate) retry: Duration,
    pub(crate) cors: Option<CorsLayer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            body_limit: 4 * 1024 * 1024,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            always_stream: false,
            host_policy: HostPolicy::loopback(),
            event_store: Arc::new(InMemoryEventStore::default()),
            retry: Duration::from_millis(1000),
            cors: None,
        }
    }
}

impl HttpOptions {
    /// The largest request body, in bytes (4 MiB by default).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// How long a session may be idle before it ends (30 minutes by default). A session whose
    /// client holds its standalone GET stream open is not idle.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The most sessions alive at once (10,000 by default); `initialize` beyond gets 503.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Answers every request with an SSE stream, even one whose handler sends nothing.
    pub fn always_stream(mut self, always: bool) -> Self {
        self.always_stream = always;
        self
    }

    /// Which `Host` and `Origin` headers are accepted (loopback names by default).
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.host_policy = policy;
        self
    }

    /// Where SSE events are kept for resumption (a bounded in-memory store by default).
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = store;
        self
    }

    /// The reconnection delay sent in SSE `retry` fields (1 second by default).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Adds a CORS layer (for browser clients); it should expose `Mcp-Session-Id`.
    pub fn cors(mut self, cors: CorsLayer) -> Self {
        self.cors = Some(cors);
        self
    }
}

/// The state shared by the handlers.
pub(crate) struct HttpState {
    pub(crate) server: McpServer,
    pub(crate) options: HttpOptions,
    pub(crate) sessions: Sessions,
    pub(crate) streams: Streams,
}

/// An MCP server on Streamable HTTP. Cheap to clone: clones share sessions and streams.
#[derive(Clone)]
pub struct HttpTransport {
    state: Arc<HttpState>,
}

impl HttpTransport {
    /// The transport serving `server` with `options`.
    pub fn new(server: McpServer, options: HttpOptions) -> Self {
        let sessions = Sessions::new(options.session_idle_timeout, options.max_sessions);
        let streams = Streams::new(options.event_store.clone());
        let state = Arc::new(HttpState {
            server,
            options,
            sessions,
            streams,
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(sweep_idle_sessions(Arc::downgrade(&state)));
        }
        HttpTransport { state }
    }

    /// The router of the MCP endpoint, answering at its root: nest it at the path of your choice.
    pub fn router(&self) -> Router {
        self.endpoint("/")
    }

    /// A router answering MCP at `path` (each handler checks `Host` and `Origin` first).
    fn endpoint(&self, path: &str) -> Router {
        let router = Router::new()
            .route(
                path,
                any(handlers::other_method)
                    .post(post::post)
                    .get(handlers::get)
                    .delete(handlers::delete),
            )
            .with_state(self.state.clone());
        match &self.state.options.cors {
            Some(cors) => router.layer(cors.clone()),
            None => router,
        }
    }

    /// The server behind the transport.
    pub fn server(&self) -> &McpServer {
        &self.state.server
    }

    /// How many sessions are alive.
    pub fn session_count(&self) -> usize {
        self.state.sessions.len()
    }

    /// The ids of the live sessions, for [`ping_client`](Self::ping_client) and
    /// [`end_session`](Self::end_session).
    pub fn session_ids(&self) -> Vec<String> {
        self.state.sessions.ids()
    }

    /// Pings the client of session `id` over its standalone stream and waits for its answer.
    pub async fn ping_client(&self, id: &str) -> Result<(), PeerRequestError> {
        let session = self
            .state
            .sessions
            .get(id)
            .ok_or(PeerRequestError::Disconnected)?;
        self.state.server.ping(&session.connection).await
    }

    /// Ends the session `id`; false when there is none.
    pub async fn end_session(&self, id: &str) -> bool {
        self.state.sessions.end(id, &self.state.streams).await
    }
}

/// Serves `server` at `http://{addr}/mcp` until Ctrl-C, SIGTERM or [`McpServer::shutdown`].
///
/// Accepted connections set `TCP_NODELAY` (without it, a keep-alive connection waits ~40 ms for
/// every small response). On an address that is not a loopback one, the `Host`/`Origin` check
/// allows everything unless `options` set another policy than the default.
pub async fn serve_http(
    server: McpServer,
    addr: impl ToSocketAddrs,
    options: HttpOptions,
) -> std::io::Result<()> {
    serve_on(TcpListener::bind(addr).await?, server, options).await
}

/// Serves `server` at `/mcp` on an already bound `listener` (for tests, and for servers that
/// bind port 0 and report the port they got), as [`serve_http`] does.
pub async fn serve_on(
    listener: TcpListener,
    server: McpServer,
    mut options: HttpOptions,
) -> std::io::Result<()> {
    let local: SocketAddr = listener.local_addr()?;
    if !local.ip().is_loopback() && options.host_policy == HostPolicy::loopback() {
        options.host_policy = HostPolicy::AllowAll;
    }
    HttpTransport::new(server, options).serve(listener).await
}

impl HttpTransport {
    /// Serves this transport at `/mcp` on `listener` until Ctrl-C, SIGTERM or
    /// [`McpServer::shutdown`], with `TCP_NODELAY` on every accepted connection.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        let local: SocketAddr = listener.local_addr()?;
        tracing::info!(address = %local, "serving MCP at http://{local}/mcp");
        let shutdown = self.server().shutdown_token().clone();
        // Routed at `/mcp` directly rather than nested: a nested router costs every request a
        // second routing and a copy of its path.
        let app = self.endpoint("/mcp");
        let listener = listener.tap_io(|stream| {
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(%error, "could not set TCP_NODELAY");
            }
        });
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                tokio::select! {
                    () = shutdown.cancelled() => {}
                    () = termination() => {}
                }
            })
            .await
    }
}

/// Ends the sessions idle for longer than the timeout, every half timeout (at most every minute),
/// until the transport is dropped. (Without a runtime at construction, idle sessions still
/// expire: they are refused when used and swept when the next session starts.)
async fn sweep_idle_sessions(state: Weak<HttpState>) {
    let Some(period) = state.upgrade().map(|s| {
        (s.options.session_idle_timeout / 2)
            .clamp(Duration::from_millis(10), Duration::from_secs(60))
    }) else {
        return;
    };
    loop {
        tokio::time::sleep(period).await;
        let Some(state) = state.upgrade() else { return };
        state.sessions.expire(&state.streams).await;
    }
}

/// Completes on Ctrl-C or SIGTERM.
async fn termination() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
