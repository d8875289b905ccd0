//! [`AccessToken`]: what a verified bearer token says about the caller.
//!
//! A [`TokenVerifier`](super::TokenVerifier) turns the token a client presented into an
//! `AccessToken`; handlers read it from their [`RequestContext`](crate::RequestContext)
//! ([`access_token`](crate::RequestContext::access_token), or a `#[ctx] token: AccessToken`
//! parameter). It keeps the claims the token carried, never the token itself.
//!
//! What the server binds to a caller (a session, a `requestState`, a task) it binds to the
//! token's [`Principal`]: its issuer, its subject and its client.

use crate::rt::{SystemTime, UNIX_EPOCH};
use std::collections::BTreeSet;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A verified access token: who is calling (the subject, the client), what they may do (the
/// scopes), until when, and every claim the token or the introspection answer carried.
///
/// Built by the verifiers from claims ([`AccessToken::from_claims`]), or by a custom verifier
/// with the builder methods:
///
/// ```
/// use mcp_runtime::auth::AccessToken;
///
/// let token = AccessToken::new()
///     .with_subject("alice")
///     .with_client_id("cli")
///     .with_scopes(["notes:read", "notes:write"]);
/// assert!(token.has_scope("notes:read"));
/// assert_eq!(token.subject(), Some("alice"));
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct AccessToken {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    expires_at: Option<SystemTime>,
    issuer: Option<String>,
    audiences: Vec<String>,
    claims: Map<String, Value>,
}

/// Shows who and what, but not the claims (they may carry personal data).
impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessToken")
            .field("subject", &self.subject)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("expires_at", &self.expires_at)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl AccessToken {
    /// A token that says nothing yet: add to it with the `with_*` methods.
    pub fn new() -> Self {
        AccessToken::default()
    }

    /// The token described by `claims`, JWT claims (RFC 9068) or an introspection answer
    /// (RFC 7662), which read the same way:
    ///
    /// - `sub` is the subject;
    /// - `client_id` is the client (or `azp`, as OpenID Connect providers such as Keycloak write
    ///   it, or `cid`);
    /// - `scope` is a space-separated list of scopes (or `scp`, a list or a string, as Entra ID
    ///   and Okta write it);
    /// - `exp` is the expiry in seconds since the epoch, `iss` the issuer, `aud` the audiences
    ///   (a string or a list).
    ///
    /// Every claim is kept, to be read with [`claim`](Self::claim).
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let words = |value: &Value| -> Vec<String> {
            match value {
                Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .flat_map(str::split_whitespace)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            }
        };
        let scopes = ["scope", "scp"]
            .iter()
            .filter_map(|name| claims.get(*name))
            .flat_map(words)
            .collect();
        let audiences = match claims.get("aud") {
            Some(Value::String(aud)) => vec![aud.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        AccessToken {
            subject: text("sub"),
            client_id: text("client_id")
                .or_else(|| text("azp"))
                .or_else(|| text("cid")),
            scopes,
            expires_at: claims.get("exp").and_then(seconds_since_epoch),
            issuer: text("iss"),
            audiences,
            claims,
        }
    }

    /// The token with `subject` as its subject.
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// The token with `client_id` as its client.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The token issued by `issuer`.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The token with `scopes` added to its scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The token expiring at `at`.
    pub fn with_expiry(mut self, at: SystemTime) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// The token with `claim` set to `value` (the typed fields stay as they are).
    pub fn with_claim(mut self, claim: impl Into<String>, value: impl Into<Value>) -> Self {
        self.claims.insert(claim.into(), value.into());
        self
    }

    /// The subject (`sub`): the user, or for a client acting on its own behalf, the client.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the token was issued to (`client_id`, `azp` or `cid`).
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Who the token speaks for, as the server binds sessions, `requestState` and tasks to it:
    /// its issuer, subject and client (see [`Principal`]); `None` when the token names neither
    /// a subject nor a client.
    pub fn principal(&self) -> Option<Principal> {
        if self.subject.is_none() && self.client_id.is_none() {
            return None;
        }
        Some(Principal {
            issuer: self.issuer.clone(),
            subject: self.subject.clone(),
            client_id: self.client_id.clone(),
        })
    }

    /// The scopes granted, in order.
    pub fn scopes(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.scopes.iter().map(String::as_str)
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// When the token expires, if it says.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }

    /// The issuer (`iss`).
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The audiences (`aud`): the resources the token was issued for.
    pub fn audiences(&self) -> &[String] {
        &self.audiences
    }

    /// Every claim, as the token or the introspection answer carried them.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// The claim `name`, read as a `T`; `None` when it is absent or not a `T`.
    pub fn claim<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.claims
            .get(name)
            .and_then(|value| T::deserialize(value).ok())
    }

    /// Adds the scopes that those granted imply (see
    /// [`ResourceServer::implied_scopes`](super::ResourceServer::implied_scopes)).
    #[cfg(feature = "http-handler")]
    pub(crate) fn add_scopes(&mut self, implied: impl IntoIterator<Item = String>) {
        self.scopes.extend(implied);
    }
}

/// Who an access token speaks for: the issuer, the subject and the client of the token, each as
/// far as the token says ([`AccessToken::principal`]).
///
/// The server binds to it what a caller leaves behind: a session (only a token of the same
/// principal may use it), the `requestState` of 2026-07-28 input-required rounds (only a retry
/// by the same principal opens it), and a task (only the same principal sees it). Two tokens
/// have the same principal when their issuers, subjects and clients are all equal (absent in
/// both counts as equal): a refreshed token of the same user and client does, while the same
/// `sub` from another issuer, or the same user through another client, does not.
///
/// It is a key ([`Eq`] and [`Hash`]) and has a canonical text, [`key`](Self::key), for stores.
///
/// ```
/// use mcp_runtime::auth::AccessToken;
///
/// let token = |issuer: &str, client: &str| {
///     AccessToken::new().with_issuer(issuer).with_subject("alice").with_client_id(client)
/// };
/// let alice = token("https://idp.example.com", "cli").principal().unwrap();
/// assert_eq!(alice.key(), r#"["https://idp.example.com","alice","cli"]"#);
/// assert_eq!(token("https://idp.example.com", "cli").principal(), Some(alice.clone()));
/// assert_ne!(token("https://other.example.com", "cli").principal(), Some(alice.clone()));
/// assert_ne!(token("https://idp.example.com", "ide").principal(), Some(alice));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal {
    issuer: Option<String>,
    subject: Option<String>,
    client_id: Option<String>,
}

impl Principal {
    /// The issuer (`iss`) of the token.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The subject (`sub`) of the token.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the token was issued to.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The canonical text of the principal: the JSON array `[issuer, subject, client]`, with
    /// `null` for what the token does not say. Two principals are equal exactly when their keys
    /// are, whatever characters the values hold.
    pub fn key(&self) -> String {
        serde_json::to_string(self).expect("strings always serialize")
    }
}

/// Written as its [`key`](Principal::key), the array `[issuer, subject, client]`.
impl Serialize for Principal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (&self.issuer, &self.subject, &self.client_id).serialize(serializer)
    }
}

/// Read from the array `[issuer, subject, client]` its [`key`](Principal::key) is.
impl<'de> Deserialize<'de> for Principal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (issuer, subject, client_id) = Deserialize::deserialize(deserializer)?;
        Ok(Principal {
            issuer,
            subject,
            client_id,
        })
    }
}

/// A time given in seconds since the epoch (a JSON number, possibly fractional).
fn seconds_since_epoch(value: &Value) -> Option<SystemTime> {
    let seconds = value.as_f64().filter(|s| s.is_finite() && *s >= 0.0)?;
    UNIX_EPOCH.checked_add(Duration::try_from_secs_f64(seconds).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("the tests give objects"),
        }
    }

    #[test]
    fn jwt_claims_read_as_rfc_9068_says() {
        let token = AccessToken::from_claims(claims(json!({
            "iss": "https://idp.example.com",
            "sub": "alice",
            "client_id": "cli",
            "aud": ["https://mcp.example.com/mcp", "other"],
            "scope": "notes:read  notes:write",
            "exp": 1_900_000_000,
            "tenant": "acme",
        })));
        assert_eq!(token.subject(), Some("alice"));
        assert_eq!(token.client_id(), Some("cli"));
        assert_eq!(
            token.scopes().collect::<Vec<_>>(),
            ["notes:read", "notes:write"]
        );
        assert_eq!(
            token.expires_at(),
            Some(UNIX_EPOCH + Duration::from_secs(1_900_000_000))
        );
        assert_eq!(token.issuer(), Some("https://idp.example.com"));
        assert_eq!(token.audiences(), ["https://mcp.example.com/mcp", "other"]);
        assert_eq!(token.claim::<String>("tenant").as_deref(), Some("acme"));
        assert_eq!(
            token.principal().map(|p| p.key()).as_deref(),
            Some(r#"["https://idp.example.com","alice","cli"]"#)
        );
    }

    #[test]
    fn provider_spellings_of_client_and_scopes_are_read() {
        let token = AccessToken::from_claims(claims(json!({
            "azp": "keycloak-client",
            "scp": ["files.read", "files.write"],
            "aud": "api://mcp",
        })));
        assert_eq!(token.client_id(), Some("keycloak-client"));
        assert_eq!(
            token.principal().map(|p| p.key()).as_deref(),
            Some(r#"[null,null,"keycloak-client"]"#)
        );
        assert_eq!(
            token.scopes().collect::<Vec<_>>(),
            ["files.read", "files.write"]
        );
        assert_eq!(token.audiences(), ["api://mcp"]);
        assert_eq!(token.expires_at(), None);
    }

    #[test]
    fn debug_output_leaves_the_claims_out() {
        let token = AccessToken::new()
            .with_subject("alice")
            .with_claim("email", "alice@example.com");
        let shown = format!("{token:?}");
        assert!(shown.contains("alice"), "{shown}");
        assert!(!shown.contains("alice@example.com"), "{shown}");
    }

    #[test]
    fn principals_tell_issuers_subjects_and_clients_apart_whatever_they_hold() {
        let principal = |issuer: Option<&str>, subject: Option<&str>, client: Option<&str>| {
            let mut token = AccessToken::new();
            token.issuer = issuer.map(str::to_owned);
            token.subject = subject.map(str::to_owned);
            token.client_id = client.map(str::to_owned);
            token.principal()
        };
        // Values that would run together if they were joined with a separator stay apart.
        let a = principal(Some("https://idp|x"), Some("alice"), None).unwrap();
        let b = principal(Some("https://idp"), Some("x|alice"), None).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.key(), r#"["https://idp|x","alice",null]"#);
        assert_eq!(b.key(), r#"["https://idp","x|alice",null]"#);
        // A subject is not a client of the same name.
        assert_ne!(
            principal(None, Some("svc"), None),
            principal(None, None, Some("svc"))
        );
        let quoted = principal(Some("i\"ss"), Some("sub,\"]"), Some("c")).unwrap();
        assert_eq!(quoted.key(), r#"["i\"ss","sub,\"]","c"]"#);
        assert_eq!(
            serde_json::from_str::<Principal>(&quoted.key()).unwrap(),
            quoted
        );
        assert_eq!(
            (quoted.issuer(), quoted.subject(), quoted.client_id()),
            (Some("i\"ss"), Some("sub,\"]"), Some("c"))
        );
        // A token naming neither a subject nor a client speaks for no one in particular.
        assert_eq!(principal(Some("https://idp"), None, None), None);
    }
}
