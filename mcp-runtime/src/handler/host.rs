//! The server that runs a request, as its handler sees it: the narrow [`Host`] through which a
//! `RequestContext`, and the task a call became, reach it (shared state, how long a request to
//! the client may wait, the log level). The server implements it; `handler/` never names the
//! server.

use std::any::{Any, TypeId};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::messages::ServerRequest;

use crate::connection::ConnectionState;

/// What a `RequestContext` needs of the server that runs its request: a narrow view of it, so
/// that handlers depend on this and not on the whole server.
pub(crate) trait Host: Send + Sync + 'static {
    /// The shared state registered under `type_id`.
    fn state(&self, type_id: TypeId) -> Option<&(dyn Any + Send + Sync)>;
    /// How long to wait for the client's answer to `request`.
    fn client_request_timeout(&self, request: &ServerRequest) -> Option<Duration>;
    /// The least severe level of log message to send on `connection`, or `None` when the server
    /// does not log.
    fn log_threshold(&self, connection: &ConnectionState) -> Option<LoggingLevel>;
    /// The host itself, for the extractors that hand out the server.
    fn as_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// The shared state of type `T` that `host` holds (a clone of it).
pub(crate) fn state_of<T: Clone + 'static>(host: &dyn Host) -> Option<T> {
    host.state(TypeId::of::<T>())
        .and_then(|value| value.downcast_ref::<T>())
        .cloned()
}
