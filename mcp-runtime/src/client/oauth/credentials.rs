//! What a client proves itself with: [`ClientCredentials`] at the token endpoint (a secret, or
//! a private key signing client assertions, RFC 7523 §2.2), an [`Assertion`] of the workload
//! it runs as (RFC 7523 §2.1), and the [`EnterpriseIdp`] whose ID token enterprise-managed
//! authorization exchanges.

use crate::rt::{SystemTime, UNIX_EPOCH};
use std::path::PathBuf;
use std::sync::Arc;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

use super::{AuthError, Secret};

/// How long a client assertion is valid.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// How the client is known to an authorization server: its client identifier, and what it
/// authenticates with at the token endpoint.
///
/// ```
/// use mcp_runtime::client::oauth::ClientCredentials;
///
/// let public = ClientCredentials::public("my-cli");
/// let confidential = ClientCredentials::with_secret("my-service", "s3cret")
///     .for_issuer("https://auth.example.com");
/// assert_eq!(confidential.client_id(), "my-service");
/// assert!(!format!("{confidential:?}").contains("s3cret"));
/// # drop(public);
/// ```
#[derive(Clone)]
pub struct ClientCredentials {
    pub(crate) client_id: String,
    pub(crate) secret: Option<Secret>,
    pub(crate) key: Option<SigningKey>,
    pub(crate) issuer: Option<String>,
}

/// A private key that signs client assertions (`private_key_jwt`).
#[derive(Clone)]
pub(crate) struct SigningKey {
    key: Arc<EncodingKey>,
    algorithm: Algorithm,
}

impl ClientCredentials {
    /// A public client: it has no secret, and sends its identifier alone (`none`).
    pub fn public(client_id: impl Into<String>) -> Self {
        ClientCredentials {
            client_id: client_id.into(),
            secret: None,
            key: None,
            issuer: None,
        }
    }

    /// A confidential client with a secret (`client_secret_basic`, or `client_secret_post`
    /// when the authorization server supports only that).
    pub fn with_secret(client_id: impl Into<String>, secret: impl Into<Secret>) -> Self {
        ClientCredentials {
            secret: Some(secret.into()),
            ..ClientCredentials::public(client_id)
        }
    }

    /// A confidential client that signs a JWT assertion with its private key at every token
    /// request (`private_key_jwt`, RFC 7523 §2.2). `private_key_pem` is a PKCS#8 PEM key:
    /// EC (P-256 for `ES256`, P-384 for `ES384`), RSA (`RS*`, `PS*`) or Ed25519 (`EdDSA`).
    ///
    /// Fails when the key does not parse for `algorithm`.
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        private_key_pem: &str,
        algorithm: Algorithm,
    ) -> Result<Self, AuthError> {
        let client_id = client_id.into();
        let pem = private_key_pem.as_bytes();
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            other => {
                return Err(AuthError::Configuration {
                    detail: format!(
                        "{other:?} is not a signature algorithm for client assertions; use \
                         ES256, ES384, RS256, PS256 or EdDSA"
                    ),
                });
            }
        }
        .map_err(|error| AuthError::Configuration {
            detail: format!(
                "the private key of client {client_id:?} is not a PKCS#8 PEM key for \
                 {algorithm:?}: {error}"
            ),
        })?;
        Ok(ClientCredentials {
            key: Some(SigningKey {
                key: Arc::new(key),
                algorithm,
            }),
            ..ClientCredentials::public(client_id)
        })
    }

    /// Uses these credentials only with the authorization server whose issuer identifier is
    /// `issuer`: credentials are issued by one authorization server, and a client never
    /// presents them to another (when the server moves to another authorization server, the
    /// client registers there instead).
    pub fn for_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The client identifier.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// Whether these credentials may be used with the authorization server `issuer`.
    pub(crate) fn fit(&self, issuer: &str) -> bool {
        self.issuer.as_deref().is_none_or(|i| i == issuer)
    }

    /// A client assertion for the authorization server `issuer` (its audience, RFC 7523
    /// §3), when these credentials sign one.
    pub(crate) fn assertion(&self, issuer: &str) -> Result<Option<Secret>, AuthError> {
        let Some(key) = &self.key else {
            return Ok(None);
        };
        let now = unix_now();
        let claims = json!({
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": issuer,
            "jti": super::random_token(),
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
        });
        jsonwebtoken::encode(&Header::new(key.algorithm), &claims, &key.key)
            .map(|jwt| Some(Secret::new(jwt)))
            .map_err(|error| AuthError::Configuration {
                detail: format!(
                    "cannot sign a client assertion for {:?}: {error}",
                    self.client_id
                ),
            })
    }
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let authentication = match (&self.secret, &self.key) {
            (Some(_), _) => "secret".to_owned(),
            (None, Some(key)) => format!("private_key_jwt ({:?})", key.algorithm),
            (None, None) => "none".to_owned(),
        };
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("authentication", &authentication)
            .field("issuer", &self.issuer)
            .finish()
    }
}

/// The JWT a workload presents as its identity (workload identity federation, RFC 7523
/// §2.1): a Kubernetes service account token, a cloud provider's identity token, a SPIFFE
/// JWT-SVID.
///
/// ```
/// use mcp_runtime::client::oauth::Assertion;
///
/// // Read at every token request, as the platform rotates the file.
/// let k8s = Assertion::from_file("/var/run/secrets/tokens/mcp-token");
/// # drop(k8s);
/// ```
#[derive(Clone, Debug)]
pub struct Assertion(AssertionSource);

#[derive(Clone, Debug)]
enum AssertionSource {
    Fixed(Secret),
    File(PathBuf),
}

impl Assertion {
    /// This JWT.
    pub fn new(jwt: impl Into<Secret>) -> Self {
        Assertion(AssertionSource::Fixed(jwt.into()))
    }

    /// The JWT in the file at `path`, read again at every token request.
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        Assertion(AssertionSource::File(path.into()))
    }

    /// The current JWT.
    pub(crate) async fn current(&self) -> Result<Secret, AuthError> {
        match &self.0 {
            AssertionSource::Fixed(jwt) => Ok(jwt.clone()),
            AssertionSource::File(path) => tokio::fs::read_to_string(path)
                .await
                .map(|text| Secret::new(text.trim()))
                .map_err(|error| AuthError::Configuration {
                    detail: format!(
                        "cannot read the workload identity token {}: {error}",
                        path.display()
                    ),
                }),
        }
    }
}

/// The enterprise identity provider of enterprise-managed authorization (SEP-990): the
/// client exchanges the user's ID token there for an identity assertion authorization grant
/// (ID-JAG, RFC 8693 token exchange), then presents that grant to the MCP server's
/// authorization server (RFC 7523 JWT bearer grant).
#[derive(Clone, Debug)]
pub struct EnterpriseIdp {
    pub(crate) token_endpoint: String,
    pub(crate) client: ClientCredentials,
    pub(crate) id_token: Assertion,
}

impl EnterpriseIdp {
    /// The identity provider whose token endpoint is `token_endpoint`, where the client is
    /// known as `client`, and the ID token of the signed-in user.
    pub fn new(
        token_endpoint: impl Into<String>,
        client: ClientCredentials,
        id_token: Assertion,
    ) -> Self {
        EnterpriseIdp {
            token_endpoint: token_endpoint.into(),
            client,
            id_token,
        }
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
