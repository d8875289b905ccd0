//! Integrity protection for `requestState` (2026-07-28, SEP-2322).
//!
//! A server that answers a request with an input-required result may hand the client a
//! `requestState` string, which the client echoes on its retry. The string comes back from the
//! client, so it is attacker-controlled: a [`RequestStateCodec`] seals what the handler wants to
//! keep into a token that the server alone can open. A token carries
//!
//! - the handler's data (any JSON);
//! - an expiry (ten minutes after sealing by default);
//! - the [`Principal`] the state was issued to: the issuer, subject and client of the request's
//!   access token (when the transport verified one), so that neither another user, nor the same
//!   `sub` of another issuer, nor the same user through another client can open it;
//! - a SHA-256 digest of the original request (method and params, without `_meta`,
//!   `inputResponses` and `requestState`), so that state issued for one call cannot be replayed
//!   on another;
//! - 128 random bits, so that no two tokens are alike, even those sealed in the same second for
//!   the same request with the same data (two clients starting the same call at once);
//!
//! and an HMAC-SHA256 over all of it, under a key named in the token, so that keys can be
//! rotated: a codec seals with its current key and opens tokens of its current and previous keys.
//!
//! A token opens once: the codec remembers the tokens it opened until they expire, and refuses
//! one sent again ([`RequestStateError::Replayed`]), so a round's answers cannot be played twice
//! into a handler. The record is this process's, bounded to the most recent
//! [`SPENT_TOKENS`] tokens (older ones fall out of it first); servers of several instances that
//! must consume a state at most once keep their own record in a shared store.
//! [`RequestStateCodec::reusable`] turns the record off: a token then opens on every retry of
//! the identical request until it expires.
//!
//! ```
//! use mcp_runtime::auth::AccessToken;
//! use mcp_runtime::request_state::{RequestBinding, RequestStateCodec};
//! use serde_json::json;
//!
//! let codec = RequestStateCodec::new("k1", [7u8; 32]).unwrap();
//! let alice = AccessToken::new().with_issuer("https://idp.example.com").with_subject("alice");
//! let params = json!({"name": "deploy", "arguments": {"env": "prod"}});
//! let binding = RequestBinding::new(alice.principal().as_ref(), "tools/call", &params);
//! let token = codec.seal(&binding, &json!({"step": 2}));
//! assert_eq!(codec.open(&token, &binding).unwrap(), json!({"step": 2}));
//!
//! // The same token on another call, or for another principal, is refused.
//! let other = json!({"name": "deploy"});
//! let other = RequestBinding::new(alice.principal().as_ref(), "tools/call", &other);
//! assert!(codec.open(&token, &other).is_err());
//! ```
//!
//! Every instance of a deployment must seal with the same key. The guide and the examples give it
//! as the base64 of at least 32 random bytes (`head -c 32 /dev/urandom | base64`), in an
//! environment variable ([`RequestStateCodec::from_env`]) or as text
//! ([`RequestStateCodec::from_base64`]): the key is then named after a digest of itself
//! ([`key_id`]), so that the instances agree on its name without being told, and a new key gets a
//! new name. [`RequestStateCodec::new`] takes raw bytes under a name of yours.
//!
//! The guide's chapter "Elicitation, sampling and roots" (`docs/src/client-features.md`) teaches it with examples.

use crate::rt::{SystemTime, UNIX_EPOCH};
use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{
    STANDARD_PAD_INDIFFERENT, URL_SAFE_NO_PAD, URL_SAFE_PAD_INDIFFERENT,
};
use hmac::{Hmac, KeyInit, Mac};
use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::jsonrpc::Params;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::auth::Principal;

/// The version tag that starts every token.
const VERSION: &str = "v1";
/// The shortest secret a key may have, in bytes.
const MIN_SECRET: usize = 32;
/// How many random bytes make a token unique.
const NONCE: usize = 16;
/// How many opened tokens a codec remembers, at most, to refuse them again.
pub const SPENT_TOKENS: usize = 100_000;

/// Why a `requestState` was refused (or a key rejected).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestStateError {
    /// The token is not one this codec writes.
    #[error("requestState is malformed")]
    Malformed,
    /// The token names a key the codec does not hold (rotated out, or another server's).
    #[error("requestState was sealed with an unknown key {0:?}")]
    UnknownKey(String),
    /// The MAC does not match: the token was altered.
    #[error("requestState integrity check failed")]
    Tampered,
    /// The token is past its expiry.
    #[error("requestState has expired")]
    Expired,
    /// The token was issued to another [`Principal`] (another issuer, subject or client).
    #[error("requestState was issued to another client")]
    ForeignSubject,
    /// The token was issued for another request.
    #[error("requestState was issued for another request")]
    ForeignRequest,
    /// The token was already used: a retry carries the `requestState` of the latest answer.
    #[error("requestState was already used: retry with the requestState of the latest answer")]
    Replayed,
    /// A key's secret is too short.
    #[error("a requestState key needs a secret of at least {MIN_SECRET} bytes, not {0}")]
    WeakKey(usize),
}

impl From<&RequestStateError> for ErrorObject {
    /// A refused state is an invalid parameter of the retried request (-32602).
    fn from(error: &RequestStateError) -> Self {
        ErrorObject::invalid_params(error.to_string())
    }
}

impl From<RequestStateError> for ErrorObject {
    fn from(error: RequestStateError) -> Self {
        ErrorObject::from(&error)
    }
}

/// What a token is bound to: the principal it was issued to and the request it belongs to.
///
/// Two bindings are equal when their principals, methods and canonical params are.
#[derive(Clone, Debug)]
pub struct RequestBinding {
    principal: Option<Principal>,
    /// Borrowed for the three methods that have rounds, so that binding a request allocates
    /// nothing.
    method: Cow<'static, str>,
    /// Made canonical and hashed only when a token is sealed or opened, which most requests
    /// never need.
    params: Option<Params>,
}

impl RequestBinding {
    /// The binding of a request of `method` with `params`, made by `principal` (that of the
    /// request's access token, [`AccessToken::principal`](crate::auth::AccessToken::principal),
    /// if the transport verified one). The params' `_meta`, `inputResponses` and `requestState`
    /// are left out, and objects are compared whatever their key order, so that the original
    /// request and its retries have the same binding.
    pub fn new(principal: Option<&Principal>, method: &str, params: &Value) -> Self {
        Self::from_params(principal, method, Some(Params::from_value(params)))
    }

    /// Like [`new`](Self::new), for params as received.
    pub fn from_params(
        principal: Option<&Principal>,
        method: &str,
        params: Option<Params>,
    ) -> Self {
        let method = match method {
            "tools/call" => Cow::Borrowed("tools/call"),
            "prompts/get" => Cow::Borrowed("prompts/get"),
            "resources/read" => Cow::Borrowed("resources/read"),
            other => Cow::Owned(other.to_owned()),
        };
        RequestBinding {
            principal: principal.cloned(),
            method,
            params,
        }
    }

    /// The method and the params written with the keys of every object sorted, without the
    /// members that change between rounds.
    fn canonical(&self) -> Vec<u8> {
        let mut canonical = Vec::with_capacity(256);
        canonical.extend_from_slice(self.method.as_bytes());
        canonical.push(0);
        let skipped = |key: &str| matches!(key, "_meta" | "inputResponses" | "requestState");
        match self.params.as_ref().map(Params::to_value) {
            Some(Value::Object(map)) => write_canonical_object(&map, &skipped, &mut canonical),
            other => write_canonical(&other.unwrap_or(Value::Null), &mut canonical),
        }
        canonical
    }

    /// The SHA-256 of the method and the canonical params.
    fn digest(&self) -> [u8; 32] {
        Sha256::digest(self.canonical()).into()
    }
}

impl PartialEq for RequestBinding {
    fn eq(&self, other: &Self) -> bool {
        self.principal == other.principal && self.canonical() == other.canonical()
    }
}

impl Eq for RequestBinding {}

/// Writes `value` as JSON with the keys of every object sorted.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => write_canonical_object(map, &|_| false, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_json(scalar, out),
    }
}

/// Writes the members of `map` but those `skipped`, sorted by key.
fn write_canonical_object(
    map: &serde_json::Map<String, Value>,
    skipped: &dyn Fn(&str) -> bool,
    out: &mut Vec<u8>,
) {
    let mut members: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| !skipped(k)).collect();
    members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json(key, out);
        out.push(b':');
        write_canonical(value, out);
    }
    out.push(b'}');
}

fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    serde_json::to_writer(out, value).expect("JSON values and strings always serialize");
}

/// A named HMAC key.
#[derive(Clone)]
struct StateKey {
    id: String,
    secret: Vec<u8>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl StateKey {
    fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, RequestStateError> {
        let secret = secret.into();
        if secret.len() < MIN_SECRET {
            return Err(RequestStateError::WeakKey(secret.len()));
        }
        Ok(StateKey {
            id: id.into(),
            secret,
        })
    }

    /// The key whose secret `text` gives in base64 (standard or URL-safe, padded or not, with
    /// any whitespace), named after it ([`key_id`]); `origin` names where the text came from, for
    /// the errors.
    fn from_base64(origin: &str, text: &str) -> Result<Self, KeyError> {
        let compact: String = text.split_ascii_whitespace().collect();
        let secret = STANDARD_PAD_INDIFFERENT
            .decode(&compact)
            .or_else(|_| URL_SAFE_PAD_INDIFFERENT.decode(&compact))
            .map_err(|_| KeyError::NotBase64(origin.to_owned()))?;
        if secret.len() < MIN_SECRET {
            return Err(KeyError::Short {
                origin: origin.to_owned(),
                bytes: secret.len(),
            });
        }
        Ok(StateKey {
            id: key_id(&secret),
            secret,
        })
    }

    fn mac(&self, signed: &str) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret)
            .expect("HMAC takes any key size");
        mac.update(signed.as_bytes());
        mac
    }
}

/// The name of the key of `secret` given as text ([`RequestStateCodec::from_base64`],
/// [`RequestStateCodec::from_env`]): the first 6 bytes of the SHA-256 of
/// `"mcp requestState key\0"` followed by the secret, in base64url (8 characters). Every instance
/// given the same secret names it alike; the name reveals nothing usable of the secret.
pub fn key_id(secret: &[u8]) -> String {
    let digest = Sha256::new()
        .chain_update(b"mcp requestState key\0")
        .chain_update(secret)
        .finalize();
    URL_SAFE_NO_PAD.encode(&digest[..6])
}

/// What to do about a key given as text that cannot be used.
const MAKE_ONE: &str = "a requestState key is the base64 of at least 32 random bytes, the same on \
                        every instance (make one with `head -c 32 /dev/urandom | base64`)";

/// Why a `requestState` key given as text ([`RequestStateCodec::from_env`],
/// [`RequestStateCodec::from_base64`]) cannot be used. The messages name where the key came
/// from, never the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The environment variable it names is not set.
    #[error("the environment variable {0} is not set: {MAKE_ONE}")]
    Unset(String),
    /// The key (from where it names) is not base64.
    #[error("{0} is not base64: {MAKE_ONE}")]
    NotBase64(String),
    /// The key (from `origin`) has fewer than 32 bytes.
    #[error("{origin} holds {bytes} bytes, fewer than {MIN_SECRET}: {MAKE_ONE}")]
    Short {
        /// Where the key came from.
        origin: String,
        /// How many bytes it holds.
        bytes: usize,
    },
}

/// What a token carries.
#[derive(Serialize, Deserialize)]
struct Payload {
    /// Expiry, in seconds since the Unix epoch.
    exp: u64,
    /// Random bytes, base64url: what makes the token unlike any other.
    nonce: String,
    /// The principal the token was issued to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prn: Option<Principal>,
    /// The request digest, base64url.
    req: String,
    data: Value,
}

/// Seals and opens `requestState` tokens (see the [module docs](self)). Clones share the record
/// of opened tokens.
#[derive(Clone, Debug)]
pub struct RequestStateCodec {
    current: StateKey,
    previous: Vec<StateKey>,
    lifetime: Duration,
    spent: Option<Arc<Spent>>,
    /// Whether the key is this process's own ([`RequestStateCodec::random`]).
    random: bool,
}

/// The tokens opened so far (their MAC tags), until they expire, at most [`SPENT_TOKENS`].
#[derive(Debug, Default)]
struct Spent {
    inner: Mutex<SpentInner>,
}

#[derive(Debug, Default)]
struct SpentInner {
    tags: HashSet<Vec<u8>>,
    /// The tags by age, with their expiry.
    order: VecDeque<(u64, Vec<u8>)>,
}

impl Spent {
    /// Records `tag`, expiring at `exp`; false when it was recorded already.
    fn first_use(&self, tag: &[u8], exp: u64, now: u64) -> bool {
        let mut inner = self.inner.lock();
        let SpentInner { tags, order } = &mut *inner;
        while let Some((expiry, _)) = order.front()
            && (*expiry <= now || order.len() >= SPENT_TOKENS)
        {
            if let Some((_, old)) = order.pop_front() {
                tags.remove(&old);
            }
        }
        if !tags.insert(tag.to_vec()) {
            return false;
        }
        order.push_back((exp, tag.to_vec()));
        true
    }
}

impl RequestStateCodec {
    /// A codec sealing with the key `id` (a short name written into each token) of `secret`
    /// (at least 32 bytes, from a secure random source; share it between the instances of a
    /// deployment so that any of them can open a token). A key kept as text (base64, in an
    /// environment variable) is read by [`from_env`](Self::from_env) or
    /// [`from_base64`](Self::from_base64), which name it themselves.
    pub fn new(
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<Self, RequestStateError> {
        Ok(Self::with_key(StateKey::new(id, secret)?))
    }

    /// A codec sealing with the key that `text` gives: the base64 (standard or URL-safe, padded
    /// or not; whitespace is ignored) of at least 32 random bytes, the same on every instance.
    /// The key is named after itself ([`key_id`]).
    ///
    /// ```
    /// use mcp_runtime::request_state::{KeyError, RequestStateCodec};
    ///
    /// // 32 bytes, as `head -c 32 /dev/urandom | base64` writes them.
    /// let codec = RequestStateCodec::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
    /// assert!(codec.is_ok());
    /// assert_eq!(
    ///     RequestStateCodec::from_base64("c2hvcnQ=").unwrap_err(),
    ///     KeyError::Short { origin: "the requestState key".into(), bytes: 5 }
    /// );
    /// ```
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        Ok(Self::with_key(StateKey::from_base64(
            "the requestState key",
            text,
        )?))
    }

    /// A codec sealing with the key in the environment variable `variable` (the deployments of
    /// the guide and the examples use `MCP_REQUEST_STATE_KEY`), given as
    /// [`from_base64`](Self::from_base64) takes it. The errors name the variable, never its value.
    pub fn from_env(variable: &str) -> Result<Self, KeyError> {
        Self::from_variable(variable, std::env::var(variable))
    }

    /// The codec of the key that the environment variable `variable` holds (`value`).
    fn from_variable(
        variable: &str,
        value: Result<String, std::env::VarError>,
    ) -> Result<Self, KeyError> {
        match value {
            Ok(text) => Ok(Self::with_key(StateKey::from_base64(variable, &text)?)),
            Err(std::env::VarError::NotPresent) => Err(KeyError::Unset(variable.to_owned())),
            Err(std::env::VarError::NotUnicode(_)) => Err(KeyError::NotBase64(variable.to_owned())),
        }
    }

    /// Opens tokens of the retired key that `text` gives, as
    /// [`from_base64`](Self::from_base64) takes it (for instances that start after a rotation:
    /// `RequestStateCodec::from_env("NEW")?.accept_base64(&old)?`).
    pub fn accept_base64(mut self, text: &str) -> Result<Self, KeyError> {
        self.previous
            .push(StateKey::from_base64("the retired requestState key", text)?);
        Ok(self)
    }

    fn with_key(current: StateKey) -> Self {
        RequestStateCodec {
            current,
            previous: Vec::new(),
            lifetime: Duration::from_secs(600),
            spent: Some(Arc::default()),
            random: false,
        }
    }

    /// Lets a token open on every retry of the identical request until it expires, instead of
    /// once (for handlers whose rounds repeat no side effect, behind several instances).
    pub fn reusable(mut self) -> Self {
        self.spent = None;
        self
    }

    /// A codec with a fresh random key, for a single server process (its tokens cannot be
    /// opened by another process or after a restart).
    pub fn random() -> Self {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system provides random bytes");
        let mut id = [0u8; 6];
        getrandom::fill(&mut id).expect("the operating system provides random bytes");
        let mut codec =
            Self::new(URL_SAFE_NO_PAD.encode(id), secret.to_vec()).expect("32 bytes are enough");
        codec.random = true;
        codec
    }

    /// Whether the key is this process's own, which no other instance can open tokens with.
    #[cfg(feature = "http-handler")]
    pub(crate) fn is_random(&self) -> bool {
        self.random
    }

    /// How long a token stays valid (ten minutes by default).
    pub fn lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// Starts sealing with the new key `id`; tokens of the key used so far are still opened.
    pub fn rotate(
        mut self,
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<Self, RequestStateError> {
        let next = StateKey::new(id, secret)?;
        self.previous
            .insert(0, std::mem::replace(&mut self.current, next));
        Ok(self)
    }

    /// Opens tokens of the retired key `id` too (for instances that start after a rotation).
    pub fn accept(
        mut self,
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<Self, RequestStateError> {
        self.previous.push(StateKey::new(id, secret)?);
        Ok(self)
    }

    /// Seals `data` for the request `binding` describes.
    pub fn seal(&self, binding: &RequestBinding, data: &Value) -> String {
        self.seal_at(binding, data, SystemTime::now())
    }

    /// Opens `token` for the request `binding` describes and returns the data sealed in it.
    pub fn open(&self, token: &str, binding: &RequestBinding) -> Result<Value, RequestStateError> {
        self.open_at(token, binding, SystemTime::now())
    }

    fn seal_at(&self, binding: &RequestBinding, data: &Value, now: SystemTime) -> String {
        let mut nonce = [0u8; NONCE];
        getrandom::fill(&mut nonce).expect("the operating system provides random bytes");
        let payload = Payload {
            exp: unix_seconds(now + self.lifetime),
            nonce: URL_SAFE_NO_PAD.encode(nonce),
            prn: binding.principal.clone(),
            req: URL_SAFE_NO_PAD.encode(binding.digest()),
            data: data.clone(),
        };
        let payload = serde_json::to_vec(&payload).expect("a payload always serializes");
        let signed = format!(
            "{VERSION}.{}.{}",
            self.current.id,
            URL_SAFE_NO_PAD.encode(payload)
        );
        let tag = self.current.mac(&signed).finalize().into_bytes();
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(tag))
    }

    fn open_at(
        &self,
        token: &str,
        binding: &RequestBinding,
        now: SystemTime,
    ) -> Result<Value, RequestStateError> {
        let (signed, tag) = token.rsplit_once('.').ok_or(RequestStateError::Malformed)?;
        let mut parts = signed.splitn(3, '.');
        let (Some(VERSION), Some(key_id), Some(payload)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(RequestStateError::Malformed);
        };
        let key = std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id == key_id)
            .ok_or_else(|| RequestStateError::UnknownKey(key_id.to_owned()))?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| RequestStateError::Malformed)?;
        key.mac(signed)
            .verify_slice(&tag)
            .map_err(|_| RequestStateError::Tampered)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| RequestStateError::Malformed)?;
        let payload: Payload =
            serde_json::from_slice(&payload).map_err(|_| RequestStateError::Malformed)?;
        if unix_seconds(now) >= payload.exp {
            return Err(RequestStateError::Expired);
        }
        if payload.prn != binding.principal {
            return Err(RequestStateError::ForeignSubject);
        }
        if payload.req != URL_SAFE_NO_PAD.encode(binding.digest()) {
            return Err(RequestStateError::ForeignRequest);
        }
        if let Some(spent) = &self.spent
            && !spent.first_use(&tag, payload.exp, unix_seconds(now))
        {
            return Err(RequestStateError::Replayed);
        }
        Ok(payload.data)
    }
}

fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AccessToken;
    use serde_json::json;

    fn codec() -> RequestStateCodec {
        RequestStateCodec::new("k1", [1u8; 32]).unwrap()
    }

    /// The principal of a token of `subject` from the issuer of the tests, through its client.
    fn principal(subject: &str) -> Principal {
        AccessToken::new()
            .with_issuer("https://idp.example.com")
            .with_subject(subject)
            .with_client_id("cli")
            .principal()
            .unwrap()
    }

    #[test]
    fn tokens_sealed_in_the_same_second_for_the_same_call_are_unlike_and_each_opens_once() {
        // Two clients starting the same call with the same data at once.
        let codec = codec();
        let now = SystemTime::now();
        let first = codec.seal_at(&binding(), &json!({"step": 1}), now);
        let second = codec.seal_at(&binding(), &json!({"step": 1}), now);
        assert_ne!(first, second);
        assert_eq!(codec.open(&first, &binding()), Ok(json!({"step": 1})));
        assert_eq!(codec.open(&second, &binding()), Ok(json!({"step": 1})));
        assert_eq!(
            codec.open(&second, &binding()),
            Err(RequestStateError::Replayed)
        );
    }

    #[test]
    fn the_same_subject_of_another_issuer_or_client_is_another_principal() {
        let token = codec().seal(&binding(), &json!(1));
        let params = json!({"name": "deploy", "arguments": {"env": "prod", "n": 1}});
        let alice = |issuer: &str, client: &str| {
            AccessToken::new()
                .with_issuer(issuer)
                .with_subject("alice")
                .with_client_id(client)
                .principal()
        };
        for other in [
            alice("https://other.example.com", "cli"),
            alice("https://idp.example.com", "other-cli"),
            AccessToken::new().with_subject("alice").principal(),
            None,
        ] {
            let binding = RequestBinding::new(other.as_ref(), "tools/call", &params);
            assert_eq!(
                codec().open(&token, &binding),
                Err(RequestStateError::ForeignSubject),
                "{other:?}"
            );
        }
        let same = alice("https://idp.example.com", "cli");
        let binding = RequestBinding::new(same.as_ref(), "tools/call", &params);
        assert_eq!(codec().open(&token, &binding), Ok(json!(1)));
    }

    #[test]
    fn a_key_given_as_base64_is_named_after_itself_and_read_in_any_spelling() {
        // 32 bytes 0x00..0x1f, as `base64` writes them, and in the other spellings.
        let secret: Vec<u8> = (0u8..32).collect();
        let standard = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
        assert_eq!(STANDARD_PAD_INDIFFERENT.encode(&secret), standard);
        assert_eq!(key_id(&secret), "UccaGuRx");
        let sealed = RequestStateCodec::from_base64(standard)
            .unwrap()
            .seal(&binding(), &json!("x"));
        assert!(sealed.starts_with("v1.UccaGuRx."), "{sealed}");
        for spelling in [
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
            "  AAECAwQFBgcICQoLDA0ODxAREhMU\nFRYXGBkaGxwdHh8=\n",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        ] {
            let codec = RequestStateCodec::from_base64(spelling).unwrap();
            assert_eq!(
                codec.open(&sealed, &binding()),
                Ok(json!("x")),
                "{spelling}"
            );
        }
        // URL-safe: 0xfb 0xff... spells `-_` where the standard alphabet has `+/`.
        let url_safe = vec![0xfb_u8; 33];
        let text = URL_SAFE_NO_PAD.encode(&url_safe);
        assert!(text.contains('-') || text.contains('_'), "{text}");
        let codec = RequestStateCodec::from_base64(&text).unwrap();
        assert_eq!(codec.current.secret, url_safe);
        // Another instance given the same key opens what this one sealed; a retired key is
        // accepted in the same spelling.
        let rotated = RequestStateCodec::from_base64(&text)
            .unwrap()
            .accept_base64(standard)
            .unwrap();
        assert_eq!(rotated.open(&sealed, &binding()), Ok(json!("x")));
    }

    #[test]
    fn a_key_given_as_text_that_cannot_be_used_says_why_and_never_shows_itself() {
        let make_one = "a requestState key is the base64 of at least 32 random bytes, the same \
                        on every instance (make one with `head -c 32 /dev/urandom | base64`)";
        let refused = |text: &str| RequestStateCodec::from_base64(text).unwrap_err();
        assert_eq!(
            refused("not base64 at all!"),
            KeyError::NotBase64("the requestState key".into())
        );
        assert_eq!(
            refused("not base64 at all!").to_string(),
            format!("the requestState key is not base64: {make_one}")
        );
        // 31 bytes.
        let short = STANDARD_PAD_INDIFFERENT.encode([9u8; 31]);
        assert_eq!(
            refused(&short).to_string(),
            format!("the requestState key holds 31 bytes, fewer than 32: {make_one}")
        );
        assert_eq!(
            refused(""),
            KeyError::Short {
                origin: "the requestState key".into(),
                bytes: 0
            }
        );
        assert_eq!(
            codec().accept_base64(&short).unwrap_err().to_string(),
            format!("the retired requestState key holds 31 bytes, fewer than 32: {make_one}")
        );
    }

    #[test]
    fn a_key_from_the_environment_names_the_variable() {
        let make_one = "a requestState key is the base64 of at least 32 random bytes, the same \
                        on every instance (make one with `head -c 32 /dev/urandom | base64`)";
        // A variable no one sets, read from the environment.
        let unset = "MCP_RUNTIME_TEST_REQUEST_STATE_KEY_NEVER_SET";
        assert_eq!(
            RequestStateCodec::from_env(unset).unwrap_err(),
            KeyError::Unset(unset.into())
        );
        assert_eq!(
            RequestStateCodec::from_env(unset).unwrap_err().to_string(),
            format!("the environment variable {unset} is not set: {make_one}")
        );
        // The values the environment may give (not set here: other tests' threads read it).
        let var = "MCP_REQUEST_STATE_KEY";
        let cases = [
            (
                "c2hvcnQ=",
                "MCP_REQUEST_STATE_KEY holds 5 bytes, fewer than 32",
            ),
            ("s3cr3t!!", "MCP_REQUEST_STATE_KEY is not base64"),
        ];
        for (value, message) in cases {
            let error = RequestStateCodec::from_variable(var, Ok(value.into()))
                .unwrap_err()
                .to_string();
            assert_eq!(error, format!("{message}: {make_one}"));
            assert!(!error.contains(value), "{error}");
        }
        let not_unicode = std::env::VarError::NotUnicode(std::ffi::OsString::from("x"));
        assert_eq!(
            RequestStateCodec::from_variable(var, Err(not_unicode)).unwrap_err(),
            KeyError::NotBase64(var.into())
        );
        let good = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
        let codec = RequestStateCodec::from_variable(var, Ok(good.into())).unwrap();
        assert_eq!(codec.current.id, "UccaGuRx");
    }

    #[test]
    fn a_token_opens_once_unless_reusable() {
        let codec = codec();
        let token = codec.seal(&binding(), &json!(1));
        assert_eq!(codec.open(&token, &binding()), Ok(json!(1)));
        // A clone (another handle on the same server) shares the record.
        assert_eq!(
            codec.clone().open(&token, &binding()),
            Err(RequestStateError::Replayed)
        );
        let reusable = codec.reusable();
        let token = reusable.seal(&binding(), &json!(2));
        for _ in 0..2 {
            assert_eq!(reusable.open(&token, &binding()), Ok(json!(2)));
        }
    }

    #[test]
    fn the_record_of_spent_tokens_is_bounded_and_forgets_expired_ones() {
        let spent = Spent::default();
        assert!(spent.first_use(b"a", 100, 10));
        assert!(!spent.first_use(b"a", 100, 10));
        // Expired, it is forgotten: its token would be refused as expired anyway.
        assert!(spent.first_use(b"b", 200, 150));
        assert!(spent.first_use(b"a", 300, 150));
        for n in 0..SPENT_TOKENS as u32 {
            assert!(spent.first_use(&n.to_be_bytes(), 1000, 150));
        }
        assert_eq!(spent.inner.lock().order.len(), SPENT_TOKENS);
    }

    fn binding() -> RequestBinding {
        RequestBinding::new(
            Some(&principal("alice")),
            "tools/call",
            &json!({"name": "deploy", "arguments": {"env": "prod", "n": 1}}),
        )
    }

    #[test]
    fn the_binding_hashes_the_params_with_sorted_keys() {
        let params = json!({
            "name": "add",
            "arguments": {"b": [2, {"x": "é\"", "a": null}], "a": 1},
            "_meta": {"progressToken": 1},
            "requestState": "v1.k1.x",
            "inputResponses": {},
        });
        let binding = RequestBinding::new(None, "tools/call", &params);
        // sha256 of `tools/call\0{"arguments":{"a":1,"b":[2,{"a":null,"x":"é\""}]},"name":"add"}`
        let hex: String = binding
            .digest()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "f56a72e33eb6fe7e53231af2f6e04a4367ca0eb0c1eab7463fc186484a2c8cc0"
        );
    }

    #[test]
    fn a_sealed_state_opens_on_the_retry_of_the_same_request() {
        let token = codec().seal(&binding(), &json!({"step": 2, "seen": ["a"]}));
        assert!(token.starts_with("v1.k1."), "{token}");
        // The retry adds inputResponses, requestState and _meta, and may order keys otherwise.
        let retry = RequestBinding::new(
            Some(&principal("alice")),
            "tools/call",
            &json!({"arguments": {"n": 1, "env": "prod"}, "name": "deploy",
                "inputResponses": {"x": {}}, "requestState": token, "_meta": {"a": 1}}),
        );
        assert_eq!(
            codec().open(&token, &retry),
            Ok(json!({"step": 2, "seen": ["a"]}))
        );
    }

    #[test]
    fn tampered_expired_and_foreign_states_are_refused() {
        let codec = codec();
        let now = SystemTime::now();
        let token = codec.seal_at(&binding(), &json!(1), now);
        // Any changed character of the payload breaks the MAC.
        let (head, tag) = token.rsplit_once('.').unwrap();
        let mut bytes = head.as_bytes().to_vec();
        let last = bytes.len() - 1;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        let altered = format!("{}.{tag}", String::from_utf8(bytes).unwrap());
        assert_eq!(
            codec.open(&altered, &binding()),
            Err(RequestStateError::Tampered)
        );
        // What the conformance suite sends: the token with a suffix (the tag no longer matches).
        assert_eq!(
            codec.open(&format!("{token}-TAMPERED"), &binding()),
            Err(RequestStateError::Tampered)
        );
        assert_eq!(
            codec.open("not a token", &binding()),
            Err(RequestStateError::Malformed)
        );
        assert_eq!(
            codec.open_at(&token, &binding(), now + Duration::from_secs(601)),
            Err(RequestStateError::Expired)
        );
        let bob = RequestBinding::new(
            Some(&principal("bob")),
            "tools/call",
            &json!({"name": "deploy", "arguments": {"env": "prod", "n": 1}}),
        );
        assert_eq!(
            codec.open(&token, &bob),
            Err(RequestStateError::ForeignSubject)
        );
        let other_call = RequestBinding::new(
            Some(&principal("alice")),
            "tools/call",
            &json!({"name": "deploy", "arguments": {"env": "dev", "n": 1}}),
        );
        assert_eq!(
            codec.open(&token, &other_call),
            Err(RequestStateError::ForeignRequest)
        );
        let other_server = RequestStateCodec::new("k1", [2u8; 32]).unwrap();
        assert_eq!(
            other_server.open(&token, &binding()),
            Err(RequestStateError::Tampered)
        );
        let error = ErrorObject::from(RequestStateError::Tampered);
        assert_eq!(
            (error.code, error.message.as_str()),
            (
                mcp_runtime_core::ErrorCode(-32602),
                "requestState integrity check failed"
            )
        );
    }

    #[test]
    fn keys_rotate_and_weak_keys_are_refused() {
        let old = codec();
        let token = old.seal(&binding(), &json!("kept"));
        let rotated = old.rotate("k2", [3u8; 32]).unwrap();
        assert_eq!(rotated.open(&token, &binding()), Ok(json!("kept")));
        let fresh = rotated.seal(&binding(), &json!("new"));
        assert!(fresh.starts_with("v1.k2."), "{fresh}");
        // An instance that only knows the new key refuses the old token by its key name.
        let new_only = RequestStateCodec::new("k2", [3u8; 32]).unwrap();
        assert_eq!(
            new_only.open(&token, &binding()),
            Err(RequestStateError::UnknownKey("k1".into()))
        );
        let accepting = new_only.accept("k1", [1u8; 32]).unwrap();
        assert_eq!(accepting.open(&token, &binding()), Ok(json!("kept")));
        assert_eq!(
            RequestStateCodec::new("short", [0u8; 16]).unwrap_err(),
            RequestStateError::WeakKey(16)
        );
        let random = RequestStateCodec::random();
        let token = random.seal(&binding(), &json!(null));
        assert_eq!(random.open(&token, &binding()), Ok(json!(null)));
        assert_eq!(
            RequestStateCodec::random()
                .open(&token, &binding())
                .unwrap_err(),
            RequestStateError::UnknownKey(token.split('.').nth(1).unwrap().to_owned())
        );
    }

    #[test]
    fn a_subjectless_state_is_refused_to_a_subject() {
        let anonymous = RequestBinding::new(None, "prompts/get", &json!({"name": "p"}));
        let token = codec().seal(&anonymous, &json!(true));
        assert_eq!(codec().open(&token, &anonymous), Ok(json!(true)));
        let named = RequestBinding::new(
            Some(&principal("alice")),
            "prompts/get",
            &json!({"name": "p"}),
        );
        assert_eq!(
            codec().open(&token, &named),
            Err(RequestStateError::ForeignSubject)
        );
    }
}
