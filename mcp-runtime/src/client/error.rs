//! How a request of the client fails.

use std::time::Duration;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::tools::CallToolResult;

/// A request of the client failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered {method} with an error: {error}")]
    Server {
        /// The method asked.
        method: &'static str,
        /// The server's error.
        error: ErrorObject,
    },
    /// The connection is gone.
    #[error("the connection to the server is closed")]
    Disconnected,
    /// The transport could not carry the request or its answer (an HTTP status without a
    /// JSON-RPC body, a refused connection, a stream that kept closing).
    #[error("{method}: {detail}")]
    Transport {
        /// The method asked.
        method: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// No answer came in time (see [`RequestOptions::timeout`](super::RequestOptions::timeout)
    /// and [`McpClientBuilder::request_timeout`](super::McpClientBuilder::request_timeout)).
    #[error("{method} timed out after {timeout:?}")]
    TimedOut {
        /// The method asked.
        method: &'static str,
        /// How long the client waited.
        timeout: Duration,
    },
    /// The caller cancelled the request (see [`RequestOptions::cancel_on`](super::RequestOptions::cancel_on)).
    #[error("{method} was cancelled")]
    Cancelled {
        /// The method asked.
        method: &'static str,
    },
    /// A message could not be written for the negotiated revision, or an answer not read.
    #[error("{method}: {detail}")]
    Protocol {
        /// The method asked.
        method: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A tool answered with an error result (`isError`), where a typed result was expected.
    #[error("tool {name} failed: {}", first_text(result))]
    Tool {
        /// The tool.
        name: String,
        /// Its error result.
        result: Box<CallToolResult>,
    },
    /// The task a tool call ran as was cancelled before it produced a result: by
    /// [`ToolTask::cancel`](super::ToolTask::cancel), by someone else who knew its id, or by the
    /// server. (A call cancelled through [`RequestOptions::cancel_on`](super::RequestOptions::cancel_on)
    /// is [`Cancelled`](Self::Cancelled).)
    #[error("task {task_id} was cancelled")]
    TaskCancelled {
        /// The task.
        task_id: String,
    },
    /// The client could not get a token the server takes (cargo feature `client-auth`):
    /// discovery, registration, the user's authorization or the token request failed, or the
    /// server kept refusing the tokens.
    #[cfg(feature = "client-auth")]
    #[error("{method}: {error}")]
    Authorization {
        /// The method asked.
        method: &'static str,
        /// What went wrong.
        error: super::oauth::AuthError,
    },
    /// The server program could not be started.
    #[error("cannot start the server: {0}")]
    Spawn(String),
    /// An app asked to call a tool that is not for apps (MCP Apps): the server lists no such
    /// tool, or its `_meta.ui.visibility` leaves out `app`. Nothing was sent.
    #[error(
        "tool {name} may not be called by an app: the server lists no such tool, or its visibility (_meta.ui.visibility) leaves out \"app\""
    )]
    NotForApp {
        /// The tool asked for.
        name: String,
    },
}

impl ClientError {
    /// The JSON-RPC error of the server, if that is what this is.
    pub fn server_error(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Server { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The error's class, as a span's `error.type` records it.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            ClientError::Server { .. } => "server_error",
            ClientError::Disconnected => "disconnected",
            ClientError::Transport { .. } => "transport",
            ClientError::TimedOut { .. } => "timeout",
            ClientError::Cancelled { .. } | ClientError::TaskCancelled { .. } => "cancelled",
            ClientError::Protocol { .. } => "protocol",
            ClientError::Tool { .. } => "tool_error",
            #[cfg(feature = "client-auth")]
            ClientError::Authorization { .. } => "authorization",
            ClientError::Spawn(_) => "spawn",
            ClientError::NotForApp { .. } => "not_for_app",
        }
    }
}

fn first_text(result: &CallToolResult) -> &str {
    result
        .content
        .iter()
        .find_map(|block| block.as_text())
        .unwrap_or("no message")
}
