//! A real OpenTelemetry trace backend for the telemetry tests: Arize Phoenix (`phoenix serve`),
//! which receives spans over OTLP/HTTP at `/v1/traces` and answers queries for them on its REST API.
//! It is started on free loopback ports with a fresh working folder (its SQLite database) and with
//! everything that would reach beyond the machine turned off, and killed (by its process id) when
//! dropped. Startup takes 10 to 25 s, so a test binary shares one instance ([`Phoenix::shared`]),
//! which a watchdog kills once the test process is gone. `scripts/install-phoenix.sh` installs it
//! into `.tools/phoenix` (`scripts/test.sh` runs it).
//!
//! What Phoenix keeps of a span, and so what a test can check: see [`Phoenix::trace`]. What it
//! drops: the resource (`service.name` is nowhere in its answers) and the span's OpenTelemetry
//! kind (its `span_kind` is OpenInference's, `UNKNOWN` unless the attribute
//! `openinference.span.kind` says otherwise). Spans are grouped in projects: the one the resource
//! attribute [`PROJECT_ATTRIBUTE`] names (see [`project_resource`]), else `default`; a trace lives
//! in one project only, that of the first of its spans to arrive.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use url::Url;

use crate::free_port;
use crate::interop::repo_root;

/// How long Phoenix may take to answer after it started.
const STARTUP: Duration = Duration::from_secs(90);
/// How long spans may take to arrive once a test asks for them.
const ARRIVAL: Duration = Duration::from_secs(30);
/// How often the spans are fetched while they have not all arrived.
const POLL: Duration = Duration::from_millis(200);
/// How long to wait, once the spans expected have arrived, before fetching them one last time:
/// Phoenix writes what it received every 100 ms, and the spans of one export may straddle two
/// writes, so a span more than expected shows up too.
const SETTLE: Duration = Duration::from_millis(500);

/// The resource attribute that chooses the Phoenix project of a program's spans.
pub const PROJECT_ATTRIBUTE: &str = "openinference.project.name";

/// The value of `OTEL_RESOURCE_ATTRIBUTES` that puts a program's spans in the project `project`.
pub fn project_resource(project: &str) -> String {
    format!("{PROJECT_ATTRIBUTE}={project}")
}

/// A `phoenix serve` this test process started.
pub struct Phoenix {
    child: Child,
    port: u16,
    dir: PathBuf,
}

/// The `phoenix` command of the virtualenv, or a panic saying how to install it.
fn binary() -> PathBuf {
    let path = repo_root().join(".tools/phoenix/bin/phoenix");
    assert!(
        path.is_file(),
        "{} is missing: run scripts/install-phoenix.sh (scripts/test.sh does) before the telemetry tests",
        path.display()
    );
    path
}

/// The shell that starts Phoenix: it forks a watchdog, then becomes `phoenix serve` (`exec`), so
/// that the process the test holds is Phoenix itself and the watchdog is its child. The watchdog
/// polls, every second, whether its parent is still Phoenix and Phoenix's parent still the test
/// process (reading `/proc`, which no reused process id can fool). When Phoenix is gone it ends;
/// when the test process is gone it stops Phoenix (`TERM`, then `KILL` after 10 s), waits for it
/// to end, and removes its working folder (`$2`).
const LAUNCHER: &str = r#"
parent_of() {
  local stat
  read -r stat < "/proc/$1/stat" 2>/dev/null || return 0
  stat=${stat##*) }
  set -- $stat
  echo "$2"
}
test_pid=$PPID phoenix=$$
(
  me=$BASHPID
  while [ "$(parent_of "$me")" = "$phoenix" ] && [ "$(parent_of "$phoenix")" = "$test_pid" ]; do
    sleep 1
  done
  [ "$(parent_of "$me")" = "$phoenix" ] || exit 0
  kill -TERM "$phoenix"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(parent_of "$me")" = "$phoenix" ] || break
    sleep 1
  done
  [ "$(parent_of "$me")" = "$phoenix" ] && kill -KILL "$phoenix"
  while [ "$(parent_of "$me")" = "$phoenix" ]; do sleep 1; done
  rm -rf "$2"
) </dev/null >/dev/null 2>&1 &
exec "$1" serve
"#;

impl Phoenix {
    /// Starts Phoenix on free loopback ports in a new working folder, and waits (90 s at most)
    /// until it answers.
    pub fn start() -> Phoenix {
        let binary = binary();
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("mcp-phoenix-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let log = std::fs::File::create(dir.join("phoenix.log")).unwrap();
        let mut command = Command::new("bash");
        command
            .args(["-c", LAUNCHER, "phoenix-launcher"])
            .arg(&binary)
            .arg(&dir)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        // Nothing of the test's environment configures it: only what is set here.
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if name.starts_with("PHOENIX_") || name.starts_with("OTEL_") {
                command.env_remove(&*name);
            }
        }
        command
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", free_port().to_string())
            .env("PHOENIX_WORKING_DIR", &dir)
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            // No download of the WASM sandbox, no documentation MCP server on the internet.
            .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
            .env("PHOENIX_DISABLE_AGENT_ASSISTANT", "true")
            .env("PHOENIX_ENABLE_MCP_SERVER", "false");
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut phoenix = Phoenix { child, port, dir };
        phoenix.wait_until_ready();
        phoenix
    }

    /// The instance the tests of this test binary share, started on first use. It is never
    /// dropped: its watchdog stops it, and removes its folder, within seconds of the test
    /// process's end.
    pub fn shared() -> &'static Phoenix {
        static SHARED: OnceLock<Phoenix> = OnceLock::new();
        SHARED.get_or_init(Phoenix::start)
    }

    /// The base URL of its OTLP/HTTP receiver, for `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (`http://127.0.0.1:PORT`; the exporters append `/v1/traces`).
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Points the OpenTelemetry SDK of the program `command` will run at this Phoenix: removes the
    /// `OTEL_*` variables it would inherit, sets `OTEL_EXPORTER_OTLP_ENDPOINT` and
    /// `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, and has a batch of spans exported every 200 ms
    /// (`OTEL_BSP_SCHEDULE_DELAY`) rather than every 5 s.
    pub fn configure<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if name.starts_with("OTEL_") {
                command.env_remove(&*name);
            }
        }
        command
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", self.endpoint())
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
            .env("OTEL_BSP_SCHEDULE_DELAY", "200")
    }

    /// The spans of the trace `trace_id` (32 hex digits), once at least `expected` of them have
    /// arrived (30 s at most), in the order they started. Each span is the JSON object Phoenix
    /// answers with (`GET /v1/projects/{project}/spans?trace_id=...`):
    ///
    /// ```json
    /// {"id": "U3Bhbjoy", "name": "MCP send tools/call add",
    ///  "context": {"trace_id": "6a83c100b1fb9436d1a5d00ca1144f1b", "span_id": "97f983c9a5580708"},
    ///  "parent_id": "94e119b8bd8544f3", "span_kind": "UNKNOWN",
    ///  "start_time": "2026-11-27T19:36:09.265003+00:00", "end_time": "2026-11-27T19:36:09.265579+00:00",
    ///  "status_code": "UNSET", "status_message": "",
    ///  "attributes": {"mcp.method.name": "tools/call", "jsonrpc.request.id": "2"},
    ///  "events": [{"name": "...", "timestamp": "...", "attributes": {...}}]}
    /// ```
    ///
    /// `id` is Phoenix's own; `parent_id` is `null` for a root span; `status_code` is `UNSET`,
    /// `OK` or `ERROR`; `attributes` maps each attribute's full dotted name to its value.
    pub fn trace(&self, trace_id: &str, expected: usize) -> Vec<Value> {
        let what = format!("the trace {trace_id}");
        self.poll(&what, expected, || {
            let mut spans = Vec::new();
            for project in self.projects()? {
                spans.extend(self.fetch(&project, &[("trace_id", trace_id)])?);
            }
            spans.sort_by(|a, b| a["start_time"].as_str().cmp(&b["start_time"].as_str()));
            Ok(spans)
        })
    }

    /// The spans of every project for which `predicate` holds, once at least `expected` of them
    /// have arrived (30 s at most), in the order they started within each project. The spans are
    /// as [`trace`](Self::trace) describes.
    pub fn spans_where(&self, expected: usize, predicate: impl Fn(&Value) -> bool) -> Vec<Value> {
        self.poll("the spans asked for", expected, || {
            let mut spans = Vec::new();
            for project in self.projects()? {
                spans.extend(self.fetch(&project, &[])?.into_iter().filter(&predicate));
            }
            Ok(spans)
        })
    }

    /// The spans of every project whose attribute `key` (its full dotted name) is `value`, once
    /// at least `expected` of them have arrived; see [`spans_where`](Self::spans_where).
    pub fn spans_with_attribute(&self, key: &str, value: &Value, expected: usize) -> Vec<Value> {
        self.spans_where(expected, |span| span["attributes"].get(key) == Some(value))
    }

    /// The spans of the project `project` (that of the programs whose resource has
    /// [`PROJECT_ATTRIBUTE`] `= project`), once at least `expected` of them have arrived, in the
    /// order they started; see [`trace`](Self::trace).
    pub fn project_spans(&self, project: &str, expected: usize) -> Vec<Value> {
        let what = format!("the project {project}");
        self.poll(&what, expected, || {
            if self.projects()?.iter().any(|p| p == project) {
                self.fetch(project, &[])
            } else {
                Ok(Vec::new())
            }
        })
    }

    /// The names of the projects that hold spans (and `default`, which always exists).
    pub fn projects(&self) -> Result<Vec<String>, String> {
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = self.api(&["projects"]);
            if let Some(cursor) = &cursor {
                url.query_pairs_mut().append_pair("cursor", cursor);
            }
            let page = get_json(url)?;
            for project in page["data"].as_array().ok_or("no data in the projects")? {
                let name = project["name"].as_str().ok_or("a project without a name")?;
                names.push(name.to_owned());
            }
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(names),
            }
        }
    }

    /// Every span of `project` that matches the filters `query` (`trace_id`, `name`,
    /// `attribute`, ...), page after page, in the order they started.
    fn fetch(&self, project: &str, query: &[(&str, &str)]) -> Result<Vec<Value>, String> {
        let mut spans = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut url = self.api(&["projects", project, "spans"]);
            {
                let mut pairs = url.query_pairs_mut();
                pairs.extend_pairs(query);
                pairs.extend_pairs([("limit", "1000"), ("sort", "start_time"), ("order", "asc")]);
                if let Some(cursor) = &cursor {
                    pairs.append_pair("cursor", cursor);
                }
            }
            let mut page = get_json(url)?;
            match page["data"].take() {
                Value::Array(data) => spans.extend(data),
                other => return Err(format!("no spans in Phoenix's answer: {other}")),
            }
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(spans),
            }
        }
    }

    /// The URL of the REST API's path `/v1/{segments...}`.
    fn api(&self, segments: &[&str]) -> Url {
        let mut url = Url::parse(&self.endpoint()).expect("the endpoint is a URL");
        url.path_segments_mut()
            .expect("an http URL has a path")
            .push("v1")
            .extend(segments);
        url
    }

    /// Runs `fetch` every 200 ms until it returns at least `expected` spans (30 s at most), then
    /// once more after a pause, and returns what it returned last; panics with what arrived.
    fn poll(
        &self,
        what: &str,
        expected: usize,
        fetch: impl Fn() -> Result<Vec<Value>, String>,
    ) -> Vec<Value> {
        let deadline = Instant::now() + ARRIVAL;
        let mut last = Err("never asked".to_owned());
        while Instant::now() < deadline {
            last = fetch();
            if last.as_ref().is_ok_and(|spans| spans.len() >= expected) {
                std::thread::sleep(SETTLE);
                return fetch().unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            std::thread::sleep(POLL);
        }
        match last {
            Ok(spans) => panic!(
                "{what}: {} of the {expected} spans expected arrived within {ARRIVAL:?}: {}",
                spans.len(),
                serde_json::to_string_pretty(&spans).unwrap()
            ),
            Err(e) => panic!("{what}: Phoenix did not answer: {e}"),
        }
    }

    /// Waits until Phoenix answers `GET /healthz`; panics with its log if it ends first or
    /// takes longer than [`STARTUP`].
    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + STARTUP;
        let url = Url::parse(&format!("{}/healthz", self.endpoint())).unwrap();
        loop {
            if get(url.clone()).is_ok() {
                return;
            }
            let ended = self.child.try_wait().expect("phoenix can be waited for");
            if ended.is_some() || Instant::now() >= deadline {
                let log = std::fs::read_to_string(self.dir.join("phoenix.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(40).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                let why = match ended {
                    Some(status) => format!("ended ({status})"),
                    None => format!("did not answer within {STARTUP:?}"),
                };
                panic!(
                    "phoenix serve on port {} {why}; the end of its log:\n{}",
                    self.port,
                    tail.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The body of a successful `GET url`, read (10 s at most) on a thread of its own with a runtime
/// of its own, so that a test may call it whether or not it runs inside one.
fn get(url: Url) -> Result<String, String> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("no runtime: {e}"))?;
        runtime.block_on(async {
            let client = reqwest::Client::builder()
                .no_proxy()
                .timeout(Duration::from_secs(10))
                .build()
                .map_err(|e| e.to_string())?;
            let response = client
                .get(url.clone())
                .send()
                .await
                .map_err(|e| format!("GET {url}: {e}"))?;
            let status = response.status();
            let body = response
                .text()
                .await
                .map_err(|e| format!("GET {url}: {e}"))?;
            if status.is_success() {
                Ok(body)
            } else {
                Err(format!("GET {url}: {status}: {body}"))
            }
        })
    })
    .join()
    .expect("the HTTP thread ran")
}

/// The JSON body of a successful `GET url`.
fn get_json(url: Url) -> Result<Value, String> {
    let body = get(url.clone())?;
    serde_json::from_str(&body).map_err(|e| format!("GET {url}: no JSON ({e}): {body}"))
}
