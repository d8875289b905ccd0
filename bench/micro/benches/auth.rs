//! Criterion micro-benchmarks of authorization: what verifying a bearer token costs per request
//! (a JWT of each common algorithm against static keys, so that no fetch is measured: on its
//! first use, and from the verifier's cache on the requests after it), what the server's scope
//! check adds to a `tools/call` admitted with a verified token, and what authorization adds to a
//! whole HTTP request (the endpoint's router called in process, without sockets).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::{JwtVerifier, ResourceServer, TokenVerifier};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::protocol::jsonrpc;
use mcp_runtime::server::Envelope;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use micro::CALL_ADD;
use serde_json::json;
use tokio::runtime::Runtime;

const ISSUER: &str = "https://idp.bench";
const RESOURCE: &str = "https://mcp.bench/mcp";

/// A signing key of `alg` generated now, and its public JWK named `kid`.
fn key(alg: Algorithm, kid: &str) -> (EncodingKey, Jwk) {
    use p256::pkcs8::EncodePrivateKey;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let encoding = match alg {
        Algorithm::RS256 => {
            let private = rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).expect("RSA key");
            EncodingKey::from_rsa_der(private.to_pkcs1_der().expect("DER").as_bytes())
        }
        _ => {
            let private = p256::SecretKey::random(&mut rand::rngs::OsRng);
            EncodingKey::from_ec_der(private.to_pkcs8_der().expect("DER").as_bytes())
        }
    };
    let mut jwk = Jwk::from_encoding_key(&encoding, alg).expect("a JWK");
    jwk.common.key_id = Some(kid.to_owned());
    (encoding, jwk)
}

/// A valid access token for the benchmark's resource, signed with `key`.
fn token(alg: Algorithm, kid: &str, key: &EncodingKey) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    header.typ = Some("at+jwt".to_owned());
    let claims = json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "bench",
        "scope": "notes:read notes:write", "iat": now, "exp": now + 3600});
    jsonwebtoken::encode(&header, &claims, key).expect("a signed token")
}

fn verify_jwt(c: &mut Criterion) {
    let rt = Runtime::new().expect("a runtime");
    let (rsa, rsa_jwk) = key(Algorithm::RS256, "rsa");
    let (ec, ec_jwk) = key(Algorithm::ES256, "ec");
    let jwks = JwkSet {
        keys: vec![rsa_jwk, ec_jwk],
    };
    // Every verification checks the signature when the cache is off: what a token's first
    // request costs. With the cache, the requests after it cost a hash and a lookup.
    let uncached = JwtVerifier::new(ISSUER, RESOURCE)
        .jwks(jwks.clone())
        .max_cache_entries(0);
    let cached = JwtVerifier::new(ISSUER, RESOURCE).jwks(jwks);
    let mut group = c.benchmark_group("verify an access token");
    for (name, alg, kid, key) in [
        ("JWT RS256 (2048-bit)", Algorithm::RS256, "rsa", &rsa),
        ("JWT ES256", Algorithm::ES256, "ec", &ec),
    ] {
        let token = token(alg, kid, key);
        for (verifier, use_) in [(&uncached, "first use"), (&cached, "cached")] {
            let verified = rt
                .block_on(verifier.verify(&token))
                .expect("the token verifies");
            assert_eq!(verified.subject(), Some("alice"));
            group.bench_function(format!("{name}, {use_}"), |b| {
                b.to_async(&rt)
                    .iter(|| async { verifier.verify(black_box(&token)).await })
            });
        }
    }
    group.finish();
}

/// The arguments of `add`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// `tools/call add` of a tool that declares a scope, admitted without a token (nothing is
/// checked) and with one (the scope check).
fn scope_check(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = McpServer::builder(Implementation::new("micro", "0.1.0"))
        .tool(
            ToolDefinition::typed("add", |pair: Pair, _ctx| async move { pair.a + pair.b })
                .scopes(["notes:read"]),
        )
        .build()
        .expect("the scoped server builds");
    let token = Arc::new(
        AccessToken::new()
            .with_subject("alice")
            .with_scopes(["notes:read"]),
    );
    let connection = ConnectionState::transient(ProtocolVersion::V2025_03_26);
    let expected = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}"#;
    let admit = |envelope: Envelope| {
        let incoming = jsonrpc::parse(black_box(CALL_ADD)).expect("JSON-RPC");
        server.admit(incoming, &connection, None, envelope).finish()
    };
    let authorized = || Envelope::bare().authorized(token.clone());
    assert_eq!(
        rt.block_on(admit(Envelope::bare())).as_deref(),
        Some(expected)
    );
    assert_eq!(rt.block_on(admit(authorized())).as_deref(), Some(expected));
    let mut group = c.benchmark_group("admit tools/call add");
    group.bench_function("no token", |b| {
        b.to_async(&rt).iter(|| admit(Envelope::bare()))
    });
    group.bench_function("a token with the tool's scope", |b| {
        b.to_async(&rt).iter(|| admit(authorized()))
    });
    group.finish();
}

/// A 2026-07-28 `tools/call add` POSTed to the endpoint's router: served openly, and served as
/// a protected resource to a client whose JWT (RS256) the verifier has seen before.
fn http_request(c: &mut Criterion) {
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (rsa, jwk) = key(Algorithm::RS256, "rsa");
    let bearer = format!("Bearer {}", token(Algorithm::RS256, "rsa", &rsa));
    let verifier = JwtVerifier::new(ISSUER, RESOURCE).jwks(JwkSet { keys: vec![jwk] });
    let open = HttpTransport::new(micro::add_server(), HttpOptions::default()).router();
    let protected = HttpTransport::new(
        micro::add_server(),
        HttpOptions::default().authorization(ResourceServer::new(RESOURCE, verifier)),
    )
    .router();
    let post = |router: axum::Router, bearer: Option<&str>| {
        let mut request = http::Request::post("/")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "add");
        if let Some(bearer) = bearer {
            request = request.header("authorization", bearer);
        }
        let request = request
            .body(axum::body::Body::from(micro::CALL_ADD_STATELESS))
            .expect("a request");
        async move {
            let response = router.oneshot(request).await.expect("infallible");
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .expect("the body");
            (status, body)
        }
    };
    let expected = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"micro","version":"0.1.0"}},"resultType":"complete"}}"#;
    for (router, bearer) in [(&open, None), (&protected, Some(bearer.as_str()))] {
        let (status, body) = rt.block_on(post(router.clone(), bearer));
        let body = std::str::from_utf8(&body).expect("UTF-8");
        assert_eq!((status.as_u16(), body), (200, expected));
    }
    let (status, _) = rt.block_on(post(protected.clone(), None));
    assert_eq!(status.as_u16(), 401);
    let mut group = c.benchmark_group("POST tools/call add (2026-07-28) to the router");
    group.bench_function("open", |b| {
        b.to_async(&rt).iter(|| post(open.clone(), None))
    });
    group.bench_function("protected, a JWT seen before", |b| {
        b.to_async(&rt)
            .iter(|| post(protected.clone(), Some(bearer.as_str())))
    });
    group.finish();
}

criterion_group!(benches, verify_jwt, scope_check, http_request);
criterion_main!(benches);
