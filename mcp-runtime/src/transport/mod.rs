//! Transports: how messages reach the server.
//!
//! - [`stdio`]: newline-delimited JSON on stdin/stdout, for servers a client starts as a process.
//! - [`in_process`]: a client and a server joined in memory, for tests and embedding.
//! - [`lines`]: the newline-delimited JSON engine both use, over any byte stream.
//! - [`http`]: Streamable HTTP on axum (cargo feature `http`, on by default).
//!
//! The guide's chapter "Transports and deployment" (`docs/src/transports.md`) teaches it with examples.

#[cfg(feature = "http")]
pub mod http;
pub mod in_process;
pub mod lines;
pub mod stdio;

use crate::server::BuildError;

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
