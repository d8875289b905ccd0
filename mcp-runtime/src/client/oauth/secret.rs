//! [`Secret`]: a string that never shows in logs, `Debug` output or error messages.

use serde::{Deserialize, Serialize};

/// A credential (an access or refresh token, a client secret, a private key, an assertion):
/// a string whose `Debug` output is `Secret([redacted])`, so that it cannot reach a log by
/// accident. [`expose`](Self::expose) is the one way to read it.
///
/// ```
/// use mcp_runtime::client::oauth::Secret;
///
/// let token = Secret::new("eyJhbGciOi...");
/// assert_eq!(format!("{token:?}"), "Secret([redacted])");
/// assert_eq!(token.expose(), "eyJhbGciOi...");
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, to send where it belongs.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}
