//! The official clients drive the example servers over stdio and over Streamable HTTP: the
//! TypeScript client (`@modelcontextprotocol/sdk`, run by `interop/*.mjs`) and the Python client
//! (`mcp` from PyPI, run by `interop/*.py`) play the same scenario against a server and print what
//! they saw. Both transcripts must equal the expected one in `tests/expected/` exactly, and every
//! message the server wrote (recorded by the TypeScript client) must validate against the
//! negotiated revision's schema.
//!
//! - `notes_client.*` against `notes-server`: the tour of the SDK's features;
//! - `notes_client_2026.py` against `notes-server`: the Python client 2.x, which speaks
//!   2026-07-28 (`server/discover`, per-request `_meta`, input-required rounds for the same
//!   elicitation and sampling tools the handshake era gets requests from);
//! - `conformance_client.*` against `conformance-server`: every fixture of the official
//!   conformance suite, with the exact values its checks do not look at;
//! - `multi_round_2026.py` against `conformance-server`: the Python client 2.x runs the same
//!   multi-round call twice within a second, by hand and then through its automatic driver, and
//!   both complete (the server seals a `requestState` unlike any other each time, so that the
//!   second call's state is not taken for the first one's, already used).
//!
//! Node, the clients and Python are installed by `scripts/install-interop.sh`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::Value;
use tests::deployment::Deployment;
use tests::interop::{
    HttpExample, example_binary, interop_script, node, python, python2, repo_root, run_json,
};
use tests::json_difference;
use tests::wire::{check_response, check_server_message};

/// An example server and the client scripts that drive it.
struct Scenario {
    /// The binary of the `examples` package.
    example: &'static str,
    /// Its arguments for stdio, and for HTTP on a free loopback port.
    stdio_args: &'static [&'static str],
    http_args: &'static [&'static str],
    /// The scripts of `interop/` (without extension) and the expected transcript.
    script: &'static str,
    expected: &'static str,
}

const NOTES: Scenario = Scenario {
    example: "notes-server",
    stdio_args: &[],
    http_args: &["--http", "127.0.0.1:0"],
    script: "notes_client",
    expected: "notes-transcript.json",
};

const NOTES_2026: Scenario = Scenario {
    example: "notes-server",
    stdio_args: &[],
    http_args: &["--http", "127.0.0.1:0"],
    script: "notes_client_2026",
    expected: "notes-transcript-2026.json",
};

const CONFORMANCE: Scenario = Scenario {
    example: "conformance-server",
    stdio_args: &["stdio"],
    http_args: &["http", "127.0.0.1:0"],
    script: "conformance_client",
    expected: "conformance-transcript.json",
};

const MULTI_ROUND_2026: Scenario = Scenario {
    example: "conformance-server",
    stdio_args: &["stdio"],
    http_args: &["http", "127.0.0.1:0"],
    script: "multi_round_2026",
    expected: "multi-round-transcript-2026.json",
};

/// What serves a scenario over HTTP: held, never read, until the scenario ends.
enum Running {
    Alone(#[allow(dead_code)] HttpExample),
    Balanced(#[allow(dead_code)] Deployment),
}

#[derive(Clone, Copy)]
enum Client {
    TypeScript,
    Python,
    /// The Python client 2.x, in its default mode (2026-07-28 first).
    Python2026,
}

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http,
    /// Three instances sharing a Redis behind HAProxy, round-robin per request.
    Balanced,
    /// The HTTP+SSE transport of 2024-11-05, served beside Streamable HTTP.
    LegacySse,
}

impl Scenario {
    /// Runs the `client`'s script against the example over `transport`, checks its transcript,
    /// and returns what the TypeScript client recorded on the wire (`Null` for Python).
    fn run(&self, client: Client, transport: Transport) -> Value {
        let (program, script) = match client {
            Client::TypeScript => (node(), interop_script(&format!("{}.mjs", self.script))),
            Client::Python => (python(), interop_script(&format!("{}.py", self.script))),
            Client::Python2026 => (python2(), interop_script(&format!("{}.py", self.script))),
        };
        let mut args: Vec<PathBuf> = vec![script];
        let _server = match transport {
            Transport::Stdio => {
                args.push("stdio".into());
                args.push(example_binary(self.example));
                args.extend(self.stdio_args.iter().map(PathBuf::from));
                None
            }
            Transport::Http => {
                let server = HttpExample::start(self.example, self.http_args);
                args.push("http".into());
                args.push(server.url.clone().into());
                Some(Running::Alone(server))
            }
            Transport::LegacySse => {
                let mut server_args = self.http_args.to_vec();
                server_args.push("--legacy-sse");
                let server = HttpExample::start(self.example, &server_args);
                let sse = server.url.replace("/mcp", "/sse");
                args.push("sse".into());
                args.push(sse.into());
                Some(Running::Alone(server))
            }
            Transport::Balanced => {
                let deployment = Deployment::start(self.example, 3);
                args.push("http".into());
                args.push(deployment.url.clone().into());
                Some(Running::Balanced(deployment))
            }
        };
        let args: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
        let mut transcript = run_json(&program, &args);
        let wire = transcript
            .as_object_mut()
            .and_then(|t| t.remove("wire"))
            .unwrap_or(Value::Null);
        let path = repo_root().join("tests/expected").join(self.expected);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let expected: Value = serde_json::from_str(&text).expect("the expected transcript is JSON");
        if let Some(difference) = json_difference(&expected, &transcript) {
            panic!(
                "{} {}: the transcript differs at {difference}; it was:\n{}",
                self.script,
                self.example,
                serde_json::to_string_pretty(&transcript).unwrap()
            );
        }
        if let Client::TypeScript = client {
            check_wire(ProtocolVersion::V2025_11_25, &wire);
        }
        wire
    }
}

/// Checks every message the server wrote against the schema of `version`: responses by the
/// method of the request they answer, requests and notifications by their own method.
fn check_wire(version: ProtocolVersion, wire: &Value) {
    let received = wire["received"].as_array().expect("received messages");
    let sent = wire["sent"].as_array().expect("sent messages");
    let methods: HashMap<String, &str> = sent
        .iter()
        .filter_map(|m| Some((m.get("id")?.to_string(), m.get("method")?.as_str()?)))
        .collect();
    for message in received {
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        match message.get("method").and_then(Value::as_str) {
            Some(method) => check_server_message(version, message, method),
            None => {
                let id = message["id"].to_string();
                let method = methods
                    .get(&id)
                    .unwrap_or_else(|| panic!("a response to no request: {message}"));
                check_response(version, message, method);
            }
        }
    }
}

/// The notes scenario's wire: every request answered, and the progress of `word_count` before
/// its response.
fn check_notes_wire(wire: &Value) {
    let received = wire["received"].as_array().expect("received messages");
    let sent = wire["sent"].as_array().expect("sent messages");
    // 23 requests answered, 3 progress notifications, 1 log message, 1 elicitation, 1 sampling.
    assert_eq!(received.len(), 29);
    let requests = sent
        .iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some());
    assert_eq!(requests.count(), 23);
    let position = |predicate: &dyn Fn(&Value) -> bool| {
        received
            .iter()
            .position(predicate)
            .expect("the message is on the wire")
    };
    let last_progress =
        position(&|m| m["method"] == "notifications/progress" && m["params"]["progress"] == 3);
    let token = &received[last_progress]["params"]["progressToken"];
    let response = position(&|m| &m["id"] == token && m.get("result").is_some());
    assert!(last_progress < response, "progress after the response");
}

#[test]
fn typescript_client_drives_the_notes_server_over_stdio() {
    check_notes_wire(&NOTES.run(Client::TypeScript, Transport::Stdio));
}

#[test]
fn python_client_drives_the_notes_server_over_stdio() {
    NOTES.run(Client::Python, Transport::Stdio);
}

#[test]
fn typescript_client_drives_the_notes_server_over_http() {
    check_notes_wire(&NOTES.run(Client::TypeScript, Transport::Http));
}

#[test]
fn typescript_client_drives_the_notes_server_over_the_old_sse_transport() {
    check_notes_wire(&NOTES.run(Client::TypeScript, Transport::LegacySse));
}

#[test]
fn python_client_drives_the_notes_server_over_http() {
    NOTES.run(Client::Python, Transport::Http);
}

#[test]
fn typescript_client_drives_the_conformance_server_over_stdio() {
    CONFORMANCE.run(Client::TypeScript, Transport::Stdio);
}

#[test]
fn python_client_drives_the_conformance_server_over_stdio() {
    CONFORMANCE.run(Client::Python, Transport::Stdio);
}

#[test]
fn typescript_client_drives_the_conformance_server_over_http() {
    CONFORMANCE.run(Client::TypeScript, Transport::Http);
}

#[test]
fn python_client_drives_the_conformance_server_over_http() {
    CONFORMANCE.run(Client::Python, Transport::Http);
}

#[test]
fn python_client_2_drives_the_notes_server_on_2026_07_28_over_stdio() {
    NOTES_2026.run(Client::Python2026, Transport::Stdio);
}

#[test]
fn python_client_2_drives_the_notes_server_on_2026_07_28_over_http() {
    NOTES_2026.run(Client::Python2026, Transport::Http);
}

#[test]
fn typescript_client_drives_three_conformance_servers_behind_haproxy() {
    CONFORMANCE.run(Client::TypeScript, Transport::Balanced);
}

#[test]
fn python_client_drives_three_conformance_servers_behind_haproxy() {
    CONFORMANCE.run(Client::Python, Transport::Balanced);
}

#[test]
fn python_client_2_runs_one_multi_round_call_twice_in_a_second_by_hand_then_by_its_driver() {
    MULTI_ROUND_2026.run(Client::Python2026, Transport::Http);
}
