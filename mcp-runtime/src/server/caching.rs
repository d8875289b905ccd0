//! Caching hints (2026-07-28, SEP-2549): how long a client may reuse a result and who may share
//! it. `server/discover`, every `*/list` result and `resources/read` carry `ttlMs` and
//! `cacheScope`; the server builder sets them per list, and resource and template definitions
//! per resource. A hint is the protocol model's
//! [`CacheHint`](crate::protocol::result::CacheHint).
//!
//! ```
//! use std::time::Duration;
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::protocol::result::CacheHint;
//! use mcp_runtime::server::caching::CachedList;
//!
//! let server = McpServer::builder(server_info!())
//!     // The tool list changes only with a deployment: any client may keep it five minutes.
//!     .cache_hint(CachedList::Tools, CacheHint::public(Duration::from_secs(300)))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

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
    /// `skills/list`, `skills/get` and `resources/directory/read` (the skills extension).
    Skills,
}
