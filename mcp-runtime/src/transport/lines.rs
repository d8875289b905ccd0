//! Newline-delimited JSON over any byte stream: the engine of the stdio and in-process transports.
//!
//! Each line is one JSON-RPC message (or a 2025-03-26 batch). Requests are handled concurrently,
//! each in its own task, so a slow tool does not hold up a `ping` or a cancellation; notifications
//! and responses are handled in order as they are read. Everything the server writes (replies,
//! progress, logs, requests to the client) goes through one writer task, one message per line.
//! A line that is not JSON gets a parse error and the server keeps reading; a line longer than the
//! limit is skipped and answered with an invalid-request error. At the end of input the server
//! closes the connection: server-to-client requests still waiting (sampling, elicitation, roots,
//! ping) fail at once, the cancellation token of every request in flight fires, and the server
//! waits for the handlers to return, writes the replies of those that still produced one, and
//! returns.

use std::io;
use std::sync::Arc;

use mcp_core::ErrorObject;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::server::{
    Answer, ConnectionState, McpServer, MessageSink, Outbound, PeerGone, Reply, SharedSink,
};

/// Limits of a line transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineOptions {
    /// The longest line read, in bytes (4 MiB by default).
    pub max_message_size: usize,
}

impl Default for LineOptions {
    fn default() -> Self {
        LineOptions {
            max_message_size: 4 * 1024 * 1024,
        }
    }
}

impl LineOptions {
    /// Sets the longest line read, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

/// What the writer task writes.
enum Frame {
    /// A rendered line.
    Text(String),
    /// A message of the server's own, rendered for the connection's revision when written.
    Message(Box<Outbound>),
    /// Flush and stop.
    Close,
}

/// The sink handed to the server: its messages go to the writer task.
struct FrameSink(mpsc::UnboundedSender<Frame>);

impl MessageSink for FrameSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        self.0
            .send(Frame::Message(Box::new(message)))
            .map_err(|_| PeerGone)
    }
}

/// One line read.
enum Line {
    /// The bytes of a line (without the newline).
    Complete(Vec<u8>),
    /// A line longer than the limit; its length so far.
    TooLong(usize),
}

/// Reads one line of at most `max` bytes; `None` at the end of input.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut length = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match length {
                0 => None,
                n if n > max => Some(Line::TooLong(n)),
                _ => Some(Line::Complete(line)),
            });
        }
        let (chunk, consumed, done) = match available.iter().position(|b| *b == b'\n') {
            Some(end) => (&available[..end], end + 1, true),
            None => (available, available.len(), false),
        };
        length += chunk.len();
        if length <= max {
            line.extend_from_slice(chunk);
        } else {
            line = Vec::new();
        }
        reader.consume(consumed);
        if done {
            return Ok(Some(if length > max {
                Line::TooLong(length)
            } else {
                Line::Complete(line)
            }));
        }
    }
}

/// Writes frames until told to close; cancels `failed` when the output breaks.
async fn write_frames<W: AsyncWrite + Unpin>(
    writer: W,
    mut frames: mpsc::UnboundedReceiver<Frame>,
    connection: Arc<ConnectionState>,
    failed: CancellationToken,
) {
    let mut writer = BufWriter::with_capacity(64 * 1024, writer);
    let result: io::Result<()> = async {
        while let Some(frame) = frames.recv().await {
            let line = match frame {
                Frame::Text(text) => text,
                Frame::Message(message) => match message.render(connection.version()) {
                    Ok(text) => text,
                    Err(error) => {
                        tracing::warn!("dropped a message the connection cannot carry: {error}");
                        continue;
                    }
                },
                Frame::Close => break,
            };
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            // Lines queued together go out in one write; otherwise each line leaves as soon as
            // it is written, so that the peer can answer it while the next is being made.
            if frames.is_empty() {
                writer.flush().await?;
            }
        }
        writer.flush().await
    }
    .await;
    if let Err(error) = result {
        tracing::warn!(%error, "the output of the connection broke");
        failed.cancel();
    }
}

/// Serves `server` on newline-delimited JSON read from `reader` and written to `writer`, until
/// the input ends, the output breaks, or the server shuts down.
pub async fn serve_lines<R, W>(
    server: McpServer,
    reader: R,
    writer: W,
    options: LineOptions,
) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (frames, frame_queue) = mpsc::unbounded_channel();
    let sink: SharedSink = Arc::new(FrameSink(frames.clone()));
    let connection = ConnectionState::persistent(Some(sink.clone()));
    server.register_connection(&connection);
    let output_broken = CancellationToken::new();
    let writer_task = tokio::spawn(write_frames(
        writer,
        frame_queue,
        connection.clone(),
        output_broken.clone(),
    ));
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let requests = TaskTracker::new();
    let shutdown = server.shutdown_token().clone();
    let mut outcome = Ok(());
    loop {
        let line = tokio::select! {
            line = read_line(&mut reader, options.max_message_size) => line,
            () = shutdown.cancelled() => break,
            () = output_broken.cancelled() => break,
        };
        let line = match line {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                outcome = Err(error);
                break;
            }
        };
        match line {
            Line::TooLong(length) => {
                let error = ErrorObject::invalid_request(format!(
                    "a message of {length} bytes exceeds the limit of {} bytes",
                    options.max_message_size
                ));
                send_error(&frames, &connection, error);
            }
            Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {}
            Line::Complete(bytes) => {
                dispatch(&server, &connection, &sink, &frames, &requests, &bytes);
            }
        }
    }
    // The peer is gone (or the server stops): requests to it fail at once and the handlers in
    // flight are told to stop, so nothing keeps the loop alive; replies of those that still
    // finish are written.
    connection.close();
    requests.close();
    requests.wait().await;
    // The writer may already be gone when the output broke.
    let _ = frames.send(Frame::Close);
    if writer_task.await.is_err() {
        tracing::error!("the writer task of a connection panicked");
    }
    outcome
}

fn send_error(
    frames: &mpsc::UnboundedSender<Frame>,
    connection: &ConnectionState,
    error: ErrorObject,
) {
    let text = Reply::error(connection.version(), None, error).render();
    // The writer is gone only when the output broke; the loop then stops.
    let _ = frames.send(Frame::Text(text));
}

/// Handles one line: what the server admits is answered at once, its requests run on their own
/// tasks (each registered as in flight before the next line is read), and a batch is answered
/// in one piece when all of its requests are done.
fn dispatch(
    server: &McpServer,
    connection: &Arc<ConnectionState>,
    sink: &SharedSink,
    frames: &mpsc::UnboundedSender<Frame>,
    requests: &TaskTracker,
    bytes: &[u8],
) {
    // The writer is gone only when the output broke; the loop then stops.
    let reply_to = |frames: &mpsc::UnboundedSender<Frame>, text: String| {
        let _ = frames.send(Frame::Text(text));
    };
    let admission = server.admit_text(bytes, connection, Some(sink.clone()));
    if admission.is_batch() {
        let frames = frames.clone();
        requests.spawn(async move {
            if let Some(text) = admission.finish().await {
                reply_to(&frames, text);
            }
        });
        return;
    }
    for answer in admission {
        match answer {
            Answer::Ready(reply) => reply_to(frames, reply.render()),
            Answer::Running(work) => {
                let frames = frames.clone();
                requests.spawn(async move {
                    if let Some(reply) = work.await {
                        reply_to(&frames, reply.render());
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, max).await.unwrap() {
            out.push(match line {
                Line::Complete(bytes) => String::from_utf8(bytes).unwrap(),
                Line::TooLong(n) => format!("<too long: {n}>"),
            });
        }
        out
    }

    #[tokio::test]
    async fn lines_are_split_and_bounded() {
        assert_eq!(lines(b"ab\ncd\n", 10).await, ["ab", "cd"]);
        assert_eq!(lines(b"ab\ncd", 10).await, ["ab", "cd"]);
        assert_eq!(
            lines(b"0123456789abc\nok\n", 10).await,
            ["<too long: 13>", "ok"]
        );
        assert_eq!(lines(b"\n\n", 10).await, ["", ""]);
        assert!(lines(b"", 10).await.is_empty());
    }
}
