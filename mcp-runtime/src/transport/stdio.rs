//! The stdio transport: the server reads newline-delimited JSON on stdin and writes it on stdout.
//!
//! Nothing but protocol messages ever goes to stdout; log with `tracing` to stderr. The server
//! exits cleanly when stdin closes: requests to the client still waiting fail at once, the
//! handlers in flight are cancelled (their token fires), and the replies of those that still
//! finish are written before it returns.
//!
//! A stdio connection is one persistent session whatever the [`ServerMode`](crate::server::ServerMode):
//! `logging/setLevel`, resource subscriptions and server-to-client requests all work on it.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! #[tokio::main]
//! async fn main() -> anyhow::Result<()> {
//!     McpServer::from_registry(server_info!()).serve_stdio().await?;
//!     Ok(())
//! }
//! ```

use std::io;

use super::lines::{LineOptions, serve_lines};
use crate::server::McpServer;

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve_stdio(server: McpServer) -> io::Result<()> {
    serve_stdio_with(server, LineOptions::default()).await
}

/// Like [`serve_stdio`], with limits.
pub async fn serve_stdio_with(server: McpServer, options: LineOptions) -> io::Result<()> {
    serve_lines(server, tokio::io::stdin(), tokio::io::stdout(), options).await
}

impl McpServer {
    /// Serves this server on stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> io::Result<()> {
        serve_stdio(self).await
    }
}

impl crate::server::McpServerBuilder {
    /// Builds the server and serves it on stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> Result<(), super::ServeError> {
        let server = self.build()?;
        serve_stdio(server).await?;
        Ok(())
    }
}
