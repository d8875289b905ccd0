//! The Streamable HTTP transport, on axum.
//!
//! [`HttpTransport::router`] is an axum [`Router`] for the MCP endpoint, to mount at any path of
//! an application (`Router::new().nest("/mcp", transport.router())`) with any tower layers;
//! [`serve_http`] serves one at `/mcp` with graceful shutdown on Ctrl-C and SIGTERM, and
//! [`HttpTransport::handle`] answers one `http::Request` with an `http::Response`, for a platform
//! that owns the sockets and calls a function per request (a serverless one). With the cargo
//! feature `http-handler` alone (without `http`), the transport is the router and `handle`, with
//! no listener, hyper, or tokio's networking.
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
//! - `Host` and `Origin` are checked before anything else (403, see [`HostPolicy`]): by default
//!   the loopback names, and no browser origin but the server's own. Serving on an address that
//!   is not a loopback one needs a policy naming the hosts clients use.
//! - With [`HttpOptions::authorization`], the server is an OAuth 2.1 protected resource: every
//!   request needs a bearer token its [`ResourceServer`] accepts (`401` otherwise) with the scopes
//!   the request needs (`403`), and the protected resource metadata is served
//!   ([`HttpTransport::metadata_router`]). Handlers read the verified token, and the HTTP request
//!   with the extensions your own layers set, from their context.
//! - A slow, silent or hostile client cannot hold the server's memory or connections: what peers
//!   can make the server hold (bodies being read, events queued for clients and kept for
//!   resumption, requests waiting for a client's answer) is bounded by one
//!   [`HttpOptions::memory_budget`]; each stream buffers a bounded number of events
//!   ([`HttpOptions::stream_buffer`]); a request body must arrive within
//!   [`HttpOptions::body_read_timeout`]; sessions are capped in all and, if you wish, per client
//!   ([`HttpOptions::max_sessions_per_client`]); and [`serve_http`] and [`HttpTransport::serve`]
//!   also bound the time to send a request's headers (which closes idle connections too), the
//!   time a write may wait for the client to read, and the number of connections.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = McpServer::from_registry(server_info!()).build().unwrap();
//! let app = axum::Router::new().nest("/mcp", HttpTransport::new(server, HttpOptions::default()).router());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! axum::serve(listener, app).await
//! # }
//! ```
//!
//! The guide's chapter "Transports and deployment" (`docs/src/transports.md`) teaches it with examples.

#[cfg(feature = "http")]
mod accept;
mod bodies;
mod extract;
mod headers;
mod legacy;
#[cfg(feature = "http")]
mod listen;
mod post;
mod queue;
mod response;
mod routes;
mod sessions;
mod shared;
mod streams;

use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Router;
use axum::routing::{MethodRouter, any};
use tower_http::cors::CorsLayer;

/// The axum version the transport is built on, for mounting [`HttpTransport::router`].
pub use axum;
/// CORS for browser clients ([`HttpOptions::cors`]).
pub use tower_http::cors;

use crate::auth::{HostPolicy, ResourceServer};
use crate::memory::{MemoryBudget, MemoryUse};
use crate::store::{EventStore, InMemoryEventStore, SessionStore};

use crate::memory::Pool;
use crate::server::{McpServer, PeerRequestError};
use sessions::Sessions;
use streams::Streams;

#[cfg(feature = "http")]
pub use listen::{serve_http, serve_on};

/// The tunables of the HTTP transport.
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) body_limit: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) stream_buffer: usize,
    pub(crate) always_stream: bool,
    /// `None`: the loopback policy, which a server on another address must replace.
    pub(crate) host_policy: Option<HostPolicy>,
    pub(crate) body_read_timeout: Duration,
    pub(crate) memory_budget: MemoryBudget,
    pub(crate) max_sessions_per_client: Option<usize>,
    #[cfg(feature = "http")]
    pub(crate) limits: accept::ConnectionLimits,
    /// `None`: an [`InMemoryEventStore`] of the memory budget's share.
    pub(crate) event_store: Option<Arc<dyn EventStore>>,
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    pub(crate) retry: Duration,
    pub(crate) cors: Option<CorsLayer>,
    pub(crate) authorization: Option<Arc<ResourceServer>>,
    pub(crate) legacy_sse: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            body_limit: 4 * 1024 * 1024,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            stream_buffer: 1024,
            always_stream: false,
            host_policy: None,
            body_read_timeout: Duration::from_secs(30),
            memory_budget: MemoryBudget::default(),
            max_sessions_per_client: None,
            #[cfg(feature = "http")]
            limits: accept::ConnectionLimits::default(),
            event_store: None,
            session_store: None,
            retry: Duration::from_millis(1000),
            cors: None,
            authorization: None,
            legacy_sse: false,
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

    /// The most sessions alive at once (10,000 by default). At the cap, `initialize` ends the
    /// session idle the longest (one with no request in flight and no client on its standalone
    /// stream) to make room; when every session is busy it gets 503.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The most sessions one client may have alive at once (no limit by default, but the
    /// [`max_sessions`](Self::max_sessions) of all). A client is the caller an access token
    /// speaks for (its issuer, subject and client id) under
    /// [`authorization`](Self::authorization), and otherwise the address it connects from
    /// (as the accept loop of [`serve_http`] tells it, or axum's `ConnectInfo<SocketAddr>` on a
    /// server of your own; a request from an unknown address is not counted). Behind a proxy
    /// every request comes from the proxy's address: cap per client there only with
    /// authorization. At the cap, the client's `initialize` ends its own session idle the longest
    /// (one with no request in flight and no client on its standalone stream); when every one
    /// of its sessions is busy it gets `429 Too Many Requests`.
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.max_sessions_per_client = Some(max.max(1));
        self
    }

    /// How many bytes peers can make the server hold, in all ([`MemoryBudget`]: 64 MiB by
    /// default), in four equal shares: the request bodies being read (at least the
    /// [`body_limit`](Self::body_limit)), the events queued for clients that have not read them,
    /// the events the default [`InMemoryEventStore`] keeps for resumption (a store set with
    /// [`event_store`](Self::event_store) has its own bounds), and the requests in flight of
    /// every session with the answers they wait for from their clients. However small the
    /// budget, the bodies may hold one body of the limit, the queues 64 KiB, and the requests
    /// one that waits for its answer.
    ///
    /// When a share is full: a body that needs memory waits up to a second for it, while the
    /// body that has received nothing for the longest (at least half a second) is ended to make
    /// room (`408`); with no body stalled, it gets `503 Service Unavailable` with `Retry-After`;
    /// a client behind on a session's stream is
    /// dropped from it (what was queued for it is dropped too, and it resumes from the event
    /// store), and the writers of a stream that cannot be resumed wait for their client (a
    /// stream with nothing queued always takes one event, so a client that reads keeps
    /// getting them); the store forgets the oldest events of the session that holds the most;
    /// a session's new request gets `503` with `Retry-After` (in a batch, a `-32603` error that
    /// says to retry); a request to a client is not sent, and its handler gets
    /// [`PeerRequestError::Busy`]. Each refusal is logged as a warning.
    pub fn memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = MemoryBudget::new(bytes);
        self
    }

    /// How many events a stream holds for a client that has not read them yet (1,024 by
    /// default; at least 1), within the memory budget's share for queued events. A client that
    /// falls this far behind on a session's stream is dropped from it (the response ends, and
    /// the client resumes with `Last-Event-ID` from the [`EventStore`]); on a stream that
    /// cannot be resumed (a stateless request's), the handlers writing to it wait for the
    /// client instead. A session's unsolicited messages wait in a queue of the same size for
    /// its standalone stream; broadcasts that find it full are dropped.
    pub fn stream_buffer(mut self, events: usize) -> Self {
        self.stream_buffer = events.max(1);
        self
    }

    /// Answers every request with an SSE stream, even one whose handler sends nothing.
    pub fn always_stream(mut self, always: bool) -> Self {
        self.always_stream = always;
        self
    }

    /// Which `Host` and `Origin` headers are accepted ([`HostPolicy::loopback`] by default,
    /// which [`serve_http`] refuses to use on an address that is not a loopback one).
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.host_policy = Some(policy);
        self
    }

    /// How long a client has to send a request's whole body (30 seconds by default); a body
    /// still incomplete then gets `408 Request Timeout`.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    #[cfg(feature = "http")]
    /// How long a client has to send a request's headers once the connection is open, or once
    /// the previous response on it ended (30 seconds by default). A connection that is silent
    /// that long, half-sent headers or idle between requests, is closed. Set by [`serve_http`]
    /// and [`HttpTransport::serve`]; a server of your own sets it on its HTTP stack.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    #[cfg(feature = "http")]
    /// How long a write may wait for the client to read (30 seconds by default): a connection
    /// whose client stops reading a stream is closed after that. Set by [`serve_http`] and
    /// [`HttpTransport::serve`].
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.limits.write_timeout = timeout;
        self
    }

    #[cfg(feature = "http")]
    /// The most connections open at once: by default 10,000, or the process's limit of open
    /// files (`ulimit -n`) less 64 when that is lower. Beyond it, new connections wait in the
    /// operating system's queue until one closes (the header read timeout closes idle ones). Set
    /// by [`serve_http`] and [`HttpTransport::serve`].
    pub fn max_connections(mut self, max: usize) -> Self {
        self.limits.max_connections = max.max(1);
        self
    }

    /// The policy in force.
    pub(crate) fn policy(&self) -> &HostPolicy {
        static LOOPBACK: std::sync::LazyLock<HostPolicy> =
            std::sync::LazyLock::new(HostPolicy::loopback);
        self.host_policy.as_ref().unwrap_or(&LOOPBACK)
    }

    /// Where SSE events are kept for resumption (by default an [`InMemoryEventStore`] of the
    /// [`memory_budget`](Self::memory_budget)'s share, 16 MiB, with at most 4 MiB per session).
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(store);
        self
    }

    /// Serves sessions that other instances of the server serve too, behind a load balancer
    /// that sends each request to any of them: sessions are kept in `store`, which every
    /// request loads its session from (restarting its idle time there; the idle timeout is the
    /// [`session_idle_timeout`](Self::session_idle_timeout)) and saves what it changed to before
    /// it is answered; `DELETE` ends a session on every instance; a client's answer to a
    /// request the server sent from another instance reaches it, and so does a cancellation.
    /// Use an [`EventStore`] that the instances share too, so that streams resume anywhere.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Keeps sessions and SSE events in `redis`, for a server that runs as several instances
    /// behind a load balancer: [`session_store`](Self::session_store) and
    /// [`event_store`](Self::event_store) in one. Set the server's task store and the
    /// `requestState` codec on its builder
    /// ([`TaskOptions::store`](crate::server::TaskOptions::store),
    /// [`McpServerBuilder::request_state_codec`](crate::server::McpServerBuilder::request_state_codec)).
    #[cfg(feature = "redis")]
    pub fn redis(self, redis: &crate::store::RedisStore) -> Self {
        self.session_store(redis.session_store())
            .event_store(redis.event_store())
    }

    /// The reconnection delay sent in SSE `retry` fields (1 second by default).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Makes the server an OAuth 2.1 protected resource: every request must carry a bearer token
    /// that `authorization` accepts, with the scopes the request needs, and the protected
    /// resource metadata is served ([`HttpTransport::metadata_router`]). See
    /// [`ResourceServer`].
    pub fn authorization(mut self, authorization: ResourceServer) -> Self {
        self.authorization = Some(Arc::new(authorization));
        self
    }

    /// Also serves the HTTP+SSE transport of 2024-11-05, which older clients speak: `GET /sse` opens a connection and `POST /messages?sessionId=ID` sends it messages,
    /// beside the MCP endpoint (`/sse` and `/messages` at the root that [`serve_http`] serves, or
    /// under the path where [`HttpTransport::router`] is nested). Off by default, and never
    /// with [`authorization`](Self::authorization): the scopes of each tool are checked against
    /// the token of each request, and the old transport's messages carry none.
    pub fn legacy_sse(mut self, on: bool) -> Self {
        self.legacy_sse = on;
        self
    }

    /// Adds a CORS layer (for browser clients); it should expose `Mcp-Session-Id`, and under
    /// [`authorization`](Self::authorization) `WWW-Authenticate` too (a browser client finds the
    /// metadata and the scopes to ask for in it), and allow the `Authorization` request header.
    /// The origins it allows must be allowed by the [`HostPolicy`] too
    /// ([`HostPolicy::allow_origins`]).
    pub fn cors(mut self, cors: CorsLayer) -> Self {
        self.cors = Some(cors);
        self
    }
}

/// The state shared by the handlers.
pub(crate) struct HttpState {
    pub(crate) server: McpServer,
    pub(crate) options: HttpOptions,
    /// The bodies being read, and their share of the [`HttpOptions::memory_budget`].
    pub(crate) bodies: bodies::Bodies,
    /// The default event store, when the options set none.
    default_store: Option<Arc<InMemoryEventStore>>,
    pub(crate) sessions: Sessions,
    pub(crate) streams: Streams,
    /// This instance's name among those that share sessions (random).
    pub(crate) instance: String,
    /// The connections of the HTTP+SSE transport of 2024-11-05, when it is served.
    pub(crate) legacy: legacy::LegacyConnections,
}

/// An MCP server on Streamable HTTP. Cheap to clone: clones share sessions and streams.
#[derive(Clone)]
pub struct HttpTransport {
    state: Arc<HttpState>,
    /// What [`handle`](Self::handle) routes through: the metadata's paths, and MCP at every
    /// other path.
    function: Router,
}

impl HttpTransport {
    /// The transport serving `server` with `options`.
    pub fn new(server: McpServer, options: HttpOptions) -> Self {
        let budget = options.memory_budget;
        let sessions = Sessions::new(sessions::SessionLimits {
            idle_timeout: options.session_idle_timeout,
            max_sessions: options.max_sessions,
            per_client: options.max_sessions_per_client,
            buffer: options.stream_buffer,
            shared: options.session_store.is_some(),
            // Room for one request waiting for its answer, however small the budget.
            requests: crate::connection::RequestBudget::new(
                budget
                    .requests()
                    .max(crate::memory::REQUEST_WEIGHT + crate::memory::ANSWER_WAIT_WEIGHT),
            ),
        });
        let (event_store, default_store): (Arc<dyn EventStore>, _) = match &options.event_store {
            Some(store) => (store.clone(), None),
            None => {
                let store = Arc::new(InMemoryEventStore::new(
                    budget.event_store(),
                    InMemoryEventStore::SESSION_BYTES,
                ));
                (store.clone(), Some(store))
            }
        };
        let shared = options
            .session_store
            .clone()
            .map(|bus| streams::SharedStreams {
                bus,
                wakes: Default::default(),
            });
        let streams = Streams::new(
            event_store,
            options.stream_buffer,
            // Room for a burst of small events, however small the budget.
            Pool::new(budget.queued_events().max(64 * 1024)),
            shared,
        );

        let state = Arc::new(HttpState {
            server,
            bodies: bodies::Bodies::new(budget.request_bodies().max(options.body_limit)),
            default_store,
            options,
            sessions,
            streams,
            instance: crate::random::random_id::<8>(),
            legacy: Default::default(),
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(sweep_idle_sessions(Arc::downgrade(&state)));
            if let Some(store) = &state.options.session_store {
                if state.server.seals_with_own_key() {
                    tracing::warn!(
                        "this server shares its sessions with other instances, but seals \
                         requestState with a key of its own: a 2026-07-28 round answered through \
                         another instance will be refused; give every instance the same key with \
                         McpServerBuilder::request_state_codec(RequestStateCodec::new(..))"
                    );
                }
                shared::relay_broadcasts(&state, store.clone());
                runtime.spawn(shared::hear_other_instances(
                    Arc::downgrade(&state),
                    store.clone(),
                ));
            }
        }
        let function = function_router(&state);
        HttpTransport { state, function }
    }

    /// The router of the MCP endpoint, answering at its root: nest it at the path of your choice.
    pub fn router(&self) -> Router {
        self.endpoint("/")
    }

    /// A router answering MCP at `path` (each handler checks `Host` and `Origin` first).
    fn endpoint(&self, path: &str) -> Router {
        let mut router = Router::new().route(path, mcp_methods());
        // Not beside authorization: each tool's scopes are checked against each request's
        // token, and the old transport's messages carry none.
        if self.state.options.legacy_sse && self.state.options.authorization.is_none() {
            router = router
                .route("/sse", axum::routing::get(legacy::open))
                .route("/messages", axum::routing::post(legacy::post));
        }
        let router = router.with_state(self.state.clone());
        match &self.state.options.cors {
            Some(cors) => router.layer(cors.clone()),
            None => router,
        }
    }

    /// The routes of the protected resource metadata (RFC 9728), at the paths the
    /// [`ResourceServer`] derives from the endpoint's URI: `/.well-known/oauth-protected-resource`
    /// followed by the endpoint's path, and `/.well-known/oauth-protected-resource`. Merge it at
    /// the root of your application when you nest [`router`](Self::router) elsewhere:
    ///
    /// ```no_run
    /// # use mcp_runtime::transport::http::HttpTransport;
    /// # fn app(transport: HttpTransport) -> axum::Router {
    /// axum::Router::new()
    ///     .nest("/api/mcp", transport.router())
    ///     .merge(transport.metadata_router())
    /// # }
    /// ```
    ///
    /// Without authorization it has no routes. [`serve_http`] and [`HttpTransport::serve`] serve
    /// it themselves.
    pub fn metadata_router(&self) -> Router {
        metadata_routes(&self.state)
    }

    /// Answers one HTTP request: the transport as a function from an [`http::Request`] to an
    /// [`http::Response`], for a platform that owns the sockets and calls a function per request
    /// (Cloudflare Workers, AWS Lambda, a server of your own), with no listener, hyper, or
    /// tokio's networking.
    ///
    /// It answers the MCP endpoint at every path but those of the protected resource metadata
    /// (served under [`authorization`](HttpOptions::authorization)), with all the router's
    /// checks (`Host` and `Origin` first, then the bearer token, then the `Mcp-*` headers)
    /// and the CORS layer of the options; the HTTP+SSE transport of 2024-11-05 is the router's
    /// only. The response's body is a stream: the whole JSON answer in one piece, or the events
    /// of an SSE stream as the handlers send them.
    ///
    /// A function that runs many requests in one instance keeps one transport and calls this
    /// for each. Between calls it keeps what a stateful server keeps (sessions, streams), so a
    /// platform that starts a new instance for any request should serve a stateless server
    /// ([`McpServerBuilder::stateless`](crate::server::McpServerBuilder::stateless)), or
    /// share sessions through [`session_store`](HttpOptions::session_store). On a public
    /// host, name it in the [`host_policy`](HttpOptions::host_policy).
    ///
    /// ```standalone_crate
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
    ///
    /// #[mcp_tool(description = "Adds two numbers")]
    /// async fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = McpServer::from_registry(server_info!()).stateless().build().unwrap();
    /// let transport = HttpTransport::new(server, HttpOptions::default());
    ///
    /// let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
    ///     "name":"add","arguments":{"a":2,"b":3},
    ///     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///              "io.modelcontextprotocol/clientInfo":{"name":"doc","version":"1"},
    ///              "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let request = http::Request::post("http://localhost/mcp")
    ///     .header("host", "localhost")
    ///     .header("content-type", "application/json")
    ///     .header("accept", "application/json, text/event-stream")
    ///     .header("mcp-protocol-version", "2026-07-28")
    ///     .header("mcp-method", "tools/call")
    ///     .header("mcp-name", "add")
    ///     .body(call.to_string())
    ///     .unwrap();
    /// let response = transport.handle(request).await;
    /// assert_eq!(response.status(), 200);
    /// let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    /// let answer: serde_json::Value = serde_json::from_slice(&body).unwrap();
    /// assert_eq!(answer["result"]["content"][0]["text"], "5");
    /// # }
    /// ```
    pub async fn handle<B>(&self, request: http::Request<B>) -> http::Response<axum::body::Body>
    where
        B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        use tower::ServiceExt;
        match self.function.clone().oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    /// The server behind the transport.
    pub fn server(&self) -> &McpServer {
        &self.state.server
    }

    /// What peers make the server hold now, by share of the
    /// [memory budget](HttpOptions::memory_budget): for a dashboard, or to see what an attack
    /// costs.
    pub fn memory_use(&self) -> MemoryUse {
        let state = &self.state;
        MemoryUse {
            request_bodies: state.bodies.in_use(),
            queued_events: state.streams.pool().used(),
            event_store: state.default_store.as_ref().map(|store| store.bytes()),
            requests: state.sessions.requests().used(),
        }
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

    /// Ends the session `id` (on every instance, when they share sessions); false when there is
    /// none.
    pub async fn end_session(&self, id: &str) -> bool {
        match &self.state.options.session_store {
            Some(store) => shared::end_everywhere(&self.state, store.as_ref(), id)
                .await
                .unwrap_or_else(|error| {
                    tracing::warn!(%error, "could not end a session on every instance");
                    false
                }),
            None => self.state.sessions.end(id, &self.state.streams).await,
        }
    }
}

/// The router of [`HttpTransport::handle`]: the protected resource metadata at its paths, and the
/// MCP endpoint at every other path, with the options' CORS layer around both.
fn function_router(state: &Arc<HttpState>) -> Router {
    let router = metadata_routes(state).fallback_service(mcp_methods().with_state(state.clone()));
    match &state.options.cors {
        Some(cors) => router.layer(cors.clone()),
        None => router,
    }
}

/// What the MCP endpoint answers, by method.
fn mcp_methods() -> MethodRouter<Arc<HttpState>> {
    any(routes::other_method)
        .post(post::post)
        .get(routes::get)
        .delete(routes::delete)
}

/// The routes of the protected resource metadata, at the paths the [`ResourceServer`] derives
/// from the endpoint's URI (none without authorization).
fn metadata_routes(state: &Arc<HttpState>) -> Router {
    let mut router = Router::new();
    if let Some(authorization) = &state.options.authorization {
        for path in authorization.metadata_paths() {
            router = router.route(path, axum::routing::get(routes::resource_metadata));
        }
    }
    router.with_state(state.clone())
}

/// Ends the sessions idle for longer than the timeout, every half timeout (at most every minute),
/// until the transport is dropped. (Without a runtime at construction, idle sessions still
/// expire: they are refused when used, and swept when a session starts a period after the last
/// sweep.)
async fn sweep_idle_sessions(state: Weak<HttpState>) {
    let Some(period) = state.upgrade().map(|s| s.sessions.sweep_period()) else {
        return;
    };
    loop {
        crate::rt::sleep(period).await;
        let Some(state) = state.upgrade() else { return };
        state.sessions.expire(&state.streams).await;
    }
}
