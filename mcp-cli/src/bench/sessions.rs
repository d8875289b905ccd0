//! The sessions mode: memory per idle session of a stateful Streamable HTTP server.
//!
//! Reads the server's `VmRSS`, opens many sessions (revision 2025-11-25: `initialize`, then
//! `notifications/initialized`) over a few keep-alive connections, lets them settle, reads
//! `VmRSS` again and divides the growth by the sessions opened. The sessions stay open (idle)
//! unless `--delete` asks to end them afterwards.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::HeaderValue;

use super::http::{Sender, Target, delete_session, open_session, ready};
use super::protocol::{self, ErrorKind};
use super::stats::{Summary, Tally, proc_status_kib, show_first_error};

/// The pause after a failed connect, so that a dead server is not hammered.
const RETRY_PAUSE: Duration = Duration::from_millis(10);

/// How long opening one session may take before the connection is given up.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// What the idle-sessions mode does.
#[derive(Debug)]
pub struct IdleSessions {
    /// Sessions to open.
    pub sessions: u64,
    /// The server's process id, whose `/proc/PID/status` gives its memory.
    pub pid: u32,
    /// How long to wait after opening the sessions before reading the memory again.
    pub settle: Duration,
    /// Keep-alive connections the sessions are opened over (sequentially on each).
    pub connections: u64,
    /// Whether to end the sessions with DELETE once measured.
    pub delete: bool,
    /// The revision the sessions are opened with.
    pub version: &'static str,
}

/// Opens the sessions `args` asks for on the stateful server at `url`, every request carrying
/// the `extra` headers, and measures its memory before and after, on the current runtime.
pub async fn run(
    url: &str,
    extra: http::HeaderMap,
    args: &IdleSessions,
) -> anyhow::Result<Summary> {
    let target = Arc::new(Target::resolve(url, extra).await?);
    let initialize = Bytes::from(protocol::initialize_body(args.version));
    let version = HeaderValue::from_static(args.version);
    let before = proc_status_kib(args.pid, "VmRSS")?;

    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..args.connections.min(args.sessions))
        .map(|_| {
            let (target, next) = (target.clone(), next.clone());
            let (initialize, version) = (initialize.clone(), version.clone());
            let sessions = args.sessions;
            tokio::spawn(async move {
                let mut worker = Worker::default();
                while next.fetch_add(1, Ordering::Relaxed) < sessions {
                    worker.open_one(&target, &initialize, &version).await;
                }
                worker
            })
        })
        .collect();
    let mut tally = Tally::default();
    let mut ids = Vec::with_capacity(usize::try_from(args.sessions).unwrap_or(0));
    let mut senders = Vec::new();
    for worker in workers {
        let worker = worker.await?;
        tally.merge(&worker.tally);
        ids.extend(worker.ids);
        senders.extend(worker.sender);
    }
    let opening = started.elapsed();

    tokio::time::sleep(args.settle).await;
    let after = proc_status_kib(args.pid, "VmRSS")?;

    let opened = ids.len() as u64;
    if args.delete {
        delete_all(&target, ids, senders, &version).await;
    }

    let mut summary = Summary::new("sessions", "session", None, args.sessions, opening, &tally);
    summary.requests = args.sessions;
    summary.errors = args.sessions - opened;
    summary.rps = args.sessions as f64 / opening.as_secs_f64().max(f64::MIN_POSITIVE);
    summary.rss_before_kib = Some(before);
    summary.rss_after_kib = Some(after);
    summary.rss_per_session_kib =
        (opened > 0).then(|| (after as f64 - before as f64) / opened as f64);
    Ok(summary)
}

/// One connection's share of the sessions.
#[derive(Default)]
struct Worker {
    /// Its connection, while it works.
    sender: Option<Sender>,
    /// Open times of the sessions that got an id, and the failures.
    tally: Tally,
    /// The ids of the sessions it opened.
    ids: Vec<HeaderValue>,
}

impl Worker {
    /// Opens one session, on the current connection if it is still usable, else on a new one.
    /// A failure is counted (and the session not retried).
    async fn open_one(&mut self, target: &Target, initialize: &Bytes, version: &HeaderValue) {
        let usable = match &mut self.sender {
            Some(sender) => ready(sender).await,
            None => false,
        };
        if !usable {
            match target.connect().await {
                Ok(sender) => self.sender = Some(sender),
                Err(e) => {
                    show_first_error(ErrorKind::Connect, || format!("connecting: {e}"));
                    self.sender = None;
                    self.tally.failure(ErrorKind::Connect);
                    tokio::time::sleep(RETRY_PAUSE).await;
                    return;
                }
            }
        }
        let Some(sender) = &mut self.sender else {
            return;
        };
        let started = Instant::now();
        let opened = tokio::time::timeout(
            OPEN_TIMEOUT,
            open_session(sender, target, initialize, version),
        )
        .await
        .unwrap_or_else(|_| {
            show_first_error(ErrorKind::Transport, || {
                format!("no answer within {} s", OPEN_TIMEOUT.as_secs())
            });
            Err(ErrorKind::Transport)
        });
        match opened {
            Ok(Some(id)) => {
                self.tally.success(started.elapsed());
                self.ids.push(id);
            }
            Ok(None) => {
                show_first_error(ErrorKind::Initialize, || {
                    "initialize answered without an Mcp-Session-Id: is the server stateful?"
                        .to_owned()
                });
                self.tally.failure(ErrorKind::Initialize);
            }
            Err(kind) => {
                if kind == ErrorKind::Transport {
                    self.sender = None;
                }
                self.tally.failure(kind);
            }
        }
    }
}

/// Ends every session with DELETE, spreading them over the connections left open.
async fn delete_all(
    target: &Arc<Target>,
    ids: Vec<HeaderValue>,
    senders: Vec<Sender>,
    version: &HeaderValue,
) {
    let lanes = senders.len().max(1);
    let mut shares: Vec<Vec<HeaderValue>> = vec![Vec::new(); lanes];
    for (i, id) in ids.into_iter().enumerate() {
        shares[i % lanes].push(id);
    }
    let mut senders = senders.into_iter();
    let tasks: Vec<_> = shares
        .into_iter()
        .map(|share| {
            let (target, version) = (target.clone(), version.clone());
            let mut sender = senders.next();
            tokio::spawn(async move {
                for id in share {
                    if sender.as_mut().is_none_or(|s| s.is_closed()) {
                        sender = target.connect().await.ok();
                    }
                    delete_session(sender.as_mut(), &target, id, &version).await;
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}
