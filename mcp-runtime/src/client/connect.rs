//! Opening a connection: the builder, the transports, and the era detection of the 2026-07-28
//! versioning page (probe with `server/discover`, fall back to the `initialize` handshake on any
//! answer that is not a recognized stateless error).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use mcp_runtime_core::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::meta::keys;
use mcp_runtime_core::roots::{ListRootsResult, Root};
use mcp_runtime_core::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_runtime_core::{Era, ErrorCode, ErrorObject, ProtocolVersion, render};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::answering::Handlers;
use super::peer::{AfterClose, Peer};
use super::tools::ToolCache;
use super::{ClientError, EraState, Inner, McpClient, RequestOptions, Stateless, process};
use crate::server::McpServer;
use crate::transport::lines::{LineOptions, serve_lines};

/// How long a `server/discover` probe may go unanswered before the server is taken for one of
/// the handshake era (some of those never answer a request before `initialize`).
pub const DEFAULT_DISCOVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds an [`McpClient`]: who the client is, what it answers, how it connects.
#[derive(Clone)]
pub struct McpClientBuilder {
    info: Implementation,
    /// The revision asked for, or `None` to detect the server's era.
    version: Option<ProtocolVersion>,
    pub(super) handlers: Handlers,
    timeout: Option<Duration>,
    pub(super) discovery_timeout: Duration,
    log_level: Option<LoggingLevel>,
    validate_output: bool,
    pub(super) capture_stderr: bool,
    #[cfg(feature = "client-auth")]
    oauth: Option<super::oauth::OAuth>,
    #[cfg(feature = "client-http")]
    pub(super) http_headers: reqwest::header::HeaderMap,
}

impl McpClient {
    /// A builder for a client that calls itself `info`.
    pub fn builder(info: Implementation) -> McpClientBuilder {
        McpClientBuilder {
            info,
            version: None,
            handlers: Handlers::default(),
            timeout: None,
            discovery_timeout: DEFAULT_DISCOVERY_TIMEOUT,
            log_level: None,
            validate_output: true,
            capture_stderr: false,
            #[cfg(feature = "client-auth")]
            oauth: None,
            #[cfg(feature = "client-http")]
            http_headers: reqwest::header::HeaderMap::new(),
        }
    }
}

impl McpClientBuilder {
    /// Speaks `version`: a 2025 revision through the `initialize` handshake, 2026-07-28 with
    /// per-request metadata. Without it, the client detects the server's era as the 2026-07-28
    /// versioning page prescribes: it probes with `server/discover`, and falls back to the
    /// handshake when the answer is an error that is not a recognized 2026-07-28 one, or when no
    /// answer comes within the [discovery timeout](Self::discovery_timeout).
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// The log level 2026-07-28 requests ask for (`_meta` logLevel; by default none, so no log
    /// messages). On a 2025 session use [`McpClient::set_logging_level`].
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// How long each request may wait for its answer (no limit by default); a request's own
    /// [`RequestOptions::timeout`] takes precedence.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long the `server/discover` probe waits before the server is taken for one of the
    /// handshake era ([`DEFAULT_DISCOVERY_TIMEOUT`] unless set).
    pub fn discovery_timeout(mut self, timeout: Duration) -> Self {
        self.discovery_timeout = timeout;
        self
    }

    /// Whether [`McpClient::call_tool`] checks structured results against the tool's
    /// `outputSchema`, as listed by the last `tools/list` (on by default). A successful result
    /// of a tool with an output schema must then carry conforming `structuredContent`.
    pub fn validate_structured_content(mut self, validate: bool) -> Self {
        self.validate_output = validate;
        self
    }

    /// Keeps the stderr of a server program started by [`connect_stdio`](Self::connect_stdio)
    /// (its last 64 KiB, see [`McpClient::captured_stderr`]) instead of passing it through.
    pub fn capture_stderr(mut self) -> Self {
        self.capture_stderr = true;
        self
    }

    /// Answers `sampling/createMessage` with `handler` (and declares `sampling`).
    pub fn sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.sampling = Some(Arc::new(move |params| Box::pin(handler(params))));
        self
    }

    /// Answers `elicitation/create` (form and URL mode) with `handler` (and declares
    /// `elicitation`). When the handler accepts a form, the fields it leaves out are filled with
    /// the defaults of the requested schema (SEP-1034), as a form pre-filled with them would be.
    pub fn elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.elicitation = Some(Arc::new(move |params| Box::pin(handler(params))));
        self
    }

    /// Declares URL-mode elicitation besides form mode (2025-11-25): the
    /// [`elicitation`](Self::elicitation) handler then gets `ElicitRequestParams::Url` too.
    pub fn url_elicitation(mut self) -> Self {
        self.handlers.url_elicitation = true;
        self
    }

    /// Declares support of the extension `id` (for example `io.modelcontextprotocol/skills`)
    /// with its `settings` (an empty map when it has none).
    pub fn extension(
        mut self,
        id: impl Into<String>,
        settings: mcp_runtime_core::JsonObject,
    ) -> Self {
        self.handlers
            .extensions
            .get_or_insert_with(Default::default)
            .insert(id.into(), settings);
        self
    }

    /// Answers `roots/list` with `roots` (and declares `roots`).
    pub fn roots(self, roots: Vec<Root>) -> Self {
        let roots = Arc::new(roots);
        self.roots_with(move || {
            let roots = roots.as_ref().clone();
            async move { Ok(ListRootsResult::new(roots)) }
        })
    }

    /// Answers `roots/list` with `handler` (and declares `roots`): for roots that change, or
    /// that come from elsewhere (a gateway asks its own client). Tell the server of a change
    /// with [`McpClient::notify_roots_list_changed`].
    pub fn roots_with<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.roots = Some(Arc::new(move || Box::pin(handler())));
        self
    }

    /// Connects to `server`, served in this process.
    pub async fn connect_in_process(self, server: McpServer) -> Result<McpClient, ClientError> {
        let (client_end, server_end) = tokio::io::duplex(256 * 1024);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(serve_lines(
            server,
            server_read,
            server_write,
            LineOptions::default(),
        ));
        let (read, write) = tokio::io::split(client_end);
        self.connect_io(read, write).await
    }

    /// Connects over `reader` and `writer`, which carry newline-delimited JSON.
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<McpClient, ClientError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let peer = Peer::start(reader, writer, self.handlers.clone(), AfterClose::Stop);
        self.connect_with(peer, Owned::default(), Arc::default())
            .await
    }

    /// Authorizes with OAuth when the server asks for a token (cargo feature `client-auth`;
    /// HTTP only): see [`oauth`](super::oauth).
    #[cfg(feature = "client-auth")]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sends `headers` with every HTTP request (cargo feature `client-http`): an API key, a
    /// static `Authorization`, a tracing header. The protocol's own headers take precedence.
    ///
    /// ```
    /// use mcp_runtime::client::{HeaderMap, HeaderValue, McpClient};
    /// use mcp_runtime::protocol::implementation::Implementation;
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("x-api-key", HeaderValue::from_static("k-alice"));
    /// let builder = McpClient::builder(Implementation::new("agent", "1.0.0")).http_headers(headers);
    /// # drop(builder);
    /// ```
    #[cfg(feature = "client-http")]
    pub fn http_headers(mut self, headers: super::HeaderMap) -> Self {
        self.http_headers = headers;
        self
    }

    /// Connects to the Streamable HTTP endpoint at `url` (cargo feature `client-http`). A
    /// server that refuses every POST with a 4xx status (`404`, `405`, ...) may be one of the
    /// HTTP+SSE transport of 2024-11-05: as the spec's backwards compatibility asks, the client
    /// then GETs `url`, and speaks that transport when an `endpoint` event comes first (see
    /// [`connect_sse`](Self::connect_sse)). When that fails too, the error is the first one.
    #[cfg(feature = "client-http")]
    pub async fn connect_http(mut self, url: impl Into<String>) -> Result<McpClient, ClientError> {
        let url = url.into();
        let fallback = self.clone();
        let client = reqwest::Client::builder()
            .default_headers(std::mem::take(&mut self.http_headers))
            .build()
            .map_err(|error| ClientError::Transport {
                method: "connect",
                detail: format!("cannot set up the HTTP client: {error}"),
            })?;
        let (connected, channel) = self.connect_streamable(url.clone(), client).await;
        let error = match connected {
            Ok(client) => return Ok(client),
            Err(error) => error,
        };
        let Some(status) = channel.refused_every_post() else {
            return Err(error);
        };
        tracing::info!(
            %url,
            %status,
            "the server refused every POST: trying the HTTP+SSE transport of 2024-11-05"
        );
        fallback.connect_sse(url).await.map_err(|sse| {
            tracing::debug!(%sse, "the HTTP+SSE transport of 2024-11-05 failed too");
            error
        })
    }

    /// Connects over Streamable HTTP with `client`; the outcome, and the channel that tried.
    #[cfg(feature = "client-http")]
    async fn connect_streamable(
        mut self,
        url: String,
        client: reqwest::Client,
    ) -> (
        Result<McpClient, ClientError>,
        Arc<super::http::HttpChannel>,
    ) {
        let tools = Arc::new(ToolCache::default());
        let (peer, lines) = Peer::new(self.handlers.clone(), "tcp");
        let channel = Arc::new(super::http::HttpChannel::new(
            url,
            tools.clone(),
            client,
            #[cfg(feature = "client-auth")]
            self.oauth.take(),
        ));
        tokio::spawn(channel.clone().drive(Arc::downgrade(&peer), lines));
        (
            self.connect_with(peer, Owned::default(), tools).await,
            channel,
        )
    }

    /// Opens the connection over `peer`: detects the era, or performs the handshake.
    pub(super) async fn connect_with(
        self,
        peer: Arc<Peer>,
        owned: Owned,
        tools: Arc<ToolCache>,
    ) -> Result<McpClient, ClientError> {
        let client = McpClient {
            inner: Arc::new(Inner {
                peer,
                handlers: self.handlers,
                info: self.info,
                timeout: self.timeout,
                validate_output: self.validate_output,
                tools,
                era: Mutex::new(EraState::Unsettled),
                generation: AtomicU64::new(0),
                renewing: tokio::sync::Mutex::new(()),
                process_id: owned.child.as_ref().and_then(process::id),
                child: tokio::sync::Mutex::new(owned.child),
                stderr: owned.stderr,
            }),
        };
        let wanted = self.version;
        let mut fallback = None;
        if wanted.is_none_or(|v| v.era() == Era::Stateless) {
            let mut version = wanted.unwrap_or(ProtocolVersion::V2026_07_28);
            // One retry: a stateless server that refuses the version names those it supports.
            let mut retried = false;
            loop {
                let timeout = wanted.is_none().then_some(self.discovery_timeout);
                match client.discover(version, self.log_level, timeout).await {
                    Ok(()) => return Ok(client),
                    Err(ClientError::Server { error, .. }) if is_stateless_error(&error) => {
                        let supported = supported_versions(&error);
                        let stateless = supported
                            .iter()
                            .copied()
                            .filter(|v| v.era() == Era::Stateless);
                        if let Some(next) = stateless.max().filter(|_| !retried) {
                            version = next;
                            retried = true;
                            continue;
                        }
                        // A dual-era server set to the handshake era names only those revisions.
                        let handshake = supported
                            .iter()
                            .copied()
                            .filter(|v| v.era() == Era::Handshake);
                        match handshake.max() {
                            Some(handshake) if wanted.is_none() => {
                                fallback = Some(handshake);
                                break;
                            }
                            _ => {
                                return Err(ClientError::Server {
                                    method: "server/discover",
                                    error,
                                });
                            }
                        }
                    }
                    // Anything else marks a server of the handshake era.
                    Err(
                        error @ (ClientError::Server { .. }
                        | ClientError::Transport { .. }
                        | ClientError::TimedOut { .. }),
                    ) if wanted.is_none() => {
                        tracing::debug!(%error, "server/discover failed: falling back to the handshake");
                        break;
                    }
                    Err(error) => return Err(error),
                }
            }
        }
        let version = wanted
            .filter(|v| v.era() == Era::Handshake)
            .or(fallback)
            .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        client.handshake(version).await?;
        Ok(client)
    }
}

/// What the client owns of its connection: a server program it started, and its stderr.
#[derive(Default)]
pub(super) struct Owned {
    pub(super) child: Option<process::Child>,
    pub(super) stderr: Option<Arc<Mutex<String>>>,
}

impl McpClient {
    /// Probes with `server/discover` at `version`; on success the connection speaks it.
    async fn discover(
        &self,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        timeout: Option<Duration>,
    ) -> Result<(), ClientError> {
        let method = "server/discover";
        let protocol = |detail: String| ClientError::Protocol { method, detail };
        let mut meta = serde_json::Map::new();
        meta.insert(keys::PROTOCOL_VERSION.into(), json!(version.as_str()));
        let capabilities = render::to_value(&self.inner.handlers.capabilities(version), version)
            .map_err(|e| protocol(e.to_string()))?;
        meta.insert(keys::CLIENT_CAPABILITIES.into(), capabilities);
        meta.insert(keys::CLIENT_INFO.into(), json!(self.inner.info));
        if let Some(level) = log_level {
            meta.insert(keys::LOG_LEVEL.into(), json!(level));
        }
        self.inner.peer.set_version(version);
        let mut options = RequestOptions::new();
        options.timeout = timeout.or(self.inner.timeout);
        let discovered = self
            .in_span(method, json!({"_meta": meta}), |params| async move {
                self.send(method, &params, &options).await
            })
            .await?;
        let discovered: DiscoverResult =
            serde_json::from_value(discovered).map_err(|e| protocol(e.to_string()))?;
        *self.inner.era.lock() = EraState::Stateless(Arc::new(Stateless { discovered, meta }));
        Ok(())
    }

    /// The `initialize` handshake at `version`, then `notifications/initialized`. Also opens a
    /// fresh HTTP session after the server forgot the old one.
    pub(super) async fn handshake(&self, version: ProtocolVersion) -> Result<(), ClientError> {
        let method = "initialize";
        let protocol = |detail: String| ClientError::Protocol { method, detail };
        self.inner.peer.set_version(version);
        let params = InitializeRequestParams::new(
            version.as_str(),
            self.inner.handlers.capabilities(version),
            self.inner.info.clone(),
        );
        let params = render::to_value(&params, version).map_err(|e| protocol(e.to_string()))?;
        let result = self
            .in_span(method, params, |params| async move {
                self.send_once(method, &params, &RequestOptions::new())
                    .await
                    .map_err(|attempt| attempt.into_error(method))
            })
            .await?;
        let result: InitializeResult =
            serde_json::from_value(result).map_err(|e| protocol(e.to_string()))?;
        let version = ProtocolVersion::from_name(&result.protocol_version)
            .filter(|v| v.era() == Era::Handshake)
            .ok_or_else(|| {
                protocol(format!(
                    "the server chose a revision this client does not speak: {}",
                    result.protocol_version
                ))
            })?;
        self.inner.peer.set_version(version);
        self.inner
            .peer
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        *self.inner.era.lock() = EraState::Handshake(Arc::new(result));
        Ok(())
    }
}

/// Whether `error` is one only a 2026-07-28 server gives: it identifies a stateless server, which
/// the client must not take for one of the handshake era.
fn is_stateless_error(error: &ErrorObject) -> bool {
    [
        ErrorCode::HEADER_MISMATCH,
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
    ]
    .contains(&error.code)
}

/// The revisions an unsupported-version error lists (`data.supported`) that this client knows.
fn supported_versions(error: &ErrorObject) -> Vec<ProtocolVersion> {
    let listed = error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array);
    listed
        .into_iter()
        .flatten()
        .filter_map(|v| ProtocolVersion::from_name(v.as_str()?))
        .collect()
}
