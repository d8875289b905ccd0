//! `logging/setLevel` (handshake era; a 2026-07-28 request names its level in `_meta`).

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::logging::SetLevelRequestParams;
use mcp_runtime_core::result::EmptyResult;

use super::McpServer;
use crate::connection::ConnectionState;

/// `logging/setLevel`: the least severe level the connection's client wants from now on.
pub(super) fn set_level(
    server: &McpServer,
    params: &SetLevelRequestParams,
    connection: &ConnectionState,
) -> Result<EmptyResult, ErrorObject> {
    if !server.inner.options.logging {
        return Err(ErrorObject::method_not_found("logging/setLevel"));
    }
    if !connection.is_persistent() {
        return Err(super::subscriptions::needs_session("logging/setLevel"));
    }
    connection.set_log_level(params.level);
    Ok(EmptyResult::default())
}
