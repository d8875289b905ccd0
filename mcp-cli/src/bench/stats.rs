//! What a run measures, and how it is reported.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

use super::protocol::ErrorKind;

/// The measurement window: what starts before `start` is warmup, what ends after `end` is cut.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// When warmup ends and measuring begins.
    pub start: Instant,
    /// When measuring ends.
    pub end: Instant,
}

impl Window {
    /// The window after `warmup` from now, lasting `duration`.
    pub fn after_warmup(warmup: Duration, duration: Duration) -> Self {
        let start = Instant::now() + warmup;
        Window {
            start,
            end: start + duration,
        }
    }

    /// Whether a request sent at `sent` and answered at `done` counts.
    pub fn contains(&self, sent: Instant, done: Instant) -> bool {
        sent >= self.start && done <= self.end
    }

    /// Whether an event at `at` (a failed connect, say) counts.
    pub fn covers(&self, at: Instant) -> bool {
        at >= self.start && at <= self.end
    }
}

/// The tally of one connection (or of the whole run, once merged).
#[derive(Clone, Debug)]
pub struct Tally {
    /// Latencies of the successful requests, in microseconds.
    pub latency: Histogram<u64>,
    /// Successful requests.
    pub ok: u64,
    /// Failures, by [`ErrorKind::index`].
    pub errors: [u64; ErrorKind::ALL.len()],
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            // Three significant figures; the histogram grows to fit what is recorded.
            latency: Histogram::new(3).expect("3 significant figures are supported"),
            ok: 0,
            errors: [0; ErrorKind::ALL.len()],
        }
    }
}

impl Tally {
    /// Records a successful request that took `latency`.
    pub fn success(&mut self, latency: Duration) {
        self.ok += 1;
        let micros = u64::try_from(latency.as_micros())
            .unwrap_or(u64::MAX)
            .max(1);
        // An auto-resizing histogram only refuses values beyond u64 range.
        let _ = self.latency.record(micros);
    }

    /// Records a failure.
    pub fn failure(&mut self, kind: ErrorKind) {
        self.errors[kind.index()] += 1;
    }

    /// Records the answer to a call sent at `sent` and read at `done`, if it falls within
    /// `window`: a success with its latency, or a failure of the kind `verdict` names. The
    /// verdict is returned, so that the caller can report a failure (counted or not).
    pub fn record(
        &mut self,
        window: &Window,
        sent: Instant,
        done: Instant,
        verdict: Result<(), ErrorKind>,
    ) -> Result<(), ErrorKind> {
        if window.contains(sent, done) {
            match verdict {
                Ok(()) => self.success(done - sent),
                Err(kind) => self.failure(kind),
            }
        }
        verdict
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, other: &Tally) {
        self.ok += other.ok;
        for (mine, theirs) in self.errors.iter_mut().zip(other.errors) {
            *mine += theirs;
        }
        // Both histograms auto-resize, so adding cannot fail for lack of range.
        let _ = self.latency.add(&other.latency);
    }

    /// Failed requests (not counting failed connects and session opens).
    pub fn request_errors(&self) -> u64 {
        ErrorKind::ALL
            .iter()
            .filter(|kind| kind.is_request_error())
            .map(|kind| self.errors[kind.index()])
            .sum()
    }

    /// Requests that completed in the window, successful or not.
    pub fn requests(&self) -> u64 {
        self.ok + self.request_errors()
    }

    /// The non-zero failure counts by kind name.
    pub fn error_kinds(&self) -> BTreeMap<&'static str, u64> {
        ErrorKind::ALL
            .iter()
            .filter(|kind| self.errors[kind.index()] > 0)
            .map(|kind| (kind.name(), self.errors[kind.index()]))
            .collect()
    }
}

static FIRST_ERROR_SHOWN: AtomicBool = AtomicBool::new(false);

/// Prints the details of the first failure of the run to stderr; later calls do nothing.
///
/// `details` is only called for the first failure, so building the text costs nothing later.
pub fn show_first_error(kind: ErrorKind, details: impl FnOnce() -> String) {
    if !FIRST_ERROR_SHOWN.swap(true, Ordering::Relaxed) {
        eprintln!("mcp bench: first error ({kind}): {}", details());
    }
}

/// The status and the first 200 bytes of a body, for [`show_first_error`].
pub fn http_details(status: u16, body: &[u8]) -> String {
    let cut = &body[..body.len().min(200)];
    format!(
        "HTTP {status}, body ({} bytes): {}",
        body.len(),
        String::from_utf8_lossy(cut)
    )
}

/// The result of a run: printed as a line of text, or as one line of JSON with `--json`.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// `http`, `stdio` or `sessions`.
    pub mode: &'static str,
    /// `stateless` or `session`.
    pub wire: &'static str,
    /// The tool called (`null` in sessions mode).
    pub tool: Option<String>,
    /// Connections, requests in flight, or sessions.
    pub concurrency: u64,
    /// How long was measured, in seconds (in sessions mode: how long opening took).
    pub duration_s: f64,
    /// Requests completed in the window, successful or not (sessions mode: sessions attempted).
    pub requests: u64,
    /// Failed requests among `requests`.
    pub errors: u64,
    /// `requests / duration_s`.
    pub rps: f64,
    /// Median latency of the successful requests, in microseconds.
    pub p50_us: Option<u64>,
    /// 99th percentile latency of the successful requests, in microseconds.
    pub p99_us: Option<u64>,
    /// Highest latency of the successful requests, in microseconds.
    pub max_us: Option<u64>,
    /// Peak resident memory of the server (`VmHWM`), stdio mode only.
    pub peak_rss_kib: Option<u64>,
    /// Resident memory of the server before opening sessions, sessions mode only.
    pub rss_before_kib: Option<u64>,
    /// Resident memory of the server after opening sessions and settling, sessions mode only.
    pub rss_after_kib: Option<u64>,
    /// `(rss_after_kib - rss_before_kib) / sessions that got an id`, sessions mode only.
    pub rss_per_session_kib: Option<f64>,
    /// Failures by kind, including failed connects and session opens (not in `errors`).
    pub error_kinds: BTreeMap<&'static str, u64>,
}

impl Summary {
    /// A summary of `tally` over `duration`, with the memory fields empty.
    pub fn new(
        mode: &'static str,
        wire: &'static str,
        tool: Option<String>,
        concurrency: u64,
        duration: Duration,
        tally: &Tally,
    ) -> Self {
        let duration_s = duration.as_secs_f64();
        let requests = tally.requests();
        let measured = !tally.latency.is_empty();
        let quantile = |q: f64| measured.then(|| tally.latency.value_at_quantile(q));
        Summary {
            mode,
            wire,
            tool,
            concurrency,
            duration_s,
            requests,
            errors: tally.request_errors(),
            rps: if duration_s > 0.0 {
                requests as f64 / duration_s
            } else {
                0.0
            },
            p50_us: quantile(0.5),
            p99_us: quantile(0.99),
            max_us: measured.then(|| tally.latency.max()),
            peak_rss_kib: None,
            rss_before_kib: None,
            rss_after_kib: None,
            rss_per_session_kib: None,
            error_kinds: tally.error_kinds(),
        }
    }

    /// Whether the run measured something: some request completed and not all of them failed.
    pub fn succeeded(&self) -> bool {
        self.requests > 0 && self.errors < self.requests
    }

    /// The one-line JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a summary always serializes")
    }

    /// The human-readable form.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let tool = self.tool.as_deref().unwrap_or("");
        let latencies = match (self.p50_us, self.p99_us, self.max_us) {
            (Some(p50), Some(p99), Some(max)) => format!(
                "p50 {}, p99 {}, max {}",
                millis(p50),
                millis(p99),
                millis(max)
            ),
            _ => "no latencies".to_owned(),
        };
        let _ = match self.mode {
            "sessions" => write!(
                text,
                "sessions: {} sessions opened in {:.2} s ({} with a session id), {:.1} sessions/s, {latencies} (initialize + initialized), {} errors",
                self.requests,
                self.duration_s,
                self.requests - self.errors,
                self.rps,
                self.errors
            ),
            mode => {
                let unit = if mode == "stdio" {
                    "in flight"
                } else {
                    "connections"
                };
                write!(
                    text,
                    "{mode} {} {tool}: {} {unit}, {:.1} s: {} requests, {:.1} req/s, {latencies}, {} errors",
                    self.wire,
                    self.concurrency,
                    self.duration_s,
                    self.requests,
                    self.rps,
                    self.errors
                )
            }
        };
        let other: Vec<String> = self
            .error_kinds
            .iter()
            .map(|(kind, count)| format!("{kind} {count}"))
            .collect();
        if !other.is_empty() {
            let _ = write!(text, " ({})", other.join(", "));
        }
        if let Some(peak) = self.peak_rss_kib {
            let _ = write!(text, ", server peak RSS {peak} KiB");
        }
        if let (Some(before), Some(after)) = (self.rss_before_kib, self.rss_after_kib) {
            let _ = write!(text, "; server RSS {before} KiB -> {after} KiB");
            if let Some(per) = self.rss_per_session_kib {
                let _ = write!(text, ": {per:.2} KiB per session");
            }
        }
        text
    }
}

/// Microseconds as milliseconds with three significant figures or so.
fn millis(micros: u64) -> String {
    let ms = micros as f64 / 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 100.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// Reads a `kB` field (such as `VmRSS` or `VmHWM`) of `/proc/PID/status`, in KiB.
pub fn proc_status_kib(pid: u32, field: &str) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status =
        std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("cannot read {path}: {e}"))?;
    parse_status_kib(&status, field).ok_or_else(|| anyhow::anyhow!("no {field} in {path}"))
}

/// Finds `FIELD:   1234 kB` in the text of a `/proc/PID/status`.
fn parse_status_kib(status: &str, field: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let value = line.strip_prefix(field)?.strip_prefix(':')?;
        value.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields() {
        let status = "Name:\tserver\nVmHWM:\t   10240 kB\nVmRSS:\t    8192 kB\nVmRSSx:\t1 kB\n";
        assert_eq!(parse_status_kib(status, "VmHWM"), Some(10240));
        assert_eq!(parse_status_kib(status, "VmRSS"), Some(8192));
        assert_eq!(parse_status_kib(status, "VmSwap"), None);
    }

    #[test]
    fn tally_counts_and_merges() {
        let mut a = Tally::default();
        a.success(Duration::from_micros(100));
        a.success(Duration::from_micros(300));
        a.failure(ErrorKind::ToolError);
        a.failure(ErrorKind::Connect);
        let mut b = Tally::default();
        b.success(Duration::from_micros(200));
        b.failure(ErrorKind::Status);
        a.merge(&b);
        assert_eq!(a.ok, 3);
        assert_eq!(a.request_errors(), 2);
        assert_eq!(a.requests(), 5);
        assert_eq!(a.latency.len(), 3);
        assert_eq!(a.latency.max(), 300);
        let summary = Summary::new(
            "http",
            "stateless",
            Some("add".into()),
            2,
            Duration::from_secs(2),
            &a,
        );
        assert_eq!(summary.rps, 2.5);
        assert_eq!(summary.p50_us, Some(200));
        assert!(summary.succeeded());
        assert_eq!(
            summary.to_json(),
            r#"{"mode":"http","wire":"stateless","tool":"add","concurrency":2,"duration_s":2.0,"requests":5,"errors":2,"rps":2.5,"p50_us":200,"p99_us":300,"max_us":300,"peak_rss_kib":null,"rss_before_kib":null,"rss_after_kib":null,"rss_per_session_kib":null,"error_kinds":{"connect":1,"status":1,"tool_error":1}}"#
        );
        assert_eq!(
            summary.to_text(),
            "http stateless add: 2 connections, 2.0 s: 5 requests, 2.5 req/s, p50 0.20 ms, p99 0.30 ms, max 0.30 ms, 2 errors (connect 1, status 1, tool_error 1)"
        );
    }

    #[test]
    fn all_failed_is_a_failure() {
        let mut tally = Tally::default();
        tally.failure(ErrorKind::RpcError);
        let summary = Summary::new("stdio", "session", None, 1, Duration::from_secs(1), &tally);
        assert!(!summary.succeeded());
        assert_eq!(summary.p50_us, None);
        let empty = Summary::new(
            "stdio",
            "session",
            None,
            1,
            Duration::from_secs(1),
            &Tally::default(),
        );
        assert!(!empty.succeeded());
    }

    /// A window of one second that starts now.
    fn one_second_window() -> (Instant, Window) {
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now + Duration::from_secs(1),
        };
        (now, window)
    }

    #[test]
    fn window() {
        let (now, window) = one_second_window();
        assert!(window.contains(now, now + Duration::from_millis(10)));
        assert!(!window.contains(now - Duration::from_millis(1), now));
        assert!(!window.contains(now, now + Duration::from_secs(2)));
    }

    #[test]
    fn only_answers_within_the_window_are_recorded() {
        let (now, window) = one_second_window();
        let mut tally = Tally::default();
        let inside = now + Duration::from_millis(2);
        assert_eq!(tally.record(&window, now, inside, Ok(())), Ok(()));
        let failed = Err(ErrorKind::ToolError);
        assert_eq!(tally.record(&window, now, inside, failed), failed);
        // Sent during the warm-up: reported to the caller, not counted.
        let early = now - Duration::from_millis(1);
        assert_eq!(tally.record(&window, early, inside, failed), failed);
        assert_eq!(tally.record(&window, early, inside, Ok(())), Ok(()));
        let summary = Summary::new("http", "stateless", None, 1, Duration::from_secs(1), &tally);
        assert_eq!(summary.requests, 2);
        assert_eq!(summary.errors, 1);
        assert_eq!(summary.p50_us, Some(2000));
    }
}
