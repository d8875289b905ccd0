//! A soak test: many clients drive `notes-server` over Streamable HTTP with mixed traffic for a
//! fixed time, and the server's memory stays within a bound of what it used after the warm-up.
//!
//! Each client, in a loop: opens a session (sometimes a 2026-07-28 stateless request instead),
//! calls a tool, drops a progress stream after its first event, leaves an elicitation and a
//! sampling request unanswered (the second cancelled), opens and drops the standalone stream,
//! and ends the session. `MCP_SOAK_SECS` sets the duration (20 s by default, the short form CI
//! runs); the bound is [`RSS_BOUND`].

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{SseReader, standalone_get};
use tests::interop::HttpExample;

const CLIENTS: usize = 16;
const WAIT: Duration = Duration::from_secs(10);
/// RSS at the end may exceed RSS after the warm-up by this factor, plus [`RSS_SLACK`].
const RSS_BOUND: f64 = 1.25;
/// Allocator noise that no leak explains.
const RSS_SLACK: u64 = 8 * 1024 * 1024;

fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> reqwest::RequestBuilder {
    let request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    match session {
        Some(id) => request.header("mcp-session-id", id),
        None => request,
    }
}

fn call(id: u64, name: &str, arguments: Value, progress: bool) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if progress {
        params["_meta"] = json!({"progressToken": id});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// Reads the stream of `response` until the server asks the client for `method`; the stream,
/// still open, or `None` when it ended without asking.
async fn asks(response: reqwest::Response, method: &str) -> Option<SseReader> {
    let mut events = SseReader::new(response);
    while let Some(event) = events.next(WAIT).await {
        if event.data.contains(method) {
            return Some(events);
        }
    }
    None
}

/// One round of a client's traffic; how many requests it answered as expected.
async fn round(client: &reqwest::Client, url: &str, round: usize) -> usize {
    let mut fine = 0;
    if round % 4 == 3 {
        // A stateless request of 2026-07-28, whose stream is dropped half-way.
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": 1
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "word_count", "arguments": {}, "_meta": meta}});
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "word_count")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut events = SseReader::new(response);
        fine += usize::from(events.next(WAIT).await.is_some());
        return fine;
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}, "sampling": {}},
        "clientInfo": {"name": "soak", "version": "1"}}});
    let response = post(client, url, None, initialize).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let session = Some(id.as_str());
    drop(response.bytes().await.unwrap());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(client, url, session, initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);

    // A plain call.
    let add = call(1, "add", json!({"a": round, "b": 1}), false);
    let answer: Value = post(client, url, session, add)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    fine += usize::from(answer["result"]["content"][0]["text"] == json!((round + 1).to_string()));

    // A progress stream dropped after its first event.
    let count = post(client, url, session, call(2, "word_count", json!({}), true))
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(count);
    fine += usize::from(events.next(WAIT).await.is_some());
    drop(events);

    // An elicitation left unanswered, its stream dropped.
    let delete = post(
        client,
        url,
        session,
        call(3, "delete_note", json!({"id": 1}), false),
    )
    .send()
    .await
    .unwrap();
    fine += usize::from(asks(delete, "elicitation/create").await.is_some());

    // A sampling request, then the call cancelled.
    let summarize = post(
        client,
        url,
        session,
        call(4, "summarize_note", json!({"id": 2}), false),
    )
    .send()
    .await
    .unwrap();
    let events = asks(summarize, "sampling/createMessage").await;
    fine += usize::from(events.is_some());
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 4, "reason": "soak"}});
    let response = post(client, url, session, cancel).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    drop(events);

    // The standalone stream, opened and dropped.
    let standalone = standalone_get(url, &id, "2025-11-25").send().await.unwrap();
    let mut events = SseReader::new(standalone);
    fine += usize::from(events.next(WAIT).await.is_some());
    drop(events);

    let ended = client
        .delete(url)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    fine += usize::from(ended.status() == StatusCode::OK);
    fine
}

/// Every client runs rounds until `until`; the rounds run and the requests answered as expected.
async fn traffic(url: &str, until: Instant) -> (usize, usize, usize) {
    let rounds = Arc::new(AtomicUsize::new(0));
    let fine = Arc::new(AtomicUsize::new(0));
    let expected = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (url, rounds, fine, expected) = (
                url.to_owned(),
                rounds.clone(),
                fine.clone(),
                expected.clone(),
            );
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                while Instant::now() < until {
                    let n = rounds.fetch_add(1, Ordering::Relaxed);
                    fine.fetch_add(round(&client, &url, n).await, Ordering::Relaxed);
                    expected.fetch_add(if n % 4 == 3 { 1 } else { 6 }, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for client in clients {
        client.await.unwrap();
    }
    (
        rounds.load(Ordering::Relaxed),
        fine.load(Ordering::Relaxed),
        expected.load(Ordering::Relaxed),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_traffic_leaves_memory_bounded() {
    let seconds: u64 = std::env::var("MCP_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let server = HttpExample::start("notes-server", &["--http", "127.0.0.1:0"]);
    let start = Instant::now();
    let warm_up = start + Duration::from_secs(seconds / 4).max(Duration::from_secs(2));
    let (_, fine, expected) = traffic(&server.url, warm_up).await;
    assert_eq!(fine, expected, "answers during the warm-up");
    let after_warm_up = server.rss();
    let (rounds, fine, expected) = traffic(&server.url, start + Duration::from_secs(seconds)).await;
    let at_end = server.rss();
    assert_eq!(fine, expected, "answers after the warm-up");
    eprintln!(
        "soak: {rounds} rounds of {CLIENTS} clients in {seconds} s; RSS {:.1} MiB after the \
         warm-up, {:.1} MiB at the end",
        after_warm_up as f64 / 1048576.0,
        at_end as f64 / 1048576.0
    );
    let bound = (after_warm_up as f64 * RSS_BOUND) as u64 + RSS_SLACK;
    assert!(
        at_end <= bound,
        "RSS grew from {after_warm_up} to {at_end} bytes (bound {bound})"
    );
    // The server still answers normally.
    let client = reqwest::Client::new();
    assert_eq!(round(&client, &server.url, 0).await, 6);
}
