//! Who may use the server, and what they may do.
//!
//! The Streamable HTTP transport asks this module about every request before the server sees it:
//!
//! - the [`HostPolicy`]: the `Host` and `Origin` a request must name (403 otherwise), which keeps
//!   web pages from reaching a local server through DNS rebinding;
//! - when the server is an OAuth 2.1 protected resource, the [`ResourceServer`]: the bearer
//!   token every request must carry, checked by a [`TokenVerifier`] (`JwtVerifier` or
//!   `IntrospectionVerifier`, with the cargo feature `auth`, or one of yours), and the scopes the server requires, with the
//!   protected resource metadata (RFC 9728) that tells clients where to get a token.
//!
//! What each tool, prompt and resource requires (`#[mcp_tool(scopes = "notes:write")]`) the
//! server checks itself, against the [`AccessToken`] the transport verified; handlers read that
//! token from their context.
//!
//! stdio has no authorization: a server on stdio runs as the user who started it, and takes
//! whatever credentials it needs from its environment, as the MCP specification says.
//!
//! The guide's chapter "Authorization" (`docs/src/authorization.md`) teaches it with examples.

#[cfg(feature = "auth")]
mod cache;
#[cfg(feature = "auth")]
pub(crate) mod discovery;
#[cfg(feature = "http-handler")]
mod host;
#[cfg(feature = "auth")]
mod introspection;
#[cfg(feature = "auth")]
mod jwt;
#[cfg(feature = "http-handler")]
pub(crate) mod resource_server;
mod scopes;
mod token;
mod verify;

#[cfg(feature = "auth")]
pub use discovery::AuthorizationServerMetadata;
#[cfg(feature = "http-handler")]
pub use host::HostPolicy;
#[cfg(feature = "auth")]
pub use introspection::{ClientAuthentication, IntrospectionVerifier};
#[cfg(feature = "auth")]
pub use jwt::{Algorithm, JwtVerifier};
#[cfg(feature = "http-handler")]
pub use resource_server::{InvalidUri, ResourceServer};
pub(crate) use scopes::{grants_all, joined, scope_list};
pub use token::{AccessToken, Principal};
pub use verify::{TokenError, TokenVerifier, VerifyFuture};
