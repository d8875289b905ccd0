//! [`JwtVerifier`]: JWT access tokens (RFC 9068), checked against the issuer's public keys.
//!
//! The struct's documentation says what is checked and how the keys are cached; this module also
//! holds the cache of keys itself ([`KeySet`], [`Refresh`]), and the reading of JWKS documents.

use crate::rt::{Instant, SystemTime, UNIX_EPOCH};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, PublicKeyUse,
};
use jsonwebtoken::{AlgorithmFamily, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::cache::TokenCache;
use super::discovery::{self, shown};
use super::resource_server::RETRY_AFTER;
use super::{AccessToken, InvalidUri, TokenError, TokenVerifier, VerifyFuture};

/// A JWS signing algorithm (re-exported from `jsonwebtoken`), for
/// [`JwtVerifier::algorithms`].
pub use jsonwebtoken::Algorithm;

/// The algorithms accepted unless told otherwise: every asymmetric one.
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The `typ` values of an access token (RFC 9068 §2.1), and `JWT`, which issuers that predate it
/// write; compared regardless of case.
const ACCESS_TOKEN_TYPES: [&str; 3] = ["at+jwt", "application/at+jwt", "jwt"];

/// Verifies JWT access tokens (RFC 9068) against the public keys of their issuer.
///
/// Most authorization servers (Keycloak, Entra ID, Auth0, Okta, Cognito) issue access tokens
/// that are JWTs signed with a key of theirs: a resource server verifies them on its own, with
/// the keys the issuer publishes as a JSON Web Key Set, and asks nobody. The verifier is told
/// the issuer and the resource the server is (its audience), and finds the rest:
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::auth::{Algorithm, JwtVerifier};
///
/// // The keys come from the issuer's metadata (`jwks_uri`), fetched on first use.
/// let issuer = "https://idp.example.com/realms/acme";
/// let verifier = JwtVerifier::new(issuer, "https://mcp.example.com/mcp")
///     .algorithms([Algorithm::RS256, Algorithm::ES256])
///     .leeway(Duration::from_secs(30));
/// # let _ = verifier;
/// ```
///
/// A token is accepted when
///
/// - its header names an algorithm of the allow-list ([`JwtVerifier::algorithms`]; never `none`,
///   never an HMAC algorithm) and, if it has a `typ`, says it is an access token (`at+jwt`, or
///   plain `JWT`): an ID token is not an access token;
/// - the issuer's key it names (`kid`) fits that algorithm, and the signature verifies;
/// - `iss` is the issuer, exactly; `aud` names this server (compared as
///   RFC 8707 resource identifiers: scheme and host regardless of case, nothing else);
/// - `exp` is not past and `nbf`, when present, is not ahead, give or take the
///   [leeway](JwtVerifier::leeway).
///
/// Anything else is refused with a [`TokenError::Invalid`] that says what was wrong.
///
/// The keys are cached: fetched on first use, again when older than
/// [`max_key_age`](JwtVerifier::max_key_age), and again when a token names a key the cache does
/// not hold (the issuer rotated its keys). Those refetches are rate-limited
/// ([`min_refetch_interval`](JwtVerifier::min_refetch_interval)): tokens naming made-up keys
/// cannot make the server hammer the issuer, nor wait. A key withdrawn from the issuer's key set
/// is trusted until the keys are fetched again: for `max_key_age` at most (10 minutes by
/// default) while the issuer can be reached.
///
/// When the issuer cannot be reached, the tokens that need its keys get
/// [`TokenError::Unavailable`] (`503`): a fetch waits for it
/// [`request_timeout`](JwtVerifier::request_timeout) at most, the requests arriving meanwhile
/// share that fetch, and its failure is the answer for 5 seconds before the issuer is asked
/// again. Keys in hand stay in use while they are fetched anew, and when that fails.
///
/// A token accepted once is not verified again on the requests that follow (a client sends the
/// same token with each): its verdict is cached under its hash until its `exp` (give or take the
/// leeway, as above), for an hour at most, and only as long as the keys that verified it are the
/// ones in use; keys fetched anew make every token verify again. The verdicts are the same as
/// without the cache; a signature check of 100 to 200 µs becomes a hash and a lookup
/// ([`max_cache_entries`](JwtVerifier::max_cache_entries)).
pub struct JwtVerifier {
    issuer: String,
    /// The resource identifiers accepted in `aud`: the server's, then the others accepted.
    audiences: Vec<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    source: KeySource,
    client: reqwest::Client,
    min_refetch_interval: Duration,
    max_key_age: Duration,
    request_timeout: Duration,
    /// The keys in use.
    keys: parking_lot::RwLock<Arc<KeySet>>,
    /// Held while the keys are fetched: one fetch at a time.
    refresh: tokio::sync::Mutex<Refresh>,
    /// How many fetches were attempted; a verification that waited for another's fetch uses its
    /// outcome.
    attempts: AtomicU64,
    /// The tokens accepted, tagged with the generation of the keys that verified them.
    accepted: TokenCache,
}

/// The longest a verdict is reused.
const MAX_CACHED: Duration = Duration::from_secs(3600);

/// The generation of the next key set: every set of keys fetched or given has its own.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

/// Where the keys come from.
enum KeySource {
    /// The `jwks_uri` of the issuer's metadata.
    Discovery,
    /// This JWKS URL.
    Uri(String),
    /// These keys, never fetched.
    Static,
}

/// The keys of the issuer, as last fetched.
#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    /// When they were fetched; `None` before the first fetch, and for keys given.
    fetched: Option<Instant>,
    /// Which set this is (0 for none yet): the tag of the tokens it verified in the cache.
    generation: u64,
}

impl KeySet {
    /// A set of `keys` with a generation of its own.
    fn new(keys: Vec<Arc<Key>>, fetched: Option<Instant>) -> Self {
        KeySet {
            keys,
            fetched,
            generation: GENERATIONS.fetch_add(1, Ordering::Relaxed),
        }
    }

    fn find(&self, kid: &str) -> Option<Arc<Key>> {
        self.keys
            .iter()
            .find(|key| key.kid.as_deref() == Some(kid))
            .cloned()
    }
}

/// One usable public key of the issuer.
struct Key {
    kid: Option<String>,
    kind: KeyKind,
    /// The algorithm the JWK is for, when it says.
    alg: Option<KeyAlgorithm>,
    decoding: DecodingKey,
}

impl Key {
    /// The key of `jwk`; `None` for keys that cannot verify signatures (symmetric keys,
    /// encryption keys, unknown key types and curves).
    fn from_jwk(jwk: &Jwk) -> Option<Arc<Key>> {
        if matches!(
            jwk.common.public_key_use,
            Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
        ) {
            return None;
        }
        let kind = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => KeyKind::Rsa,
            AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
                EllipticCurve::P256 => KeyKind::P256,
                EllipticCurve::P384 => KeyKind::P384,
                _ => return None,
            },
            AlgorithmParameters::OctetKeyPair(okp) => match okp.curve {
                EllipticCurve::Ed25519 => KeyKind::Ed25519,
                _ => return None,
            },
            _ => return None,
        };
        let decoding = DecodingKey::from_jwk(jwk).ok()?;
        Some(Arc::new(Key {
            kid: jwk.common.key_id.clone(),
            kind,
            alg: jwk.common.key_algorithm,
            decoding,
        }))
    }

    /// Whether the key can have signed with `alg`.
    fn fits(&self, alg: Algorithm) -> bool {
        self.kind.fits(alg) && self.alg.is_none_or(|own| own == KeyAlgorithm::from(alg))
    }

    /// How errors name the key.
    fn name(&self) -> String {
        match &self.kid {
            Some(kid) => format!("the key {:?} of the issuer", shown(kid)),
            None => "the key of the issuer".to_owned(),
        }
    }
}

/// The kinds of public keys, by the algorithms they serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl KeyKind {
    fn fits(self, alg: Algorithm) -> bool {
        match self {
            KeyKind::Rsa => alg.family() == AlgorithmFamily::Rsa,
            KeyKind::P256 => alg == Algorithm::ES256,
            KeyKind::P384 => alg == Algorithm::ES384,
            KeyKind::Ed25519 => alg == Algorithm::EdDSA,
        }
    }

    fn described(self) -> &'static str {
        match self {
            KeyKind::Rsa => "an RSA key",
            KeyKind::P256 => "a P-256 key",
            KeyKind::P384 => "a P-384 key",
            KeyKind::Ed25519 => "an Ed25519 key",
        }
    }
}

/// What the fetches of the keys remember.
#[derive(Default)]
struct Refresh {
    /// The JWKS URL, once discovered.
    jwks_uri: Option<String>,
    /// When the last fetch ended.
    last_attempt: Option<Instant>,
    /// Why the last fetch failed, if it did.
    last_error: Option<String>,
}

impl Refresh {
    /// Whether the next fetch must wait: the last one ended less than `interval` ago, or less
    /// than [`RETRY_AFTER`] ago when it failed.
    fn too_soon(&self, interval: Duration) -> bool {
        let wait = match self.last_error {
            Some(_) => interval.max(RETRY_AFTER),
            None => interval,
        };
        self.last_attempt.is_some_and(|last| last.elapsed() < wait)
    }
}

/// What the header of a token says.
struct Header {
    alg: Algorithm,
    kid: Option<String>,
}

impl JwtVerifier {
    /// A verifier of the tokens `issuer` issues for `audience`, the resource identifier of this
    /// server (its MCP endpoint's URL, as in its protected resource metadata).
    ///
    /// The keys are found through the issuer's metadata (see
    /// [`AuthorizationServerMetadata::discover`](super::AuthorizationServerMetadata::discover));
    /// give them with [`jwks_uri`](Self::jwks_uri) or [`jwks`](Self::jwks) instead when the
    /// issuer publishes none.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        JwtVerifier {
            issuer: issuer.into(),
            audiences: vec![audience.into()],
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(60),
            source: KeySource::Discovery,
            client: reqwest::Client::new(),
            min_refetch_interval: Duration::from_secs(1),
            max_key_age: Duration::from_secs(600),
            request_timeout: discovery::VERIFIER_TIMEOUT,
            keys: parking_lot::RwLock::new(Arc::new(KeySet::default())),
            refresh: tokio::sync::Mutex::new(Refresh::default()),
            attempts: AtomicU64::new(0),
            accepted: TokenCache::new(10_000),
        }
    }

    /// [`new`](Self::new), or why `issuer` cannot be an issuer identifier: it must be an `http`
    /// or `https` URL without a query or fragment (RFC 8414 §2). `new` takes any string, and a
    /// verifier whose issuer is malformed finds no keys: every token gets `503`.
    pub fn try_new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, InvalidUri> {
        let issuer = issuer.into();
        if let Err(reason) = discovery::discovery_urls(&issuer) {
            return Err(InvalidUri::new(format!(
                "the issuer {issuer:?} cannot be used: {reason}; give the URL the authorization \
                 server names as its issuer, such as https://auth.example.com/realms/notes"
            )));
        }
        Ok(Self::new(issuer, audience))
    }

    /// Fetches the keys from `url`, a JSON Web Key Set, without discovering the issuer's
    /// metadata.
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Self {
        self.source = KeySource::Uri(url.into());
        self
    }

    /// Verifies with the keys of `jwks` only, never fetching any. Keys that cannot verify
    /// signatures (symmetric keys, encryption keys, unknown types) are left out.
    pub fn jwks(mut self, jwks: JwkSet) -> Self {
        self.source = KeySource::Static;
        let keys = jwks.keys.iter().filter_map(Key::from_jwk).collect();
        self.keys = parking_lot::RwLock::new(Arc::new(KeySet::new(keys, None)));
        self
    }

    /// Accepts only tokens signed with one of `algorithms`. The default is every asymmetric
    /// algorithm: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 and EdDSA.
    ///
    /// # Panics
    ///
    /// When the list is empty, or names an HMAC algorithm (HS256, HS384, HS512): a resource
    /// server verifies tokens with the issuer's public keys, and accepting an HMAC algorithm is
    /// what the key-confusion attack needs (a token "signed" with HS256 and the public key as
    /// the secret).
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        let algorithms: Vec<Algorithm> = algorithms.into_iter().collect();
        if let Some(hmac) = algorithms
            .iter()
            .find(|alg| alg.family() == AlgorithmFamily::Hmac)
        {
            panic!(
                "JwtVerifier::algorithms: {hmac:?} is an HMAC algorithm, which a resource server \
                 must not accept: it verifies tokens with the issuer's public keys, and a token \
                 signed with {hmac:?} using a public key as the secret is the classic \
                 key-confusion attack"
            );
        }
        assert!(
            !algorithms.is_empty(),
            "JwtVerifier::algorithms: the list is empty, so no token could ever be accepted"
        );
        self.algorithms = algorithms;
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that disagree (default 60 seconds).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Accepts tokens whose audience is `audience` too (Entra ID writes its `api://…`
    /// application ID URI there, for instance).
    pub fn also_accept_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Fetches the metadata and the keys with `client` (for a proxy, or custom TLS roots).
    /// Every fetch is bounded to the [`request_timeout`](Self::request_timeout) and 1 MiB
    /// whatever the client's settings.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = client;
        self
    }

    /// How long a fetch of the issuer's metadata or keys may take, the answer read in full
    /// (default 5 seconds). The places the metadata may be are asked at once, so that finding
    /// the keys the first time takes twice this at most. A token that needs keys the issuer did
    /// not give in time gets `503`.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The least time between two fetches of the keys (default 1 second; 5 seconds at least
    /// after a fetch that failed). A token naming a key the cache does not hold makes the
    /// verifier fetch the keys again when this interval has passed since the last fetch, and
    /// tokens arriving meanwhile share that fetch; within the interval, it is refused at once,
    /// since the keys were just fetched. A key the issuer rotated in is thus picked up by the
    /// first token naming it once the interval has passed.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch_interval = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again (default 10 minutes): how
    /// long a key the issuer withdrew from its key set is still trusted, at most, unless a token
    /// naming an unknown key made the verifier fetch them earlier. When that fetch fails, the
    /// keys in hand stay in use.
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    /// How many accepted tokens are remembered, so that they are not verified again on the
    /// requests that follow (default 10,000; zero verifies every token every time). When full,
    /// expired entries go first, then the oldest.
    pub fn max_cache_entries(mut self, entries: usize) -> Self {
        self.accepted.set_max_entries(entries);
        self
    }

    /// The issuer whose tokens are accepted.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Verifies `token`.
    async fn check(&self, token: &str) -> Result<AccessToken, TokenError> {
        let cache_key = TokenCache::key(token);
        let in_use = {
            let keys = self.keys.read();
            self.fresh(&keys).then_some(keys.generation)
        };
        if let Some(accepted) =
            in_use.and_then(|generation| self.accepted.get(&cache_key, generation))
        {
            return Ok(accepted);
        }
        let header = self.header(token)?;
        let (key, generation) = self.key(header.kid.as_deref(), header.alg).await?;
        let claims = self.signed_claims(token, &key, header.alg)?;
        let valid_for = self.check_claims(&claims)?;
        let accepted = AccessToken::from_claims(claims);
        if let Some(until) = Instant::now().checked_add(valid_for.min(MAX_CACHED)) {
            self.accepted
                .insert(cache_key, &accepted, generation, until);
        }
        Ok(accepted)
    }

    /// Reads the header of `token`, refusing algorithms and types that are not accepted.
    fn header(&self, token: &str) -> Result<Header, TokenError> {
        let not_a_jwt = || TokenError::invalid("the token is not a JWT");
        let parts: Vec<&str> = token.split('.').collect();
        match parts.len() {
            3 => {}
            5 => {
                return Err(TokenError::invalid(
                    "the token is an encrypted JWT (JWE), which this server cannot read",
                ));
            }
            _ => return Err(not_a_jwt()),
        }
        let header: Map<String, Value> = URL_SAFE_NO_PAD
            .decode(parts[0])
            .ok()
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or_else(not_a_jwt)?;
        let Some(Value::String(alg)) = header.get("alg") else {
            return Err(TokenError::invalid(
                "the token's header names no signing algorithm (alg)",
            ));
        };
        let Some(alg) = Algorithm::from_str(alg)
            .ok()
            .filter(|alg| self.algorithms.contains(alg))
        else {
            return Err(TokenError::invalid(format!(
                "the token is signed with alg {}, which this server does not accept",
                shown(alg)
            )));
        };
        if let Some(typ) = header.get("typ") {
            let is_access_token = typ.as_str().is_some_and(|typ| {
                ACCESS_TOKEN_TYPES
                    .iter()
                    .any(|accepted| typ.eq_ignore_ascii_case(accepted))
            });
            if !is_access_token {
                let typ = typ.as_str().map_or_else(|| typ.to_string(), str::to_owned);
                return Err(TokenError::invalid(format!(
                    "the token is of type {}, not an access token (at+jwt)",
                    shown(&typ)
                )));
            }
        }
        if header.contains_key("crit") {
            return Err(TokenError::invalid(
                "the token's header has critical extensions (crit), which this server does not \
                 understand",
            ));
        }
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.clone()),
            Some(_) => {
                return Err(TokenError::invalid(
                    "the token's key identifier (kid) is not a string",
                ));
            }
        };
        // What the signature check will read again must read now.
        jsonwebtoken::decode_header(token)
            .map_err(|_| TokenError::invalid("the token's header is not a valid JWS header"))?;
        Ok(Header { alg, kid })
    }

    /// The key of the issuer that signed the token: the one named `kid`, or without a `kid`,
    /// the only key fitting `alg`; and the generation of the set it belongs to.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<(Arc<Key>, u64), TokenError> {
        let mut keys = self.current_keys().await?;
        let key = match kid {
            Some(kid) => match keys.find(kid) {
                Some(key) => key,
                None => {
                    keys = self.refetched(keys).await?;
                    keys.find(kid).ok_or_else(|| {
                        TokenError::invalid(format!(
                            "no key of the issuer has kid {:?}",
                            shown(kid)
                        ))
                    })?
                }
            },
            None => {
                let fitting: Vec<&Arc<Key>> = keys.keys.iter().filter(|k| k.fits(alg)).collect();
                match fitting[..] {
                    [key] => key.clone(),
                    [] => {
                        return Err(TokenError::invalid(format!(
                            "the token names no key (kid), and the issuer has no key for {alg:?}"
                        )));
                    }
                    _ => {
                        return Err(TokenError::invalid(format!(
                            "the token names no key (kid), and the issuer has {} keys for \
                             {alg:?}",
                            fitting.len()
                        )));
                    }
                }
            }
        };
        if !key.kind.fits(alg) {
            return Err(TokenError::invalid(format!(
                "{} is {}, which cannot verify {alg:?}",
                key.name(),
                key.kind.described()
            )));
        }
        if let Some(own) = key.alg.filter(|own| *own != KeyAlgorithm::from(alg)) {
            return Err(TokenError::invalid(format!(
                "{} is for {own}, not {alg:?}",
                key.name()
            )));
        }
        Ok((key, keys.generation))
    }

    /// The keys fetched again because `keys` lack one a token names (the issuer may have
    /// rotated them), or the keys last fetched when that was less than `min_refetch_interval`
    /// ago; `keys` themselves when they were given, or when the fetch fails and they hold any.
    async fn refetched(&self, keys: Arc<KeySet>) -> Result<Arc<KeySet>, TokenError> {
        if matches!(self.source, KeySource::Static) {
            return Ok(keys);
        }
        match self.refresh().await {
            Ok(fresh) => Ok(fresh),
            Err(error) if keys.keys.is_empty() => Err(error),
            Err(_) => Ok(keys),
        }
    }

    /// Whether `keys` may be used as they are: given, or fetched less than `max_key_age` ago.
    fn fresh(&self, keys: &KeySet) -> bool {
        matches!(self.source, KeySource::Static)
            || keys
                .fetched
                .is_some_and(|at| at.elapsed() < self.max_key_age)
    }

    /// The keys to verify with: those in hand, fetched first when there are none yet or they
    /// are older than `max_key_age`.
    async fn current_keys(&self) -> Result<Arc<KeySet>, TokenError> {
        let keys = self.keys.read().clone();
        if self.fresh(&keys) {
            return Ok(keys);
        }
        if keys.fetched.is_none() {
            return self.refresh().await;
        }
        // Stale keys beat none, and beat waiting for a fetch in progress: they stay in use
        // until a fetch succeeds.
        let seen = self.attempts.load(Ordering::Acquire);
        match self.refresh.try_lock() {
            Ok(state) => Ok(self.refresh_locked(seen, state).await.unwrap_or(keys)),
            Err(_) => Ok(keys),
        }
    }

    /// Fetches the keys, one fetch at a time and at most one per `min_refetch_interval` (per
    /// [`RETRY_AFTER`] after a failure). A call that waited while another fetched takes that
    /// fetch's outcome; so does a call within the interval after the last fetch, which never
    /// waits for the interval to pass.
    async fn refresh(&self) -> Result<Arc<KeySet>, TokenError> {
        let seen = self.attempts.load(Ordering::Acquire);
        let state = self.refresh.lock().await;
        self.refresh_locked(seen, state).await
    }

    /// [`refresh`](Self::refresh) once its lock is held; `seen` is the count of attempts before
    /// the lock was asked for.
    async fn refresh_locked(
        &self,
        seen: u64,
        mut state: tokio::sync::MutexGuard<'_, Refresh>,
    ) -> Result<Arc<KeySet>, TokenError> {
        if self.attempts.load(Ordering::Acquire) != seen
            || state.too_soon(self.min_refetch_interval)
        {
            return self.last_outcome(&state);
        }
        let fetched = self.fetch_keys(&mut state).await;
        state.last_attempt = Some(Instant::now());
        self.attempts.fetch_add(1, Ordering::AcqRel);
        match fetched {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *self.keys.write() = keys.clone();
                state.last_error = None;
                Ok(keys)
            }
            Err(reason) => {
                tracing::warn!(issuer = %self.issuer, "{reason}");
                state.last_error = Some(reason.clone());
                Err(TokenError::unavailable(reason))
            }
        }
    }

    /// The outcome of the last fetch: the keys, or why they could not be fetched.
    fn last_outcome(&self, state: &Refresh) -> Result<Arc<KeySet>, TokenError> {
        match &state.last_error {
            Some(reason) => Err(TokenError::unavailable(reason.clone())),
            None => Ok(self.keys.read().clone()),
        }
    }

    /// Fetches the JWKS (discovering where it is first, if need be).
    async fn fetch_keys(&self, state: &mut Refresh) -> Result<KeySet, String> {
        let uri = match (&self.source, &state.jwks_uri) {
            (KeySource::Uri(uri), _) | (KeySource::Discovery, Some(uri)) => uri.clone(),
            (KeySource::Discovery, None) => {
                let metadata =
                    discovery::find(&self.client, &self.issuer, self.request_timeout).await?;
                let uri = metadata.jwks_uri.ok_or_else(|| {
                    format!(
                        "the metadata of the authorization server {} names no jwks_uri",
                        self.issuer
                    )
                })?;
                state.jwks_uri = Some(uri.clone());
                uri
            }
            (KeySource::Static, _) => {
                return Err("this verifier uses the keys it was given, and fetches none".into());
            }
        };
        let body = discovery::fetch_within(
            &self.client,
            &uri,
            "application/jwk-set+json, application/json",
            self.request_timeout,
        )
        .await
        .map_err(|error| format!("the issuer's keys could not be fetched: {error}"))?;
        let keys = parse_jwks(&body).ok_or_else(|| {
            format!("{uri} answered with something other than a JSON Web Key Set")
        })?;
        Ok(KeySet::new(keys, Some(Instant::now())))
    }

    /// The claims of `token` once its signature verifies with `key`.
    fn signed_claims(
        &self,
        token: &str,
        key: &Key,
        alg: Algorithm,
    ) -> Result<Map<String, Value>, TokenError> {
        // The claims are checked here, after the signature, to say precisely what is wrong.
        let mut validation = Validation::new(alg);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation) {
            Ok(data) => Ok(data.claims),
            Err(error) => Err(TokenError::invalid(match error.kind() {
                ErrorKind::InvalidEcdsaKey
                | ErrorKind::InvalidEddsaKey
                | ErrorKind::InvalidRsaKey(_)
                | ErrorKind::InvalidKeyFormat => format!("{} is not a valid key", key.name()),
                ErrorKind::Base64(_) => "the token is not a JWT".to_owned(),
                ErrorKind::Json(_) | ErrorKind::Utf8(_) => {
                    "the token's claims are not a JSON object".to_owned()
                }
                _ => "the token's signature does not verify".to_owned(),
            })),
        }
    }

    /// Checks the issuer, the audience and the time of validity; the token is valid for the
    /// time returned (until its `exp`, give or take the leeway).
    fn check_claims(&self, claims: &Map<String, Value>) -> Result<Duration, TokenError> {
        match claims.get("iss").and_then(Value::as_str) {
            None => return Err(TokenError::invalid("the token names no issuer (iss)")),
            Some(iss) if iss != self.issuer => {
                return Err(TokenError::invalid(format!(
                    "the token was issued by {}, not {}",
                    shown(iss),
                    self.issuer
                )));
            }
            Some(_) => {}
        }
        discovery::check_audience(claims.get("aud"), &self.audiences, false)?;
        let now = seconds_now();
        let leeway = self.leeway.as_secs_f64();
        let valid_for = match claims.get("exp").map(Value::as_f64) {
            None => return Err(TokenError::invalid("the token has no expiry (exp)")),
            Some(None) => {
                return Err(TokenError::invalid(
                    "the token's expiry (exp) is not a number",
                ));
            }
            Some(Some(exp)) if now >= exp + leeway => {
                return Err(TokenError::invalid("the token has expired"));
            }
            // Beyond what a Duration holds: for as long as anything is kept.
            Some(Some(exp)) => {
                Duration::try_from_secs_f64(exp + leeway - now).unwrap_or(MAX_CACHED)
            }
        };
        match claims.get("nbf").map(Value::as_f64) {
            None => {}
            Some(None) => {
                return Err(TokenError::invalid(
                    "the token's start of validity (nbf) is not a number",
                ));
            }
            Some(Some(nbf)) if now + leeway < nbf => {
                return Err(TokenError::invalid("the token is not valid yet"));
            }
            Some(Some(_)) => {}
        }
        Ok(valid_for)
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// Shows the issuer, the audiences, the algorithms and where the keys come from.
impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = match &self.source {
            KeySource::Discovery => "from the issuer's metadata",
            KeySource::Uri(uri) => uri.as_str(),
            KeySource::Static => "given",
        };
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audiences", &self.audiences)
            .field("algorithms", &self.algorithms)
            .field("keys", &keys)
            .finish_non_exhaustive()
    }
}

/// The usable keys of a JSON Web Key Set; `None` when `body` is not one. Keys that cannot be
/// read are left out, so that one odd key does not hide the others.
fn parse_jwks(body: &[u8]) -> Option<Vec<Arc<Key>>> {
    #[derive(serde::Deserialize)]
    struct Set {
        keys: Vec<Value>,
    }
    let set: Set = serde_json::from_slice(body).ok()?;
    Some(
        set.keys
            .into_iter()
            .filter_map(|key| serde_json::from_value::<Jwk>(key).ok())
            .filter_map(|jwk| Key::from_jwk(&jwk))
            .collect(),
    )
}

/// The time, in seconds since the epoch.
pub(crate) fn seconds_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verifier() -> JwtVerifier {
        JwtVerifier::new("https://idp.example.com", "https://mcp.example.com/mcp")
            .jwks(JwkSet::default())
    }

    fn token(header: Value) -> String {
        let part = |value: Value| URL_SAFE_NO_PAD.encode(value.to_string());
        format!("{}.{}.c2ln", part(header), part(json!({"sub": "a"})))
    }

    fn refusal(verifier: &JwtVerifier, token: &str) -> String {
        match verifier.header(token) {
            Err(TokenError::Invalid(reason)) => reason,
            Err(other) => panic!("not refused as invalid: {other:?}"),
            Ok(_) => panic!("accepted"),
        }
    }

    /// An Ed25519 key made for these tests (PKCS#8 DER), and its public half as a JWK `kid` k1.
    const TEST_KEY: &str = "MC4CAQAwBQYDK2VwBCIEIKHNw6IZ8kTLcdNOgjKpsmHo6iU2ZeF+othxZnSSzAa7";
    const TEST_PUBLIC_KEY: &str = "PQur-gffp4mJwEt37xNXfwBJrSX2lds1vfLI8Je9YLc";

    fn signed(claims: Value) -> String {
        signed_as("k1", claims)
    }

    /// `claims` signed with the test key, the header naming `kid`.
    fn signed_as(kid: &str, claims: Value) -> String {
        use base64::engine::general_purpose::STANDARD;
        let der = STANDARD.decode(TEST_KEY).expect("base64");
        let mut header = jsonwebtoken::Header::new(Algorithm::EdDSA);
        header.kid = Some(kid.into());
        let key = jsonwebtoken::EncodingKey::from_ed_der(&der);
        jsonwebtoken::encode(&header, &claims, &key).expect("signed")
    }

    fn verifier_of_the_test_key() -> JwtVerifier {
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": TEST_PUBLIC_KEY, "kid": "k1"});
        let jwks = JwkSet {
            keys: vec![serde_json::from_value(jwk).expect("a JWK")],
        };
        JwtVerifier::new("https://idp.example.com", "https://mcp.example.com/mcp").jwks(jwks)
    }

    /// A verifier that fetches its keys from a port of 127.0.0.1 nothing listens on, and holds
    /// the test key as if it had fetched it just now.
    fn verifier_just_refreshed() -> JwtVerifier {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            listener.local_addr().expect("bound").port()
        };
        let v = verifier_of_the_test_key().jwks_uri(format!("http://127.0.0.1:{port}/jwks"));
        let keys = v.keys.read().keys.clone();
        *v.keys.write() = Arc::new(KeySet::new(keys, Some(Instant::now())));
        v.refresh.try_lock().expect("free").last_attempt = Some(Instant::now());
        v
    }

    fn valid_claims() -> Value {
        json!({"iss": "https://idp.example.com", "sub": "alice",
            "aud": "https://mcp.example.com/mcp", "exp": seconds_now() + 100.0})
    }

    #[tokio::test]
    async fn an_unknown_kid_right_after_a_fetch_is_refused_without_another() {
        let v = verifier_just_refreshed();
        for i in 0..50 {
            let kid = format!("made-up-{i}");
            assert_eq!(
                v.verify(&signed_as(&kid, valid_claims())).await,
                Err(TokenError::invalid(format!(
                    "no key of the issuer has kid \"{kid}\""
                )))
            );
        }
        // The refetch slot is still closed: no fetch was tried.
        assert_eq!(v.attempts.load(Ordering::Acquire), 0);
        // The keys in hand still serve.
        let token = signed(valid_claims());
        assert_eq!(
            v.verify(&token)
                .await
                .map(|t| t.subject().map(str::to_owned)),
            Ok(Some("alice".into()))
        );
    }

    #[tokio::test]
    async fn an_unknown_kid_once_the_slot_is_open_fetches_and_a_failure_is_held() {
        let v = verifier_just_refreshed().min_refetch_interval(Duration::ZERO);
        let unknown = signed_as("new", valid_claims());
        let refused = Err(TokenError::invalid("no key of the issuer has kid \"new\""));
        assert_eq!(v.verify(&unknown).await, refused);
        assert_eq!(v.attempts.load(Ordering::Acquire), 1);
        let failure = v.refresh.try_lock().expect("free").last_error.clone();
        assert!(
            failure
                .as_deref()
                .is_some_and(|reason| reason.starts_with("the issuer's keys could not be fetched")),
            "{failure:?}"
        );
        // The fetch failed: the next one waits RETRY_AFTER, whatever the interval, and the keys
        // in hand serve meanwhile.
        assert_eq!(v.verify(&unknown).await, refused);
        assert_eq!(v.attempts.load(Ordering::Acquire), 1);
    }

    #[tokio::test]
    async fn an_accepted_token_is_cached_with_the_generation_of_its_keys_until_its_expiry() {
        let v = verifier_of_the_test_key();
        let now = seconds_now();
        let token = signed(json!({"iss": "https://idp.example.com", "sub": "alice",
            "aud": "https://mcp.example.com/mcp", "exp": now + 100.0}));
        let accepted = v.verify(&token).await.expect("accepted");
        assert_eq!(accepted.subject(), Some("alice"));
        let generation = v.keys.read().generation;
        let key = TokenCache::key(&token);
        assert_eq!(v.accepted.get(&key, generation), Some(accepted.clone()));
        assert_eq!(v.accepted.get(&key, generation + 1), None);
        // Until exp and the leeway: 100 + 60 seconds from now.
        let until = v.accepted.until(&key).expect("cached");
        let left = until.duration_since(Instant::now()).as_secs_f64();
        assert!((158.0..=160.0).contains(&left), "{left}");
        // Refused tokens are not kept.
        let expired = signed(json!({"iss": "https://idp.example.com", "sub": "alice",
            "aud": "https://mcp.example.com/mcp", "exp": now - 100.0}));
        assert_eq!(
            v.verify(&expired).await,
            Err(TokenError::invalid("the token has expired"))
        );
        assert_eq!(v.accepted.len(), 1);
        // Turned off, nothing is kept.
        let uncached = verifier_of_the_test_key().max_cache_entries(0);
        assert_eq!(uncached.verify(&token).await, Ok(accepted));
        assert_eq!(uncached.accepted.len(), 0);
    }

    #[tokio::test]
    async fn a_verdict_is_kept_an_hour_at_most() {
        let v = verifier_of_the_test_key();
        let token = signed(json!({"iss": "https://idp.example.com",
            "aud": "https://mcp.example.com/mcp", "exp": 1e300}));
        v.verify(&token).await.expect("accepted");
        let until = v.accepted.until(&TokenCache::key(&token)).expect("cached");
        assert!(until.duration_since(Instant::now()) <= MAX_CACHED);
    }

    #[test]
    fn try_new_refuses_an_issuer_that_is_not_an_http_url() {
        let error = |issuer: &str| {
            JwtVerifier::try_new(issuer, "https://mcp.example.com/mcp")
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("idp.example.com"),
            "the issuer \"idp.example.com\" cannot be used: it is not a URL; give the URL the \
             authorization server names as its issuer, such as \
             https://auth.example.com/realms/notes"
        );
        assert_eq!(
            error("https://idp.example.com/?tenant=a"),
            "the issuer \"https://idp.example.com/?tenant=a\" cannot be used: an issuer \
             identifier has no query or fragment (RFC 8414 §2); give the URL the authorization \
             server names as its issuer, such as https://auth.example.com/realms/notes"
        );
        let verifier =
            JwtVerifier::try_new("https://idp.example.com", "https://mcp.example.com/mcp");
        assert_eq!(
            verifier.map(|v| v.issuer().to_owned()).ok().as_deref(),
            Some("https://idp.example.com")
        );
    }

    #[test]
    fn headers_are_read_strictly() {
        let v = verifier();
        assert_eq!(refusal(&v, "opaque-token"), "the token is not a JWT");
        assert_eq!(refusal(&v, "a.b.c"), "the token is not a JWT");
        assert_eq!(
            refusal(&v, "a.b.c.d.e"),
            "the token is an encrypted JWT (JWE), which this server cannot read"
        );
        assert_eq!(
            refusal(&v, &token(json!({"alg": "none"}))),
            "the token is signed with alg none, which this server does not accept"
        );
        assert_eq!(
            refusal(&v, &token(json!({"alg": "HS256", "kid": "k"}))),
            "the token is signed with alg HS256, which this server does not accept"
        );
        assert_eq!(
            refusal(&v, &token(json!({"typ": "JWT"}))),
            "the token's header names no signing algorithm (alg)"
        );
        assert_eq!(
            refusal(&v, &token(json!({"alg": "RS256", "typ": "dpop+jwt"}))),
            "the token is of type dpop+jwt, not an access token (at+jwt)"
        );
        assert_eq!(
            refusal(&v, &token(json!({"alg": "RS256", "crit": ["b64"]}))),
            "the token's header has critical extensions (crit), which this server does not \
             understand"
        );
        assert_eq!(
            refusal(&v, &token(json!({"alg": "RS256", "kid": 7}))),
            "the token's key identifier (kid) is not a string"
        );
        for typ in ["at+JWT", "application/at+jwt", "jwt"] {
            let header = v
                .header(&token(json!({"alg": "ES256", "typ": typ, "kid": "k"})))
                .unwrap();
            assert_eq!(header.alg, Algorithm::ES256);
            assert_eq!(header.kid.as_deref(), Some("k"));
        }
    }

    #[test]
    fn an_algorithm_off_the_list_is_refused() {
        let v = verifier().algorithms([Algorithm::ES256]);
        assert_eq!(
            refusal(&v, &token(json!({"alg": "RS256"}))),
            "the token is signed with alg RS256, which this server does not accept"
        );
    }

    #[test]
    #[should_panic(expected = "HS384 is an HMAC algorithm")]
    fn hmac_algorithms_cannot_be_allowed() {
        let _ = verifier().algorithms([Algorithm::RS256, Algorithm::HS384]);
    }

    #[test]
    fn keys_that_cannot_verify_are_left_out_of_a_jwks() {
        let jwks = json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
            {"kty": "RSA", "n": "AQAB", "e": "AQAB", "kid": "enc", "use": "enc"},
            {"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA", "kid": "p521"},
            {"kty": "XYZ", "kid": "unknown"},
            {"kty": "RSA", "n": "AQAB", "e": "AQAB", "kid": "rsa", "alg": "RS256"},
        ]});
        let keys = parse_jwks(jwks.to_string().as_bytes()).unwrap();
        let kids: Vec<_> = keys.iter().map(|k| k.kid.as_deref()).collect();
        assert_eq!(kids, [Some("rsa")]);
        assert!(keys[0].fits(Algorithm::RS256));
        assert!(!keys[0].fits(Algorithm::PS256));
        assert!(parse_jwks(b"{\"keys\": 1}").is_none());
        assert!(parse_jwks(b"<html>").is_none());
    }

    #[test]
    fn debug_output_names_the_issuer_and_audience() {
        let shown = format!("{:?}", verifier().also_accept_audience("api://mcp"));
        assert_eq!(
            shown,
            "JwtVerifier { issuer: \"https://idp.example.com\", audiences: \
             [\"https://mcp.example.com/mcp\", \"api://mcp\"], algorithms: [RS256, RS384, \
             RS512, PS256, PS384, PS512, ES256, ES384, EdDSA], keys: \"given\", .. }"
        );
    }
}
