//! A test OAuth 2.1 authorization server on `127.0.0.1`, for the tests of the resource server,
//! its token verifiers, and the client's authorization.
//!
//! It generates its keys when it starts (an RSA key for RS256, a P-256 key for ES256; no key
//! material lives in the repository), and serves
//!
//! - its metadata (RFC 8414 at `/.well-known/oauth-authorization-server`, OpenID Connect
//!   Discovery at `/.well-known/openid-configuration`, inserted before or appended after the
//!   issuer's path as [`Options::discovery`] chooses);
//! - its keys at `{issuer}/jwks`;
//! - a token endpoint at `{issuer}/token` (the `client_credentials` grant, with RFC 8707's
//!   `resource`; a request without `scope` is granted every scope of `scopes_supported`);
//! - an introspection endpoint at `{issuer}/introspect` (RFC 7662);
//! - an authorization endpoint at `{issuer}/authorize`, which clients require in the metadata,
//!   but which (unless [`Options::code_flow`] says otherwise) refuses every request: users never
//!   sign in here.
//!
//! With [`Options::code_flow`], it is also the authorization server of an interactive client:
//! dynamic client registration (RFC 7591) at `{issuer}/register` (unless
//! [`Options::without_registration`]), clients an administrator registered
//! ([`AuthorizationServer::register_client`]), an authorization endpoint
//! that approves every valid request at once (no user signs in: the tokens are for the test
//! user [`CODE_FLOW_SUBJECT`]) with PKCE (S256 only), RFC 8707's `resource` and RFC 9207's
//! `iss`, and the `authorization_code` and `refresh_token` grants (refresh tokens rotate: each
//! is good for one refresh). [`AuthorizationServer`] says what it saw: registrations,
//! authorization requests, token requests per grant.
//!
//! Tests mint tokens directly with [`AuthorizationServer::token`], including the broken and
//! hostile ones a resource server must refuse.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Map, Value, json};

/// The client id the resource server introspects as.
pub const INTROSPECTION_CLIENT: &str = "mcp-server";
/// The client that gets tokens from the token endpoint.
pub const TOKEN_CLIENT: &str = "test-client";
/// How long the tokens live unless told otherwise, in seconds.
pub const TOKEN_LIFETIME: i64 = 300;
/// The user every authorization of the code flow is for: the `sub` of its access tokens.
pub const CODE_FLOW_SUBJECT: &str = "user-1";

/// Which discovery documents the server publishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discovery {
    /// RFC 8414: `{origin}/.well-known/oauth-authorization-server{path}`.
    OAuth,
    /// OpenID Connect, inserted: `{origin}/.well-known/openid-configuration{path}`.
    OidcInsertion,
    /// OpenID Connect, appended: `{issuer}/.well-known/openid-configuration`.
    OidcAppend,
    /// All three.
    All,
}

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// The path of the issuer identifier (`""`, or `/realms/test`).
    pub issuer_path: String,
    /// The discovery documents published.
    pub discovery: Vec<Discovery>,
    /// The `issuer` the documents name, when it must differ from the real one.
    pub metadata_issuer: Option<String>,
    /// The `scopes_supported` of the metadata.
    pub scopes_supported: Vec<String>,
    /// Whether the server offers the authorization code flow: see [`Options::code_flow`].
    pub code_flow: bool,
    /// How long the access tokens of the token endpoint live, in seconds.
    pub access_token_lifetime: i64,
    /// The client authentication methods of the code flow (its metadata's
    /// `token_endpoint_auth_methods_supported`, and what clients may register with).
    pub token_endpoint_auth_methods: Vec<String>,
    /// Whether the code flow comes with dynamic client registration: see
    /// [`Options::without_registration`].
    pub dynamic_registration: bool,
}

impl Default for Options {
    /// No issuer path, every discovery document, scopes `notes:read` and `notes:write`.
    fn default() -> Self {
        Options {
            issuer_path: String::new(),
            discovery: vec![Discovery::All],
            metadata_issuer: None,
            scopes_supported: vec!["notes:read".into(), "notes:write".into()],
            code_flow: false,
            access_token_lifetime: TOKEN_LIFETIME,
            token_endpoint_auth_methods: vec![
                "client_secret_basic".into(),
                "client_secret_post".into(),
                "none".into(),
            ],
            dynamic_registration: true,
        }
    }
}

impl Options {
    /// With the issuer identifier's path `path` (`/realms/test`).
    pub fn issuer_path(mut self, path: impl Into<String>) -> Self {
        self.issuer_path = path.into();
        self
    }

    /// Publishing only the `documents`.
    pub fn discovery(mut self, documents: impl IntoIterator<Item = Discovery>) -> Self {
        self.discovery = documents.into_iter().collect();
        self
    }

    /// With documents that name `issuer` instead of the real issuer.
    pub fn metadata_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.metadata_issuer = Some(issuer.into());
        self
    }

    /// With `scopes` as the metadata's `scopes_supported` (also what a `client_credentials`
    /// request without `scope` is granted).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With the authorization code flow, for clients that act for a user:
    ///
    /// - the metadata adds `registration_endpoint`, `authorization_response_iss_parameter_supported`,
    ///   the `authorization_code` and `refresh_token` grants and the `none` client
    ///   authentication;
    /// - `POST {issuer}/register` registers clients (RFC 7591), unless
    ///   [`without_registration`](Self::without_registration);
    /// - `GET {issuer}/authorize` approves every valid request at once, for the user
    ///   [`CODE_FLOW_SUBJECT`];
    /// - the token endpoint takes the `authorization_code` and `refresh_token` grants besides
    ///   `client_credentials`.
    ///
    /// Without it, the server offers the `client_credentials` grant only.
    pub fn code_flow(mut self) -> Self {
        self.code_flow = true;
        self
    }

    /// With the code flow's client authentication methods limited to `methods` (among
    /// `client_secret_basic`, `client_secret_post` and `none`, which are all offered by
    /// default): the metadata lists them, and registering with another is refused. (Without the
    /// code flow, the metadata lists `client_secret_basic` and `client_secret_post` whatever
    /// this says.)
    pub fn token_endpoint_auth_methods<S: Into<String>>(
        mut self,
        methods: impl IntoIterator<Item = S>,
    ) -> Self {
        self.token_endpoint_auth_methods = methods.into_iter().map(Into::into).collect();
        self
    }

    /// With the code flow's clients registered by an administrator only
    /// ([`AuthorizationServer::register_client`]), as at providers without dynamic client
    /// registration: the metadata names no `registration_endpoint`, and `{issuer}/register` is
    /// not served.
    pub fn without_registration(mut self) -> Self {
        self.dynamic_registration = false;
        self
    }

    /// With access tokens from the token endpoint (every grant) that live `seconds` seconds
    /// ([`TOKEN_LIFETIME`] by default).
    pub fn access_token_lifetime(mut self, seconds: i64) -> Self {
        self.access_token_lifetime = seconds;
        self
    }

    fn serves(&self, document: Discovery) -> bool {
        self.discovery
            .iter()
            .any(|d| *d == document || *d == Discovery::All)
    }
}

/// A signing key of the server.
struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
    jwk: Jwk,
    /// The PEM of the public key (RSA keys only).
    public_pem: String,
}

/// The current keys.
struct KeyRing {
    rsa: Arc<SigningKey>,
    ec: Arc<SigningKey>,
}

impl KeyRing {
    fn key_for(&self, alg: Algorithm) -> Arc<SigningKey> {
        match alg {
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => self.rsa.clone(),
            Algorithm::ES256 => self.ec.clone(),
            other => panic!("the test authorization server has no key for {other:?}"),
        }
    }

    fn jwks(&self) -> JwkSet {
        JwkSet {
            keys: vec![self.rsa.jwk.clone(), self.ec.jwk.clone()],
        }
    }
}

/// What the server's handlers share.
struct Shared {
    issuer: String,
    options: Options,
    keys: Mutex<KeyRing>,
    /// Keys of nobody's, for tokens with bad signatures; made on first use.
    strangers: OnceLock<KeyRing>,
    introspection_secret: String,
    client_secret: String,
    /// The opaque tokens, with their introspection answers.
    opaque: Mutex<HashMap<String, Value>>,
    revoked: Mutex<HashSet<String>>,
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
    /// The clients, codes and refresh tokens of the authorization code flow, and what the
    /// server saw.
    flow: Mutex<CodeFlow>,
}

/// The test authorization server; stops when dropped.
pub struct AuthorizationServer {
    url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl AuthorizationServer {
    /// A server with the default [`Options`]: issuer `http://127.0.0.1:PORT`, every discovery
    /// document.
    pub async fn start() -> Self {
        AuthorizationServer::start_with(Options::default()).await
    }

    /// A server set up as `options` says.
    pub async fn start_with(options: Options) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let path = options.issuer_path.trim_end_matches('/').to_owned();
        let issuer = format!("{url}{path}");
        let keys = tokio::task::spawn_blocking(|| new_key_ring("key"))
            .await
            .expect("the keys are generated");
        let shared = Arc::new(Shared {
            issuer,
            options: options.clone(),
            keys: Mutex::new(keys),
            strangers: OnceLock::new(),
            // With characters that Basic authentication must form-urlencode (RFC 6749 §2.3.1).
            introspection_secret: format!("intro secret:{}+/%", random_hex(16)),
            // Letters and digits only, which read the same form-urlencoded or not.
            client_secret: random_hex(16),
            opaque: Mutex::new(HashMap::new()),
            revoked: Mutex::new(HashSet::new()),
            jwks_fetches: AtomicUsize::new(0),
            introspections: AtomicUsize::new(0),
            flow: Mutex::new(CodeFlow::default()),
        });
        let mut router = Router::new()
            .route(&format!("{path}/jwks"), get(jwks))
            .route(&format!("{path}/token"), post(token_endpoint))
            .route(&format!("{path}/authorize"), get(authorize))
            .route(&format!("{path}/introspect"), post(introspect));
        if options.code_flow && options.dynamic_registration {
            router = router.route(&format!("{path}/register"), post(register));
        }
        let mut documents = Vec::new();
        if options.serves(Discovery::OAuth) {
            documents.push(format!("/.well-known/oauth-authorization-server{path}"));
        }
        if options.serves(Discovery::OidcInsertion) {
            documents.push(format!("/.well-known/openid-configuration{path}"));
        }
        if options.serves(Discovery::OidcAppend) {
            documents.push(format!("{path}/.well-known/openid-configuration"));
        }
        documents.dedup();
        for document in documents {
            router = router.route(&document, get(metadata));
        }
        let app = router.with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        AuthorizationServer { url, shared, task }
    }

    /// The issuer identifier: `http://127.0.0.1:PORT` and the issuer path.
    pub fn issuer(&self) -> &str {
        &self.shared.issuer
    }

    /// The origin the server listens on, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The JWKS URL, `{issuer}/jwks`.
    pub fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.shared.issuer)
    }

    /// The introspection endpoint, `{issuer}/introspect`.
    pub fn introspection_endpoint(&self) -> String {
        format!("{}/introspect", self.shared.issuer)
    }

    /// The token endpoint, `{issuer}/token`.
    pub fn token_endpoint(&self) -> String {
        format!("{}/token", self.shared.issuer)
    }

    /// The authorization endpoint, `{issuer}/authorize`.
    pub fn authorization_endpoint(&self) -> String {
        format!("{}/authorize", self.shared.issuer)
    }

    /// The registration endpoint, `{issuer}/register` (served with [`Options::code_flow`]).
    pub fn registration_endpoint(&self) -> String {
        format!("{}/register", self.shared.issuer)
    }

    /// How many clients registered at the registration endpoint (refused registrations and
    /// [`register_client`](Self::register_client) do not count).
    pub fn registrations(&self) -> usize {
        self.shared.flow.lock().unwrap().registrations
    }

    /// The requests to the authorization endpoint so far, in order, valid or not.
    pub fn authorization_requests(&self) -> Vec<AuthorizationRequest> {
        self.shared
            .flow
            .lock()
            .unwrap()
            .authorization_requests
            .clone()
    }

    /// How many requests to the token endpoint had `grant_type` (granted or refused).
    pub fn token_requests(&self, grant_type: &str) -> usize {
        let flow = self.shared.flow.lock().unwrap();
        flow.token_requests.get(grant_type).copied().unwrap_or(0)
    }

    /// Revokes every refresh token issued so far: presenting one gets `invalid_grant`.
    pub fn revoke_refresh_tokens(&self) {
        self.shared.flow.lock().unwrap().refresh_tokens.clear();
    }

    /// Registers a confidential client for the authorization code flow with `redirect_uri`,
    /// authenticating with `method` (`client_secret_basic` or `client_secret_post`), the way an
    /// administrator would: its id and secret, for a client configured with them. (Not counted
    /// in [`registrations`](Self::registrations).)
    ///
    /// # Panics
    ///
    /// When `method` is not one of those two.
    pub fn register_client(
        &self,
        redirect_uri: impl Into<String>,
        method: &str,
    ) -> (String, String) {
        let auth = ClientAuth::parse(method)
            .filter(|auth| *auth != ClientAuth::None)
            .unwrap_or_else(|| panic!("{method} is not a method of a confidential client"));
        let (id, secret) = (format!("client-{}", random_hex(8)), random_hex(16));
        let client = Client {
            secret: Some(secret.clone()),
            redirect_uris: vec![redirect_uri.into()],
            auth,
        };
        let mut flow = self.shared.flow.lock().unwrap();
        flow.clients.insert(id.clone(), client);
        (id, secret)
    }

    /// The current public keys, as the JWKS endpoint serves them.
    pub fn jwks(&self) -> JwkSet {
        self.shared.keys.lock().unwrap().jwks()
    }

    /// The kid of the current RSA key.
    pub fn rsa_kid(&self) -> String {
        self.shared.keys.lock().unwrap().rsa.kid.clone()
    }

    /// The kid of the current P-256 key.
    pub fn ec_kid(&self) -> String {
        self.shared.keys.lock().unwrap().ec.kid.clone()
    }

    /// Replaces the signing keys with new ones, with new kids; the old ones leave the JWKS.
    pub async fn rotate_keys(&self) {
        let keys = tokio::task::spawn_blocking(|| new_key_ring("rotated"))
            .await
            .expect("the keys are generated");
        *self.shared.keys.lock().unwrap() = keys;
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.shared.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How many introspection requests arrived (authenticated or not).
    pub fn introspections(&self) -> usize {
        self.shared.introspections.load(Ordering::SeqCst)
    }

    /// The client id and secret the resource server introspects with.
    pub fn introspection_client(&self) -> (String, String) {
        (
            INTROSPECTION_CLIENT.to_owned(),
            self.shared.introspection_secret.clone(),
        )
    }

    /// The client id and secret that get tokens from the token endpoint.
    pub fn client_credentials(&self) -> (String, String) {
        (TOKEN_CLIENT.to_owned(), self.shared.client_secret.clone())
    }

    /// A JWT access token to build: see [`TokenBuilder`].
    pub fn token(&self) -> TokenBuilder<'_> {
        let now = now();
        let mut claims = Map::new();
        claims.insert("iss".into(), json!(self.shared.issuer));
        claims.insert("sub".into(), json!("alice"));
        claims.insert("client_id".into(), json!(TOKEN_CLIENT));
        claims.insert("exp".into(), json!(now + TOKEN_LIFETIME));
        claims.insert("iat".into(), json!(now));
        claims.insert("jti".into(), json!(random_hex(16)));
        TokenBuilder {
            server: self,
            claims,
            audience_set: false,
            alg: Algorithm::RS256,
            kid: KidChoice::Current,
            typ: Some("at+jwt".into()),
        }
    }

    /// An opaque token whose introspection answer is `{"active": true}` with `claims` over the
    /// defaults (`iss`, `sub` "alice", `client_id` "test-client", `exp` in 300 s; `aud` only if
    /// given). A claim given as `null` is left out.
    pub fn opaque_token(&self, claims: Value) -> String {
        let now = now();
        let mut answer = json!({
            "active": true,
            "iss": self.shared.issuer,
            "sub": "alice",
            "client_id": TOKEN_CLIENT,
            "exp": now + TOKEN_LIFETIME,
            "iat": now,
            "token_type": "Bearer",
        });
        let map = answer.as_object_mut().expect("an object");
        if let Value::Object(given) = claims {
            for (name, value) in given {
                if value.is_null() {
                    map.remove(&name);
                } else {
                    map.insert(name, value);
                }
            }
        }
        let token = format!("opaque-{}", random_hex(24));
        self.shared
            .opaque
            .lock()
            .unwrap()
            .insert(token.clone(), answer);
        token
    }

    /// Revokes `token` (opaque or JWT): its introspection answer becomes `{"active": false}`.
    pub fn revoke(&self, token: &str) {
        self.shared.revoked.lock().unwrap().insert(token.to_owned());
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Which kid a token names.
enum KidChoice {
    Current,
    Named(String),
    None,
}

/// A JWT access token to mint. Defaults: `iss` the issuer, `sub` "alice", `client_id`
/// "test-client", `exp` in 300 s, `iat` now, a random `jti`, `typ` `at+jwt`, RS256 with the
/// current key. The audience must be given ([`audience`](Self::audience),
/// [`audiences`](Self::audiences)) or explicitly left out ([`no_audience`](Self::no_audience)).
pub struct TokenBuilder<'a> {
    server: &'a AuthorizationServer,
    claims: Map<String, Value>,
    audience_set: bool,
    alg: Algorithm,
    kid: KidChoice,
    typ: Option<String>,
}

impl TokenBuilder<'_> {
    /// `aud`: `audience`.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.claims.insert("aud".into(), json!(audience.into()));
        self.audience_set = true;
        self
    }

    /// `aud`: a list.
    pub fn audiences<S: Into<String>>(mut self, audiences: impl IntoIterator<Item = S>) -> Self {
        let list: Vec<String> = audiences.into_iter().map(Into::into).collect();
        self.claims.insert("aud".into(), json!(list));
        self.audience_set = true;
        self
    }

    /// No `aud` at all.
    pub fn no_audience(mut self) -> Self {
        self.claims.remove("aud");
        self.audience_set = true;
        self
    }

    /// `sub`.
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.claims.insert("sub".into(), json!(subject.into()));
        self
    }

    /// `client_id`.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.claims
            .insert("client_id".into(), json!(client_id.into()));
        self
    }

    /// `scope`, space-separated.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.claims.insert("scope".into(), json!(scope.into()));
        self
    }

    /// `iss`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.claims.insert("iss".into(), json!(issuer.into()));
        self
    }

    /// `exp` in `seconds` (negative: already expired).
    pub fn expires_in(mut self, seconds: i64) -> Self {
        self.claims.insert("exp".into(), json!(now() + seconds));
        self
    }

    /// `nbf` in `seconds` (positive: not valid yet).
    pub fn not_before_in(mut self, seconds: i64) -> Self {
        self.claims.insert("nbf".into(), json!(now() + seconds));
        self
    }

    /// Signed with `alg` (RS256, RS384, RS512, PS256, PS384, PS512 with the RSA key; ES256 with
    /// the P-256 key).
    pub fn alg(mut self, alg: Algorithm) -> Self {
        self.alg = alg;
        self
    }

    /// The header names `kid` (the token is still signed with the current key).
    pub fn kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = KidChoice::Named(kid.into());
        self
    }

    /// The header names no kid.
    pub fn no_kid(mut self) -> Self {
        self.kid = KidChoice::None;
        self
    }

    /// The header's `typ`.
    pub fn typ(mut self, typ: impl Into<String>) -> Self {
        self.typ = Some(typ.into());
        self
    }

    /// The claim `name` set to `value`.
    pub fn claim(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.claims.insert(name.into(), value.into());
        self
    }

    /// The claim `name` left out.
    pub fn without_claim(mut self, name: &str) -> Self {
        self.claims.remove(name);
        self
    }

    /// The token, signed with the server's current key for its algorithm.
    pub fn sign(self) -> String {
        let key = self.server.shared.keys.lock().unwrap().key_for(self.alg);
        self.signed_with(&key)
    }

    /// The token with header `{"alg":"none"}` and an empty signature.
    pub fn unsigned_alg_none(self) -> String {
        let claims = self.finished_claims();
        format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(Value::Object(claims).to_string())
        )
    }

    /// The key-confusion attack: the token signed with HS256, the HMAC secret being the PEM of
    /// the server's RSA public key, with that key's kid.
    pub fn hs256_with_public_key(self) -> String {
        let rsa = self.server.shared.keys.lock().unwrap().rsa.clone();
        let mut header = Header::new(Algorithm::HS256);
        header.typ = self.typ.clone();
        header.kid = Some(rsa.kid.clone());
        let claims = self.finished_claims();
        jsonwebtoken::encode(
            &header,
            &claims,
            &EncodingKey::from_secret(rsa.public_pem.as_bytes()),
        )
        .expect("an HS256 token")
    }

    /// The token signed with a key the server never published, under the current kid: its
    /// signature does not verify.
    pub fn signed_by_stranger(self) -> String {
        let current = self.server.shared.keys.lock().unwrap().key_for(self.alg);
        let strangers = self
            .server
            .shared
            .strangers
            .get_or_init(|| new_key_ring("stranger"));
        let stranger = strangers.key_for(self.alg);
        let impostor = SigningKey {
            kid: current.kid.clone(),
            encoding: stranger.encoding.clone(),
            decoding: stranger.decoding.clone(),
            jwk: stranger.jwk.clone(),
            public_pem: String::new(),
        };
        self.signed_with(&impostor)
    }

    fn finished_claims(&self) -> Map<String, Value> {
        assert!(
            self.audience_set,
            "give the token an audience (.audience, .audiences) or say .no_audience()"
        );
        self.claims.clone()
    }

    fn signed_with(self, key: &SigningKey) -> String {
        let claims = self.finished_claims();
        let mut header = Header::new(self.alg);
        header.typ = self.typ;
        header.kid = match self.kid {
            KidChoice::Current => Some(key.kid.clone()),
            KidChoice::Named(kid) => Some(kid),
            KidChoice::None => None,
        };
        jsonwebtoken::encode(&header, &claims, &key.encoding).expect("a signed token")
    }
}

/// Fresh keys: RSA 2048 and P-256, with kids starting with `prefix`.
fn new_key_ring(prefix: &str) -> KeyRing {
    use p256::pkcs8::EncodePrivateKey;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    use rsa::pkcs8::{EncodePublicKey, LineEnding};

    let rsa_private =
        rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).expect("an RSA key is generated");
    let rsa_der = rsa_private.to_pkcs1_der().expect("the RSA key encodes");
    let public_pem = rsa_private
        .to_public_key()
        .to_public_key_pem(LineEnding::LF)
        .expect("the RSA public key encodes");
    let rsa = signing_key(
        format!("{prefix}-rsa-{}", random_hex(4)),
        EncodingKey::from_rsa_der(rsa_der.as_bytes()),
        Algorithm::RS256,
        public_pem,
    );
    let ec_private = p256::SecretKey::random(&mut rand::rngs::OsRng);
    let ec_der = ec_private.to_pkcs8_der().expect("the P-256 key encodes");
    let ec = signing_key(
        format!("{prefix}-ec-{}", random_hex(4)),
        EncodingKey::from_ec_der(ec_der.as_bytes()),
        Algorithm::ES256,
        String::new(),
    );
    KeyRing {
        rsa: Arc::new(rsa),
        ec: Arc::new(ec),
    }
}

fn signing_key(
    kid: String,
    encoding: EncodingKey,
    alg: Algorithm,
    public_pem: String,
) -> SigningKey {
    let mut jwk = Jwk::from_encoding_key(&encoding, alg).expect("a JWK of the key");
    jwk.common.key_id = Some(kid.clone());
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    let decoding = DecodingKey::from_jwk(&jwk).expect("a decoding key of the JWK");
    SigningKey {
        kid,
        encoding,
        decoding,
        jwk,
        public_pem,
    }
}

/// `GET /.well-known/...`: the metadata.
async fn metadata(State(shared): State<Arc<Shared>>) -> Response {
    let issuer = &shared.issuer;
    let named = shared.options.metadata_issuer.as_ref().unwrap_or(issuer);
    let mut document = json!({
        "issuer": named,
        "jwks_uri": format!("{issuer}/jwks"),
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "introspection_endpoint": format!("{issuer}/introspect"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "introspection_endpoint_auth_methods_supported":
            ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": shared.options.scopes_supported,
        "response_types_supported": ["code"],
        // What OpenID Connect Discovery requires besides.
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256", "ES256"],
    });
    if shared.options.code_flow {
        if shared.options.dynamic_registration {
            document["registration_endpoint"] = json!(format!("{issuer}/register"));
        }
        document["grant_types_supported"] =
            json!(["authorization_code", "refresh_token", "client_credentials"]);
        document["token_endpoint_auth_methods_supported"] =
            json!(shared.options.token_endpoint_auth_methods);
        document["authorization_response_iss_parameter_supported"] = json!(true);
    }
    axum::Json(document).into_response()
}

/// `GET {issuer}/jwks`.
async fn jwks(State(shared): State<Arc<Shared>>) -> Response {
    shared.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let set = shared.keys.lock().unwrap().jwks();
    (
        [(header::CONTENT_TYPE, "application/jwk-set+json")],
        serde_json::to_string(&set).expect("a JWKS serializes"),
    )
        .into_response()
}

/// `POST {issuer}/introspect` (RFC 7662).
async fn introspect(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    shared.introspections.fetch_add(1, Ordering::SeqCst);
    let form = form_decode(&body);
    if !authenticated(
        &headers,
        &form,
        INTROSPECTION_CLIENT,
        &shared.introspection_secret,
    ) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let Some(token) = field(&form, "token") else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
    };
    let inactive = axum::Json(json!({"active": false})).into_response();
    if shared.revoked.lock().unwrap().contains(token) {
        return inactive;
    }
    if let Some(answer) = shared.opaque.lock().unwrap().get(token) {
        return axum::Json(answer.clone()).into_response();
    }
    // A JWT of the server's: its claims, while it is valid.
    let Ok(header) = jsonwebtoken::decode_header(token) else {
        return inactive;
    };
    let key = {
        let keys = shared.keys.lock().unwrap();
        [&keys.rsa, &keys.ec]
            .into_iter()
            .find(|key| header.kid.as_deref() == Some(key.kid.as_str()))
            .cloned()
    };
    let Some(key) = key else { return inactive };
    let mut validation = Validation::new(header.alg);
    validation.validate_aud = false;
    validation.leeway = 0;
    match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation) {
        Ok(data) => {
            let mut answer = data.claims;
            answer.insert("active".into(), json!(true));
            axum::Json(answer).into_response()
        }
        Err(_) => inactive,
    }
}

/// `POST {issuer}/token`: the `client_credentials` grant, and with [`Options::code_flow`] the
/// `authorization_code` and `refresh_token` grants.
async fn token_endpoint(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = form_decode(&body);
    let grant_type = field(&form, "grant_type").unwrap_or_default().to_owned();
    *shared
        .flow
        .lock()
        .unwrap()
        .token_requests
        .entry(grant_type.clone())
        .or_default() += 1;
    if shared.options.code_flow {
        match grant_type.as_str() {
            "authorization_code" => return code_grant(&shared, &headers, &form),
            "refresh_token" => return refresh_grant(&shared, &headers, &form),
            _ => {}
        }
    }
    client_credentials_grant(&shared, &headers, &form)
}

/// The `client_credentials` grant (RFC 6749 §4.4) of [`TOKEN_CLIENT`], with RFC 8707's
/// `resource`. The scopes asked for are granted; a request without `scope` gets every scope of
/// `scopes_supported`.
fn client_credentials_grant(
    shared: &Shared,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Response {
    if !authenticated(headers, form, TOKEN_CLIENT, &shared.client_secret) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    if field(form, "grant_type") != Some("client_credentials") {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let resources: Vec<&str> = form
        .iter()
        .filter(|(name, _)| name == "resource")
        .map(|(_, value)| value.as_str())
        .collect();
    if resources.is_empty() {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
    }
    let aud = match resources[..] {
        [one] => json!(one),
        _ => json!(resources),
    };
    let lifetime = shared.options.access_token_lifetime;
    let now = now();
    let mut claims = json!({
        "iss": shared.issuer,
        "sub": TOKEN_CLIENT,
        "client_id": TOKEN_CLIENT,
        "aud": aud,
        "exp": now + lifetime,
        "iat": now,
        "jti": random_hex(16),
    });
    // The scopes asked for, all granted; without any, the default: every scope supported
    // (RFC 6749 §3.3 lets the server pick a default).
    let scope = match field(form, "scope").filter(|scope| !scope.is_empty()) {
        Some(asked) => asked.to_owned(),
        None => shared.options.scopes_supported.join(" "),
    };
    let scope = Some(scope).filter(|scope| !scope.is_empty());
    if let Some(scope) = &scope {
        claims["scope"] = json!(scope);
    }
    let access_token = sign_access_token(shared, &claims);
    let mut answer = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": lifetime,
    });
    if let Some(scope) = scope {
        answer["scope"] = json!(scope);
    }
    ([(header::CACHE_CONTROL, "no-store")], axum::Json(answer)).into_response()
}

/// `GET {issuer}/authorize`. Without [`Options::code_flow`]: named in the metadata (clients
/// require it), but users never sign in here, and tokens come from the `client_credentials`
/// grant. With it: every request is recorded, and a valid one approved at once (see
/// [`authorize_code`]).
async fn authorize(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    if !shared.options.code_flow {
        let body = json!({
            "error": "unsupported_response_type",
            "error_description": "the test authorization server issues tokens by the \
                                  client_credentials grant only",
        });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    let query = form_decode(query.unwrap_or_default().as_bytes());
    authorize_code(&shared, &query)
}

/// `claims` signed as an RFC 9068 access token (`at+jwt`) with the current RSA key.
fn sign_access_token(shared: &Shared, claims: &Value) -> String {
    let key = shared.keys.lock().unwrap().rsa.clone();
    let mut header = Header::new(Algorithm::RS256);
    header.typ = Some("at+jwt".into());
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).expect("a token")
}

/// An OAuth error answer (RFC 6749 §5.2).
fn oauth_error(status: StatusCode, error: &str) -> Response {
    let body = axum::Json(json!({"error": error}));
    if status == StatusCode::UNAUTHORIZED {
        let challenge = [(header::WWW_AUTHENTICATE, "Basic realm=\"test\"")];
        (status, challenge, body).into_response()
    } else {
        (status, body).into_response()
    }
}

/// An OAuth error answer (RFC 6749 §5.2) with an `error_description`.
fn described(status: StatusCode, error: &str, description: &str) -> Response {
    let body = axum::Json(json!({"error": error, "error_description": description}));
    if status == StatusCode::UNAUTHORIZED {
        let challenge = [(header::WWW_AUTHENTICATE, "Basic realm=\"test\"")];
        (status, challenge, body).into_response()
    } else {
        (status, body).into_response()
    }
}

/// Whether the request authenticates as `client` with `secret`: HTTP Basic (RFC 6749 §2.3.1,
/// id and secret form-urlencoded) or `client_id`/`client_secret` in the form.
fn authenticated(
    headers: &HeaderMap,
    form: &[(String, String)],
    client: &str,
    secret: &str,
) -> bool {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
        .and_then(|decoded| String::from_utf8(decoded).ok());
    if let Some(credentials) = basic {
        return credentials.split_once(':').is_some_and(|(id, password)| {
            percent_decode(id) == client && percent_decode(password) == secret
        });
    }
    field(form, "client_id") == Some(client) && field(form, "client_secret") == Some(secret)
}

/// The first value of `name` in `form`.
fn field<'f>(form: &'f [(String, String)], name: &str) -> Option<&'f str> {
    form.iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value.as_str())
}

/// Every value of `name` in `form`, in order.
fn all_fields<'f>(form: &'f [(String, String)], name: &str) -> Vec<&'f str> {
    form.iter()
        .filter(|(n, _)| n == name)
        .map(|(_, value)| value.as_str())
        .collect()
}

/// The pairs of an `application/x-www-form-urlencoded` body, in order.
fn form_decode(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

/// `text` form-urlencoded-decoded (`+` as space, `%XX` decoded).
fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("v={text}").as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

/// `text` form-urlencoded for a query string.
fn percent_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The S256 code challenge of `verifier` (RFC 7636 §4.2).
fn s256(verifier: &str) -> String {
    use sha2::Digest;
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes, in hex.
fn random_hex(bytes: usize) -> String {
    (0..bytes)
        .map(|_| format!("{:02x}", rand::random::<u8>()))
        .collect()
}

/// The time, in seconds since the epoch.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

mod code_flow;
#[cfg(test)]
mod tests;

pub use code_flow::AuthorizationRequest;
use code_flow::*;
