//! Who may use the server.
//!
//! The Streamable HTTP transport asks this module about every request before the server sees it.
//! Today that is the [`HostPolicy`]: the `Host` and `Origin` a request must name (403 otherwise),
//! which keeps web pages from reaching a local server through DNS rebinding. The checks of who the
//! caller is and what it may do (bearer tokens of an OAuth 2.1 authorization server, their scopes)
//! belong here too, beside it.

mod host;

pub use host::HostPolicy;
