//! The token verifiers of the resource server, [`JwtVerifier`] and [`IntrospectionVerifier`],
//! against a real (test) authorization server on `127.0.0.1`.

use std::time::{Duration, UNIX_EPOCH};

use futures_util::future::join_all;
use mcp_runtime::auth::{
    AccessToken, Algorithm, AuthorizationServerMetadata, ClientAuthentication,
    IntrospectionVerifier, JwtVerifier, TokenError, TokenVerifier,
};
use serde_json::json;
use tests::authorization_server::{AuthorizationServer, Discovery, Options};

/// The resource identifier of the MCP server the tokens are for (never contacted).
const RESOURCE: &str = "https://mcp.example.com/mcp";

fn invalid(reason: impl Into<String>) -> Result<AccessToken, TokenError> {
    Err(TokenError::Invalid(reason.into()))
}

fn expiry(token: &AccessToken) -> u64 {
    token
        .expires_at()
        .expect("the token expires")
        .duration_since(UNIX_EPOCH)
        .expect("after the epoch")
        .as_secs()
}

/// Asserts the fields of a token the test server minted with its defaults, for `RESOURCE`, with
/// the scopes `notes:read notes:write`, the claim `tenant: acme` and `exp`.
fn assert_default_token(token: &AccessToken, server: &AuthorizationServer, exp: u64) {
    assert_eq!(token.subject(), Some("alice"));
    assert_eq!(token.client_id(), Some("test-client"));
    assert_eq!(token.issuer(), Some(server.issuer()));
    assert_eq!(expiry(token), exp);
    assert_eq!(
        token.scopes().collect::<Vec<_>>(),
        ["notes:read", "notes:write"]
    );
    assert_eq!(token.audiences(), [RESOURCE]);
    assert_eq!(token.claim::<String>("tenant").as_deref(), Some("acme"));
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after the epoch")
        .as_secs()
}

async fn jwt_setup() -> (AuthorizationServer, JwtVerifier) {
    let server = AuthorizationServer::start().await;
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE);
    (server, verifier)
}

// ---------------------------------------------------------------------------------------------
// JWT access tokens

#[tokio::test]
async fn an_rs256_token_is_accepted_with_its_claims() {
    let (server, verifier) = jwt_setup().await;
    let exp = now() + 300;
    let token = server
        .token()
        .audience(RESOURCE)
        .scope("notes:read notes:write")
        .claim("exp", exp)
        .claim("tenant", "acme")
        .sign();
    let access = verifier.verify(&token).await.unwrap();
    assert_default_token(&access, &server, exp);
    assert_eq!(server.jwks_fetches(), 1);
}

#[tokio::test]
async fn an_es256_token_is_accepted() {
    let (server, verifier) = jwt_setup().await;
    let exp = now() + 300;
    let token = server
        .token()
        .audience(RESOURCE)
        .alg(Algorithm::ES256)
        .subject("bob")
        .client_id("cli")
        .scope("notes:read")
        .claim("exp", exp)
        .sign();
    let access = verifier.verify(&token).await.unwrap();
    assert_eq!(access.subject(), Some("bob"));
    assert_eq!(access.client_id(), Some("cli"));
    assert_eq!(access.scopes().collect::<Vec<_>>(), ["notes:read"]);
    assert_eq!(expiry(&access), exp);
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused() {
    let (server, verifier) = jwt_setup().await;
    for alg in [Algorithm::RS256, Algorithm::ES256] {
        let token = server
            .token()
            .audience(RESOURCE)
            .alg(alg)
            .signed_by_stranger();
        assert_eq!(
            verifier.verify(&token).await,
            invalid("the token's signature does not verify"),
            "{alg:?}"
        );
    }
}

#[tokio::test]
async fn a_token_of_another_issuer_is_refused() {
    let (server, verifier) = jwt_setup().await;
    let token = server
        .token()
        .audience(RESOURCE)
        .issuer("https://other.example")
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the token was issued by https://other.example, not {}",
            server.issuer()
        ))
    );
    // Exactly: not even a trailing slash.
    let token = server
        .token()
        .audience(RESOURCE)
        .issuer(format!("{}/", server.issuer()))
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the token was issued by {0}/, not {0}",
            server.issuer()
        ))
    );
    let token = server
        .token()
        .audience(RESOURCE)
        .without_claim("iss")
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token names no issuer (iss)")
    );
}

#[tokio::test]
async fn a_token_for_another_resource_is_refused() {
    let (server, verifier) = jwt_setup().await;
    let token = server.token().audience("https://other.example/mcp").sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(
            "the token was issued for another resource (its audience is \
             https://other.example/mcp), not for https://mcp.example.com/mcp"
        )
    );
    // Path differences are differences.
    let token = server
        .token()
        .audience("https://mcp.example.com/mcp/")
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(
            "the token was issued for another resource (its audience is \
             https://mcp.example.com/mcp/), not for https://mcp.example.com/mcp"
        )
    );
    let token = server.token().no_audience().sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(
            "the token names no audience (aud), and this server accepts only tokens issued for \
             https://mcp.example.com/mcp"
        )
    );
}

#[tokio::test]
async fn an_audience_list_naming_the_resource_is_accepted() {
    let (server, verifier) = jwt_setup().await;
    let token = server
        .token()
        .audiences(["https://other.example", "HTTPS://MCP.Example.com/mcp"])
        .sign();
    let access = verifier.verify(&token).await.unwrap();
    assert_eq!(
        access.audiences(),
        ["https://other.example", "HTTPS://MCP.Example.com/mcp"]
    );
    // Another accepted audience, as Entra ID writes them.
    let verifier = verifier.also_accept_audience("api://mcp-server");
    let token = server.token().audience("api://mcp-server").sign();
    assert_eq!(
        verifier.verify(&token).await.unwrap().audiences(),
        ["api://mcp-server"]
    );
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_refused() {
    let (server, verifier) = jwt_setup().await;
    let token = server.token().audience(RESOURCE).expires_in(-120).sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token has expired")
    );
    let token = server.token().audience(RESOURCE).not_before_in(120).sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token is not valid yet")
    );
    let token = server
        .token()
        .audience(RESOURCE)
        .without_claim("exp")
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token has no expiry (exp)")
    );
    let token = server
        .token()
        .audience(RESOURCE)
        .claim("exp", "soon")
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token's expiry (exp) is not a number")
    );
}

#[tokio::test]
async fn clocks_may_disagree_by_the_leeway() {
    let (server, verifier) = jwt_setup().await;
    let token = server
        .token()
        .audience(RESOURCE)
        .expires_in(-30)
        .not_before_in(30)
        .sign();
    assert!(verifier.verify(&token).await.is_ok());
    let strict = JwtVerifier::new(server.issuer(), RESOURCE).leeway(Duration::ZERO);
    assert_eq!(
        strict.verify(&token).await,
        invalid("the token has expired")
    );
}

#[tokio::test]
async fn an_accepted_token_is_refused_once_it_expires() {
    // Accepted, and so cached: the cache keeps the verdict until the token's expiry only.
    let (server, verifier) = jwt_setup().await;
    let verifier = verifier.leeway(Duration::ZERO);
    let token = server.token().audience(RESOURCE).expires_in(1).sign();
    assert!(verifier.verify(&token).await.is_ok());
    assert!(verifier.verify(&token).await.is_ok());
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token has expired")
    );
}

#[tokio::test]
async fn alg_none_is_refused() {
    let (server, verifier) = jwt_setup().await;
    let token = server.token().audience(RESOURCE).unsigned_alg_none();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token is signed with alg none, which this server does not accept")
    );
    assert_eq!(server.jwks_fetches(), 0);
}

#[tokio::test]
async fn hs256_signed_with_the_public_key_is_refused() {
    let (server, verifier) = jwt_setup().await;
    let token = server.token().audience(RESOURCE).hs256_with_public_key();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token is signed with alg HS256, which this server does not accept")
    );
}

#[tokio::test]
async fn tokens_that_are_not_access_tokens_are_refused() {
    let (server, verifier) = jwt_setup().await;
    for typ in ["id_token", "dpop+jwt", "JOSE"] {
        let token = server.token().audience(RESOURCE).typ(typ).sign();
        assert_eq!(
            verifier.verify(&token).await,
            invalid(format!(
                "the token is of type {typ}, not an access token (at+jwt)"
            ))
        );
    }
    for typ in ["JWT", "application/at+jwt", "AT+JWT"] {
        let token = server.token().audience(RESOURCE).typ(typ).sign();
        assert!(verifier.verify(&token).await.is_ok(), "{typ}");
    }
    assert_eq!(
        verifier.verify("not-a-jwt").await,
        invalid("the token is not a JWT")
    );
}

#[tokio::test]
async fn the_key_must_fit_the_algorithm() {
    let (server, verifier) = jwt_setup().await;
    let rsa_kid = server.rsa_kid();
    // ES256 under the RSA key's kid.
    let token = server
        .token()
        .audience(RESOURCE)
        .alg(Algorithm::ES256)
        .kid(&rsa_kid)
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the key \"{rsa_kid}\" of the issuer is an RSA key, which cannot verify ES256"
        ))
    );
    // The JWK says RS256.
    let token = server
        .token()
        .audience(RESOURCE)
        .alg(Algorithm::PS256)
        .sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the key \"{rsa_kid}\" of the issuer is for RS256, not PS256"
        ))
    );
}

#[tokio::test]
async fn a_token_without_kid_needs_a_single_fitting_key() {
    let (server, verifier) = jwt_setup().await;
    // The JWKS has one RSA key and one P-256 key: each algorithm has one candidate.
    for alg in [Algorithm::RS256, Algorithm::ES256] {
        let token = server.token().audience(RESOURCE).alg(alg).no_kid().sign();
        assert!(verifier.verify(&token).await.is_ok(), "{alg:?}");
    }
    let mut jwks = server.jwks();
    let mut second = jwks.keys[0].clone();
    second.common.key_id = Some("second".into());
    jwks.keys.push(second);
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE).jwks(jwks);
    let token = server.token().audience(RESOURCE).no_kid().sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token names no key (kid), and the issuer has 2 keys for RS256")
    );
}

#[tokio::test]
async fn an_unknown_kid_is_refused_after_one_more_fetch_once_the_interval_has_passed() {
    let interval = Duration::from_millis(200);
    let (server, verifier) = fetched_once(interval).await;
    tokio::time::sleep(interval).await;
    let token = server.token().audience(RESOURCE).kid("nope").sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("no key of the issuer has kid \"nope\"")
    );
    assert_eq!(server.jwks_fetches(), 2);
}

/// Within the refetch interval after a fetch, the keys are as fresh as they can be: a token
/// naming another key is refused at once, neither fetching nor waiting for the interval to pass.
/// A server, and a verifier of its tokens that refetches its keys no sooner than `interval`
/// after a fetch, and fetched them once.
async fn fetched_once(interval: Duration) -> (AuthorizationServer, JwtVerifier) {
    let (server, verifier) = jwt_setup().await;
    let verifier = verifier.min_refetch_interval(interval);
    verifier
        .verify(&server.token().audience(RESOURCE).sign())
        .await
        .unwrap();
    assert_eq!(server.jwks_fetches(), 1);
    (server, verifier)
}

/// Has `verifier` judge 20 tokens at once, each naming a key `server` never had, and asserts that
/// each is refused for that.
async fn flood_of_unknown_kids(server: &AuthorizationServer, verifier: &JwtVerifier) {
    let tokens: Vec<(String, String)> = (0..20)
        .map(|i| {
            let kid = format!("made-up-{i}");
            let token = server.token().audience(RESOURCE).kid(&kid).sign();
            (kid, token)
        })
        .collect();
    let verdicts = join_all(tokens.iter().map(|(_, token)| verifier.verify(token))).await;
    for ((kid, _), verdict) in tokens.iter().zip(verdicts) {
        assert_eq!(
            verdict,
            invalid(format!("no key of the issuer has kid \"{kid}\""))
        );
    }
}

#[tokio::test]
async fn unknown_kids_right_after_a_fetch_are_refused_without_another() {
    // An interval no test outlasts: the slot stays closed.
    let (server, verifier) = fetched_once(Duration::from_secs(3600)).await;
    flood_of_unknown_kids(&server, &verifier).await;
    assert_eq!(server.jwks_fetches(), 1);
    // The keys in hand still serve.
    let token = server.token().audience(RESOURCE).subject("bob").sign();
    assert_eq!(
        verifier.verify(&token).await.unwrap().subject(),
        Some("bob")
    );
    assert_eq!(server.jwks_fetches(), 1);
}

#[tokio::test]
async fn rotated_keys_are_fetched_when_a_token_names_them() {
    let (server, verifier) = jwt_setup().await;
    let interval = Duration::from_millis(200);
    let verifier = verifier.min_refetch_interval(interval);
    let old = server.token().audience(RESOURCE).sign();
    verifier.verify(&old).await.unwrap();
    assert_eq!(server.jwks_fetches(), 1);

    server.rotate_keys().await;
    let new = server.token().audience(RESOURCE).subject("bob").sign();
    // The new kid is unknown: once the refetch interval has passed since the last fetch, the
    // first token naming it makes the verifier fetch the new keys.
    tokio::time::sleep(interval).await;
    let access = verifier.verify(&new).await.unwrap();
    assert_eq!(access.subject(), Some("bob"));
    assert_eq!(server.jwks_fetches(), 2);
    // The old key is gone from the JWKS, and so from the cache.
    assert_eq!(
        verifier.verify(&old).await,
        invalid(format!(
            "no key of the issuer has kid \"{}\"",
            old_kid(&old)
        ))
    );
}

/// The kid in the header of `token`.
fn old_kid(token: &str) -> String {
    jsonwebtoken::decode_header(token)
        .expect("a JWT")
        .kid
        .expect("a kid")
}

#[tokio::test]
async fn a_flood_of_unknown_kids_once_the_interval_has_passed_causes_one_fetch() {
    let interval = Duration::from_millis(300);
    let (server, verifier) = fetched_once(interval).await;
    tokio::time::sleep(interval).await;
    flood_of_unknown_kids(&server, &verifier).await;
    assert_eq!(server.jwks_fetches(), 2);
}

#[tokio::test]
async fn a_jwks_uri_given_needs_no_discovery() {
    let server = AuthorizationServer::start_with(Options::default().discovery([])).await;
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE).jwks_uri(server.jwks_uri());
    let token = server.token().audience(RESOURCE).sign();
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(server.jwks_fetches(), 1);
    // Without it, the keys cannot be found.
    let discovering = JwtVerifier::new(server.issuer(), RESOURCE);
    let issuer = server.issuer();
    assert_eq!(
        discovering.verify(&token).await,
        Err(TokenError::Unavailable(format!(
            "found no metadata of the authorization server {issuer}: \
             {issuer}/.well-known/oauth-authorization-server answered 404 Not Found; \
             {issuer}/.well-known/openid-configuration answered 404 Not Found"
        )))
    );
}

#[tokio::test]
async fn static_keys_are_never_fetched() {
    let server = AuthorizationServer::start().await;
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE).jwks(server.jwks());
    let token = server
        .token()
        .audience(RESOURCE)
        .alg(Algorithm::ES256)
        .sign();
    assert!(verifier.verify(&token).await.is_ok());
    let token = server.token().audience(RESOURCE).kid("other").sign();
    assert_eq!(
        verifier.verify(&token).await,
        invalid("no key of the issuer has kid \"other\"")
    );
    assert_eq!(server.jwks_fetches(), 0);
}

async fn discovered_with(documents: Discovery) {
    let server = AuthorizationServer::start_with(
        Options::default()
            .issuer_path("/realms/test")
            .discovery([documents]),
    )
    .await;
    assert_eq!(server.issuer(), format!("{}/realms/test", server.url()));
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE);
    let token = server.token().audience(RESOURCE).sign();
    assert!(verifier.verify(&token).await.is_ok(), "{documents:?}");
    let metadata = AuthorizationServerMetadata::discover(&reqwest::Client::new(), server.issuer())
        .await
        .unwrap();
    assert_eq!(metadata.issuer, server.issuer());
    assert_eq!(metadata.jwks_uri, Some(server.jwks_uri()));
    assert_eq!(
        metadata.introspection_endpoint,
        Some(server.introspection_endpoint())
    );
    assert_eq!(metadata.token_endpoint, Some(server.token_endpoint()));
    assert_eq!(
        metadata.scopes_supported,
        Some(vec!["notes:read".to_owned(), "notes:write".to_owned()])
    );
    assert_eq!(
        metadata.other["code_challenge_methods_supported"],
        json!(["S256"])
    );
}

#[tokio::test]
async fn keys_are_discovered_by_rfc_8414() {
    discovered_with(Discovery::OAuth).await;
}

#[tokio::test]
async fn keys_are_discovered_by_openid_connect_insertion() {
    discovered_with(Discovery::OidcInsertion).await;
}

#[tokio::test]
async fn keys_are_discovered_by_openid_connect_append() {
    discovered_with(Discovery::OidcAppend).await;
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_refused() {
    let server =
        AuthorizationServer::start_with(Options::default().metadata_issuer("https://evil.example"))
            .await;
    let verifier = JwtVerifier::new(server.issuer(), RESOURCE);
    let token = server.token().audience(RESOURCE).sign();
    let issuer = server.issuer();
    assert_eq!(
        verifier.verify(&token).await,
        Err(TokenError::Unavailable(format!(
            "found no metadata of the authorization server {issuer}: \
             {issuer}/.well-known/oauth-authorization-server describes the issuer \
             https://evil.example, not {issuer}; {issuer}/.well-known/openid-configuration \
             describes the issuer https://evil.example, not {issuer}"
        )))
    );
    assert_eq!(server.jwks_fetches(), 0);
}

#[tokio::test]
async fn an_unreachable_issuer_makes_tokens_unverifiable() {
    // A port nothing listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let verifier = JwtVerifier::new(format!("http://127.0.0.1:{port}"), RESOURCE);
    let server = AuthorizationServer::start().await;
    let token = server.token().audience(RESOURCE).sign();
    match verifier.verify(&token).await {
        Err(TokenError::Unavailable(reason)) => {
            assert!(
                reason.starts_with(&format!(
                    "found no metadata of the authorization server http://127.0.0.1:{port}: \
                     http://127.0.0.1:{port}/.well-known/oauth-authorization-server could not \
                     be reached: the connection failed"
                )),
                "{reason}"
            );
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

#[test]
#[should_panic(expected = "HS256 is an HMAC algorithm, which a resource server must not accept")]
fn an_hmac_algorithm_cannot_be_allowed() {
    let _ = JwtVerifier::new("https://idp.example.com", RESOURCE)
        .algorithms([Algorithm::RS256, Algorithm::HS256]);
}

#[tokio::test]
async fn the_token_endpoint_issues_tokens_for_the_resource() {
    let server = AuthorizationServer::start().await;
    let (client_id, secret) = server.client_credentials();
    let http = reqwest::Client::new();
    let answer: serde_json::Value = http
        .post(server.token_endpoint())
        .basic_auth(&client_id, Some(&secret))
        .form(&[
            ("grant_type", "client_credentials"),
            ("resource", RESOURCE),
            ("scope", "notes:read"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["token_type"], "Bearer");
    assert_eq!(answer["expires_in"], 300);
    assert_eq!(answer["scope"], "notes:read");
    let token = answer["access_token"].as_str().unwrap();
    let access = JwtVerifier::new(server.issuer(), RESOURCE)
        .verify(token)
        .await
        .unwrap();
    assert_eq!(access.subject(), Some("test-client"));
    assert_eq!(access.client_id(), Some("test-client"));
    assert_eq!(access.scopes().collect::<Vec<_>>(), ["notes:read"]);
    assert_eq!(access.audiences(), [RESOURCE]);

    // Without `scope`, every scope the server supports.
    let answer: serde_json::Value = http
        .post(server.token_endpoint())
        .basic_auth(&client_id, Some(&secret))
        .form(&[("grant_type", "client_credentials"), ("resource", RESOURCE)])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["scope"], "notes:read notes:write");

    let error = |form: Vec<(&'static str, String)>, auth: bool| {
        let mut request = http.post(server.token_endpoint()).form(&form);
        if auth {
            request = request.basic_auth(&client_id, Some(&secret));
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let body: serde_json::Value = response.json().await.unwrap();
            (status, body)
        }
    };
    let grant = ("grant_type", "client_credentials".to_owned());
    let resource = ("resource", RESOURCE.to_owned());
    assert_eq!(
        error(vec![grant.clone(), resource.clone()], false).await,
        (401, json!({"error": "invalid_client"}))
    );
    assert_eq!(
        error(
            vec![
                grant.clone(),
                resource.clone(),
                ("client_id", client_id.clone()),
                ("client_secret", secret.clone())
            ],
            false
        )
        .await
        .0,
        200
    );
    assert_eq!(
        error(vec![("grant_type", "password".into()), resource], true).await,
        (400, json!({"error": "unsupported_grant_type"}))
    );
    assert_eq!(
        error(vec![grant], true).await,
        (400, json!({"error": "invalid_target"}))
    );
}

// ---------------------------------------------------------------------------------------------
// Introspection

fn introspection(server: &AuthorizationServer) -> IntrospectionVerifier {
    let (id, secret) = server.introspection_client();
    IntrospectionVerifier::new(server.introspection_endpoint(), id, secret, RESOURCE)
}

#[tokio::test]
async fn an_active_token_is_accepted_with_its_claims() {
    let server = AuthorizationServer::start().await;
    let verifier = introspection(&server);
    let exp = now() + 300;
    let token = server.opaque_token(json!({
        "aud": RESOURCE, "scope": "notes:read notes:write", "exp": exp, "tenant": "acme",
    }));
    let access = verifier.verify(&token).await.unwrap();
    assert_default_token(&access, &server, exp);
    assert_eq!(server.introspections(), 1);
}

#[tokio::test]
async fn inactive_and_revoked_tokens_are_refused() {
    let server = AuthorizationServer::start().await;
    let verifier = introspection(&server);
    let not_active = invalid("the token is not active (expired or revoked)");
    assert_eq!(verifier.verify("opaque-unknown").await, not_active);
    let token = server.opaque_token(json!({"aud": RESOURCE}));
    server.revoke(&token);
    assert_eq!(verifier.verify(&token).await, not_active);
    // Inactive answers are not cached.
    assert_eq!(verifier.verify(&token).await, not_active);
    assert_eq!(server.introspections(), 3);
}

#[tokio::test]
async fn answers_are_checked_like_tokens() {
    let server = AuthorizationServer::start().await;
    let verifier = introspection(&server).issuer(server.issuer());
    let token = server.opaque_token(json!({"aud": "https://other.example/mcp"}));
    assert_eq!(
        verifier.verify(&token).await,
        invalid(
            "the token was issued for another resource (its audience is \
             https://other.example/mcp), not for https://mcp.example.com/mcp"
        )
    );
    let token = server.opaque_token(json!({"aud": RESOURCE, "iss": "https://other.example"}));
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the token was issued by https://other.example, not {}",
            server.issuer()
        ))
    );
    let token = server.opaque_token(json!({"aud": RESOURCE, "exp": now() - 5}));
    assert_eq!(
        verifier.verify(&token).await,
        invalid("the token has expired")
    );
    // A JWT of the server's is introspected too.
    let jwt = server.token().audience(RESOURCE).sign();
    assert_eq!(
        verifier.verify(&jwt).await.unwrap().subject(),
        Some("alice")
    );
}

/// The cache trades immediate revocation for fewer introspections: a token revoked after its
/// answer was cached is still accepted until the entry expires (`cache_ttl`, 60 s by default,
/// never past the token's `exp`). `cache_ttl(Duration::ZERO)` makes revocation immediate.
#[tokio::test]
async fn active_answers_are_cached_for_the_ttl() {
    let server = AuthorizationServer::start().await;
    let verifier = introspection(&server);
    let token = server.opaque_token(json!({"aud": RESOURCE}));
    let first = verifier.verify(&token).await.unwrap();
    let second = verifier.verify(&token).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(server.introspections(), 1);
    server.revoke(&token);
    assert_eq!(verifier.verify(&token).await.unwrap(), first);
    assert_eq!(server.introspections(), 1);

    let uncached = introspection(&server).cache_ttl(Duration::ZERO);
    assert_eq!(
        uncached.verify(&token).await,
        invalid("the token is not active (expired or revoked)")
    );

    let short = introspection(&server).cache_ttl(Duration::from_millis(200));
    let token = server.opaque_token(json!({"aud": RESOURCE}));
    short.verify(&token).await.unwrap();
    server.revoke(&token);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        short.verify(&token).await,
        invalid("the token is not active (expired or revoked)")
    );
}

#[tokio::test]
async fn a_wrong_client_secret_makes_tokens_unverifiable() {
    let server = AuthorizationServer::start().await;
    let token = server.opaque_token(json!({"aud": RESOURCE}));
    for method in [ClientAuthentication::Basic, ClientAuthentication::Post] {
        let verifier = IntrospectionVerifier::new(
            server.introspection_endpoint(),
            "mcp-server",
            "wrong",
            RESOURCE,
        )
        .client_authentication(method);
        assert_eq!(
            verifier.verify(&token).await,
            Err(TokenError::Unavailable(
                "the introspection endpoint refused this server's client credentials".into()
            ))
        );
    }
}

#[tokio::test]
async fn basic_and_post_client_authentication_work() {
    let server = AuthorizationServer::start().await;
    // The secret has characters that Basic authentication must form-urlencode.
    let (_, secret) = server.introspection_client();
    assert!(secret.contains([':', '+', '/', '%', ' ']), "{secret}");
    for method in [ClientAuthentication::Basic, ClientAuthentication::Post] {
        let verifier = introspection(&server).client_authentication(method);
        let token = server.opaque_token(json!({"aud": RESOURCE}));
        assert_eq!(
            verifier.verify(&token).await.unwrap().subject(),
            Some("alice"),
            "{method:?}"
        );
    }
    assert_eq!(server.introspections(), 2);
}

#[tokio::test]
async fn a_missing_audience_is_refused_unless_allowed() {
    let server = AuthorizationServer::start().await;
    let token = server.opaque_token(json!({}));
    assert_eq!(
        introspection(&server).verify(&token).await,
        invalid(
            "the token names no audience (aud), and this server accepts only tokens issued for \
             https://mcp.example.com/mcp"
        )
    );
    let lenient = introspection(&server).allow_missing_audience();
    assert_eq!(
        lenient.verify(&token).await.unwrap().audiences(),
        [] as [String; 0]
    );
}

#[tokio::test]
async fn the_introspection_endpoint_is_discovered() {
    let server =
        AuthorizationServer::start_with(Options::default().issuer_path("/realms/test")).await;
    let (id, secret) = server.introspection_client();
    let verifier = IntrospectionVerifier::discover(server.issuer(), id, secret, RESOURCE);
    assert_eq!(verifier.expected_issuer(), Some(server.issuer()));
    let token = server.opaque_token(json!({"aud": RESOURCE}));
    assert!(verifier.verify(&token).await.is_ok());
    // The issuer discovered is the one an answer's `iss` must name.
    let token = server.opaque_token(json!({"aud": RESOURCE, "iss": "https://other.example"}));
    assert_eq!(
        verifier.verify(&token).await,
        invalid(format!(
            "the token was issued by https://other.example, not {}",
            server.issuer()
        ))
    );
    assert!(
        format!("{verifier:?}").contains(&server.introspection_endpoint()),
        "{verifier:?}"
    );
    // An issuer without metadata.
    let (id, secret) = server.introspection_client();
    let url = server.url();
    let nowhere = IntrospectionVerifier::discover(format!("{url}/nowhere"), id, secret, RESOURCE);
    assert_eq!(
        nowhere.verify(&token).await,
        Err(TokenError::Unavailable(format!(
            "found no metadata of the authorization server {url}/nowhere: \
             {url}/.well-known/oauth-authorization-server/nowhere answered 404 Not Found; \
             {url}/.well-known/openid-configuration/nowhere answered 404 Not Found; \
             {url}/nowhere/.well-known/openid-configuration answered 404 Not Found"
        )))
    );
}

#[tokio::test]
async fn the_client_secret_is_never_shown() {
    let server = AuthorizationServer::start().await;
    let verifier = introspection(&server);
    let (_, secret) = server.introspection_client();
    let shown = format!("{verifier:?}");
    assert!(!shown.contains(&secret), "{shown}");
    assert!(shown.contains("client_secret: \"[redacted]\""), "{shown}");
    // Nor in errors.
    let token = server.opaque_token(json!({}));
    let error = verifier.verify(&token).await.unwrap_err();
    assert!(!error.to_string().contains(&secret), "{error}");
}
