//! Serving a server, or building and serving it, in one call.

use crate::server::{BuildError, McpServer, McpServerBuilder};

/// A server could not be built or served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The server could not be built, so it did not start: a check made at start-up failed.
    // The message includes the build error's, which is therefore not also its `source` (error
    // reporters such as anyhow's would print it twice).
    #[error("the server cannot start: {0}")]
    Build(BuildError),
    /// The transport failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<BuildError> for ServeError {
    fn from(error: BuildError) -> Self {
        ServeError::Build(error)
    }
}

/// Serves an [`McpServer`], or builds one from an [`McpServerBuilder`] and serves it, on a
/// transport with its default options, in one call:
///
/// ```no_run
/// use mcp_runtime::prelude::*;
///
/// # async fn run() -> Result<(), mcp_runtime::transport::ServeError> {
/// McpServer::from_registry(server_info!()).serve_stdio().await?;
/// # Ok(())
/// # }
/// ```
///
/// For options, use the transport itself ([`stdio`](super::stdio),
/// [`HttpTransport`](super::http::HttpTransport)).
pub trait Serve: Sized {
    /// What serving fails with: [`std::io::Error`] for a server, [`ServeError`] for a builder
    /// (which may also fail to build).
    type Error: From<std::io::Error>;

    #[cfg(not(target_family = "wasm"))]
    /// Serves on stdin and stdout until stdin closes (see [`stdio`](super::stdio)).
    fn serve_stdio(self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send;

    /// Serves on Streamable HTTP at `http://{addr}/mcp` until Ctrl-C, SIGTERM or
    /// [`McpServer::shutdown`] (see [`http`](super::http)).
    #[cfg(feature = "http")]
    fn serve_http(
        self,
        addr: impl tokio::net::ToSocketAddrs + Send,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send;
}

impl Serve for McpServer {
    type Error = std::io::Error;

    #[cfg(not(target_family = "wasm"))]
    async fn serve_stdio(self) -> std::io::Result<()> {
        super::stdio::serve_stdio(self).await
    }

    #[cfg(feature = "http")]
    async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs + Send) -> std::io::Result<()> {
        use super::http::{HttpOptions, serve_http};
        serve_http(self, addr, HttpOptions::default()).await
    }
}

impl Serve for McpServerBuilder {
    type Error = ServeError;

    #[cfg(not(target_family = "wasm"))]
    async fn serve_stdio(self) -> Result<(), ServeError> {
        self.build()?.serve_stdio().await?;
        Ok(())
    }

    #[cfg(feature = "http")]
    async fn serve_http(
        self,
        addr: impl tokio::net::ToSocketAddrs + Send,
    ) -> Result<(), ServeError> {
        self.build()?.serve_http(addr).await?;
        Ok(())
    }
}
