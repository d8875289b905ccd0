//! Newline-delimited JSON over any byte stream: the engine of the stdio and in-process transports.
//!
//! Each line is one JSON-RPC message (or a 2025-03-26 batch). Requests are handled concurrently,
//! each in its own task, so a slow tool does not hold up a `ping` or a cancellation; notifications
//! and responses are handled in order as they are read. Everything the server writes (replies,
//! progress, logs, requests to the client) goes through one writer task, one message per line.
//! A line that is not JSON gets a parse error and the server keeps reading; a line longer than the
//! limit is skipped and answered with an invalid-request error.
//!
//! The server reads no faster than its peer reads: at most [`LineOptions::max_queued`] messages
//! wait to be written, and at most as many requests are being handled or waiting to write their
//! replies. While either is full the server stops reading input, so a peer that never reads its
//! output cannot make the server's memory grow; a handler's progress and logs wait for room too
//! (broadcast notifications that find no room are dropped). At the end of input the server
//! closes the connection: server-to-client requests still waiting (sampling, elicitation, roots,
//! ping) fail at once, the cancellation token of every request in flight fires, and the server
//! waits for the handlers to return, writes the replies of those that still produced one, and
//! returns.

use std::io;
use std::sync::Arc;

use mcp_runtime_core::ErrorObject;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::connection::{enqueue, try_enqueue};
use crate::server::{
    Answer, ConnectionState, McpServer, MessageSink, Outbound, PeerGone, Reply, SendFuture,
    SharedSink,
};

/// Limits of a line transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineOptions {
    /// The longest line read, in bytes (4 MiB by default).
    pub max_message_size: usize,
    /// How many messages may wait to be written, and how many requests may be handled or wait
    /// to write their replies, before the server stops reading (256 by default).
    pub max_queued: usize,
}

impl Default for LineOptions {
    fn default() -> Self {
        LineOptions {
            max_message_size: 4 * 1024 * 1024,
            max_queued: 256,
        }
    }
}

impl LineOptions {
    /// Sets the longest line read, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets how many messages may wait to be written, and how many requests may be in hand,
    /// before the server stops reading (at least 1).
    pub fn max_queued(mut self, messages: usize) -> Self {
        self.max_queued = messages.max(1);
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
struct FrameSink(mpsc::Sender<Frame>);

impl MessageSink for FrameSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        try_enqueue(&self.0, Frame::Message(Box::new(message)))
    }

    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        enqueue(&self.0, Frame::Message(Box::new(message)))
    }
}

/// One line read.
enum Line {
    /// The bytes of a line (without the newline).
    Complete(Vec<u8>),
    /// A line longer than the limit; its length so far.
    TooLong(usize),
}

/// The size of the input buffer: a read takes up to this much of what the peer has written.
const INPUT_BUFFER: usize = 64 * 1024;

/// The input, read through a buffer that is reserved at its full size but never zeroed, so that
/// its memory is touched only as bytes arrive (a zeroed 64 KiB buffer was sixteen page faults,
/// a sixth of what a server's start costs beyond the loader's).
struct Input<R> {
    reader: R,
    buffer: Vec<u8>,
    /// Where the bytes not yet taken start.
    start: usize,
}

impl<R: AsyncRead + Unpin> Input<R> {
    fn new(reader: R, capacity: usize) -> Self {
        Input {
            reader,
            buffer: Vec::with_capacity(capacity),
            start: 0,
        }
    }

    /// The bytes read and not yet taken, reading more when none are left; empty at the end of
    /// input.
    async fn fill(&mut self) -> io::Result<&[u8]> {
        if self.start == self.buffer.len() {
            self.buffer.clear();
            self.start = 0;
            // Reads into the buffer's spare capacity (the whole buffer, now that it is empty).
            self.reader.read_buf(&mut self.buffer).await?;
        }
        Ok(&self.buffer[self.start..])
    }

    /// Takes `n` of the bytes `fill` gave.
    fn consume(&mut self, n: usize) {
        self.start += n;
    }
}

/// Reads one line of at most `max` bytes; `None` at the end of input.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut Input<R>,
    max: usize,
) -> io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut length = 0usize;
    loop {
        let available = input.fill().await?;
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
        input.consume(consumed);
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
    mut frames: mpsc::Receiver<Frame>,
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
    let opened = crate::rt::Instant::now();
    let (frames, frame_queue) = mpsc::channel(options.max_queued);
    let sink: SharedSink = Arc::new(FrameSink(frames.clone()));
    let connection = ConnectionState::persistent(Some(sink.clone()));
    server.register_connection(&connection);
    let output_broken = CancellationToken::new();
    let writer_task = crate::rt::spawn(write_frames(
        writer,
        frame_queue,
        connection.clone(),
        output_broken.clone(),
    ));
    let mut input = Input::new(reader, INPUT_BUFFER);
    let requests = TaskTracker::new();
    let in_hand = Arc::new(Semaphore::new(options.max_queued));
    let shutdown = server.shutdown_token().clone();
    let mut outcome = Ok(());
    loop {
        // Nothing more is read until the output has room and a request may be taken in hand
        // (checked without waiting first: waiting costs a turn of the scheduler).
        let permit = match in_hand.clone().try_acquire_owned() {
            Ok(permit) if frames.capacity() > 0 => Some(permit),
            _ => {
                let ready = async {
                    let room = frames.reserve().await.is_ok();
                    let permit = in_hand.clone().acquire_owned().await.ok();
                    permit.filter(|_| room)
                };
                tokio::select! {
                    permit = ready => permit,
                    () = shutdown.cancelled() => break,
                    () = output_broken.cancelled() => break,
                }
            }
        };
        // The writer is gone only when the output broke.
        let Some(permit) = permit else { break };
        let line = tokio::select! {
            line = read_line(&mut input, options.max_message_size) => line,
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
                let text = Reply::error(connection.version(), None, error).render();
                write(&frames, text).await;
            }
            Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {}
            Line::Complete(bytes) => {
                let line = Dispatch {
                    server: &server,
                    connection: &connection,
                    sink: &sink,
                    frames: &frames,
                    requests: &requests,
                };
                line.dispatch(&bytes, permit).await;
            }
        }
    }
    // The peer is gone (or the server stops): requests to it fail at once and the handlers in
    // flight are told to stop, so nothing keeps the loop alive; replies of those that still
    // finish are written.
    connection.close();
    crate::spans::session_ended(
        crate::spans::Side::Server,
        opened,
        connection.handshake().map(|h| h.version),
        "pipe",
    );
    requests.close();
    requests.wait().await;
    // The writer may already be gone when the output broke.
    let _ = frames.send(Frame::Close).await;
    if writer_task.await.is_none() {
        tracing::error!("the writer task of a connection panicked");
    }
    outcome
}

/// Queues a line for the writer, waiting for room (only when there is none: waiting costs a
/// turn of the scheduler). The writer is gone only when the output broke; the reading loop then
/// stops.
async fn write(frames: &mpsc::Sender<Frame>, text: String) {
    if let Err(mpsc::error::TrySendError::Full(frame)) = frames.try_send(Frame::Text(text)) {
        let _ = frames.send(frame).await;
    }
}

/// What handling one line needs.
struct Dispatch<'a> {
    server: &'a McpServer,
    connection: &'a Arc<ConnectionState>,
    sink: &'a SharedSink,
    frames: &'a mpsc::Sender<Frame>,
    requests: &'a TaskTracker,
}

impl Dispatch<'_> {
    /// Handles one line: what the server admits is answered at once, its requests run on their
    /// own tasks (each registered as in flight before the next line is read), and a batch is
    /// answered in one piece when all of its requests are done. `permit` is held until the
    /// line's replies are queued.
    async fn dispatch(self, bytes: &[u8], permit: OwnedSemaphorePermit) {
        let admission = self
            .server
            .admit_text(bytes, self.connection, Some(self.sink.clone()));
        if admission.is_batch() {
            let frames = self.frames.clone();
            self.requests.spawn(async move {
                if let Some(text) = admission.finish().await {
                    write(&frames, text).await;
                }
                drop(permit);
            });
            return;
        }
        // A single message has one answer at most.
        let mut permit = Some(permit);
        for answer in admission {
            match answer {
                Answer::Ready(reply) => write(self.frames, reply.render()).await,
                Answer::Running(work) => {
                    let frames = self.frames.clone();
                    let permit = permit.take();
                    self.requests.spawn(async move {
                        if let Some(reply) = work.await {
                            write(&frames, reply.render()).await;
                        }
                        drop(permit);
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut input = Input::new(input, 4);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut input, max).await.unwrap() {
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
