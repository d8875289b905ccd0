//! The serverless examples (`examples/serverless`), run in their platforms' local runtimes on
//! loopback: the Cloudflare Worker, built for WebAssembly by `worker-build`, in `workerd`
//! (Cloudflare's runtime), and the AWS Lambda function on `lambda_http` in cargo-lambda's emulator
//! (`cargo lambda watch`).
//!
//! On each, the official TypeScript client v2 (`@modelcontextprotocol/client`) and Python client
//! 2.x (`mcp`) call the server over HTTP on 2026-07-28, the same scenario each
//! (`interop/edge_client.*`): tool discovery with an output schema, a call with structured output,
//! an elicitation in an input-required round, a resource and a prompt. Both transcripts must equal
//! `tests/expected/edge-transcript.json`, with the platform's server name. Then the function
//! verifies JWTs itself: against keys given in a variable (no request leaves it), and against the
//! keys it fetches from the issuer (in the worker, with the platform's `fetch`).
//!
//! `scripts/build-serverless.sh` installs the tools and builds the examples; `scripts/test.sh`
//! runs it.

use std::path::Path;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::authorization_server::AuthorizationServer;
use tests::interop::{interop_script, node, python2, repo_root, run_json};
use tests::json_difference;
use tests::serverless::{Platform, Running};

/// Starts `platform`'s example on a free port with the variables `variables_for` makes from its
/// URL (`Running::url`).
fn start(platform: Platform, variables_for: impl Fn(&str) -> Vec<(String, String)>) -> Running {
    let port = tests::free_port();
    let url = platform.url(port);
    let owned = variables_for(&url);
    let variables: Vec<(&str, &str)> = owned
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    platform.start(port, &variables)
}

/// The transcript both clients must print on `platform`, with `whoami` as the server answers a
/// caller without a token.
fn expected(platform: Platform) -> Value {
    let path = repo_root().join("tests/expected/edge-transcript.json");
    let mut expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the expected transcript"))
            .expect("the expected transcript is JSON");
    expected["serverInfo"] = json!({"name": platform.server_name(), "version": "0.1.0"});
    expected
}

/// Runs the TypeScript and the Python client against the server at `url` (with a bearer `token`
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
    request.send().await.expect("the server answers")
}

/// What `whoami` at `url` answers a caller with `token`.
async fn whoami(url: &str, token: &str) -> String {
    let answer: Value = call_whoami(url, Some(token)).await.json().await.unwrap();
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("whoami answered {answer}"))
        .to_owned()
}

/// Both clients call `platform`'s example without authorization.
async fn the_official_clients_call(platform: Platform) {
    let running = start(platform, |_| Vec::new());
    both_clients_see(&running.url, None, &expected(platform)).await;
}

/// What a test of authorization keeps for its platform's own checks: the issuer, the example
/// still running (its URL with it), and its answer to a call without a token.
struct Authorized {
    issuer: AuthorizationServer,
    running: Running,
    refused: reqwest::Response,
}

/// `platform`'s example, with the issuer's keys in `JWKS`: both clients with a token, requests
/// without one or with a wrong one refused (401).
async fn a_jwt_is_verified_against_given_keys(platform: Platform) -> Authorized {
    let issuer = AuthorizationServer::start().await;
    let keys = serde_json::to_string(&issuer.jwks()).unwrap();
    let running = start(platform, |url| {
        vec![
            ("JWT_ISSUER".into(), issuer.issuer().into()),
            ("MCP_RESOURCE".into(), url.into()),
            ("JWKS".into(), keys.clone()),
        ]
    });
    let url = running.url.as_str();

    // The clients, with a token for this server: everything as before, and the caller known.
    let token = issuer.token().audience(url).subject("ada").sign();
    let mut expected = expected(platform);
    expected["whoami"] = json!([format!("ada via {}", issuer.issuer())]);
    both_clients_see(url, Some(&token), &expected).await;

    // A token for another resource, and one signed with a key the issuer never published.
    let elsewhere = issuer
        .token()
        .audience("https://elsewhere.example/mcp")
        .sign();
    let forged = issuer.token().audience(url).signed_by_stranger();
    for token in [elsewhere, forged] {
        let refused = call_whoami(url, Some(&token)).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    }
    // The token the clients used, in a plain request; the keys were never fetched.
    assert_eq!(
        whoami(url, &token).await,
        format!("ada via {}", issuer.issuer())
    );
    assert_eq!(issuer.jwks_fetches(), 0);

    let refused = call_whoami(url, None).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    Authorized {
        issuer,
        running,
        refused,
    }
}

/// `platform`'s example fetches the issuer's keys itself, once.
async fn the_issuers_keys_are_fetched(platform: Platform) {
    let issuer = AuthorizationServer::start().await;
    let running = start(platform, |url| {
        vec![
            ("JWT_ISSUER".into(), issuer.issuer().into()),
            ("MCP_RESOURCE".into(), url.into()),
        ]
    });
    let token = issuer
        .token()
        .audience(&running.url)
        .subject("grace")
        .sign();
    assert_eq!(
        whoami(&running.url, &token).await,
        format!("grace via {}", issuer.issuer())
    );
    assert_eq!(issuer.jwks_fetches(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_clients_call_the_worker_in_workerd_on_2026_07_28() {
    the_official_clients_call(Platform::Workers).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_clients_call_the_lambda_function_in_its_emulator_on_2026_07_28() {
    the_official_clients_call(Platform::Lambda).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_verifies_a_jwt_against_keys_it_was_given() {
    let authorized = a_jwt_is_verified_against_given_keys(Platform::Workers).await;
    // The refusal points at the protected resource metadata, which the worker serves.
    let metadata_url = authorized
        .running
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        authorized.refused.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata_url}\"").as_str()
    );
    let metadata: Value = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], authorized.running.url);
    assert_eq!(
        metadata["authorization_servers"],
        json!([authorized.issuer.issuer()])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_lambda_function_verifies_a_jwt_against_keys_it_was_given() {
    a_jwt_is_verified_against_given_keys(Platform::Lambda).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_fetches_the_issuers_keys_with_the_platforms_fetch() {
    the_issuers_keys_are_fetched(Platform::Workers).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_lambda_function_fetches_the_issuers_keys() {
    the_issuers_keys_are_fetched(Platform::Lambda).await;
}

#[test]
fn workerd_runs_the_worker_on_the_compatibility_date_wrangler_deploys_it_with() {
    let folder = repo_root().join("examples/serverless/cloudflare-worker");
    let read = |file: &str| std::fs::read_to_string(folder.join(file)).expect(file);
    let wrangler = read("wrangler.toml");
    let date = wrangler
        .lines()
        .find_map(|line| line.strip_prefix("compatibility_date = "))
        .expect("wrangler.toml has a compatibility_date");
    assert!(
        read("workerd.capnp").contains(&format!("compatibilityDate = {date},")),
        "workerd.capnp's compatibilityDate is not wrangler.toml's ({date})"
    );
}
