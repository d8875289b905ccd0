//! Limits on a request: how long it may take ([`Timeout`]), how many run at once
//! ([`ConcurrencyLimit`]), how large its result may be ([`ResponseSizeLimit`]).
//!
//! Each is a layer for the whole server or for one tool, prompt or resource:
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::server::middleware::{ConcurrencyLimit, ResponseSizeLimit, Timeout};
//!
//! let server = McpServer::builder(server_info!())
//!     .layer(ResponseSizeLimit::new(1 << 20))
//!     .tool(ToolDefinition::new("crawl", Default::default(), |_args, _ctx| async {
//!         "done"
//!     }))
//!     .tool_layer("crawl", Timeout::new(Duration::from_secs(30)))
//!     .tool_layer("crawl", ConcurrencyLimit::new(2))
//!     .build()
//!     .unwrap();
//! # drop(server);
//! ```

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::tools::CallToolResult;
use tokio::sync::Semaphore;
use tower::{Layer, Service, ServiceExt};

use super::{McpRequest, Stack, StackFuture, timed_out};

/// Refuses a request that takes longer than a duration: the handler is stopped (its future
/// dropped) and the client gets a `-32001` error ("... timed out"). Unlike tower's own
/// `TimeoutLayer`, which it otherwise matches, it says how long the request was allowed.
#[derive(Clone, Copy, Debug)]
pub struct Timeout {
    limit: Duration,
}

impl Timeout {
    /// A timeout of `limit`.
    pub fn new(limit: Duration) -> Self {
        Timeout { limit }
    }
}

impl Layer<Stack> for Timeout {
    type Service = TimeoutService;

    fn layer(&self, inner: Stack) -> TimeoutService {
        TimeoutService {
            limit: self.limit,
            inner,
        }
    }
}

/// The service of a [`Timeout`].
#[derive(Clone)]
pub struct TimeoutService {
    limit: Duration,
    inner: Stack,
}

impl std::fmt::Debug for TimeoutService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimeoutService")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl Service<McpRequest> for TimeoutService {
    stack_service!(ready when inner);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        let limit = self.limit;
        let what = request.describe();
        let method = request.method();
        let call = self.inner.call(request);
        Box::pin(async move {
            match crate::rt::timeout(limit, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    let mut error = timed_out(method);
                    error.message = format!(
                        "{what} timed out: it took longer than the {} the server allows",
                        seconds(limit)
                    );
                    Err(error.into())
                }
            }
        })
    }
}

/// `duration` in words: "2 s", "250 ms".
fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// Runs at most a number of requests at once; the others wait for a place (a request the client
/// cancels stops waiting). On one tool, it limits that tool's calls across every session.
#[derive(Clone, Debug)]
pub struct ConcurrencyLimit {
    places: Arc<Semaphore>,
}

impl ConcurrencyLimit {
    /// At most `limit` requests at once (at least one).
    pub fn new(limit: usize) -> Self {
        ConcurrencyLimit {
            places: Arc::new(Semaphore::new(limit.max(1))),
        }
    }
}

impl Layer<Stack> for ConcurrencyLimit {
    type Service = ConcurrencyLimitService;

    fn layer(&self, inner: Stack) -> ConcurrencyLimitService {
        ConcurrencyLimitService {
            places: self.places.clone(),
            inner,
        }
    }
}

/// The service of a [`ConcurrencyLimit`].
#[derive(Clone)]
pub struct ConcurrencyLimitService {
    places: Arc<Semaphore>,
    inner: Stack,
}

impl std::fmt::Debug for ConcurrencyLimitService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConcurrencyLimitService")
            .field("free", &self.places.available_permits())
            .finish_non_exhaustive()
    }
}

impl Service<McpRequest> for ConcurrencyLimitService {
    stack_service!(always ready);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        let places = self.places.clone();
        let inner = self.inner.clone();
        Box::pin(async move {
            let cancelled = request.context().cancellation_token().clone();
            let _place = tokio::select! {
                place = places.acquire_owned() => place?,
                () = cancelled.cancelled() => {
                    return Err(ErrorObject::internal_error(format!(
                        "{} was cancelled while it waited for a place",
                        request.describe()
                    )).into());
                }
            };
            inner.oneshot(request).await
        })
    }
}

/// Refuses a result larger than a number of bytes as JSON (as the handler made it, before the
/// revision's rendering adds or leaves out a few dozen bytes of envelope): a tool's becomes a tool
/// error the model reads ("... is 3,145,728 bytes, over the limit ..."), another request's an
/// internal error. What a handler sends meanwhile (progress, logs) is not counted.
#[derive(Clone, Copy, Debug)]
pub struct ResponseSizeLimit {
    limit: usize,
}

impl ResponseSizeLimit {
    /// Results of at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        ResponseSizeLimit { limit }
    }
}

impl Layer<Stack> for ResponseSizeLimit {
    type Service = ResponseSizeLimitService;

    fn layer(&self, inner: Stack) -> ResponseSizeLimitService {
        ResponseSizeLimitService {
            limit: self.limit,
            inner,
        }
    }
}

/// The service of a [`ResponseSizeLimit`].
#[derive(Clone)]
pub struct ResponseSizeLimitService {
    limit: usize,
    inner: Stack,
}

impl std::fmt::Debug for ResponseSizeLimitService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseSizeLimitService")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl Service<McpRequest> for ResponseSizeLimitService {
    stack_service!(ready when inner);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        let limit = self.limit;
        let what = request.describe();
        let call = self.inner.call(request);
        Box::pin(async move {
            let result = call.await?;
            let size = json_size(&result);
            if size <= limit {
                return Ok(result);
            }
            let message = format!(
                "The result of {what} is {} bytes, over the limit of {} the server sets",
                grouped(size),
                grouped(limit)
            );
            tracing::warn!(%what, size, limit, "refused a result over the size limit");
            match result {
                ServerResult::CallTool(_) => Ok(CallToolResult::error(message).into()),
                _ => Err(ErrorObject::internal_error(message).into()),
            }
        })
    }
}

/// The size of `result` as JSON, counted without building the text.
fn json_size(result: &ServerResult) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, result) {
        Ok(()) => count.0,
        // What cannot be written cannot be sent either; the writer reports it.
        Err(_) => 0,
    }
}

/// `n` with thousands separated by commas.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_read_as_words() {
        assert_eq!(grouped(3_145_728), "3,145,728");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
