//! The Cloudflare Workers example (`examples/cloudflare-worker`), built for WebAssembly by
//! `worker-build` and run in `workerd`, Cloudflare's runtime, on loopback: the official
//! TypeScript client v2 (`@modelcontextprotocol/client`) and Python client 2.x (`mcp`) call it
//! over HTTP on 2026-07-28, the same scenario each (`interop/edge_client.*`): tool discovery with
//! an output schema, a call with structured output, an elicitation in an input-required round, a
//! resource and a prompt. Both transcripts must equal `tests/expected/edge-transcript.json`.
//! Then the worker verifies JWTs itself: against keys given in a variable (no request leaves it),
//! and against the keys it fetches from the issuer with the platform's `fetch`.
//!
//! `scripts/build-worker.sh` installs the tools and builds the worker; `scripts/test.sh` runs it.

use std::path::Path;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::authorization_server::AuthorizationServer;
use tests::interop::{interop_script, node, python2, repo_root, run_json};
use tests::json_difference;
use tests::workerd::Workerd;

/// The transcript both clients must print, with `whoami` as the worker answers a caller without
/// a token.
fn expected() -> Value {
    let path = repo_root().join("tests/expected/edge-transcript.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the expected transcript"))
        .expect("the expected transcript is JSON")
}

/// Runs the TypeScript and the Python client against the worker at `url` (with a bearer `token`
/// if given) and checks that each printed `expected`.
async fn both_clients_see(url: &str, token: Option<&str>, expected: &Value) {
    for (program, script) in [
        (node(), interop_script("edge_client.mjs")),
        (python2(), interop_script("edge_client.py")),
    ] {
        let mut args = vec![script.into_os_string(), url.into()];
        args.extend(token.map(Into::into));
        let transcript = tokio::task::spawn_blocking(move || {
            let args: Vec<&Path> = args.iter().map(Path::new).collect();
            run_json(&program, &args)
        })
        .await
        .expect("the client ran");
        if let Some(difference) = json_difference(expected, &transcript) {
            panic!("the transcript differs at {difference}:\n{transcript:#}");
        }
    }
}

/// Calls `whoami` at `url` on 2026-07-28, with a bearer `token` if given, as a plain HTTP request.
async fn call_whoami(url: &str, token: Option<&str>) -> reqwest::Response {
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "whoami", "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .json(&call);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("the worker answers")
}

/// What `whoami` at `url` answers a caller with `token`.
async fn whoami(url: &str, token: &str) -> String {
    let answer: Value = call_whoami(url, Some(token)).await.json().await.unwrap();
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("whoami answered {answer}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_clients_call_the_worker_in_workerd_on_2026_07_28() {
    let worker = Workerd::start(&[]);
    both_clients_see(&worker.url, None, &expected()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_verifies_a_jwt_against_keys_it_was_given() {
    let issuer = AuthorizationServer::start().await;
    let keys = serde_json::to_string(&issuer.jwks()).unwrap();
    let port = tests::free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let worker = Workerd::start_on(
        port,
        &[
            ("JWT_ISSUER", issuer.issuer()),
            ("MCP_RESOURCE", &resource),
            ("JWKS", &keys),
        ],
    );
    assert_eq!(worker.url, resource);

    // The clients, with a token for this worker: everything as before, and the caller known.
    let token = issuer.token().audience(&resource).subject("ada").sign();
    let mut expected = expected();
    expected["whoami"] = json!([format!("ada via {}", issuer.issuer())]);
    both_clients_see(&worker.url, Some(&token), &expected).await;

    // Without a token: 401, pointing at the protected resource metadata, which the worker serves.
    let refused = call_whoami(&worker.url, None).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        refused.headers()["www-authenticate"],
        format!(
            "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
        )
        .as_str()
    );
    let metadata: Value = reqwest::Client::new()
        .get(format!(
            "http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], resource);
    assert_eq!(metadata["authorization_servers"], json!([issuer.issuer()]));

    // A token for another resource, and one signed with a key the issuer never published.
    let elsewhere = issuer
        .token()
        .audience("https://elsewhere.example/mcp")
        .sign();
    let forged = issuer.token().audience(&resource).signed_by_stranger();
    for token in [elsewhere, forged] {
        let refused = call_whoami(&worker.url, Some(&token)).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    }

    // The token the clients used, in a plain request.
    assert_eq!(
        whoami(&worker.url, &token).await,
        format!("ada via {}", issuer.issuer())
    );
    assert_eq!(issuer.jwks_fetches(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_fetches_the_issuers_keys_with_the_platforms_fetch() {
    let issuer = AuthorizationServer::start().await;
    let port = tests::free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let worker = Workerd::start_on(
        port,
        &[("JWT_ISSUER", issuer.issuer()), ("MCP_RESOURCE", &resource)],
    );
    let token = issuer.token().audience(&resource).subject("grace").sign();
    assert_eq!(
        whoami(&worker.url, &token).await,
        format!("grace via {}", issuer.issuer())
    );
    assert_eq!(issuer.jwks_fetches(), 1);
}
