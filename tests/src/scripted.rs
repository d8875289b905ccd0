//! A scripted MCP server for client tests, whose answers do not depend on time: the far end of an
//! in-memory connection that answers each request with a closure and records every message it
//! receives; and the results of `initialize` and `server/discover` it gives.

use std::sync::{Arc, Mutex};

use mcp_runtime::client::{ClientError, McpClient, McpClientBuilder};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What a scripted server received.
pub type Seen = Arc<Mutex<Vec<Value>>>;

/// Connects a client built by `builder` to a scripted server that answers each request with
/// `answer(method, params)` (`None`: no answer at all) and records every message.
pub async fn scripted(
    builder: McpClientBuilder,
    mut answer: impl FnMut(&str, &Value) -> Option<Result<Value, Value>> + Send + 'static,
) -> (Result<McpClient, ClientError>, Seen) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let seen = Seen::default();
    let record = seen.clone();
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            record.lock().unwrap().push(message.clone());
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let reply = match answer(method, &message["params"]) {
                Some(Ok(result)) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Some(Err(error)) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                None => continue,
            };
            let mut text = reply.to_string();
            text.push('\n');
            write.write_all(text.as_bytes()).await.unwrap();
        }
    });
    let (read, write) = tokio::io::split(client_end);
    (builder.connect_io(read, write).await, seen)
}

/// The 2025-11-25 `initialize` result of a scripted server with `capabilities`.
pub fn initialize_result(capabilities: Value) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
        "serverInfo": {"name": "scripted", "version": "1"}})
}

/// The `server/discover` result of a scripted server of 2026-07-28 with `capabilities`.
pub fn discover_result(capabilities: Value) -> Value {
    json!({"supportedVersions": ["2026-07-28"], "capabilities": capabilities, "ttlMs": 0,
        "cacheScope": "private", "resultType": "complete"})
}
