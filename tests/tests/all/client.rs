//! `McpClient` against the SDK's own server: in process, and over stdio with the notes example.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{ClientError, McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::roots::Root;
use mcp_runtime::protocol::sampling::{
    CreateMessageRequestParams, CreateMessageResult, SamplingMessage,
};
use mcp_runtime::protocol::{ErrorCode, ProtocolVersion};
use serde_json::json;
use tokio::sync::{Notify, mpsc};

/// Add two integers.
#[mcp_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Report progress, log, then answer.
#[mcp_tool]
async fn steps(ctx: RequestContext) -> &'static str {
    ctx.progress(1, 2).await;
    ctx.log(LoggingLevel::Info, "half way").await;
    ctx.progress(2, 2).await;
    "done"
}

/// Ask the model, the user and the roots.
#[mcp_tool]
async fn ask_everything(ctx: RequestContext) -> Result<String, ToolError> {
    let question = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Hi?")], 10);
    let answer = ctx.sample(question).await?;
    let name = ctx
        .elicit::<Name>("Name?")
        .await?
        .accepted()
        .map(|n| n.name);
    let roots = ctx.list_roots().await?;
    Ok(format!(
        "{} / {} / {}",
        answer.content.text(),
        name.unwrap_or_default(),
        roots.roots[0].uri
    ))
}

/// A name.
#[derive(Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Wait until cancelled.
#[mcp_tool]
async fn wait_for_cancel(
    ctx: RequestContext,
    State(cancelled): State<Arc<Notify>>,
) -> &'static str {
    ctx.cancelled().await;
    cancelled.notify_one();
    "cancelled"
}

/// Close the response stream early, then answer: the client resumes the stream.
#[mcp_tool]
async fn interrupted(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "before the break").await;
    ctx.close_sse_stream(Duration::from_millis(50));
    tokio::time::sleep(Duration::from_millis(150)).await;
    "resumed"
}

/// A greeting.
#[mcp_prompt]
async fn greeting(
    /// Whom to greet.
    who: String,
) -> String {
    format!("Hello, {who}!")
}

/// A watched value.
#[mcp_resource(uri = "test://value")]
async fn value() -> &'static str {
    "42"
}

fn server(cancelled: Arc<Notify>) -> McpServer {
    McpServer::from_module(server_info!(), module_path!())
        .page_size(2)
        .logging()
        .resource_subscriptions()
        .state(cancelled)
        .build()
        .unwrap()
}

/// A client of `server` with every handler, speaking `version` (detected when `None`).
async fn client_of(server: McpServer, version: Option<ProtocolVersion>) -> McpClient {
    let builder = McpClient::builder(server_info!()).log_level(LoggingLevel::Info);
    let builder = match version {
        Some(version) => builder.protocol_version(version),
        None => builder,
    };
    builder
        .sampling(|_params| async {
            let mut answer: CreateMessageResult = serde_json::from_value(json!({
                "role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "m"}))
            .unwrap();
            answer.stop_reason = Some("endTurn".into());
            Ok(answer)
        })
        .elicitation(|params| async move {
            assert!(matches!(params, ElicitRequestParams::Form(_)));
            let content = [("name".to_owned(), ElicitValue::String("Ada".into()))]
                .into_iter()
                .collect();
            Ok(ElicitResult::accept(content))
        })
        .roots(vec![Root::new("file:///work")])
        .connect_in_process(server)
        .await
        .unwrap()
}

/// A client of `server` on the 2025-11-25 handshake.
async fn client(server: McpServer) -> McpClient {
    client_of(server, Some(ProtocolVersion::V2025_11_25)).await
}

#[tokio::test]
async fn the_client_lists_calls_and_reads_through_every_page() {
    let client = client(server(Arc::default())).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server().unwrap().server_info.name, "tests");
    client.ping().await.unwrap();
    // Two tools a page: the client follows the cursors.
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        [
            "add",
            "steps",
            "ask_everything",
            "wait_for_cancel",
            "interrupted"
        ]
    );
    let result = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("5"));
    let invalid = client.call_tool("add", json!({"a": "two"})).await.unwrap();
    assert!(invalid.is_error());
    let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
    let ClientError::Server { method, error } = unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(
        (method, error.code, error.message.as_str()),
        ("tools/call", ErrorCode(-32602), "Unknown tool: nope")
    );

    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greeting");
    let prompt = client
        .get_prompt("greeting", [("who".to_owned(), "Ada".to_owned())])
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0].content).unwrap()["text"],
        "Hello, Ada!"
    );
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "test://value");
    let read = client.read_resource("test://value").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "42"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn the_client_answers_the_servers_requests_and_hears_its_notifications() {
    let server = server(Arc::default());
    let client = client(server.clone()).await;
    let answer = client.call_tool("ask_everything", json!({})).await.unwrap();
    assert_eq!(
        answer.content[0].as_text(),
        Some("Hello / Ada / file:///work")
    );

    // Progress goes to the call's channel; logs and resource updates to the notifications.
    let mut notifications = client.notifications();
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    let (progress, mut reports) = mpsc::unbounded_channel();
    let done = client
        .call_tool_with("steps", json!({}), RequestOptions::new().progress(progress))
        .await
        .unwrap();
    assert_eq!(done.content[0].as_text(), Some("done"));
    let first = reports.recv().await.unwrap();
    let second = reports.recv().await.unwrap();
    assert_eq!(
        (first.progress, second.progress, second.total),
        (1.0, 2.0, Some(2.0))
    );
    client.subscribe("test://value").await.unwrap();
    assert_eq!(server.notify_resource_updated("test://value"), 1);
    let mut seen = Vec::new();
    while seen.len() < 2 {
        match notifications.recv().await.unwrap() {
            ServerNotification::LoggingMessage(log) => seen.push(format!("log {}", log.data)),
            ServerNotification::ResourceUpdated(updated) => {
                seen.push(format!("updated {}", updated.uri))
            }
            _ => {}
        }
    }
    assert_eq!(seen, ["log \"half way\"", "updated test://value"]);
}

#[tokio::test]
async fn dropping_a_call_cancels_it_and_a_timeout_ends_the_wait() {
    let cancelled = Arc::new(Notify::new());
    let server = server(cancelled.clone());
    let client = client(server.clone()).await;
    let call = client.call_tool("wait_for_cancel", json!({}));
    // Give up after a moment: the server's handler sees the cancellation.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), call)
            .await
            .is_err()
    );
    cancelled.notified().await;

    let impatient = McpClient::builder(server_info!())
        .request_timeout(Duration::from_millis(50))
        .connect_in_process(server)
        .await
        .unwrap();
    let error = impatient
        .call_tool("wait_for_cancel", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::TimedOut {
            method: "tools/call",
            timeout: Duration::from_millis(50)
        }
    );
    cancelled.notified().await;
}

#[tokio::test]
async fn the_client_starts_a_server_program_and_talks_over_stdio() {
    let binary = tests::interop::example_binary("notes-server");
    let client = McpClient::builder(server_info!())
        .connect_stdio(tokio::process::Command::new(binary))
        .await
        .unwrap();
    // The example speaks both eras: the client detects 2026-07-28.
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let discovered = client.discovered().unwrap();
    let meta = discovered.meta.as_ref().unwrap();
    assert_eq!(meta.server_info.as_ref().unwrap().name, "examples");
    let result = client
        .call_tool("add", json!({"a": 20, "b": 22}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("42"));
    client.close().await.unwrap();
}

/// A stdio server (Python) that answers `initialize` and outlives its stdin: it writes its pid,
/// then on SIGTERM writes `TERM` to the same file and exits, unless told to stay
/// (`ignore-term`), when only SIGKILL ends it. `chatty` writes to its stdout after its stdin
/// closed, which a closed pipe would end before SIGTERM.
const STUBBORN_SERVER: &str = r#"
import json, os, signal, sys, time
pid_file, mode = sys.argv[1], sys.argv[2]
def on_term(*_):
    with open(pid_file, "a") as f:
        f.write(" TERM")
    if mode != "ignore-term":
        sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
with open(pid_file, "w") as f:
    f.write(str(os.getpid()))
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        answer = {"result": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "serverInfo": {"name": "stubborn", "version": "1"}}}
    else:
        answer = {"error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}), flush=True)
for _ in range(600):
    if mode == "chatty":
        print('{"jsonrpc": "2.0", "method": "notifications/message"}', flush=True)
    time.sleep(0.1)
"#;

/// Starts [`STUBBORN_SERVER`] in `mode`, closes the client, and returns what the server wrote
/// to its file, once it is gone.
async fn close_a_stubborn_server(mode: &str) -> String {
    let pid_file = std::env::temp_dir().join(format!("stubborn-{}-{mode}", std::process::id()));
    let mut command = tokio::process::Command::new("python3");
    command.args(["-c", STUBBORN_SERVER, pid_file.to_str().unwrap(), mode]);
    let client = McpClient::builder(server_info!())
        .connect_stdio(command)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.close().await.unwrap();
    let written = std::fs::read_to_string(&pid_file).unwrap();
    let _ = std::fs::remove_file(&pid_file);
    let pid = written.split_whitespace().next().unwrap();
    // Waited for: not even a zombie is left.
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the server {pid} still runs"
    );
    written[pid.len()..].to_owned()
}

/// The MCP specification's shutdown of a stdio server: close its stdin, wait, SIGTERM, wait,
/// SIGKILL. `close` returns in each case, with the program gone.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn close_ends_a_server_program_that_outlives_its_stdin() {
    assert_eq!(close_a_stubborn_server("obey-term").await, " TERM");
    assert_eq!(close_a_stubborn_server("ignore-term").await, " TERM");
    // Its stdout is read to the end meanwhile: the server lives to see SIGTERM.
    assert_eq!(close_a_stubborn_server("chatty").await, " TERM");
}

#[tokio::test]
async fn the_client_detects_a_2026_07_28_server_and_runs_the_input_rounds() {
    let server = server(Arc::default());
    let client = client_of(server, None).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert!(client.server().is_none());
    let discovered = client.discovered().unwrap();
    assert_eq!(discovered.supported_versions[0], "2026-07-28");
    // The same tool: its sampling, elicitation and roots come as input-required rounds, which
    // the client answers with the same handlers.
    let answer = client.call_tool("ask_everything", json!({})).await.unwrap();
    assert_eq!(
        answer.content[0].as_text(),
        Some("Hello / Ada / file:///work")
    );
    // Logs come with the request that asked for them (its _meta logLevel), on the same stream.
    let mut notifications = client.notifications();
    let done = client.call_tool("steps", json!({})).await.unwrap();
    assert_eq!(done.content[0].as_text(), Some("done"));
    let ServerNotification::LoggingMessage(log) = notifications.recv().await.unwrap() else {
        panic!("a log message first")
    };
    assert_eq!(log.data, json!("half way"));
    // What the revision removed is refused.
    let ClientError::Server { error, .. } = client.ping().await.unwrap_err() else {
        panic!("ping is gone")
    };
    assert_eq!(error.code, ErrorCode(-32601));
    // A server that does not speak 2026-07-28 is detected and spoken to with the handshake.
    let handshake = McpServer::from_module(server_info!(), module_path!())
        .supported_versions(
            mcp_runtime::protocol::SupportedVersions::only([ProtocolVersion::V2025_11_25]).unwrap(),
        )
        .state(Arc::new(Notify::new()))
        .build()
        .unwrap();
    let fallback = client_of(handshake, None).await;
    assert_eq!(fallback.protocol_version(), ProtocolVersion::V2025_11_25);
    let result = fallback
        .call_tool("add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("2"));
}

#[tokio::test]
async fn the_client_speaks_streamable_http_on_both_eras() {
    use mcp_runtime::transport::http::HttpOptions;

    let server = McpServer::from_module(server_info!(), module_path!())
        .stateful()
        .logging()
        .state(Arc::new(Notify::new()))
        .build()
        .unwrap();
    let http = tests::http::TestHttpServer::start(server, HttpOptions::default()).await;
    let with_handlers = |version: Option<ProtocolVersion>| {
        let builder = McpClient::builder(server_info!())
            .log_level(LoggingLevel::Info)
            .sampling(|_| async {
                Ok(serde_json::from_value(json!({"role": "assistant",
                    "content": {"type": "text", "text": "Hello"}, "model": "m"}))
                .unwrap())
            })
            .elicitation(|_| async {
                let content = [("name".to_owned(), ElicitValue::String("Ada".into()))];
                Ok(ElicitResult::accept(content.into_iter().collect()))
            })
            .roots(vec![Root::new("file:///work")]);
        match version {
            Some(version) => builder.protocol_version(version),
            None => builder,
        }
    };
    // 2025-11-25: a session; the server's requests come on the POST's stream and are answered
    // with POSTs; a stream closed early is resumed.
    let handshake = with_handlers(Some(ProtocolVersion::V2025_11_25))
        .connect_http(http.url.clone())
        .await
        .unwrap();
    assert_eq!(http.transport.session_count(), 1);
    let answer = handshake
        .call_tool("ask_everything", json!({}))
        .await
        .unwrap();
    assert_eq!(
        answer.content[0].as_text(),
        Some("Hello / Ada / file:///work")
    );
    let resumed = handshake.call_tool("interrupted", json!({})).await.unwrap();
    assert_eq!(resumed.content[0].as_text(), Some("resumed"));
    // 2026-07-28, detected: no session, input-required rounds, Mcp-Method and Mcp-Name checked.
    let stateless = with_handlers(None)
        .connect_http(http.url.clone())
        .await
        .unwrap();
    assert_eq!(stateless.protocol_version(), ProtocolVersion::V2026_07_28);
    let answer = stateless
        .call_tool("ask_everything", json!({}))
        .await
        .unwrap();
    assert_eq!(
        answer.content[0].as_text(),
        Some("Hello / Ada / file:///work")
    );
    let read = stateless.read_resource("test://value").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "42"
    );
    assert_eq!(http.transport.session_count(), 1);
    // Closing the handshake client ends its session.
    handshake.close().await.unwrap();
    for _ in 0..100 {
        if http.transport.session_count() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(http.transport.session_count(), 0);
}
