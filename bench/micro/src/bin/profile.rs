//! Runs one in-process case many times, for a profiler:
//!
//! ```sh
//! cargo build --release --manifest-path bench/Cargo.toml -p micro --bin profile
//! valgrind --tool=callgrind bench/target/release/profile call 20000
//! ```
//!
//! Cases: `call` (`tools/call add`, 2025-11-25 session), `call-stateless` (2026-07-28, stateless),
//! `list` (`tools/list` of 100 tools).

use std::sync::Arc;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use micro::{
    CALL_ADD, CALL_ADD_STATELESS, INITIALIZE, INITIALIZED, LIST_TOOLS, add_server,
    server_with_tools,
};

const USAGE: &str = "usage: profile call|call-stateless|list ITERATIONS";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (case, iterations) = match args.as_slice() {
        [case, n] => (case.as_str(), n.parse::<usize>().expect(USAGE)),
        _ => panic!("{USAGE}"),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (server, message) = match case {
            "call" | "call-stateless" => (add_server(), CALL_ADD),
            "list" => (server_with_tools(100), LIST_TOOLS),
            _ => panic!("{USAGE}"),
        };
        let session = session(&server).await;
        let mut bytes = 0;
        for _ in 0..iterations {
            let reply = if case == "call-stateless" {
                let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
                server
                    .handle_raw(CALL_ADD_STATELESS, &connection, None)
                    .await
            } else {
                server.handle_raw(message, &session, None).await
            };
            bytes += reply.map_or(0, |r| r.len());
        }
        eprintln!("{iterations} replies, {bytes} bytes");
    });
}

async fn session(server: &McpServer) -> Arc<ConnectionState> {
    let connection = ConnectionState::persistent(None);
    server.handle_raw(INITIALIZE, &connection, None).await;
    server.handle_raw(INITIALIZED, &connection, None).await;
    connection
}
