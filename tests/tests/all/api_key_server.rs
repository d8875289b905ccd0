//! The `api-key-server` example, run as its binary and driven over HTTP: its own middleware
//! refuses requests without a known `X-Api-Key` with `401`, and its tools read what the
//! middleware found out (the user, as an HTTP extension) and the HTTP request's headers.

use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::interop::{HttpExample, example_binary};

/// The `User-Agent` the requests send, which the `user_agent` tool must return as it is.
const AGENT: &str = "api-key-test/1.0 (exact; \"quoted\")";

/// The example with alice's and bob's keys in `API_KEYS` and carol's as an option; carol's key
/// ends in `=`, which the user is split from at the last `=`.
fn start() -> HttpExample {
    let mut command = Command::new(example_binary("api-key-server"));
    command
        .env("API_KEYS", "k-alice=alice, k-bob=bob")
        .env_remove("RUST_LOG")
        .args(["--listen", "127.0.0.1:0", "--key", "k-carol==carol"]);
    HttpExample::spawn(command)
}

/// A POST of `body` to `url`, with `key` in `X-Api-Key` when there is one.
fn post(url: &str, key: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("user-agent", AGENT)
        .body(body.to_string());
    match key {
        Some(key) => request.header("x-api-key", key),
        None => request,
    }
}

/// The status and JSON body of `request`'s answer.
async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let text = response.text().await.expect("a body");
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {text}"));
    (status, body)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "api-key-test", "version": "1"}}})
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

/// The answer of a call whose result is the text `text`.
fn text_result(id: i64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

/// The body of the middleware's `401` saying `why`.
fn unauthorized(why: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": format!("Unauthorized: {why}")}})
}

/// Calls `tool` with `key` and returns the text of its result, asserting the answer is exactly
/// one text block.
async fn call_text(url: &str, key: &str, tool: &str, arguments: Value) -> String {
    let (status, body) = send(post(url, Some(key), &call(7, tool, arguments))).await;
    assert_eq!(status, StatusCode::OK, "{tool}: {body}");
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool} answered no text: {body}"))
        .to_owned();
    assert_eq!(body, text_result(7, &text), "{tool}");
    text
}

#[tokio::test]
async fn requests_without_a_known_key_get_401_from_the_middleware() {
    let server = start();
    let url = &server.url;
    let cases: [(Option<&str>, &str); 4] = [
        (None, "the request has no X-Api-Key header"),
        (Some("k-mallory"), "the API key is not valid"),
        (Some("k-alic"), "the API key is not valid"),
        (Some("alice"), "the API key is not valid"),
    ];
    for (key, why) in cases {
        let response = post(url, key, &initialize()).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "key {key:?}");
        assert_eq!(
            response.headers()["www-authenticate"],
            "ApiKey header=\"X-Api-Key\"",
            "key {key:?}"
        );
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body, unauthorized(why), "key {key:?}");
    }
    // Two keys, even both valid, are refused: which one speaks would be ambiguous.
    let two = post(url, Some("k-alice"), &initialize()).header("x-api-key", "k-bob");
    assert_eq!(
        send(two).await,
        (
            StatusCode::UNAUTHORIZED,
            unauthorized("the request has more than one X-Api-Key header")
        )
    );
    // A tool call without a key never reaches the tool either.
    assert_eq!(
        send(post(url, None, &call(2, "whoami", json!({})))).await,
        (
            StatusCode::UNAUTHORIZED,
            unauthorized("the request has no X-Api-Key header")
        )
    );
}

#[tokio::test]
async fn a_known_key_reaches_the_tools_which_see_its_user() {
    let server = start();
    let url = &server.url;
    let (status, body) = send(post(url, Some("k-alice"), &initialize())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    assert!(
        body["result"]["capabilities"]["tools"].is_object(),
        "{body}"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let (status, body) = send(post(url, Some("k-bob"), &list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["recall", "remember", "user_agent", "whoami"]);

    // Each key stands for its user, whether from API_KEYS or from --key.
    for (key, user) in [
        ("k-alice", "alice"),
        ("k-bob", "bob"),
        ("k-carol=", "carol"),
    ] {
        assert_eq!(call_text(url, key, "whoami", json!({})).await, user);
    }
    // A tool reads the HTTP request's headers as the client sent them.
    assert_eq!(
        call_text(url, "k-alice", "user_agent", json!({})).await,
        AGENT
    );
}

#[tokio::test]
async fn each_user_sees_only_their_own_data() {
    let server = start();
    let url = &server.url;
    let remember = |text: &str| json!({"text": text});
    assert_eq!(
        call_text(url, "k-alice", "remember", remember("buy milk")).await,
        "Kept memo 1."
    );
    assert_eq!(
        call_text(url, "k-alice", "remember", remember("call bob")).await,
        "Kept memo 2."
    );
    assert_eq!(
        call_text(url, "k-bob", "remember", remember("water the plants")).await,
        "Kept memo 1."
    );
    assert_eq!(
        call_text(url, "k-alice", "recall", json!({})).await,
        "1. buy milk\n2. call bob"
    );
    assert_eq!(
        call_text(url, "k-bob", "recall", json!({})).await,
        "1. water the plants"
    );
    assert_eq!(
        call_text(url, "k-carol=", "recall", json!({})).await,
        "carol has no memos."
    );
}

#[tokio::test]
async fn the_transport_still_checks_the_host_behind_the_middleware() {
    let server = start();
    let rebound = post(&server.url, Some("k-alice"), &initialize())
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com");
    let (status, body) = send(rebound).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        body["error"]["message"],
        "Forbidden: the Host header \"evil.example.com\" is not allowed"
    );
}
