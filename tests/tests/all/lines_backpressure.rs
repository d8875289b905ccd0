//! The line transport (stdio, in-process) reads no faster than its peer reads: a peer that sends
//! requests and never reads the replies gets a bounded number handled, then the server waits;
//! once the peer reads, every request is answered.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::transport::lines::{LineOptions, serve_lines};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

static HANDLED: AtomicUsize = AtomicUsize::new(0);

/// Count a call.
#[mcp_tool]
async fn tally() -> usize {
    HANDLED.fetch_add(1, Ordering::SeqCst) + 1
}

const REQUESTS: usize = 20_000;
/// The server's output pipe holds this many bytes.
const PIPE: usize = 4096;
/// The writer's own buffer (64 KiB) and the pipe hold at most this many replies of at least
/// 60 bytes; the queue and the requests in hand hold 2 × 8 more.
const MOST_HANDLED_UNREAD: usize = (64 * 1024 + PIPE) / 60 + 2 * 8 + 1;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_does_not_read_stops_the_server_reading() {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let (client_in, server_in) = tokio::io::duplex(PIPE);
    let (server_out, client_out) = tokio::io::duplex(PIPE);
    let options = LineOptions::default().max_queued(8);
    let serving = tokio::spawn(serve_lines(server, server_in, server_out, options));
    let (_, mut input) = tokio::io::split(client_in);
    let writing = tokio::spawn(async move {
        let handshake = [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "slow-reader", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        for message in handshake {
            input
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
        for id in 1..=REQUESTS {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "tally", "arguments": {}}});
            input
                .write_all(format!("{call}\n").as_bytes())
                .await
                .unwrap();
        }
        input
    });
    // Nothing is read: the server handles a bounded number of calls, and the writer blocks.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let handled = HANDLED.load(Ordering::SeqCst);
    assert!(
        (1..=MOST_HANDLED_UNREAD).contains(&handled),
        "{handled} calls handled while nothing was read"
    );
    assert!(!writing.is_finished(), "the server read every request");
    // Now read: every request gets its answer, in the order of the handshake first.
    let mut lines = BufReader::new(client_out).lines();
    let mut answered = vec![false; REQUESTS + 1];
    for _ in 0..=REQUESTS {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("a line");
        let reply: Value = serde_json::from_str(&line).unwrap();
        let id = reply["id"].as_u64().unwrap() as usize;
        assert!(!answered[id], "answered {id} twice");
        answered[id] = true;
        assert!(reply["result"].is_object(), "{reply}");
    }
    assert!(answered.iter().all(|a| *a));
    assert_eq!(HANDLED.load(Ordering::SeqCst), REQUESTS);
    drop(writing.await.unwrap());
    serving.await.unwrap().unwrap();
}
