//! The user-agent step of the authorization code flow: showing the user the authorization
//! server's page and receiving the redirect back.
//!
//! In the authorization code flow the client never sees the user's password. It sends the user
//! to the authorization server's `/authorize` page (the *authorization URL*, which carries the
//! client ID, the PKCE challenge, the scopes and a random `state`), the user logs in and
//! approves there, and the authorization server redirects the user's browser to the client's
//! *redirect URI* with a one-time `code` (or an `error`) and the same `state`. The client then
//! trades the code for tokens at the token endpoint.
//!
//! A [`UserAgent`] is the part in the middle: it knows the redirect URI, shows the user the
//! authorization URL, and brings back the URL the authorization server redirected to. The
//! client does everything else, including checking `state`, `iss` and `error` in the URL it
//! gets back. Two implementations come with the crate:
//!
//! - [`LoopbackRedirect`], for desktop and command-line applications (RFC 8252 §7.3). It
//!   listens on `127.0.0.1` and uses `http://127.0.0.1:{port}/callback` as its redirect URI,
//!   opens the authorization URL in the user's browser (and prints it on stderr, for when no
//!   browser opens), and waits for the browser to come back to the listener.
//! - [`Headless`], for authorization servers that approve without asking anybody: test
//!   servers, conformance mocks, machine-to-machine setups that still use the code flow. It
//!   requests the authorization URL itself and follows the redirects until one goes to the
//!   redirect URI.
//!
//! Anything else (a mobile application with a private-use URI scheme, an application that
//! shows the page in an embedded web view, a server-side application that redirects its own
//! web user) implements [`UserAgent`] itself:
//!
//! ```
//! use std::future::Future;
//! use std::pin::Pin;
//!
//! use mcp_runtime::client::oauth::{AuthError, UserAgent};
//! use url::Url;
//!
//! /// Asks the user to paste the address the browser ended on.
//! struct PasteBack;
//!
//! impl UserAgent for PasteBack {
//!     fn redirect_uri(&self) -> String {
//!         "https://app.example.com/oauth/done".to_owned()
//!     }
//!
//!     fn authorize<'a>(
//!         &'a self,
//!         authorization_url: &'a Url,
//!     ) -> Pin<Box<dyn Future<Output = Result<Url, AuthError>> + Send + 'a>> {
//!         Box::pin(async move {
//!             eprintln!("Open {authorization_url}, then paste the address you end up on:");
//!             let mut line = String::new();
//!             std::io::stdin().read_line(&mut line).map_err(|e| AuthError::Authorization {
//!                 detail: format!("cannot read the pasted address: {e}"),
//!             })?;
//!             Url::parse(line.trim()).map_err(|e| AuthError::Authorization {
//!                 detail: format!("the pasted address is not a URL: {e}"),
//!             })
//!         })
//!     }
//! }
//! ```

mod headless;
mod loopback;

use futures_util::future::BoxFuture;
use url::Url;

use super::AuthError;

pub use headless::Headless;
pub use loopback::LoopbackRedirect;

/// Takes the user to the authorization server and brings back its answer.
///
/// The client builds the authorization request (PKCE, `state`, `resource`, scopes) and hands
/// its URL to [`authorize`](Self::authorize); the user agent shows it to the user and returns
/// the URL the authorization server redirected to (the [`redirect_uri`](Self::redirect_uri)
/// with `code`, `state` and `iss`, or `error`). The client checks everything in it.
pub trait UserAgent: Send + Sync + 'static {
    /// Where the authorization server sends the user back: registered with the authorization
    /// server, and named in every authorization request.
    fn redirect_uri(&self) -> String;

    /// Shows the user `authorization_url`, and waits for the redirect back.
    fn authorize<'a>(&'a self, authorization_url: &'a Url)
    -> BoxFuture<'a, Result<Url, AuthError>>;
}
