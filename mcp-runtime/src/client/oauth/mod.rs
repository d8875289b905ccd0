//! Authorization: how [`McpClient`](super::McpClient) gets and presents OAuth tokens for a
//! protected server (cargo feature `client-auth`), as the MCP authorization specification
//! prescribes.
//!
//! Give the builder an [`OAuth`] and connect as usual; the rest happens on the first `401`:
//!
//! 1. **Discovery.** The client reads the server's protected resource metadata (RFC 9728), at
//!    the URL the `WWW-Authenticate` challenge names or at the well-known places, checks that
//!    it describes this server, and finds the authorization server's metadata (RFC 8414, then
//!    OpenID Connect discovery), checking its `issuer`. A server without resource metadata is
//!    taken as its own authorization server (the 2025-03-26 revision), with the default
//!    `/authorize`, `/token` and `/register` endpoints when it has no metadata either.
//! 2. **Registration.** Pre-registered credentials ([`OAuth::pre_registered`]) when there are
//!    some for that authorization server, else the registration kept in the [`TokenStore`],
//!    else a client ID metadata document ([`OAuth::client_metadata_document`]) when the
//!    authorization server accepts them, else dynamic client registration (RFC 7591).
//! 3. **The grant.** The authorization code flow with PKCE (S256), `state`, the RFC 8707
//!    `resource`, the RFC 9207 `iss` check, and `offline_access` with `prompt=consent` when
//!    the authorization server offers refresh tokens that way, through a [`UserAgent`] that
//!    shows the user the authorization server's page ([`LoopbackRedirect`] opens a browser,
//!    [`Headless`] follows the redirect itself); or, for a client without a user, the client
//!    credentials grant, a workload identity assertion (RFC 7523), or enterprise-managed
//!    authorization (a token exchange at the enterprise's identity provider, then the JWT
//!    bearer grant).
//! 4. **Tokens.** Sent on every request (`Authorization: Bearer`, or `DPoP` with a fresh proof
//!    when [`OAuth::dpop`] is on and the authorization server supports it), refreshed before
//!    they expire, and kept in the [`TokenStore`]. A `403 insufficient_scope` asks for the
//!    union of the scopes held and the ones the server names, a bounded number of times.
//!
//! Tokens, secrets and keys are [`Secret`]s: they never appear in `Debug` output, logs or
//! errors.
//!
//! ```no_run
//! use mcp_runtime::client::McpClient;
//! use mcp_runtime::client::oauth::{FileTokenStore, LoopbackRedirect, OAuth};
//! use mcp_runtime::protocol::implementation::Implementation;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let browser = LoopbackRedirect::bind(8765).await?;
//! let oauth = OAuth::authorization_code(browser)
//!     .client_name("My agent")
//!     .token_store(FileTokenStore::new("/home/me/.config/my-agent/tokens.json"));
//! let client = McpClient::builder(Implementation::new("my-agent", "1.0.0"))
//!     .oauth(oauth)
//!     .connect_http("https://mcp.example.com/mcp")
//!     .await?;
//! # drop(client);
//! # Ok(())
//! # }
//! ```

mod authorizer;
mod challenge;
mod config;
mod credentials;
mod discovery;
mod dpop;
mod endpoint;
mod error;
mod registration;
mod secret;
mod store;
mod user_agent;

pub(crate) use authorizer::{Attempts, Authorizer};
pub use config::{DEFAULT_MAX_STEP_UPS, OAuth};
pub use credentials::{Assertion, ClientCredentials, EnterpriseIdp};
pub use error::AuthError;
/// The future a [`UserAgent`] or a [`TokenStore`] returns.
pub use futures_util::future::BoxFuture;
pub use secret::Secret;
pub use store::{
    FileTokenStore, MemoryTokenStore, RegisteredClient, StoredAuthorization, TokenStore, Tokens,
};
/// The URL type of [`UserAgent::authorize`].
pub use url::Url;
pub use user_agent::{Headless, LoopbackRedirect, UserAgent};

/// 32 random bytes, base64url: a `jti`, a nonce.
fn random_token() -> String {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system has randomness");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
