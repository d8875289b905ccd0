//! [`AuthError`]: why the client could not get or use a token.

/// The client could not get a token for the server, or the server would not take the one it
/// got. Each variant's message says which step failed and what the user can do; none carries a
/// token or a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The client could not find out how to authorize: the protected resource metadata or the
    /// authorization server's metadata was missing, unreachable or malformed.
    #[error("cannot discover how to authorize with {server}: {detail}")]
    Discovery {
        /// The MCP server's URL.
        server: String,
        /// What was tried and what each place answered.
        detail: String,
    },
    /// The protected resource metadata describes another resource than the server the client
    /// connects to (RFC 9728 §3.3): a token obtained for it could be used against this server,
    /// so the client refuses to go on.
    #[error(
        "the protected resource metadata of {server} is for the resource {published}, not for \
         this server; refusing to authorize (RFC 9728 §3.3)"
    )]
    ResourceMismatch {
        /// The MCP server's URL.
        server: String,
        /// The `resource` the metadata names.
        published: String,
    },
    /// The authorization server's metadata names another issuer than the one it was fetched
    /// for (RFC 8414 §3.3), or its authorization response carried an `iss` that is not its
    /// issuer (RFC 9207): someone may be mixing up authorization servers.
    #[error("{detail}")]
    IssuerMismatch {
        /// What did not match.
        detail: String,
    },
    /// The client could not register with the authorization server, and has no pre-registered
    /// credentials for it.
    #[error("cannot register with the authorization server {issuer}: {detail}")]
    Registration {
        /// The authorization server.
        issuer: String,
        /// Why.
        detail: String,
    },
    /// The client has no credentials for the authorization server, which offers no dynamic
    /// client registration (RFC 7591) and takes no client ID metadata document from it: the
    /// client must be registered there beforehand, and its credentials given to
    /// [`OAuth::pre_registered`](super::OAuth::pre_registered). An application that takes
    /// the credentials from its user matches this variant to say how to give them.
    #[error(
        "the authorization server {issuer} offers no dynamic client registration: register the \
         client there and give its credentials to OAuth::pre_registered"
    )]
    RegistrationUnavailable {
        /// The authorization server.
        issuer: String,
    },
    /// The user did not complete the authorization, the authorization server refused it, or the
    /// authorization response was not the one the client was waiting for (wrong `state`).
    #[error("the authorization did not complete: {detail}")]
    Authorization {
        /// What happened.
        detail: String,
    },
    /// The token endpoint refused the request (RFC 6749 §5.2).
    #[error(
        "the authorization server {issuer} refused the token request: {error}{}",
        description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    Token {
        /// The authorization server.
        issuer: String,
        /// The OAuth error code (`invalid_grant`, `invalid_client`, ...).
        error: String,
        /// The server's explanation, when it gave one.
        description: Option<String>,
    },
    /// The server still refuses the request for want of scope after the client asked the user
    /// for more (`403 insufficient_scope`) as often as it may.
    #[error(
        "the server requires the scope {scope:?}, which the authorization server did not grant \
         after {attempts} attempts"
    )]
    InsufficientScope {
        /// The scope the server asked for last.
        scope: String,
        /// How many times the client asked for it.
        attempts: usize,
    },
    /// The server refused the token the authorization server just issued.
    #[error("the server refused the new token: {detail}")]
    Rejected {
        /// What the server answered.
        detail: String,
    },
    /// The client is set up in a way that cannot work (a key that does not parse, a grant the
    /// authorization server does not support).
    #[error("{detail}")]
    Configuration {
        /// What to change.
        detail: String,
    },
    /// A request to the authorization server failed on the way.
    #[error("{detail}")]
    Unreachable {
        /// Which request, and why.
        detail: String,
    },
    /// The token store failed.
    #[error("the token store failed: {detail}")]
    Store {
        /// Why.
        detail: String,
    },
}
