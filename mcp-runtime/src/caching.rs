//! Caching hints (2026-07-28, SEP-2549): how long a client may reuse a result and who may share
//! it. `server/discover`, every `*/list` result and `resources/read` carry `ttlMs` and
//! `cacheScope`; the server builder sets them per list, and resource and template definitions
//! per resource.
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::caching::{CacheHint, CachedList};
//! use mcp_runtime::prelude::*;
//!
//! let server = McpServer::builder(server_info!())
//!     // The tool list changes only with a deployment: any client may keep it five minutes.
//!     .cache_hint(CachedList::Tools, CacheHint::public(Duration::from_secs(300)))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

use std::time::Duration;

pub use mcp_core::result::CacheScope;

/// How long a result may be reused, and by whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh (`ttlMs`); zero (the default) means it must not be reused.
    pub ttl: Duration,
    /// Who may reuse it (`cacheScope`); private (the default) keeps it to the same authorization
    /// context.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Fresh for `ttl`, within the same authorization context.
    pub fn private(ttl: Duration) -> Self {
        CacheHint {
            ttl,
            scope: CacheScope::Private,
        }
    }

    /// Fresh for `ttl`, for any client and intermediary.
    pub fn public(ttl: Duration) -> Self {
        CacheHint {
            ttl,
            scope: CacheScope::Public,
        }
    }

    /// `ttlMs`, saturated to what the wire carries.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

/// The results a server builder sets caching hints for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CachedList {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
}
