//! The memory budget of the Streamable HTTP transport against clients that make the server hold
//! memory on purpose: streams they never read, questions they never answer, requests they leave
//! running, sessions they pile up. Raw TCP plays the clients that do not read, on 127.0.0.1;
//! `HttpTransport::memory_use` says what each share of the budget holds.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use mcp_runtime::memory::{ANSWER_WAIT_WEIGHT, REQUEST_WEIGHT};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::params::NotificationParams;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{SseReader, TestHttpServer, call, exchange, open_session, post, standalone_get};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;

const WAIT: Duration = Duration::from_secs(10);
const KIB: usize = 1024;

/// A name.
#[derive(Elicit)]
struct Name {
    /// Your name.
    name: String,
}

/// Asks the client for a name.
#[mcp_tool]
async fn ask_name(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Name>("Your name?").await?;
    Ok(answer
        .accepted()
        .map_or_else(|| "no name".to_owned(), |n| format!("hello {}", n.name)))
}

/// Whether the test lets `hold` go.
type Release = watch::Receiver<bool>;

/// Runs until the test lets it go.
#[mcp_tool]
async fn hold(#[ctx] State(mut release): State<Release>) -> &'static str {
    let _ = release.wait_for(|released| *released).await;
    "released"
}

/// A release that never comes.
fn never() -> Release {
    watch::channel(false).1
}

fn server(release: Release) -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .tools_list_changed()
        .state(release)
        .build()
        .unwrap()
}

/// A connection whose client reads (almost) nothing.
async fn quiet_connection(url: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    socket.connect(address).await.unwrap()
}

/// Broadcasts `count` list changes, letting the server's tasks run in between.
async fn broadcast(transport: &HttpTransport, count: usize) {
    for _ in 0..count {
        transport
            .server()
            .notify(ServerNotification::ToolListChanged(
                NotificationParams::default(),
            ));
        tokio::task::yield_now().await;
    }
}

/// Waits until `condition` holds of the transport's memory use, or fails after [`WAIT`].
async fn until(
    transport: &HttpTransport,
    what: &str,
    condition: impl Fn(&mcp_runtime::memory::MemoryUse) -> bool,
) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !condition(&transport.memory_use()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: {:?}",
            transport.memory_use()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_stream_no_one_reads_holds_its_share_at_most_and_lets_go_when_dropped() {
    // 64 KiB for queued events, 64 KiB for the event store.
    let options = HttpOptions::default().memory_budget(256 * KIB);
    let http = TestHttpServer::start(server(never()), options).await;
    let session = open_session(&http.url, "2025-11-25").await;
    let mut quiet = quiet_connection(&http.url).await;
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    quiet.write_all(get.as_bytes()).await.unwrap();
    // ~1.8 MB of events, far more than the socket buffers and the share hold.
    broadcast(&http.transport, 10_000).await;
    let used = http.transport.memory_use();
    // The client fell behind: dropped from its stream, with what was queued for it.
    assert_eq!(used.queued_events, 0);
    // The store kept as many of the latest events as its share holds (each weighs its
    // stream's id, its text and 64 bytes).
    let event = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let weight = 16 + event.len() + 64;
    assert_eq!(used.event_store, Some(64 * KIB / weight * weight));
    drop(quiet);
}

#[tokio::test]
async fn listen_streams_no_one_reads_hold_the_share_and_give_it_back_when_they_go() {
    let options = HttpOptions::default().memory_budget(256 * KIB);
    let http = TestHttpServer::start(server(never()), options).await;
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "quiet", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let mut streams = Vec::new();
    for _ in 0..4 {
        let mut quiet = quiet_connection(&http.url).await;
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{listen}",
            listen.len()
        );
        quiet.write_all(head.as_bytes()).await.unwrap();
        streams.push(quiet);
    }
    // ~9 MB of events for each stream, more than the socket buffers hold (4 MiB at most for the
    // server's).
    broadcast(&http.transport, 60_000).await;
    // A stream that cannot be resumed keeps what it has and misses the rest: the share, and
    // at most one event over it for each of a stream's two queues.
    let queued = http.transport.memory_use().queued_events;
    assert!(queued >= 60 * KIB, "{queued}");
    assert!(queued <= 64 * KIB + 4 * 2 * 256, "{queued}");
    // The clients go: their requests end, and what was queued for them is given back.
    drop(streams);
    until(&http.transport, "the queues were dropped", |used| {
        used.queued_events == 0
    })
    .await;
}

/// Sends the tool call `call` in `session` and reads its stream up to the question the tool asks:
/// the stream, and the id of the question.
async fn asked(url: &str, session: &str, call: &Value) -> (SseReader, Value) {
    let response = post(url, Some(session), call)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = SseReader::new(response);
    loop {
        let event = stream.next(WAIT).await.expect("the question");
        if let Some(message) = event.json() {
            assert_eq!(message["method"], "elicitation/create");
            return (stream, message["id"].clone());
        }
    }
}

/// The next message on `stream` (past priming events).
async fn next_message(stream: &mut SseReader) -> Value {
    loop {
        let event = stream.next(WAIT).await.expect("a message");
        if let Some(message) = event.json() {
            return message;
        }
    }
}

#[tokio::test]
async fn unanswered_questions_make_room_for_other_clients_oldest_first() {
    // Room for three requests waiting for their answers.
    let wait = REQUEST_WEIGHT + ANSWER_WAIT_WEIGHT;
    let options = HttpOptions::default().memory_budget(4 * 3 * wait);
    let http = TestHttpServer::start(server(never()), options).await;
    let greedy = open_session(&http.url, "2025-11-25").await;
    let ask = |id| call(id, "ask_name", json!({}));
    let (mut first, first_question) = asked(&http.url, &greedy, &ask(1)).await;
    let _second = asked(&http.url, &greedy, &ask(2)).await;
    let _third = asked(&http.url, &greedy, &ask(3)).await;
    assert_eq!(http.transport.memory_use().requests, 3 * wait);
    // Another client comes: the question the greedy client left unanswered the longest is
    // withdrawn to make room for it...
    let modest = open_session(&http.url, "2025-11-25").await;
    assert_eq!(
        next_message(&mut first).await,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": first_question,
            "reason": "the server needed the memory for newer requests: the client left this \
                       one unanswered the longest"}})
    );
    assert_eq!(
        next_message(&mut first).await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": [{
            "type": "text",
            "text": "elicitation/create: the server is handling as many requests as its memory \
                     budget allows; try again in a few seconds"}]}})
    );
    // ... and the other client is asked, and answered.
    let (mut modest_stream, question) = asked(&http.url, &modest, &ask(1)).await;
    let answer = json!({"jsonrpc": "2.0", "id": question,
        "result": {"action": "accept", "content": {"name": "Ada"}}});
    let answered = post(&http.url, Some(&modest), &answer)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), StatusCode::ACCEPTED);
    assert_eq!(
        next_message(&mut modest_stream).await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "hello Ada"}]}})
    );
}

#[tokio::test]
async fn requests_in_flight_beyond_the_share_get_503_with_retry_after() {
    // The smallest share: room for one request waiting for an answer, or this many in flight.
    let room = (REQUEST_WEIGHT + ANSWER_WAIT_WEIGHT) / REQUEST_WEIGHT;
    assert_eq!(room, 6);
    let options = HttpOptions::default().memory_budget(0);
    let (release, released) = watch::channel(false);
    let http = TestHttpServer::start(server(released), options).await;
    let session = open_session(&http.url, "2025-11-25").await;
    let mut running = Vec::new();
    for id in 1..=room as i64 {
        let request = post(&http.url, Some(&session), &call(id, "hold", json!({})))
            .header("mcp-protocol-version", "2025-11-25")
            .send();
        running.push(tokio::spawn(request));
    }
    until(&http.transport, "the requests in flight", |used| {
        used.requests == room * REQUEST_WEIGHT
    })
    .await;
    let refused = post(&http.url, Some(&session), &call(7, "hold", json!({})))
        .header("mcp-protocol-version", "2025-11-25")
        .timeout(WAIT)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()["retry-after"], "1");
    assert_eq!(
        refused.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message":
            "the server is handling as many requests as its memory budget allows; retry in a \
             second"}})
    );
    release.send_replace(true);
    for request in running {
        assert_eq!(request.await.unwrap().unwrap().status(), StatusCode::OK);
    }
    let (status, answer) = exchange(&http.url, Some(&session), &call(8, "hold", json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["content"][0]["text"], "released");
    assert_eq!(http.transport.memory_use().requests, 0);
}

/// A client connecting from `address` (any address of the loopback network).
fn client_from(address: Ipv4Addr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(address))
        .build()
        .unwrap()
}

async fn initialize_from(client: &reqwest::Client, url: &str) -> reqwest::Response {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(tests::http::initialize_body("2025-11-25").to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_client_at_its_session_cap_ends_its_idlest_session_or_gets_429() {
    let options = HttpOptions::default().max_sessions_per_client(2);
    let http = TestHttpServer::start(server(never()), options).await;
    let first = open_session(&http.url, "2025-11-25").await;
    let second = open_session(&http.url, "2025-11-25").await;
    // A third session ends the client's idlest one.
    let third = open_session(&http.url, "2025-11-25").await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, _) = exchange(&http.url, Some(&first), &ping).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // With both of its sessions busy (a client reads each one's stream), it gets 429.
    let mut streams = Vec::new();
    for session in [&second, &third] {
        let stream = standalone_get(&http.url, session, "2025-11-25")
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), StatusCode::OK);
        streams.push(stream);
    }
    let refused = initialize_from(&tests::http::client(), &http.url).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        refused.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message":
            "Too Many Requests: this client already has as many sessions as it may (2), each \
             with a request in flight or an open stream; end one (DELETE) or use it, rather \
             than opening another"}})
    );
    // A client from another address has sessions of its own.
    let elsewhere = initialize_from(&client_from(Ipv4Addr::new(127, 0, 0, 2)), &http.url).await;
    assert_eq!(elsewhere.status(), StatusCode::OK);
    assert_eq!(http.transport.session_count(), 3);
}

/// `notes-server --memory-budget --max-sessions-per-client`: what an operator of the example sets.
#[tokio::test]
async fn notes_server_takes_the_budget_and_the_cap_per_client() {
    // The smallest budget: room for one request waiting for its answer.
    let server = tests::interop::HttpExample::start(
        "notes-server",
        &[
            "--http",
            "127.0.0.1:0",
            "--memory-budget",
            "0",
            "--max-sessions-per-client",
            "1",
        ],
    );
    let url = &server.url;
    let session = open_session(url, "2025-11-25").await;
    let delete = call(1, "delete_note", json!({"id": 1}));
    let (mut stream, question) = asked(url, &session, &delete).await;
    // Its only session has a request in flight: the client may open no other.
    let refused = initialize_from(&tests::http::client(), url).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    // Another client's `initialize` needs the room that the unanswered question holds.
    let elsewhere = initialize_from(&client_from(Ipv4Addr::new(127, 0, 0, 2)), url).await;
    assert_eq!(elsewhere.status(), StatusCode::OK);
    assert_eq!(
        next_message(&mut stream).await["params"],
        json!({"requestId": question,
            "reason": "the server needed the memory for newer requests: the client left this \
                       one unanswered the longest"})
    );
}
