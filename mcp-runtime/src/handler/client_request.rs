//! [`ClientRequestError`]: why a request a handler makes of the client (sampling, elicitation,
//! roots) could not be made or did not succeed, in the words a tool's caller reads.

use crate::connection::PeerRequestError;

/// A request from server to client could not be made or did not succeed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// The client did not declare the capability the request needs.
    #[error("the client does not support {capability}")]
    MissingCapability {
        /// The capability, e.g. `"sampling"` or `"elicitation.url"`.
        capability: &'static str,
    },
    /// There is no way to reach the client while this request runs: the transport gives
    /// requests no channel back, or (2026-07-28) the method has no input-required rounds.
    #[error(
        "cannot send {method} to the client: server-to-client requests need a connection that \
         keeps state (stdio, in-process, or a stateful HTTP server)"
    )]
    NoChannel {
        /// The method that could not be sent.
        method: &'static str,
    },
    /// The client speaks a handshake revision (before 2026-07-28) and this exchange has no
    /// session, because the server was built [`stateless`]: such a client can be asked for
    /// nothing mid-call.
    ///
    /// [`stateless`]: crate::server::McpServerBuilder::stateless
    #[error(
        "cannot ask the client for {capability}: a client of a revision before 2026-07-28 can be \
         asked only within a session, and this server was built `.stateless()`, so the exchange \
         has none; build the server with sessions (the default: drop `.stateless()`), or connect \
         with a 2026-07-28 client"
    )]
    NoSession {
        /// What the handler asked for, e.g. `"elicitation.form"` or `"sampling"`.
        capability: &'static str,
    },
    /// The params given are not valid for the request.
    #[error("invalid request params: {detail}")]
    InvalidRequest {
        /// What is wrong.
        detail: String,
    },
    /// The client answered with an error, disconnected, or the request was cancelled.
    #[error("{method}: {source}")]
    Peer {
        /// The method sent.
        method: &'static str,
        /// What happened.
        source: PeerRequestError,
    },
    /// The request is a 2026-07-28 one: what it needs was asked of the client as input, and the
    /// request is answered with an input-required result; the client's retry brings the answer.
    #[error("{method} is asked of the client as input; the client will retry the request")]
    InputRequired {
        /// The method asked for.
        method: &'static str,
    },
    /// The task the call runs as could not be read or changed (its store failed).
    #[error("the task could not be updated: {detail}")]
    Task {
        /// What failed.
        detail: String,
    },
    /// The client's answer does not fit the method.
    #[error("invalid answer to {method}: {detail}")]
    InvalidAnswer {
        /// The method sent.
        method: &'static str,
        /// What is wrong.
        detail: String,
    },
}
