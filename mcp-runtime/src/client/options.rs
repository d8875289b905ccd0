//! The options of one request: its own timeout, where its progress goes, and a token that
//! cancels it.

use std::time::Duration;

use mcp_core::progress::ProgressNotificationParams;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How one request is made (see [`McpClient::request`](super::McpClient::request) and
/// [`McpClient::call_tool_with`](super::McpClient::call_tool_with)).
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::client::{CancellationToken, RequestOptions};
///
/// let (progress, _updates) = tokio::sync::mpsc::unbounded_channel();
/// let stop = CancellationToken::new();
/// let options = RequestOptions::new()
///     .timeout(Duration::from_secs(30))
///     .progress(progress)
///     .cancel_on(stop.clone());
/// # drop(options);
/// ```
#[derive(Clone, Debug, Default)]
pub struct RequestOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) progress: Option<mpsc::UnboundedSender<ProgressNotificationParams>>,
    pub(crate) cancel: Option<CancellationToken>,
}

impl RequestOptions {
    /// The client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Waits at most `timeout` for the answer (instead of the client's
    /// [`request_timeout`](super::McpClientBuilder::request_timeout)); then the request is
    /// cancelled.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sends the request's progress notifications to `sink` (the request carries a
    /// `progressToken`).
    pub fn progress(mut self, sink: mpsc::UnboundedSender<ProgressNotificationParams>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Cancels the request when `token` is cancelled: the call returns
    /// [`ClientError::Cancelled`](super::ClientError::Cancelled) and the server is told
    /// (`notifications/cancelled`, or on 2026-07-28 over HTTP by closing the request's stream).
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}
