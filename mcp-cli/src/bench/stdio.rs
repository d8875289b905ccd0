//! The stdio mode: a server spawned as a child, with a fixed number of `tools/call` requests
//! outstanding over its stdin and stdout (newline-delimited JSON-RPC).
//!
//! A writer task sends a request whenever a slot is free (batching what is ready into one
//! write), and a reader task matches answers to their send times by id, records latencies and
//! frees slots.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

use super::protocol::{self, CallTemplate, ErrorKind, Reply};
use super::stats::{Summary, Tally, Window, proc_status_kib, show_first_error};
use super::{Load, Wire};

/// How long the server may take to answer `initialize`.
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server may take to exit once its stdin is closed, before it is killed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(2);

/// What the writer and the reader share.
struct Shared {
    /// Send times of the outstanding requests, by id.
    sent: Mutex<HashMap<u64, Instant>>,
    /// Free slots: the writer takes one per request, the reader gives one back per answer.
    slots: Semaphore,
}

impl Shared {
    fn sent(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Instant>> {
        self.sent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Starts `program` with `program_args` and runs `load` over its stdin and stdout, on the
/// current runtime.
pub async fn run(program: &str, program_args: &[String], load: &Load) -> anyhow::Result<Summary> {
    let mut child = Command::new(program)
        .args(program_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let pid = child.id().context("the server exited at once")?;
    let mut stdin = child.stdin.take().context("no stdin")?;
    let mut stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().context("no stdout")?);

    if load.wire == Wire::Session {
        let initialized = initialize(&mut stdin, &mut stdout, load.version);
        tokio::time::timeout(INITIALIZE_TIMEOUT, initialized)
            .await
            .context("the server did not answer initialize in time")??;
    }

    let in_flight = usize::try_from(load.concurrency).context("too many in flight")?;
    let shared = Arc::new(Shared {
        sent: Mutex::new(HashMap::with_capacity(in_flight * 2)),
        slots: Semaphore::new(in_flight),
    });
    let window = Window::after_warmup(load.warmup, load.duration);
    let template = CallTemplate::new(
        &load.tool,
        &load.args,
        load.wire == Wire::Stateless,
        load.tasks,
    );
    let writer = tokio::spawn(write_requests(stdin, template, shared.clone(), window));
    let reader = tokio::spawn(read_answers(stdout, shared, window));

    // The peak is sampled during the run too, so that it is known even if the server is gone
    // by the end.
    let sampled_peak = Arc::new(AtomicU64::new(0));
    let sampler = tokio::spawn({
        let sampled_peak = sampled_peak.clone();
        async move {
            loop {
                if let Ok(kib) = proc_status_kib(pid, "VmHWM") {
                    sampled_peak.fetch_max(kib, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
    });
    let (tally, eof) = reader.await.context("the reader panicked")?;
    if let Some(after) = eof {
        eprintln!(
            "mcp bench: the server closed its stdout {:.2} s into the run",
            after.as_secs_f64()
        );
    }
    sampler.abort();
    let sampled = sampled_peak.load(Ordering::Relaxed);
    let peak_rss_kib = match proc_status_kib(pid, "VmHWM") {
        Ok(kib) => Some(kib.max(sampled)),
        Err(_) if sampled > 0 => Some(sampled),
        Err(e) => {
            eprintln!("mcp bench: no peak RSS: {e:#}");
            None
        }
    };
    // Ending the writer drops the server's stdin, which asks it to exit.
    writer.abort();
    match writer.await {
        Ok(Err(e)) => eprintln!("mcp bench: writing to the server failed: {e}"),
        Err(e) if e.is_panic() => eprintln!("mcp bench: the writer panicked"),
        _ => {}
    }
    match tokio::time::timeout(EXIT_TIMEOUT, child.wait()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => eprintln!("mcp bench: waiting for the server failed: {e}"),
        Err(_) => {
            eprintln!(
                "mcp bench: the server did not exit within 2 s of its stdin closing: killing it"
            );
            let _ = child.kill().await;
        }
    }

    // When the server quits early, only the time it was there was measured.
    let measured = eof.map_or(load.duration, |after| after.min(load.duration));
    let mut summary = Summary::new(
        "stdio",
        load.wire.name(),
        Some(load.tool.clone()),
        load.concurrency,
        measured,
        &tally,
    );
    summary.peak_rss_kib = peak_rss_kib;
    Ok(summary)
}

/// Sends `initialize`, waits for its answer (skipping anything else), then sends
/// `notifications/initialized`.
async fn initialize(
    stdin: &mut ChildStdin,
    stdout: &mut BufReader<ChildStdout>,
    version: &str,
) -> anyhow::Result<()> {
    let mut message = protocol::initialize_body(version).into_bytes();
    message.push(b'\n');
    stdin
        .write_all(&message)
        .await
        .context("writing initialize")?;
    stdin.flush().await?;
    let mut line = Vec::new();
    loop {
        line.clear();
        if stdout.read_until(b'\n', &mut line).await? == 0 {
            bail!("the server closed its stdout before answering initialize");
        }
        match Reply::parse(&line) {
            Some(reply) if reply.is_response() && reply.id == Some(protocol::INITIALIZE_ID) => {
                if reply.verdict().is_err() {
                    bail!(
                        "initialize failed: {}",
                        String::from_utf8_lossy(&line).trim_end()
                    );
                }
                break;
            }
            _ => {}
        }
    }
    let mut message = protocol::INITIALIZED_BODY.as_bytes().to_vec();
    message.push(b'\n');
    stdin.write_all(&message).await?;
    stdin.flush().await?;
    Ok(())
}

/// Sends requests while slots are free, until the window ends; it owns the server's stdin,
/// which closes when the task ends or is aborted.
async fn write_requests(
    mut stdin: ChildStdin,
    template: CallTemplate,
    shared: Arc<Shared>,
    window: Window,
) -> std::io::Result<()> {
    let mut batch = Vec::with_capacity(64 * 1024);
    let mut ids = Vec::new();
    let mut next_id: u64 = 0;
    let sending = async {
        loop {
            // The semaphore is never closed, so acquiring only waits.
            let Ok(permit) = shared.slots.acquire().await else {
                return Ok(());
            };
            permit.forget();
            let mut ready = 1;
            while let Ok(permit) = shared.slots.try_acquire() {
                permit.forget();
                ready += 1;
            }
            batch.clear();
            ids.clear();
            for _ in 0..ready {
                next_id += 1;
                template.append(next_id, &mut batch);
                batch.push(b'\n');
                ids.push(next_id);
            }
            let now = Instant::now();
            if now >= window.end {
                return Ok(());
            }
            shared.sent().extend(ids.iter().map(|&id| (id, now)));
            stdin.write_all(&batch).await?;
            stdin.flush().await?;
        }
    };
    match tokio::time::timeout_at(window.end.into(), sending).await {
        Ok(result) => result,
        Err(_) => Ok(()),
    }
}

/// Reads answers until the window ends or the server closes its stdout (then it also returns
/// how long into the window that happened).
async fn read_answers(
    mut stdout: BufReader<ChildStdout>,
    shared: Arc<Shared>,
    window: Window,
) -> (Tally, Option<Duration>) {
    let mut tally = Tally::default();
    let mut line = Vec::with_capacity(4096);
    let reading = async {
        loop {
            line.clear();
            match stdout.read_until(b'\n', &mut line).await {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("mcp bench: reading from the server failed: {e}");
                    return;
                }
            }
            let done = Instant::now();
            let Some(reply) = Reply::parse(&line) else {
                show_first_error(ErrorKind::NoResponse, || {
                    format!(
                        "a line that is not JSON-RPC: {}",
                        String::from_utf8_lossy(&line[..line.len().min(200)]).trim_end()
                    )
                });
                continue;
            };
            // Notifications and requests from the server are not answers.
            if !reply.is_response() {
                continue;
            }
            let Some(sent) = reply.id.and_then(|id| shared.sent().remove(&id)) else {
                show_first_error(ErrorKind::NoResponse, || {
                    format!(
                        "an answer to no outstanding request: {}",
                        String::from_utf8_lossy(&line[..line.len().min(200)]).trim_end()
                    )
                });
                continue;
            };
            shared.slots.add_permits(1);
            if let Err(kind) = tally.record(&window, sent, done, reply.verdict()) {
                show_first_error(kind, || {
                    format!(
                        "tools/call: {}",
                        String::from_utf8_lossy(&line[..line.len().min(200)]).trim_end()
                    )
                });
            }
        }
    };
    let eof = match tokio::time::timeout_at(window.end.into(), reading).await {
        Ok(()) => Some(Instant::now().saturating_duration_since(window.start)),
        Err(_) => None,
    };
    (tally, eof)
}
