//! The limits of the Streamable HTTP transport against clients that are slow, silent or greedy:
//! connection timeouts and caps, bounded streams, session eviction and DNS-rebinding checks on
//! every address. Raw TCP plays the misbehaving clients, on 127.0.0.1.

use std::time::Duration;

use mcp_runtime::auth::HostPolicy;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::params::NotificationParams;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport, serve_on};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{SseReader, TestHttpServer, standalone_get};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const WAIT: Duration = Duration::from_secs(10);

/// Echo a text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn server() -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .tools_list_changed()
        .build()
        .unwrap()
}

fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "limits-test", "version": "1"}}})
    .to_string()
}

fn post(url: &str, session: Option<&str>, body: String) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    match session {
        Some(id) => request.header("mcp-session-id", id),
        None => request,
    }
}

/// Initializes a session and returns its id.
async fn open_session(url: &str) -> String {
    let response = post(url, None, initialize("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(url, Some(&id), initialized.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    id
}

/// A new session's `ping` answered normally: the server still serves.
async fn ping_answers(url: &str) {
    let session = open_session(url).await;
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string();
    let response = post(url, Some(&session), ping).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
}

fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Reads until the server closes the connection; what it sent.
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout(WAIT, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return String::from_utf8_lossy(&received).into_owned(),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => panic!("the server kept the connection open"),
        }
    }
}

#[tokio::test]
async fn half_sent_headers_and_idle_connections_are_closed() {
    let options = HttpOptions::default().header_read_timeout(Duration::from_millis(300));
    let http = TestHttpServer::start(server(), options).await;
    let address = address(&http.url);
    let mut half = TcpStream::connect(&address).await.unwrap();
    half.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut idle = TcpStream::connect(&address).await.unwrap();
    let initialize = initialize("2025-11-25");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{initialize}",
        initialize.len()
    );
    idle.write_all(request.as_bytes()).await.unwrap();
    // Both are closed by the server; the idle one after its answer.
    assert_eq!(until_closed(&mut half).await, "");
    let answered = until_closed(&mut idle).await;
    assert!(answered.starts_with("HTTP/1.1 200 OK\r\n"), "{answered}");
    assert!(
        answered.contains(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25""#)
    );
    ping_answers(&http.url).await;
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let options = HttpOptions::default().body_read_timeout(Duration::from_millis(300));
    let http = TestHttpServer::start(server(), options).await;
    let mut stalled = TcpStream::connect(address(&http.url)).await.unwrap();
    stalled
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 4000000\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let answer = until_closed(&mut stalled).await;
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(
        answer.contains("the body did not arrive within 0.3 s"),
        "{answer}"
    );
    ping_answers(&http.url).await;
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_for_one_to_close() {
    let options = HttpOptions::default().max_connections(2);
    let http = TestHttpServer::start(server(), options).await;
    let address = address(&http.url);
    let first = TcpStream::connect(&address).await.unwrap();
    let second = TcpStream::connect(&address).await.unwrap();
    // Served once there is room: the client's request waits in the backlog.
    let waiting = tokio::spawn({
        let url = http.url.clone();
        async move { ping_answers(&url).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "a third connection was served");
    drop(first);
    tokio::time::timeout(WAIT, waiting).await.unwrap().unwrap();
    drop(second);
}

#[tokio::test]
async fn a_client_that_stops_reading_its_stream_is_let_go_and_resumes() {
    let options = HttpOptions::default()
        .write_timeout(Duration::from_millis(300))
        .stream_buffer(16);
    let http = TestHttpServer::start(server(), options).await;
    let session = open_session(&http.url).await;
    // A client with a small receive buffer opens its standalone stream, reads the priming
    // event, and then reads nothing.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut slow = socket
        .connect(address(&http.url).parse().unwrap())
        .await
        .unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    slow.write_all(get.as_bytes()).await.unwrap();
    let mut head = String::new();
    while !head.contains("retry: ") {
        let mut buffer = [0u8; 1024];
        let n = tokio::time::timeout(WAIT, slow.read(&mut buffer))
            .await
            .unwrap()
            .unwrap();
        assert_ne!(n, 0, "the stream closed at once: {head}");
        head.push_str(&String::from_utf8_lossy(&buffer[..n]));
    }
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    let stream = head
        .split("id: ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .expect("the priming event names the stream")
        .to_owned();
    // 60,000 notifications of ~110 bytes, more than the socket buffers hold (4 MiB at most
    // for the server's, here).
    let server = http.transport.server().clone();
    for _ in 0..60_000 {
        server.notify(ServerNotification::ToolListChanged(
            NotificationParams::default(),
        ));
        tokio::task::yield_now().await;
    }
    // The server lets go of the connection once its writes have waited longer than the write
    // timeout...
    tokio::time::sleep(Duration::from_secs(1)).await;
    let received = until_closed(&mut slow).await;
    assert!(!received.ends_with("0\r\n\r\n"), "the stream ended cleanly");
    // ... and the client resumes its stream from where it stopped reading.
    let resumed = standalone_get(&http.url, &session, "2025-11-25")
        .header("last-event-id", format!("{stream}:0"))
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), StatusCode::OK);
    let mut events = SseReader::new(resumed);
    let priming = events.next(WAIT).await.unwrap();
    assert_eq!(priming.data, "");
    assert_eq!(events.next(WAIT).await.unwrap().retry, Some(1000));
    // What the store still holds (its oldest events made room for newer ones), in order.
    let seq = |event: &tests::http::SseEvent| -> u64 {
        let id = event.id.as_deref().unwrap();
        let (name, seq) = id.rsplit_once(':').unwrap();
        assert_eq!(name, stream);
        seq.parse().unwrap()
    };
    let first = events.next(WAIT).await.unwrap();
    let second = events.next(WAIT).await.unwrap();
    assert_eq!(seq(&second), seq(&first) + 1);
    for event in [first, second] {
        assert_eq!(
            event.json().unwrap(),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        );
    }
    ping_answers(&http.url).await;
}

#[tokio::test]
async fn at_the_session_cap_the_idlest_session_makes_room() {
    let options = HttpOptions::default().max_sessions(3);
    let http = TestHttpServer::start(server(), options).await;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(open_session(&http.url).await);
    }
    // The first session is used again: the second is now the idlest.
    let call = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}}})
        .to_string()
    };
    let used = post(&http.url, Some(&sessions[0]), call(1))
        .send()
        .await
        .unwrap();
    assert_eq!(used.status(), StatusCode::OK);
    let fourth = open_session(&http.url).await;
    assert_eq!(http.transport.session_count(), 3);
    let mut live = http.transport.session_ids();
    live.sort();
    let mut expected = vec![sessions[0].clone(), sessions[2].clone(), fourth];
    expected.sort();
    assert_eq!(live, expected);
    let evicted = post(&http.url, Some(&sessions[1]), call(2))
        .send()
        .await
        .unwrap();
    assert_eq!(evicted.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn every_session_busy_means_503() {
    let options = HttpOptions::default().max_sessions(1);
    let http = TestHttpServer::start(server(), options).await;
    let session = open_session(&http.url).await;
    // Its client holds the standalone stream: the session is busy.
    let stream = standalone_get(&http.url, &session, "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut events = SseReader::new(stream);
    assert!(events.next(WAIT).await.is_some());
    let refused = post(&http.url, None, initialize("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "Service Unavailable: too many sessions"
    );
}

#[tokio::test]
async fn a_server_on_every_address_needs_its_host_names() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let error = serve_on(listener, server(), HttpOptions::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    let message = error.to_string();
    assert!(
        message.starts_with("refusing to serve MCP on 0.0.0.0:"),
        "{message}"
    );
    assert!(message.contains("HostPolicy::hosts"), "{message}");
    assert!(message.contains("HostPolicy::any_host()"), "{message}");

    // Named, the hosts are served; a foreign browser origin is refused, even with any host.
    for policy in [
        HostPolicy::hosts(["mcp.example.test"]),
        HostPolicy::any_host(),
    ] {
        let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let transport = HttpTransport::new(server(), HttpOptions::default().host_policy(policy));
        tokio::spawn(transport.clone().serve(listener));
        let url = format!("http://127.0.0.1:{port}/mcp");
        let named = || {
            post(&url, None, initialize("2025-11-25"))
                .header("host", format!("mcp.example.test:{port}"))
        };
        assert_eq!(named().send().await.unwrap().status(), StatusCode::OK);
        let foreign = named()
            .header("origin", "http://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
        let body: Value = foreign.json().await.unwrap();
        assert_eq!(
            body["error"]["message"],
            "Forbidden: the Origin header \"http://evil.example\" is not allowed"
        );
        transport.server().shutdown();
    }
}

/// Sends the head of a POST whose body is `length` bytes long, and `sent` of them.
async fn partial_body(url: &str, length: usize, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(address(url)).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&vec![b' '; sent]).await.unwrap();
    stream
}

/// Options whose bodies being read may hold 1,000 bytes in all: the bodies' share of the
/// budget (a quarter of 2,000 bytes) is less than the body limit, so it is the limit.
fn thousand_bytes_for_bodies() -> HttpOptions {
    HttpOptions::default()
        .body_limit(1000)
        .memory_budget(2000)
        .body_read_timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn a_stalled_body_makes_room_for_a_body_that_needs_its_memory() {
    let http = TestHttpServer::start(server(), thousand_bytes_for_bodies()).await;
    // 900 bytes of a 1,000-byte body, then nothing.
    let mut stalled = partial_body(&http.url, 1000, 900).await;
    while http.transport.memory_use().request_bodies < 900 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(http.transport.memory_use().request_bodies, 900);
    // A small body finds no memory left; the stalled one is ended to make room for it.
    let served = post(&http.url, None, initialize("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    let answer = until_closed(&mut stalled).await;
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(
        answer.ends_with(
            r#""message":"Request Timeout: the body stopped coming while other requests needed the memory it held; send it again, whole"}}"#
        ),
        "{answer}"
    );
    assert_eq!(http.transport.memory_use().request_bodies, 0);
}

#[tokio::test]
async fn a_body_that_finds_no_memory_while_others_still_arrive_gets_503() {
    let http = TestHttpServer::start(server(), thousand_bytes_for_bodies()).await;
    // 900 bytes of a 1,000-byte body, then a byte every 100 ms: slow, but not stalled.
    let mut trickling = partial_body(&http.url, 1000, 900).await;
    let trickle = tokio::spawn(async move {
        for _ in 0..30 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trickling.write_all(b" ").await.unwrap();
        }
        trickling
    });
    while http.transport.memory_use().request_bodies < 900 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A small body waits a second for memory, and is told to come back.
    let refused = post(&http.url, None, initialize("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()["retry-after"], "1");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "Service Unavailable: the server is reading as many request bodies as its memory budget \
         allows; retry in a second"
    );
    // The slow body runs into its deadline in the end, and gives its memory back.
    let mut trickling = trickle.await.unwrap();
    let answer = until_closed(&mut trickling).await;
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert_eq!(http.transport.memory_use().request_bodies, 0);
}
