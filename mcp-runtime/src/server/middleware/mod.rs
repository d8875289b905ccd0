//! Middleware: layers around every request, at the level of MCP operations.
//!
//! Admission resolves each request into an [`McpRequest`]: its method and decoded params, the
//! tool, prompt, resource or template it targets ([`Target`]), the caller (token, session, era).
//! Between admission and the handler, the request passes through layers: [`tower`] layers over
//! a [`Service`] of `McpRequest` that answers with a
//! [`ServerResult`]. A layer sees
//! "`tools/call` of `delete_note` by subject alice", not bytes; it can refuse with an MCP error,
//! answer by itself (from a cache), change the request or the result, and watch what the
//! handler sends the client ([`RequestContext::observe`](crate::context::RequestContext::observe)).
//! The same layers run on stdio, in process and over HTTP, in both eras, and around the work of a
//! task.
//!
//! Layers go on the whole server ([`McpServerBuilder::layer`](super::McpServerBuilder::layer)),
//! or on one tool, prompt or resource ([`McpServerBuilder::tool_layer`](super::McpServerBuilder::tool_layer),
//! `#[mcp_tool(layer = ...)]`). The server's layers run first, the target's next, the handler
//! last. The last layer added to the server is the outermost, as with axum's `Router::layer`.
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::server::middleware::{self, McpRequest, Next};
//!
//! let server = McpServer::builder(server_info!())
//!     // An async function as a layer: it sees every request, and may refuse it.
//!     .layer(middleware::from_fn(|request: McpRequest, next: Next| async move {
//!         if request.target().name() == Some("shutdown") && request.access_token().is_none() {
//!             return Err(mcp_runtime::protocol::ErrorObject::invalid_request("not you"));
//!         }
//!         next.run(request).await
//!     }))
//!     // Tower's own layers apply as they are.
//!     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30)))
//!     .build()
//!     .unwrap();
//! # drop(server);
//! ```
//!
//! Errors of tower's layers become MCP errors: a [`tower::timeout::error::Elapsed`] is `-32001`
//! ("request timed out"), a [`tower::load_shed::error::Overloaded`] is `-32000` with "retry",
//! an [`ErrorObject`] is itself, anything else an internal error that names the request.
//!
//! Built-in layers: [`Timeout`], [`ConcurrencyLimit`], [`RateLimit`] (per caller), [`ResponseSizeLimit`],
//! [`Hide`] (per caller, from the lists and from use), and [`Audit`] (one `tracing` event per
//! request). The check of the scopes a target declares runs at admission, before any layer: the
//! HTTP transport must answer it with `403` before the response starts.
//!
//! The guide's chapter "Middleware" (`docs/src/middleware.md`) teaches it.

/// What every service of this module declares: it answers an `McpRequest` with a boxed future
/// of a `ServerResult`, and is ready when the service it wraps is (or always: for one that wraps
/// none, or clones what it wraps for each call).
macro_rules! stack_service {
    (ready when inner) => {
        type Response = mcp_runtime_core::messages::ServerResult;
        type Error = crate::server::middleware::BoxError;
        type Future = crate::server::middleware::StackFuture;

        fn poll_ready(
            &mut self,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), crate::server::middleware::BoxError>> {
            self.inner.poll_ready(cx)
        }
    };
    (always ready) => {
        type Response = mcp_runtime_core::messages::ServerResult;
        type Error = crate::server::middleware::BoxError;
        type Future = crate::server::middleware::StackFuture;

        fn poll_ready(
            &mut self,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), crate::server::middleware::BoxError>> {
            std::task::Poll::Ready(Ok(()))
        }
    };
}

mod audit;
mod from_fn;
mod hide;
mod layers;
mod limits;
mod rate_limit;

use std::future::Future;
use std::pin::Pin;

use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::{ErrorCode, ErrorObject};
use tower::{Layer, Service, ServiceExt};

pub use super::request::{BoxError, Listed, McpRequest, Stack, Target};
pub use audit::{Audit, AuditService};
pub use from_fn::{FromFn, FromFnLayer, Next, from_fn};
pub use hide::{Hide, HideService};
pub use layers::LayerEntry;
pub use layers::UnknownLayerTarget;
pub(in crate::server) use layers::{Kind, Layers, TargetLayers};
pub use limits::{
    ConcurrencyLimit, ConcurrencyLimitService, ResponseSizeLimit, ResponseSizeLimitService,
    Timeout, TimeoutService,
};
pub use rate_limit::{CallerKey, RateLimit, RateLimitService};

/// The future of a request through the layers.
pub(in crate::server) type StackFuture =
    Pin<Box<dyn Future<Output = Result<ServerResult, BoxError>> + Send>>;

/// A layer applied to a [`Stack`], kept until the server is built.
#[doc(hidden)]
pub type BoxedLayer = Box<dyn FnOnce(Stack) -> Stack + Send + Sync>;

/// A layer a server can run requests through: a tower [`Layer`] over [`Stack`] whose service
/// answers an [`McpRequest`] with a [`ServerResult`], and fails with any error. Tower's own
/// layers, the built-ins and [`from_fn`] all are; there is nothing to implement.
pub trait McpLayer: Send + Sync + 'static {
    /// The layer, boxed for the builder to apply when it builds the server.
    #[doc(hidden)]
    fn boxed(self) -> BoxedLayer;
}

impl<L> McpLayer for L
where
    L: Layer<Stack> + Send + Sync + 'static,
    L::Service: Service<McpRequest, Response = ServerResult> + Clone + Send + Sync + 'static,
    <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
    <L::Service as Service<McpRequest>>::Future: Send + 'static,
{
    fn boxed(self) -> BoxedLayer {
        Box::new(move |inner| Stack::new(self.layer(inner).map_err(Into::into)))
    }
}

/// `layer`, boxed for later: what `#[mcp_tool(layer = ...)]` keeps.
#[doc(hidden)]
pub fn boxed_layer(layer: impl McpLayer) -> BoxedLayer {
    layer.boxed()
}

/// The end of the server's layers: the target's own layers, if it has any, then the handler.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::server) struct ToTarget;

impl Service<McpRequest> for ToTarget {
    stack_service!(always ready);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        match request.parts.target.layers.clone() {
            Some(layers) => Box::pin(layers.oneshot(request)),
            None => Handler.call(request),
        }
    }
}

/// The end of every stack: the handler of the request's method.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::server) struct Handler;

impl Service<McpRequest> for Handler {
    stack_service!(always ready);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        Box::pin(async move { super::route::answer(request).await.map_err(BoxError::from) })
    }
}

/// Runs `request` through the server's layers and its target's, then its handler.
///
/// A request without layers ([`is_layered`]) goes straight to [`route::answer`](super::route::answer)
/// instead: the dispatcher calls it, without a box or a level of futures.
pub(in crate::server) fn run(
    request: McpRequest,
) -> Pin<Box<dyn Future<Output = Result<ServerResult, ErrorObject>> + Send>> {
    let parts = &request.parts;
    let stack = match (&parts.server.inner.layers, &parts.target.layers) {
        (Some(server), _) => server.clone(),
        (None, Some(target)) => target.clone(),
        (None, None) => Stack::new(Handler),
    };
    let method = request.method();
    Box::pin(async move {
        stack
            .oneshot(request)
            .await
            .map_err(|error| error_object(method, error))
    })
}

/// Whether `request` has layers to run through: the server's, or its target's.
pub(in crate::server) fn is_layered(request: &McpRequest) -> bool {
    request.parts.server.inner.layers.is_some() || request.parts.target.layers.is_some()
}

/// The MCP error for what a layer failed with (see the module docs).
fn error_object(method: &str, error: BoxError) -> ErrorObject {
    let error = match error.downcast::<ErrorObject>() {
        Ok(error) => return *error,
        Err(error) => error,
    };
    if error.is::<tower::timeout::error::Elapsed>() {
        return timed_out(method);
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return ErrorObject::new(
            OVERLOADED,
            format!("{method} refused: the server is at its limit of requests; retry shortly"),
        );
    }
    ErrorObject::internal_error(format!("{method} failed in a middleware layer: {error}"))
}

/// The error of a request that took longer than a layer allowed.
pub(in crate::server) fn timed_out(method: &str) -> ErrorObject {
    ErrorObject::new(
        REQUEST_TIMEOUT,
        format!("{method} timed out: it took longer than the server allows"),
    )
}

/// The code of a request that took longer than a layer allowed (the TypeScript SDK's
/// `RequestTimeout`).
pub const REQUEST_TIMEOUT: ErrorCode = ErrorCode(-32001);

/// The code of a request a layer refused for load: too many at once, or too many from the caller
/// lately. The same as [`TOO_MANY_REQUESTS`](super::TOO_MANY_REQUESTS).
pub const OVERLOADED: ErrorCode = ErrorCode(-32000);
