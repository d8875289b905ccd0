//! Criterion micro-benchmark of what OAuth costs the client per request: `McpClient::call_tool`
//! over HTTP (loopback, 2026-07-28) against an open server, without OAuth, with a stored
//! bearer token (the `Authorization` header), and with a stored DPoP-bound token (a fresh ES256
//! proof signed for every request). The tokens are put in the token store beforehand, so no
//! authorization server is involved: what is measured is the request path alone.

use std::hint::black_box;

use base64::Engine;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::client::McpClient;
use mcp_runtime::client::oauth::{
    Headless, MemoryTokenStore, OAuth, RegisteredClient, Secret, StoredAuthorization, TokenStore,
    Tokens,
};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use p256::pkcs8::EncodePrivateKey;
use serde_json::json;
use tokio::runtime::Runtime;

/// A record holding a valid token of `token_type`, bound to a fresh key when it is DPoP.
fn record(token_type: &str) -> StoredAuthorization {
    let dpop_key = (token_type == "DPoP").then(|| {
        let key = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let der = key.to_pkcs8_der().expect("DER");
        Secret::new(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(der.as_bytes()))
    });
    StoredAuthorization {
        issuer: "https://idp.bench".into(),
        client: RegisteredClient {
            client_id: "bench".into(),
            client_secret: None,
            token_endpoint_auth_method: Some("none".into()),
        },
        tokens: Some(Tokens {
            access_token: Secret::new("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"),
            token_type: token_type.into(),
            refresh_token: None,
            expires_at: None,
            scope: None,
        }),
        dpop_key,
    }
}

/// A client of `url`, with OAuth and a stored token of `token_type` when there is one.
async fn client(url: &str, token_type: Option<&str>) -> McpClient {
    let mut builder = McpClient::builder(Implementation::new("bench", "0.1.0"))
        .protocol_version(ProtocolVersion::V2026_07_28);
    if let Some(token_type) = token_type {
        let store = MemoryTokenStore::new();
        store.save(url, &record(token_type)).await.expect("stored");
        let oauth = OAuth::authorization_code(Headless::new("http://127.0.0.1:9/callback"))
            .token_store(store);
        builder = builder.oauth(oauth);
    }
    builder.connect_http(url).await.expect("connected")
}

fn call_tool(c: &mut Criterion) {
    let runtime: Runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
        let transport = HttpTransport::new(micro::add_server(), HttpOptions::default());
        tokio::spawn(transport.serve(listener));
        url
    });
    let mut group = c.benchmark_group("client call_tool add over HTTP");
    for (name, token_type) in [
        ("no OAuth", None),
        ("bearer token", Some("Bearer")),
        ("DPoP-bound token", Some("DPoP")),
    ] {
        let client = runtime.block_on(client(&url, token_type));
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| async {
                black_box(
                    client
                        .call_tool("add", json!({"a": 1, "b": 2}))
                        .await
                        .expect("answered"),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, call_tool);
criterion_main!(benches);
