//! The listener (cargo feature `http`): [`serve_http`], [`serve_on`] and [`HttpTransport::serve`]
//! bind a TCP socket and serve the transport's router on it with hyper, until Ctrl-C, SIGTERM or
//! [`McpServer::shutdown`]. Without the feature the transport is the router and
//! [`HttpTransport::handle`], for a platform that owns the sockets.

use std::net::SocketAddr;

use tokio::net::{TcpListener, ToSocketAddrs};

use super::{HttpOptions, HttpTransport, accept};
use crate::server::McpServer;

/// Serves `server` at `http://{addr}/mcp` until Ctrl-C, SIGTERM or [`McpServer::shutdown`].
///
/// Accepted connections set `TCP_NODELAY` (without it, a keep-alive connection waits ~40 ms for
/// every small response), and get the connection limits of `options`. On an address that is
/// not a loopback one, `options` must name the hosts clients use
/// ([`HttpOptions::host_policy`]): without, serving fails at once, saying so.
pub async fn serve_http(
    server: McpServer,
    addr: impl ToSocketAddrs,
    options: HttpOptions,
) -> std::io::Result<()> {
    serve_on(bind(addr).await?, server, options).await
}

/// Listens on the first address `addr` resolves to that can be bound; the error names the
/// address, and says what to do when the port is taken.
async fn bind(addr: impl ToSocketAddrs) -> std::io::Result<TcpListener> {
    let mut failure = None;
    for address in tokio::net::lookup_host(addr).await? {
        match TcpListener::bind(address).await {
            Ok(listener) => return Ok(listener),
            Err(error) => failure = Some((address, error)),
        }
    }
    let Some((address, error)) = failure else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address to serve on resolves to no address",
        ));
    };
    let hint = match error.kind() {
        std::io::ErrorKind::AddrInUse => {
            ": another program (or another copy of this server) has the port; stop it, or serve \
             on another port"
        }
        std::io::ErrorKind::PermissionDenied => {
            ": ports below 1024 need privileges; serve on a port above 1023"
        }
        _ => "",
    };
    Err(std::io::Error::new(
        error.kind(),
        format!("cannot listen on {address}: {error}{hint}"),
    ))
}

/// Serves `server` at `/mcp` on an already bound `listener` (for tests, and for servers that
/// bind port 0 and report the port they got), as [`serve_http`] does.
pub async fn serve_on(
    listener: TcpListener,
    server: McpServer,
    options: HttpOptions,
) -> std::io::Result<()> {
    HttpTransport::new(server, options).serve(listener).await
}

impl HttpTransport {
    /// Serves this transport at `/mcp` on `listener` until Ctrl-C, SIGTERM or
    /// [`McpServer::shutdown`], with `TCP_NODELAY` and the connection limits of its options on
    /// every accepted connection. Fails at once on an address that is not a loopback one when
    /// the options name no hosts (see [`serve_http`]).
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        let local: SocketAddr = listener.local_addr()?;
        if !local.ip().is_loopback() && self.state.options.host_policy.is_none() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "refusing to serve MCP on {local} without DNS-rebinding protection: on an \
                     address that is not a loopback one, name the hosts clients reach the server \
                     by with HttpOptions::host_policy(HostPolicy::hosts([\"mcp.example.com\"])), \
                     or, when a proxy in front of the server checks the Host header, opt out \
                     with HttpOptions::host_policy(HostPolicy::any_host())"
                ),
            ));
        }
        tracing::info!(address = %local, "serving MCP at http://{local}/mcp");
        let server = self.server().clone();
        // Routed at `/mcp` directly rather than nested: a nested router costs every request a
        // second routing and a copy of its path.
        let app = self.endpoint("/mcp").merge(self.metadata_router());
        let limits = self.state.options.limits.clone();
        accept::serve_connections(listener, app, &limits, async move {
            tokio::select! {
                () = server.shutdown_token().cancelled() => {}
                // A signal shuts the server down as `McpServer::shutdown` does, so that the
                // streams that watch it (standalone GET streams, `subscriptions/listen`) end
                // and the open connections can drain.
                () = termination() => server.shutdown(),
            }
        })
        .await
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
