//! The options a server is built with: what it offers beyond its registry, and its limits.
//!
//! [`McpServerBuilder`](super::McpServerBuilder) sets them; the dispatcher and the features read
//! them.

use std::collections::HashMap;
use std::time::Duration;

use mcp_runtime_core::SupportedVersions;
use mcp_runtime_core::capabilities::CapabilityMap;
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::messages::ServerRequest;
use mcp_runtime_core::result::CacheHint;

use super::caching::CachedList;

/// Tunables set on the builder.
#[derive(Clone, Debug)]
pub(crate) struct ServerOptions {
    pub(crate) page_size: usize,
    pub(crate) validate_input: bool,
    pub(crate) validate_output: bool,
    pub(crate) require_initialized: bool,
    pub(crate) logging: bool,
    pub(crate) default_log_level: LoggingLevel,
    pub(crate) subscriptions: bool,
    pub(crate) tools_list_changed: bool,
    pub(crate) prompts_list_changed: bool,
    pub(crate) resources_list_changed: bool,
    pub(crate) completions: bool,
    pub(crate) supported_versions: SupportedVersions,
    pub(crate) extensions: CapabilityMap,
    pub(crate) experimental: CapabilityMap,
    pub(crate) max_requests_in_flight: usize,
    pub(crate) timeouts: ClientRequestTimeouts,
    /// Whether 2026-07-28 results carry `serverInfo` in their `_meta`.
    pub(crate) result_server_info: bool,
    /// Caching hints of `server/discover` and the lists (2026-07-28).
    pub(crate) cache_hints: HashMap<CachedList, CacheHint>,
    /// Whether the lists leave out what the caller's access token may not use.
    pub(crate) hide_unauthorized: bool,
}

/// How long the server waits for the client's answer to each kind of server-to-client request
/// (`None`: as long as it takes). Sampling and elicitation wait on a human, so they get minutes;
/// `ping` and `roots/list` are answered by the client program itself. Every one has a limit by
/// default, so that requests a client leaves unanswered do not pile up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClientRequestTimeouts {
    pub(crate) ping: Option<Duration>,
    pub(crate) roots: Option<Duration>,
    pub(crate) sampling: Option<Duration>,
    pub(crate) elicitation: Option<Duration>,
}

impl Default for ClientRequestTimeouts {
    fn default() -> Self {
        ClientRequestTimeouts {
            ping: Some(DEFAULT_PING_TIMEOUT),
            roots: Some(DEFAULT_ROOTS_TIMEOUT),
            sampling: Some(DEFAULT_SAMPLING_TIMEOUT),
            elicitation: Some(DEFAULT_ELICITATION_TIMEOUT),
        }
    }
}

impl ClientRequestTimeouts {
    /// The timeout for `request`.
    pub(crate) fn for_request(&self, request: &ServerRequest) -> Option<Duration> {
        match request {
            ServerRequest::Ping(_) => self.ping,
            ServerRequest::ListRoots(_) => self.roots,
            ServerRequest::CreateMessage(_) => self.sampling,
            ServerRequest::Elicit(_) => self.elicitation,
            _ => None,
        }
    }
}

/// How long [`McpServer::ping`](super::McpServer::ping) waits for the client by default.
pub const DEFAULT_PING_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `roots/list` waits for the client by default.
pub const DEFAULT_ROOTS_TIMEOUT: Duration = Duration::from_secs(60);
/// How long sampling waits for the client by default (a human may have to approve the request).
pub const DEFAULT_SAMPLING_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// How long elicitation waits for the client by default (a human fills in the form); as long as a
/// 2026-07-28 `requestState` lives.
pub const DEFAULT_ELICITATION_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// How many requests of one connection may be in flight at once by default.
pub const DEFAULT_MAX_REQUESTS_IN_FLIGHT: usize = 1024;

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: 0,
            validate_input: true,
            validate_output: false,
            require_initialized: false,
            logging: false,
            default_log_level: LoggingLevel::Info,
            subscriptions: false,
            tools_list_changed: false,
            prompts_list_changed: false,
            resources_list_changed: false,
            completions: false,
            supported_versions: SupportedVersions::ALL,
            extensions: CapabilityMap::new(),
            experimental: CapabilityMap::new(),
            max_requests_in_flight: DEFAULT_MAX_REQUESTS_IN_FLIGHT,
            timeouts: ClientRequestTimeouts::default(),
            result_server_info: true,
            cache_hints: HashMap::new(),
            hide_unauthorized: false,
        }
    }
}

impl ServerOptions {
    /// The caching hint of `list` (none set: not to be reused).
    pub(crate) fn cache_hint(&self, list: CachedList) -> CacheHint {
        self.cache_hints.get(&list).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_to_the_client_has_a_timeout_by_default() {
        let timeouts = ClientRequestTimeouts::default();
        assert_eq!(
            [
                timeouts.ping,
                timeouts.roots,
                timeouts.sampling,
                timeouts.elicitation
            ],
            [
                Some(Duration::from_secs(30)),
                Some(Duration::from_secs(60)),
                Some(Duration::from_secs(600)),
                Some(Duration::from_secs(600))
            ]
        );
    }
}
