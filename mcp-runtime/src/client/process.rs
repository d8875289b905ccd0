//! The server programs a client starts ([`McpClientBuilder::connect_stdio`]) and ends
//! ([`McpClient::close`](super::McpClient::close)). WebAssembly has no processes: there a client
//! connects only in process, over streams it is given, or over HTTP, and [`Child`] has no values.

use std::time::Duration;

#[cfg(not(target_family = "wasm"))]
use {
    super::connect::{McpClientBuilder, Owned},
    super::peer::{AfterClose, Peer},
    super::{ClientError, McpClient},
    parking_lot::Mutex,
    std::process::Stdio,
    std::sync::Arc,
    tokio::io::AsyncBufReadExt,
};

/// A server program the client started.
#[cfg(not(target_family = "wasm"))]
pub(super) type Child = tokio::process::Child;
/// A server program the client started: none, on a target without processes.
#[cfg(target_family = "wasm")]
pub(super) type Child = std::convert::Infallible;

/// The most bytes of a server program's stderr kept by [`McpClientBuilder::capture_stderr`].
#[cfg(not(target_family = "wasm"))]
const STDERR_KEPT: usize = 64 * 1024;

#[cfg(not(target_family = "wasm"))]
impl McpClientBuilder {
    /// Starts the server program `command` and connects to it over its stdin and stdout; its
    /// stderr is passed through, or kept (see [`capture_stderr`](Self::capture_stderr)). The
    /// program is killed when the last clone of the client is dropped;
    /// [`McpClient::close`] ends it gracefully, as the MCP specification describes: it closes
    /// the program's stdin and waits for it to exit, then sends SIGTERM, then kills it.
    pub async fn connect_stdio(
        self,
        mut command: tokio::process::Command,
    ) -> Result<McpClient, ClientError> {
        let stderr = if self.capture_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        };
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Spawn(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Spawn("the pipes were not opened".into()));
        };
        let captured = child.stderr.take().map(|stderr| {
            let kept = Arc::new(Mutex::new(String::new()));
            tokio::spawn(keep_stderr(stderr, kept.clone()));
            kept
        });
        let peer = Peer::start(stdout, stdin, self.handlers.clone(), AfterClose::Drain);
        let owned = Owned {
            child: Some(child),
            stderr: captured,
        };
        self.connect_with(peer, owned, Arc::default()).await
    }
}

#[cfg(not(target_family = "wasm"))]
/// Keeps the last [`STDERR_KEPT`] bytes of a server program's stderr in `kept`.
async fn keep_stderr(stderr: tokio::process::ChildStderr, kept: Arc<Mutex<String>>) {
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let mut kept = kept.lock();
        kept.push_str(&line);
        kept.push('\n');
        if kept.len() > STDERR_KEPT {
            let mut cut = kept.len() - STDERR_KEPT;
            while !kept.is_char_boundary(cut) {
                cut += 1;
            }
            kept.drain(..cut);
        }
    }
}

/// How long [`McpClient::close`](super::McpClient::close) waits for a server program to exit
/// once its stdin is closed, and again after SIGTERM.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Waits for `child`, whose stdin is closed, to exit: then SIGTERM, then SIGKILL.
#[cfg(not(target_family = "wasm"))]
pub(super) async fn end(child: &mut Child) -> std::io::Result<()> {
    if crate::rt::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
        return Ok(());
    }
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|id| libc::pid_t::try_from(id).ok()) {
        // SAFETY: kill(2) takes no pointers. The process is this client's child and has not
        // been waited for (`id()` is `None` once it has), so the id is still its own.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        if crate::rt::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
            return Ok(());
        }
    }
    child.kill().await
}

/// Nothing to end: a target without processes has no child.
#[cfg(target_family = "wasm")]
pub(super) async fn end(child: &mut Child) -> std::io::Result<()> {
    match *child {}
}

/// The operating system's id of `child`, until it has been waited for.
pub(super) fn id(child: &Child) -> Option<u32> {
    #[cfg(not(target_family = "wasm"))]
    return child.id();
    #[cfg(target_family = "wasm")]
    match *child {}
}
