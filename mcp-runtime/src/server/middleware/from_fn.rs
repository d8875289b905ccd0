//! [`from_fn`]: an async function as a layer, as axum has.

use std::future::Future;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::ServerResult;
use tower::{Layer, Service, ServiceExt};

use super::{BoxError, McpRequest, Stack, StackFuture, error_object};

/// A layer made of an async function of the request and the rest of the way to the handler
/// ([`Next`]). The function runs for every request; it may refuse it (return an error), answer by
/// itself, or call `next.run(request)` and change what comes back.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::middleware::{self, McpRequest, Next};
///
/// let server = McpServer::builder(server_info!())
///     .layer(middleware::from_fn(|request: McpRequest, next: Next| async move {
///         let what = request.describe();
///         let result = next.run(request).await;
///         tracing::info!(%what, ok = result.is_ok(), "answered");
///         result
///     }))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFnLayer<F>
where
    F: Fn(McpRequest, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<ServerResult, ErrorObject>> + Send + 'static,
{
    FromFnLayer { f }
}

/// The layer [`from_fn`] makes.
#[derive(Clone, Debug)]
pub struct FromFnLayer<F> {
    f: F,
}

impl<F: Clone> Layer<Stack> for FromFnLayer<F> {
    type Service = FromFn<F>;

    fn layer(&self, inner: Stack) -> FromFn<F> {
        FromFn {
            f: self.f.clone(),
            inner,
        }
    }
}

/// The service of a [`FromFnLayer`].
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
    inner: Stack,
}

impl<F> std::fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FromFn").finish_non_exhaustive()
    }
}

impl<F, Fut> Service<McpRequest> for FromFn<F>
where
    F: Fn(McpRequest, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<ServerResult, ErrorObject>> + Send + 'static,
{
    stack_service!(always ready);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        let next = Next {
            inner: self.inner.clone(),
        };
        let answer = (self.f)(request, next);
        Box::pin(async move { answer.await.map_err(BoxError::from) })
    }
}

/// The rest of the way to the handler, handed to a [`from_fn`] layer.
#[derive(Clone)]
pub struct Next {
    inner: Stack,
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next").finish_non_exhaustive()
    }
}

impl Next {
    /// Passes `request` on, through the layers inside this one, to the handler.
    pub async fn run(self, request: McpRequest) -> Result<ServerResult, ErrorObject> {
        let method = request.method();
        self.inner
            .oneshot(request)
            .await
            .map_err(|error| error_object(method, error))
    }
}
