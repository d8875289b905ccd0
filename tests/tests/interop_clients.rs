//! The official clients drive the `notes-server` example over stdio and over Streamable HTTP:
//! the TypeScript client
//! (`@modelcontextprotocol/sdk`, run by `interop/notes_client.mjs`) and the Python client (`mcp`
//! from PyPI, run by `interop/notes_client.py`) play the same scenario and print what they saw.
//! Both transcripts must equal `expected/notes-transcript.json` exactly, and every message the
//! server wrote (recorded by the TypeScript client) must validate against the negotiated
//! revision's schema.
//!
//! Node, the clients and Python are installed by `scripts/install-interop.sh`.

use std::collections::HashMap;
use std::path::Path;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::Value;
use tests::interop::{
    HttpExample, example_binary, interop_script, node, python, repo_root, run_json,
};
use tests::json_difference;
use tests::wire::{check_response, check_server_message};

fn expected_transcript() -> Value {
    let path = repo_root().join("tests/expected/notes-transcript.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the expected transcript is JSON")
}

fn assert_transcript(client: &str, actual: &Value) {
    let expected = expected_transcript();
    if let Some(difference) = json_difference(&expected, actual) {
        panic!(
            "the {client} client's transcript differs at {difference}; it was:\n{}",
            serde_json::to_string_pretty(actual).unwrap()
        );
    }
}

/// Checks every message the server wrote against the schema of `version`: responses by the
/// method of the request they answer, requests and notifications by their own method.
fn check_wire(version: ProtocolVersion, received: &[Value], sent: &[Value]) {
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

/// Checks the TypeScript client's transcript, and the messages it recorded on the wire.
fn check_typescript_run(mut transcript: Value) {
    let wire = transcript
        .as_object_mut()
        .and_then(|t| t.remove("wire"))
        .expect("the TypeScript client records the wire");
    assert_transcript("TypeScript", &transcript);

    let received = wire["received"].as_array().expect("received messages");
    let sent = wire["sent"].as_array().expect("sent messages");
    // 23 requests answered, 3 progress notifications, 1 log message, 1 elicitation, 1 sampling.
    assert_eq!(received.len(), 29);
    let requests = sent
        .iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some());
    assert_eq!(requests.count(), 23);
    check_wire(ProtocolVersion::V2025_11_25, received, sent);
    // The progress of `word_count` arrives before its response.
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
    let server = example_binary("notes-server");
    let script = interop_script("notes_client.mjs");
    check_typescript_run(run_json(&node(), &[&script, Path::new("stdio"), &server]));
}

#[test]
fn python_client_drives_the_notes_server_over_stdio() {
    let server = example_binary("notes-server");
    let script = interop_script("notes_client.py");
    let transcript = run_json(&python(), &[&script, Path::new("stdio"), &server]);
    assert_transcript("Python", &transcript);
}

#[test]
fn typescript_client_drives_the_notes_server_over_http() {
    let server = HttpExample::start("notes-server");
    let script = interop_script("notes_client.mjs");
    check_typescript_run(run_json(
        &node(),
        &[&script, Path::new("http"), Path::new(&server.url)],
    ));
}

#[test]
fn python_client_drives_the_notes_server_over_http() {
    let server = HttpExample::start("notes-server");
    let script = interop_script("notes_client.py");
    let transcript = run_json(
        &python(),
        &[&script, Path::new("http"), Path::new(&server.url)],
    );
    assert_transcript("Python", &transcript);
}
