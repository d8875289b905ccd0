//! [`Audit`]: one structured `tracing` event per request.

use crate::rt::Instant;

use mcp_runtime_core::messages::ServerResult;
use tower::{Layer, Service};

use super::{McpRequest, Stack, StackFuture};

/// Emits one `tracing` event per request when it ends, at `INFO` with the target `mcp::audit`:
/// the method, the target's name, the caller (issuer, subject and client of its token), the
/// connection, the revision, the request id, the outcome (`ok`, `tool_error`, or `error` with its
/// code) and how long it took in milliseconds. Route the target to an audit log with your
/// subscriber (`tracing_subscriber::filter::Targets`), or to an OpenTelemetry exporter.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::middleware::Audit;
///
/// let server = McpServer::builder(server_info!()).layer(Audit).build().unwrap();
/// # drop(server);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Audit;

impl Layer<Stack> for Audit {
    type Service = AuditService;

    fn layer(&self, inner: Stack) -> AuditService {
        AuditService { inner }
    }
}

/// The service of [`Audit`].
#[derive(Clone, Debug)]
pub struct AuditService {
    inner: Stack,
}

impl Service<McpRequest> for AuditService {
    stack_service!(ready when inner);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        let method = request.method();
        let target = request.target().name().map(str::to_owned);
        let ctx = request.context();
        let principal = ctx.access_token().and_then(|token| token.principal());
        let caller = |part: fn(&crate::auth::Principal) -> Option<&str>| {
            principal.as_ref().and_then(|p| part(p)).map(str::to_owned)
        };
        let (issuer, subject, client) = (
            caller(crate::auth::Principal::issuer),
            caller(crate::auth::Principal::subject),
            caller(crate::auth::Principal::client_id),
        );
        let (connection, version, id) = (
            ctx.connection().id(),
            ctx.protocol_version(),
            ctx.request_id().to_string(),
        );
        let started = Instant::now();
        let call = self.inner.call(request);
        Box::pin(async move {
            let outcome = call.await;
            let (result, code) = match &outcome {
                Ok(ServerResult::CallTool(result)) if result.is_error() => ("tool_error", None),
                Ok(_) => ("ok", None),
                Err(error) => (
                    "error",
                    error
                        .downcast_ref::<mcp_runtime_core::ErrorObject>()
                        .map(|error| error.code.0),
                ),
            };
            tracing::info!(
                target: "mcp::audit",
                method,
                target = target.as_deref(),
                issuer = issuer.as_deref(),
                subject = subject.as_deref(),
                client = client.as_deref(),
                connection,
                %version,
                id,
                result,
                code,
                duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "request"
            );
            outcome
        })
    }
}
