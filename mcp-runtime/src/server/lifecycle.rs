//! The lifecycle: `initialize` (handshake era), `server/discover` (2026-07-28), and the client's
//! notifications (`initialized`, `cancelled`, and whatever the server's observers watch).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::jsonrpc::{JsonRpcNotification, RawCall};
use mcp_runtime_core::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use mcp_runtime_core::messages::ClientNotification;
use mcp_runtime_core::meta::ResultMeta;
use mcp_runtime_core::result::Cacheable;

use super::McpServer;
use super::caching::CachedList;
use super::panics::panic_message;
use crate::connection::{ConnectionState, Handshake};

/// `initialize`: negotiates the version and keeps what the client declared.
pub(super) fn initialize(
    server: &McpServer,
    params: InitializeRequestParams,
    connection: &ConnectionState,
) -> Result<InitializeResult, ErrorObject> {
    if !connection.claim_initialize() {
        return Err(ErrorObject::invalid_request(
            "the connection is already initialized; initialize may be sent once",
        ));
    }
    let version = server
        .supported_versions()
        .negotiate_initialize(&params.protocol_version)
        .map_err(ErrorObject::from)?;
    connection.complete_handshake(Handshake {
        version,
        client_capabilities: params.capabilities,
        client_info: params.client_info,
    });
    let mut result = InitializeResult::new(
        version.as_str(),
        server.capabilities(),
        server.info().clone(),
    );
    result.instructions = server.inner.instructions.clone();
    Ok(result)
}

/// `server/discover`: the versions and capabilities, and who the server is.
pub(super) fn discover(server: &McpServer) -> DiscoverResult {
    let mut result =
        DiscoverResult::new(server.supported_versions().names(), server.capabilities());
    result.instructions = server.inner.instructions.clone();
    result.meta = Some(ResultMeta::with_server_info(server.info().clone()));
    result.set_cache_hint(server.inner.options.cache_hint(CachedList::Discover));
    result
}

/// A notification from the client: `initialized` and `cancelled` change the connection; every
/// one goes to the server's observers.
pub(super) fn notification(
    server: &McpServer,
    notification: JsonRpcNotification,
    connection: &Arc<ConnectionState>,
) {
    let RawCall { method, params, .. } = notification.notification;
    let span = crate::spans::notification(&method, connection.version());
    let decoded = ClientNotification::decode(&method, params.as_ref());
    // In the trace of its sender, when its `_meta` names one.
    #[cfg(feature = "otel")]
    if let Some(trace) = decoded
        .as_ref()
        .ok()
        .and_then(ClientNotification::meta)
        .and_then(|meta| meta.trace.as_deref())
    {
        crate::telemetry::continue_trace(&span, trace);
    }
    let _span = span.entered();
    let notification = match decoded {
        Ok(notification) => notification,
        Err(error) => {
            tracing::debug!(%error, "ignored a notification");
            return;
        }
    };
    match &notification {
        ClientNotification::Initialized(_) => connection.mark_initialized(),
        ClientNotification::Cancelled(params) => {
            if let Some(id) = &params.request_id
                && !connection.cancel(id)
            {
                tracing::debug!(%id, "a cancellation matches no request in flight");
            }
        }
        _ => {}
    }
    for observer in &server.inner.observers {
        let observed =
            std::panic::catch_unwind(AssertUnwindSafe(|| observer(&notification, connection)));
        if let Err(panic) = observed {
            tracing::error!(
                method = %method,
                reason = %panic_message(panic.as_ref()),
                "a notification observer panicked"
            );
        }
    }
}
