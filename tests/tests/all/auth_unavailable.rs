//! An authorization server that accepts connections and never answers: a `TcpListener` on
//! `127.0.0.1` that the test holds, accepting every connection and reading nothing. A server
//! whose verifier needs it (to discover its metadata, fetch its keys, or introspect a token)
//! answers `503` once the verifier's `request_timeout` has passed, with `Retry-After` and a
//! message that names none of the authorization server's URLs (those go to the log); requests
//! arriving meanwhile share that attempt, and those right after get the failure remembered,
//! without another connection.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::future::join_all;
use mcp_runtime::auth::{IntrospectionVerifier, JwtVerifier, ResourceServer, TokenVerifier};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::TestHttpServer;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Reads the notes.
#[mcp_tool(scopes = "notes:read")]
async fn read_notes() -> &'static str {
    "notes"
}

/// How long the verifiers of these tests wait for the authorization server.
const TIMEOUT: Duration = Duration::from_millis(300);

/// A listener that accepts every connection, holds it open and never reads from it nor answers.
struct SilentListener {
    url: String,
    /// The peers of the connections accepted, in order.
    accepted: mpsc::UnboundedReceiver<SocketAddr>,
    /// How many connections of others were seen so far (the probes left out).
    seen: usize,
    task: tokio::task::JoinHandle<()>,
}

impl SilentListener {
    async fn bind() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let (tell, accepted) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((stream, peer)) = listener.accept().await {
                held.push(stream);
                let _ = tell.send(peer);
            }
        });
        SilentListener {
            url,
            accepted,
            seen: 0,
            task,
        }
    }

    /// How many connections others made so far. A probe connects after them, and the accept
    /// queue is first in, first out: once the probe is accepted, so is every connection made
    /// before it.
    async fn connections(&mut self) -> usize {
        let address = self.url.trim_start_matches("http://");
        let probe = TcpStream::connect(address)
            .await
            .expect("the probe connects");
        let probe = probe.local_addr().expect("a local address");
        while let Some(peer) = self.accepted.recv().await {
            if peer == probe {
                return self.seen;
            }
            self.seen += 1;
        }
        unreachable!("the listener stops only when dropped")
    }
}

impl Drop for SilentListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A JWT whose header names RS256 and `kid`, which nothing can verify: the verifier must find
/// the issuer's keys to judge it.
fn jwt(kid: &str) -> String {
    let part = |value: Value| URL_SAFE_NO_PAD.encode(value.to_string());
    format!(
        "{}.{}.c2lnbmF0dXJl",
        part(json!({"alg": "RS256", "typ": "at+jwt", "kid": kid})),
        part(json!({"sub": "alice"}))
    )
}

async fn serve(verifier: impl TokenVerifier) -> TestHttpServer {
    let server = McpServer::from_module(server_info!(), module_path!())
        .stateless()
        .build()
        .unwrap();
    TestHttpServer::start_with(server, |url| {
        HttpOptions::default().authorization(ResourceServer::new(url, verifier))
    })
    .await
}

/// A `tools/call` with `token`: the status, `Retry-After`, `WWW-Authenticate` and body.
async fn call(url: &str, token: String) -> (StatusCode, Option<String>, Option<String>, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&token)
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "read_notes", "arguments": {}}})
            .to_string(),
        )
        .send()
        .await
        .expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().expect("ASCII").to_owned())
    };
    let (retry_after, challenge) = (header("retry-after"), header("www-authenticate"));
    let status = response.status();
    let body = response.text().await.expect("a body");
    (status, retry_after, challenge, body)
}

/// What every request gets while the authorization server does not answer.
fn unavailable() -> (StatusCode, Option<String>, Option<String>, String) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Some("5".to_owned()),
        None,
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message":
            "Service Unavailable: the authorization server is unavailable, so the access token \
             could not be verified; retry later"}})
        .to_string(),
    )
}

/// The log lines a test's server writes (at `warn` and above), on this test's thread.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Log {
    /// Collects what is logged on this thread until the guard is dropped.
    fn capture(&self) -> tracing::subscriber::DefaultGuard {
        let log = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || log.clone())
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).expect("UTF-8")
    }
}

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn an_issuer_that_never_answers_gets_503_with_retry_after_and_no_details() {
    let log = Log::default();
    let _capture = log.capture();
    let mut silent = SilentListener::bind().await;
    let issuer = silent.url.clone();
    let http = serve(JwtVerifier::new(issuer.clone(), "unused").request_timeout(TIMEOUT)).await;
    let url = &http.url;

    // Three requests at once share one discovery, which asks both places of the metadata
    // (RFC 8414's, OpenID Connect's) together: two connections.
    let first = join_all((0..3).map(|i| call(url, jwt(&format!("k{i}"))))).await;
    for answer in first {
        assert_eq!(answer, unavailable());
        assert!(!answer.3.contains("http"), "{}", answer.3);
    }
    assert_eq!(silent.connections().await, 2);

    // Right after, the failure is remembered: answered at once, without a connection.
    assert_eq!(call(url, jwt("k9")).await, unavailable());
    assert_eq!(silent.connections().await, 2);

    // The log says what happened, and where, and shows no token.
    let log = log.text();
    for place in ["oauth-authorization-server", "openid-configuration"] {
        let line = format!("{issuer}/.well-known/{place} did not answer within 0.3 seconds");
        assert!(log.contains(&line), "{line} in {log}");
    }
    assert!(!log.contains(&jwt("k9")), "{log}");
}

#[tokio::test]
async fn a_key_set_that_never_comes_gets_503_and_is_not_asked_again_at_once() {
    let mut silent = SilentListener::bind().await;
    let verifier = JwtVerifier::new("https://idp.example.com", "unused")
        .jwks_uri(format!("{}/jwks", silent.url))
        .request_timeout(TIMEOUT);
    let http = serve(verifier).await;
    let first = join_all((0..3).map(|i| call(&http.url, jwt(&format!("k{i}"))))).await;
    assert_eq!(first, vec![unavailable(); 3]);
    assert_eq!(silent.connections().await, 1);
    assert_eq!(call(&http.url, jwt("k9")).await, unavailable());
    assert_eq!(silent.connections().await, 1);
}

#[tokio::test]
async fn an_introspection_endpoint_that_never_answers_gets_503_and_is_not_asked_again_at_once() {
    let mut silent = SilentListener::bind().await;
    let endpoint = format!("{}/introspect", silent.url);
    let verifier = IntrospectionVerifier::new(endpoint, "mcp-server", "secret", "unused")
        .request_timeout(TIMEOUT);
    let http = serve(verifier).await;
    assert_eq!(call(&http.url, "opaque-1".into()).await, unavailable());
    assert_eq!(silent.connections().await, 1);
    // Another token, right after: answered from the failure, without a connection.
    assert_eq!(call(&http.url, "opaque-2".into()).await, unavailable());
    assert_eq!(silent.connections().await, 1);
}

#[tokio::test]
async fn an_introspection_endpoint_is_discovered_once_for_requests_arriving_together() {
    let mut silent = SilentListener::bind().await;
    let verifier =
        IntrospectionVerifier::discover(silent.url.clone(), "mcp-server", "secret", "unused")
            .request_timeout(TIMEOUT);
    let http = serve(verifier).await;
    let first = join_all((0..3).map(|i| call(&http.url, format!("opaque-{i}")))).await;
    assert_eq!(first, vec![unavailable(); 3]);
    assert_eq!(silent.connections().await, 2);
    assert_eq!(call(&http.url, "opaque-9".into()).await, unavailable());
    assert_eq!(silent.connections().await, 2);
}
