//! The in-process transport: a server and a client joined in memory.
//!
//! The two ends exchange the same newline-delimited JSON as over stdio, through an in-memory pipe,
//! so everything a real peer would exercise (rendering for the negotiated revision, parsing,
//! concurrency) is exercised here too. [`InProcessPeer`] is the client's end, speaking raw JSON;
//! the SDK's client builds on it.
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::transport::in_process;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = McpServer::builder(server_info!()).build().unwrap();
//! let mut peer = in_process::connect(server);
//! peer.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"})).await?;
//! assert_eq!(peer.recv().await?, Some(json!({"jsonrpc": "2.0", "id": 0, "result": {}})));
//! peer.close().await
//! # }
//! ```
//!
//! The guide's chapter "Testing" (`docs/src/testing.md`) teaches it with examples.

use std::io;

use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use super::lines::{LineOptions, serve_lines};
use crate::server::McpServer;

const PIPE_CAPACITY: usize = 256 * 1024;

/// The client's end of an in-process connection.
pub struct InProcessPeer {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    server: crate::rt::Task<io::Result<()>>,
}

/// Starts serving `server` in a task and returns the client's end of the connection.
pub fn connect(server: McpServer) -> InProcessPeer {
    connect_with(server, LineOptions::default())
}

/// Like [`connect`], with limits.
pub fn connect_with(server: McpServer, options: LineOptions) -> InProcessPeer {
    let (client, server_end) = tokio::io::duplex(PIPE_CAPACITY);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server = crate::rt::spawn(serve_lines(server, server_read, server_write, options));
    let (read, writer) = tokio::io::split(client);
    InProcessPeer {
        lines: BufReader::new(read).lines(),
        writer,
        server,
    }
}

impl InProcessPeer {
    /// Sends one message.
    pub async fn send(&mut self, message: &Value) -> io::Result<()> {
        self.send_raw(&message.to_string()).await
    }

    /// Sends one line of text as it is (to exercise malformed input, say).
    pub async fn send_raw(&mut self, line: &str) -> io::Result<()> {
        self.writer.write_all(line.as_bytes()).await?;
        self.writer.write_all(b"\n").await?;
        self.writer.flush().await
    }

    /// The next message from the server; `None` once the server closed the connection.
    pub async fn recv(&mut self) -> io::Result<Option<Value>> {
        match self.lines.next_line().await? {
            Some(line) => serde_json::from_str(&line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            None => Ok(None),
        }
    }

    /// The next line from the server, as it was written.
    pub async fn recv_raw(&mut self) -> io::Result<Option<String>> {
        self.lines.next_line().await
    }

    /// Ends the input (the server sees the end of its input) and keeps the connection open for
    /// reading what the server still writes; [`recv`](Self::recv) gives `None` once it is done.
    pub async fn end_input(&mut self) -> io::Result<()> {
        self.writer.shutdown().await
    }

    /// Ends the input, lets the server finish, and returns how it ended.
    pub async fn close(mut self) -> io::Result<()> {
        self.writer.shutdown().await?;
        drop(self.writer);
        // Drain what the server still writes so it is not blocked on a full pipe.
        while self.lines.next_line().await?.is_some() {}
        self.server
            .await
            .unwrap_or_else(|| Err(io::Error::other("the server's task panicked")))
    }
}
