//! Transports: how messages reach the server.
//!
//! - [`stdio`]: newline-delimited JSON on stdin/stdout, for servers a client starts as a process
//!   (not on WebAssembly, which has no standard streams).
//! - [`in_process`]: a client and a server joined in memory, for tests and embedding.
//! - [`lines`]: the newline-delimited JSON engine both use, over any byte stream.
//! - [`http`]: Streamable HTTP on axum (cargo feature `http`, on by default), with its listener;
//!   with the feature `http-handler` alone, the router and the transport as a function from an
//!   `http::Request` to an `http::Response`, for platforms that own the sockets.
//!
//! [`Serve`] gives a server, or its builder, the one-call `serve_stdio()` and `serve_http(addr)`
//! (it is in the [prelude](crate::prelude)): the server knows no transport, as axum's `Router`
//! knows no listener.
//!
//! The guide's chapter "Transports and deployment" (`docs/src/transports.md`) teaches it with examples.

#[cfg(feature = "http-handler")]
pub mod http;
pub mod in_process;
pub mod lines;
#[cfg(not(target_family = "wasm"))]
pub mod stdio;

mod serve;

pub use serve::{Serve, ServeError};
