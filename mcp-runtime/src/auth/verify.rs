//! [`TokenVerifier`]: how a bearer token becomes an [`AccessToken`], or is refused.
//!
//! The SDK has two verifiers of OAuth access tokens: [`JwtVerifier`](super::JwtVerifier) (JWTs
//! checked against the issuer's keys) and [`IntrospectionVerifier`](super::IntrospectionVerifier)
//! (opaque tokens, asked of the issuer). Anything else, API keys or an in-house token service,
//! is a type of yours implementing the trait, or an async closure:
//!
//! ```
//! use mcp_runtime::auth::{AccessToken, TokenError, TokenVerifier};
//!
//! let api_keys = |token: String| async move {
//!     match token.as_str() {
//!         "key-of-alice" => Ok(AccessToken::new().with_subject("alice").with_scopes(["notes:read"])),
//!         _ => Err(TokenError::invalid("unknown API key")),
//!     }
//! };
//! fn takes(_: impl TokenVerifier) {}
//! takes(api_keys);
//! ```

use std::future::Future;
use std::pin::Pin;

use super::AccessToken;

/// The future of [`TokenVerifier::verify`].
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<AccessToken, TokenError>> + Send + 'a>>;

/// Why a token was not accepted.
///
/// The description goes to the server's logs, and for an invalid token to the client too (in
/// `WWW-Authenticate`'s `error_description`): it says what was wrong with the token, never what
/// the token is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The token is not valid here: malformed, badly signed, expired, for another resource,
    /// revoked. The client gets `401` with `error="invalid_token"`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The verifier could not decide (the issuer's keys or its introspection endpoint could not
    /// be reached). The client gets `503 Service Unavailable` with `Retry-After: 5`, told only
    /// that the authorization server is unavailable: the reason, which may name its URLs, goes
    /// to the server's log.
    #[error("the token could not be verified: {0}")]
    Unavailable(String),
}

impl TokenError {
    /// A token refused for `reason`.
    pub fn invalid(reason: impl Into<String>) -> Self {
        TokenError::Invalid(reason.into())
    }

    /// A token that could not be verified, for `reason`.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        TokenError::Unavailable(reason.into())
    }
}

/// Verifies bearer tokens: the token a client presented in `Authorization: Bearer`, to the
/// [`AccessToken`] it stands for.
///
/// A verifier must check everything that makes a token valid *for this server*: its integrity,
/// its issuer, that this server is its audience (RFC 8707: a token minted for another resource
/// must be refused, never passed on), and its time of validity. The scopes are checked by the
/// server against what each tool, prompt and resource needs.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token`.
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

/// An async closure from the token to the verdict is a verifier.
impl<F, Fut> TokenVerifier for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AccessToken, TokenError>> + Send + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self(token.to_owned()))
    }
}
