//! DPoP (RFC 9449): the key the client's tokens are bound to, and the proof of possession it
//! signs for every request that carries one of them.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use parking_lot::Mutex;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::credentials::unix_now;
use super::{AuthError, Secret};

/// A P-256 key for DPoP proofs (`ES256`).
///
/// A proof is a JWS (RFC 7515 compact serialization) whose header carries the public key:
/// the header is encoded once per key, and each proof costs one ECDSA signature (RustCrypto's
/// `p256`, deterministic nonces per RFC 6979) with the key parsed once, rather than once per
/// proof as a general JWT library does.
pub(crate) struct DpopKey {
    key: SigningKey,
    /// The encoded protected header, `{"typ":"dpop+jwt","alg":"ES256","jwk":...}`.
    header: String,
    /// The key as base64url PKCS#8 DER, as the token store keeps it.
    stored: Secret,
}

impl DpopKey {
    /// A fresh key.
    pub(crate) fn generate() -> Result<Self, AuthError> {
        Self::from_key(SigningKey::random(&mut rand::rngs::OsRng))
    }

    /// The key the token store kept.
    pub(crate) fn from_stored(stored: &Secret) -> Result<Self, AuthError> {
        let unusable = || AuthError::Store {
            detail: "the stored DPoP key is not a base64url PKCS#8 P-256 key".into(),
        };
        let der = URL_SAFE_NO_PAD
            .decode(stored.expose())
            .map_err(|_| unusable())?;
        Self::from_key(SigningKey::from_pkcs8_der(&der).map_err(|_| unusable())?)
    }

    fn from_key(key: SigningKey) -> Result<Self, AuthError> {
        let der = key
            .to_pkcs8_der()
            .map_err(|error| AuthError::Configuration {
                detail: format!("cannot encode a DPoP key: {error}"),
            })?;
        let point = key.verifying_key().to_encoded_point(false);
        let coordinate = |c: Option<&p256::FieldBytes>| c.map(|c| URL_SAFE_NO_PAD.encode(c));
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coordinate(point.x()),
            "y": coordinate(point.y()),
        });
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk});
        Ok(DpopKey {
            key,
            header: URL_SAFE_NO_PAD.encode(header.to_string()),
            stored: Secret::new(URL_SAFE_NO_PAD.encode(der.as_bytes())),
        })
    }

    /// The key as the token store keeps it.
    pub(crate) fn stored(&self) -> &Secret {
        &self.stored
    }

    /// A proof for a `method` request to `url`, bound to `access_token` when it carries one
    /// (`ath`), with the server's `nonce` when it asked for one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&Secret>,
        nonce: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut claims = json!({
            "jti": super::random_token(),
            "htm": method,
            "htu": target_uri(url),
            "iat": unix_now(),
        });
        if let Some(token) = access_token {
            claims["ath"] = URL_SAFE_NO_PAD
                .encode(Sha256::digest(token.expose().as_bytes()))
                .into();
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        let signing_input = format!(
            "{}.{}",
            self.header,
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature: Signature =
            self.key
                .try_sign(signing_input.as_bytes())
                .map_err(|error| AuthError::Configuration {
                    detail: format!("cannot sign a DPoP proof: {error}"),
                })?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.to_bytes())
        ))
    }
}

/// `url` without its query and fragment: the `htu` of a proof (RFC 9449 §4.2).
fn target_uri(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

/// The nonces servers asked DPoP proofs to carry, by origin (RFC 9449 §8, §9).
#[derive(Debug, Default)]
pub(crate) struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    /// The nonce for requests to `url`.
    pub(crate) fn get(&self, url: &str) -> Option<String> {
        self.0.lock().get(&origin(url)).cloned()
    }

    /// Remembers the `DPoP-Nonce` of an answer from `url`, if it has one; whether it did.
    pub(crate) fn remember(&self, url: &str, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) else {
            return false;
        };
        self.0.lock().insert(origin(url), nonce.to_owned());
        true
    }
}

/// The origin of `url`, or `url` itself when it does not parse.
fn origin(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};
    use serde_json::Value;

    #[test]
    fn a_proof_carries_the_public_key_and_verifies_with_it() {
        let key = DpopKey::generate().unwrap();
        let token = Secret::new("the-token");
        let proof = key
            .proof(
                "POST",
                "https://h.example/mcp?x=1#f",
                Some(&token),
                Some("n-1"),
            )
            .unwrap();
        let header = jsonwebtoken::decode_header(&proof).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        assert_eq!(header.alg, Algorithm::ES256);
        let jwk = header.jwk.unwrap();
        let public = serde_json::to_value(&jwk).unwrap();
        assert_eq!(public["kty"], "EC");
        assert_eq!(public["crv"], "P-256");
        assert!(public.get("d").is_none());
        let mut validation = Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Value>(
            &proof,
            &DecodingKey::from_jwk(&jwk).unwrap(),
            &validation,
        )
        .unwrap()
        .claims;
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://h.example/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"the-token"))
        );
        let again = key
            .proof("POST", "https://h.example/mcp", None, None)
            .unwrap();
        let again = jsonwebtoken::dangerous::insecure_decode::<Value>(&again)
            .unwrap()
            .claims;
        assert_ne!(again["jti"], claims["jti"]);
        assert!(again.get("ath").is_none() && again.get("nonce").is_none());
    }

    #[test]
    fn a_stored_key_is_the_same_key() {
        let key = DpopKey::generate().unwrap();
        let restored = DpopKey::from_stored(key.stored()).unwrap();
        assert_eq!(key.header, restored.header);
        assert_eq!(format!("{:?}", key.stored()), "Secret([redacted])");
    }
}
