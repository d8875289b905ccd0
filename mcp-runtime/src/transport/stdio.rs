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
//! stdio has no authorization: the client started the server, which runs as its user, and the MCP
//! specification says such a server takes the credentials it needs (API keys, tokens for the
//! services it calls) from its environment, not from the protocol. Handlers see no access token
//! ([`RequestContext::access_token`](crate::handler::RequestContext::access_token) is `None`) and
//! the scopes of tools, prompts and resources are not checked.
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
//!
//! The guide's chapter "Transports and deployment" (`docs/src/transports.md`) teaches it with examples.

use std::io;

use super::lines::{LineOptions, serve_lines};
use crate::server::McpServer;

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve_stdio(server: McpServer) -> io::Result<()> {
    serve_stdio_with(server, LineOptions::default()).await
}

/// Like [`serve_stdio`], with limits.
pub async fn serve_stdio_with(server: McpServer, options: LineOptions) -> io::Result<()> {
    // The connection runs in a task of its own, on the runtime's workers with the handlers it
    // starts, rather than on the thread that waits for it (with `#[tokio::main]`, the main
    // thread): every message would otherwise cross between threads.
    let serving = tokio::spawn(async move {
        #[cfg(unix)]
        if let Some((input, output)) = pipes() {
            return serve_lines(server, input, output, options).await;
        }
        serve_lines(server, tokio::io::stdin(), tokio::io::stdout(), options).await
    });
    match serving.await {
        Ok(outcome) => outcome,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(io::Error::other(error)),
    }
}

/// stdin and stdout as non-blocking pipes, read and written by the runtime's own I/O driver, when
/// both are pipes (as when a client starts the server). Otherwise (a terminal, a file) `None`, and
/// tokio's stdin and stdout are used: they read and write on a blocking thread, one hop per call.
#[cfg(unix)]
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    use tokio::net::unix::pipe;

    let is_pipe = |fd: std::os::fd::BorrowedFd<'_>| {
        let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        let fifo = file.metadata().ok()?.file_type().is_fifo();
        fifo.then_some(file)
    };
    // Both are checked before either is made non-blocking, so that a failure leaves both as
    // they were.
    let input = is_pipe(io::stdin().as_fd())?;
    let output = is_pipe(io::stdout().as_fd())?;
    let input = pipe::Receiver::from_file(input).ok()?;
    match pipe::Sender::from_file(output) {
        Ok(output) => Some((input, output)),
        Err(_) => {
            // stdout is a pipe not open for writing: put stdin back in blocking mode.
            let _ = input.into_blocking_fd();
            None
        }
    }
}
