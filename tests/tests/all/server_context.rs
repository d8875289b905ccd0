//! What handlers do through the request context: progress, logging, cancellation, and requests to
//! the client (sampling, elicitation, roots), each checked against the client's capabilities.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
use serde_json::{Value, json};
use tests::TestClient;

/// Report progress in steps, logging along the way.
#[mcp_tool]
async fn steps(count: u32, ctx: RequestContext) -> String {
    for i in 1..=count {
        ctx.progress(i, count).await;
    }
    ctx.progress_with_message(count, None, "finished").await;
    ctx.log(LoggingLevel::Debug, "a debug line").await;
    ctx.log(LoggingLevel::Warning, json!({"note": "a warning"}))
        .await;
    ctx.log_from(LoggingLevel::Error, "steps", "an error").await;
    format!("{count} steps")
}

#[derive(Clone, Default)]
struct Seen(Arc<AtomicBool>);

/// Wait until cancelled (or a minute).
#[mcp_tool]
async fn wait(ctx: RequestContext, State(seen): State<Seen>) -> Result<String, ToolError> {
    tokio::select! {
        () = ctx.cancelled() => {
            seen.0.store(true, Ordering::SeqCst);
            Err(ToolError::cancelled())
        }
        () = tokio::time::sleep(Duration::from_secs(60)) => Ok("waited".into()),
    }
}

/// Opens when a test says so.
#[derive(Clone)]
struct Gate(Arc<tokio::sync::Semaphore>);

impl Default for Gate {
    fn default() -> Self {
        Gate(Arc::new(tokio::sync::Semaphore::new(0)))
    }
}

/// Wait until the gate opens or the request is cancelled.
#[mcp_tool]
async fn hold(ctx: RequestContext, State(gate): State<Gate>) -> Result<String, ToolError> {
    tokio::select! {
        () = ctx.cancelled() => Err(ToolError::cancelled()),
        permit = gate.0.acquire() => {
            permit.map_err(|_| ToolError::new("the gate is gone"))?.forget();
            Ok("released".into())
        }
    }
}

/// Ask the client's model.
#[mcp_tool]
async fn ask_model(question: String, ctx: RequestContext) -> Result<String, ToolError> {
    let result = ctx
        .sample(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text(question)],
            50,
        ))
        .await?;
    let text = result.content.blocks().iter().find_map(|b| match b {
        mcp_runtime::protocol::sampling::SamplingContentBlock::Text(t) => Some(t.text.clone()),
        _ => None,
    });
    Ok(format!(
        "{} said: {}",
        result.model,
        text.unwrap_or_default()
    ))
}

#[derive(Elicit, Debug, PartialEq)]
enum Color {
    /// Red
    Red,
    /// Green
    Green,
}

#[derive(Elicit, Debug, PartialEq)]
struct Profile {
    /// Name
    ///
    /// Your full name.
    name: String,
    #[elicit(default = 30)]
    age: u8,
    color: Color,
    newsletter: Option<bool>,
}

/// Ask the user for a profile.
#[mcp_tool]
async fn ask_user(ctx: RequestContext) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Profile>("Tell us about you").await? {
        ElicitOutcome::Accepted(p) => format!(
            "{} ({}), {:?}, newsletter {:?}",
            p.name, p.age, p.color, p.newsletter
        ),
        ElicitOutcome::Declined => "declined".into(),
        ElicitOutcome::Cancelled => "cancelled".into(),
    })
}

/// Send the user to a page, then say it is done.
#[mcp_tool]
async fn ask_login(ctx: RequestContext) -> Result<String, ToolError> {
    let result = ctx
        .elicit_url("Please sign in", "https://example.com/login", "login-1")
        .await?;
    ctx.complete_url_elicitation("login-1").await;
    Ok(format!("{:?}", result.action))
}

/// List the client's roots.
#[mcp_tool]
async fn roots(ctx: RequestContext) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(roots
        .roots
        .iter()
        .map(|r| r.uri.as_str())
        .collect::<Vec<_>>()
        .join(","))
}

fn builder(seen: Seen) -> McpServerBuilder {
    McpServer::from_module(server_info!(), module_path!())
        .state(seen)
        .state(Gate::default())
        .logging()
}

fn server(seen: Seen) -> McpServer {
    builder(seen).build().unwrap()
}

async fn client(capabilities: Value) -> TestClient {
    TestClient::initialized(
        server(Seen::default()),
        ProtocolVersion::V2025_11_25,
        capabilities,
    )
    .await
}

#[tokio::test]
async fn progress_echoes_the_token_exactly() {
    for token in [json!(0), json!("tok-1"), json!(-5)] {
        let mut client = client(json!({})).await;
        let result = client
            .request("tools/call", json!({"name": "steps", "arguments": {"count": 2}, "_meta": {"progressToken": token}}))
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "2 steps");
        let progress: Vec<Value> = client
            .take_notifications()
            .into_iter()
            .filter(|n| n["method"] == "notifications/progress")
            .map(|n| n["params"].clone())
            .collect();
        assert_eq!(
            progress,
            [
                json!({"progressToken": token, "progress": 1.0, "total": 2.0}),
                json!({"progressToken": token, "progress": 2.0, "total": 2.0}),
                json!({"progressToken": token, "progress": 2.0, "message": "finished"}),
            ]
        );
        client.close().await;
    }
}

#[tokio::test]
async fn no_progress_without_a_token_and_logs_follow_the_level() {
    let mut client = client(json!({})).await;
    client
        .request(
            "tools/call",
            json!({"name": "steps", "arguments": {"count": 1}}),
        )
        .await
        .unwrap();
    let notes = client.take_notifications();
    assert!(
        notes
            .iter()
            .all(|n| n["method"] != "notifications/progress")
    );
    // The default level is info: the debug line is filtered out.
    let logs: Vec<Value> = notes.iter().map(|n| n["params"].clone()).collect();
    assert_eq!(
        logs,
        [
            json!({"level": "warning", "data": {"note": "a warning"}}),
            json!({"level": "error", "logger": "steps", "data": "an error"}),
        ]
    );
    client
        .request("logging/setLevel", json!({"level": "error"}))
        .await
        .unwrap();
    client
        .request(
            "tools/call",
            json!({"name": "steps", "arguments": {"count": 1}}),
        )
        .await
        .unwrap();
    let levels: Vec<Value> = client
        .take_notifications()
        .iter()
        .map(|n| n["params"]["level"].clone())
        .collect();
    assert_eq!(levels, [json!("error")]);
    client
        .request("logging/setLevel", json!({"level": "debug"}))
        .await
        .unwrap();
    client
        .request(
            "tools/call",
            json!({"name": "steps", "arguments": {"count": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(client.take_notifications().len(), 3);
    let error = client
        .request("logging/setLevel", json!({"level": "loud"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    client.close().await;
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_suppresses_the_response() {
    let seen = Seen::default();
    let mut client = TestClient::initialized(
        server(seen.clone()),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    client.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "wait"}})).await;
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": 41, "reason": "changed my mind"}),
        )
        .await;
    let pong = client.request("ping", json!({})).await.unwrap();
    assert_eq!(pong, json!({}));
    // Finishing waits for every handler: the cancelled one has returned by then, and it never
    // answered.
    let (responses, notifications) = client.finish().await;
    assert_eq!(responses, Vec::<Value>::new());
    assert_eq!(notifications, Vec::<Value>::new());
    assert!(
        seen.0.load(Ordering::SeqCst),
        "the handler saw the cancellation"
    );
}

#[tokio::test]
async fn a_cancellation_reaches_only_its_own_connection() {
    let server = server(Seen::default());
    let gate = server.state::<Gate>().unwrap();
    let mut first =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    let mut second = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    // The same id on both connections, both blocked.
    let call =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "hold"}});
    first.send(&call).await;
    second.send(&call).await;
    first
        .notify("notifications/cancelled", json!({"requestId": 7}))
        .await;
    // The cancellation was read before this ping; only then is the gate opened.
    first.sync().await;
    second.sync().await;
    gate.0.add_permits(1);
    let answer = second.response_to(&json!(7), "tools/call").await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "released"}]}})
    );
    let (responses, _) = first.finish().await;
    assert_eq!(
        responses,
        Vec::<Value>::new(),
        "the cancelled id 7 got no response"
    );
    let (responses, _) = second.finish().await;
    assert_eq!(responses, Vec::<Value>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_racing_completion_leaves_the_server_consistent() {
    let mut client = client(json!({})).await;
    for id in 100..200 {
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "steps", "arguments": {"count": 1}}})).await;
        client
            .notify("notifications/cancelled", json!({"requestId": id}))
            .await;
    }
    // Whatever raced, the connection still answers.
    let again = client
        .request(
            "tools/call",
            json!({"name": "steps", "arguments": {"count": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(again["content"][0]["text"], "1 steps");
    // Each raced call got no response (cancelled in time) or its complete result, never two.
    let mut answered: Vec<i64> = Vec::new();
    for response in client.take_other_responses() {
        assert_eq!(response["result"]["content"][0]["text"], "1 steps");
        answered.push(response["id"].as_i64().unwrap());
    }
    let before = answered.len();
    answered.dedup();
    assert_eq!(answered.len(), before);
    assert!(answered.iter().all(|id| (100..200).contains(id)));
    // The raced ids are free again.
    client
        .send(&json!({"jsonrpc": "2.0", "id": 100, "method": "ping"}))
        .await;
    assert_eq!(
        client.response_to(&json!(100), "ping").await["result"],
        json!({})
    );
    client.close().await;
}

#[tokio::test]
async fn sampling_goes_to_the_client_and_back() {
    let mut client = client(json!({"sampling": {}})).await;
    client.answer_requests_with(|method, params| {
        assert_eq!(method, "sampling/createMessage");
        assert_eq!(params["messages"][0]["content"]["text"], "Capital of France?");
        assert_eq!(params["maxTokens"], 50);
        Ok(json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m-1"}))
    });
    let result = client
        .request(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "Capital of France?"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "m-1 said: Paris"}]})
    );
    assert_eq!(client.server_requests().len(), 1);
    client.close().await;
}

#[tokio::test]
async fn requests_to_the_client_need_its_capability() {
    let mut client = client(json!({})).await;
    for (tool, message) in [
        ("ask_model", "the client does not support sampling"),
        ("ask_user", "the client does not support elicitation.form"),
        ("ask_login", "the client does not support elicitation.url"),
        ("roots", "the client does not support roots"),
    ] {
        let result = client
            .request(
                "tools/call",
                json!({"name": tool, "arguments": {"question": "?"}}),
            )
            .await
            .unwrap();
        assert_eq!(
            result,
            json!({"content": [{"type": "text", "text": message}], "isError": true}),
            "{tool}"
        );
    }
    assert!(client.server_requests().is_empty());
    client.close().await;
}

#[tokio::test]
async fn a_client_error_reaches_the_handler() {
    let mut client = client(json!({"sampling": {}})).await;
    client.answer_requests_with(|_, _| Err(json!({"code": -1, "message": "user rejected"})));
    let result = client
        .request(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "?"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        result["content"][0]["text"],
        "sampling/createMessage: the client answered with an error: user rejected (-1)"
    );
    client.close().await;
}

#[tokio::test]
async fn typed_elicitation_sends_the_form_and_decodes_the_answer() {
    let mut client = client(json!({"elicitation": {}})).await;
    client.answer_requests_with(|method, params| {
        assert_eq!(method, "elicitation/create");
        assert_eq!(
            params,
            &json!({
                "mode": "form",
                "message": "Tell us about you",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "title": "Name", "description": "Your full name."},
                        "age": {"type": "integer", "minimum": 0, "maximum": 255, "default": 30},
                        "color": {"type": "string", "oneOf": [{"const": "Red", "title": "Red"},
                                                              {"const": "Green", "title": "Green"}]},
                        "newsletter": {"type": "boolean"}
                    },
                    "required": ["name", "color"]
                }
            })
        );
        Ok(json!({"action": "accept", "content": {"name": "Ada", "color": "Green"}}))
    });
    let result = client
        .request("tools/call", json!({"name": "ask_user"}))
        .await
        .unwrap();
    assert_eq!(
        result["content"][0]["text"],
        "Ada (30), Green, newsletter None"
    );
    client.answer_requests_with(|_, _| Ok(json!({"action": "decline"})));
    let result = client
        .request("tools/call", json!({"name": "ask_user"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "declined");
    client.answer_requests_with(|_, _| {
        Ok(json!({"action": "accept", "content": {"name": "Ada", "color": "Blue"}}))
    });
    let result = client
        .request("tools/call", json!({"name": "ask_user"}))
        .await
        .unwrap();
    assert_eq!(
        result["content"][0]["text"],
        "invalid answer to elicitation/create: field `color`: `Blue` is not one of Red, Green"
    );
    client.close().await;
}

#[tokio::test]
async fn elicitation_forms_are_rendered_for_2025_06_18() {
    let server = server(Seen::default());
    let mut client = TestClient::initialized(
        server,
        ProtocolVersion::V2025_06_18,
        json!({"elicitation": {}}),
    )
    .await;
    client.answer_requests_with(|_, params| {
        // No mode, no defaults but boolean ones, titled choices as enum + enumNames.
        assert_eq!(params.get("mode"), None);
        assert_eq!(
            params["requestedSchema"]["properties"]["age"],
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            params["requestedSchema"]["properties"]["color"],
            json!({"type": "string", "enum": ["Red", "Green"], "enumNames": ["Red", "Green"]})
        );
        Ok(json!({"action": "cancel"}))
    });
    let result = client
        .request("tools/call", json!({"name": "ask_user"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "cancelled");
    client.close().await;
}

#[tokio::test]
async fn url_elicitation_and_its_completion() {
    let mut client = client(json!({"elicitation": {"url": {}}})).await;
    client.answer_requests_with(|_, params| {
        assert_eq!(
            params,
            &json!({"mode": "url", "message": "Please sign in", "url": "https://example.com/login",
                    "elicitationId": "login-1"})
        );
        Ok(json!({"action": "accept"}))
    });
    let result = client
        .request("tools/call", json!({"name": "ask_login"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "Accept");
    let done = client
        .notification("notifications/elicitation/complete")
        .await;
    assert_eq!(done["params"], json!({"elicitationId": "login-1"}));
    client.close().await;
}

#[tokio::test]
async fn roots_are_listed_from_the_client() {
    let mut client = client(json!({"roots": {"listChanged": true}})).await;
    client.answer_requests_with(|method, _| {
        assert_eq!(method, "roots/list");
        Ok(json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "b"}]}))
    });
    let result = client
        .request("tools/call", json!({"name": "roots"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "file:///a,file:///b");
    client.close().await;
}

#[tokio::test]
async fn the_server_pings_the_client() {
    let server = server(Seen::default());
    let mut client =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    client.answer_requests_with(|method, _| {
        assert_eq!(method, "ping");
        Ok(json!({}))
    });
    let connection = server.connections().pop().expect("one connection");
    let ping = tokio::spawn(async move { server.ping(&connection).await });
    // The client answers while it waits for its own request.
    client.request("ping", json!({})).await.unwrap();
    assert_eq!(ping.await.unwrap(), Ok(()));
    client.close().await;
}

/// Needs sampling to do anything useful.
#[mcp_tool(requires = "sampling, elicitation.url")]
async fn needs_things() -> &'static str {
    "ran"
}

#[tokio::test]
async fn tools_can_require_client_capabilities() {
    let mut partial = client(json!({"sampling": {}})).await;
    let result = partial
        .request("tools/call", json!({"name": "needs_things"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"content": [{"type": "text",
            "text": "Tool needs_things needs the client capability `elicitation.url`, which this client did not declare"}],
            "isError": true})
    );
    partial.close().await;
    let mut full = client(json!({"sampling": {}, "elicitation": {"url": {}}})).await;
    let result = full
        .request("tools/call", json!({"name": "needs_things"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "ran");
    full.close().await;
}

fn sampling_params() -> Value {
    json!({"name": "ask_model", "arguments": {"question": "why?"}})
}

/// Sends `tools/call` for `ask_model` with `id` and returns the sampling request it causes.
async fn start_sampling(client: &mut TestClient, id: i64) -> Value {
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": sampling_params()}))
        .await;
    let request = client.recv().await.expect("the sampling request");
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    request
}

#[tokio::test]
async fn the_end_of_input_ends_a_handler_waiting_on_the_client() {
    let mut client = client(json!({"sampling": {}})).await;
    start_sampling(&mut client, 3).await;
    // The client never answers and closes its end: the sampling request fails at once, and the
    // serve loop ends (`finish` returns only once it has).
    let (responses, notifications) = client.finish().await;
    assert_eq!(
        responses,
        vec![json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "sampling/createMessage: the client disconnected before answering"}],
            "isError": true
        }})]
    );
    assert_eq!(notifications, Vec::<Value>::new());
}

#[tokio::test]
async fn a_cancelled_handler_withdraws_its_request_to_the_client() {
    let mut client = client(json!({"sampling": {}})).await;
    let request = start_sampling(&mut client, 4).await;
    client
        .notify("notifications/cancelled", json!({"requestId": 4}))
        .await;
    let withdrawn = client.notification("notifications/cancelled").await;
    assert_eq!(
        withdrawn,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": request["id"],
            "reason": "the request that needed the answer was cancelled"
        }})
    );
    let (responses, _) = client.finish().await;
    assert_eq!(
        responses,
        Vec::<Value>::new(),
        "the cancelled call got no response"
    );
}

#[tokio::test]
async fn requests_to_the_client_time_out_as_configured() {
    let server = builder(Seen::default())
        .sampling_timeout(Some(Duration::from_millis(20)))
        .ping_timeout(Some(Duration::from_millis(20)))
        .build()
        .unwrap();
    let mut client = TestClient::initialized(
        server.clone(),
        ProtocolVersion::V2025_11_25,
        json!({"sampling": {}}),
    )
    .await;
    let request = start_sampling(&mut client, 5).await;
    // Never answered: the server gives up, withdraws the request, and the tool reports it.
    let withdrawn = client.notification("notifications/cancelled").await;
    assert_eq!(
        withdrawn["params"],
        json!({"requestId": request["id"], "reason": "no answer came in time"})
    );
    let answer = client.response_to(&json!(5), "tools/call").await;
    assert_eq!(
        answer["result"],
        json!({
            "content": [{"type": "text", "text": "sampling/createMessage: the client did not answer in time"}],
            "isError": true
        })
    );
    // `McpServer::ping` uses the ping timeout of the builder.
    let connection = server.connections().pop().expect("one connection");
    assert_eq!(
        server.ping(&connection).await,
        Err(mcp_runtime::connection::PeerRequestError::TimedOut)
    );
    let ping = client.recv().await.expect("the ping");
    assert_eq!(ping["method"], "ping");
    let withdrawn = client.notification("notifications/cancelled").await;
    assert_eq!(
        withdrawn["params"],
        json!({"requestId": ping["id"], "reason": "no answer came in time"})
    );
    client.close().await;
}

#[tokio::test]
async fn the_end_of_input_cancels_the_handlers_in_flight() {
    let seen = Seen::default();
    let mut client = TestClient::initialized(
        server(seen.clone()),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "wait"}}),
        )
        .await;
    client.sync().await;
    // The tool would wait a minute; closing the input cancels it, and its reply is still written.
    let (responses, _) = client.finish().await;
    assert_eq!(
        responses,
        vec![json!({"jsonrpc": "2.0", "id": 8, "result": {
            "content": [{"type": "text", "text": "cancelled"}],
            "isError": true
        }})]
    );
    assert!(
        seen.0.load(Ordering::SeqCst),
        "the handler saw the cancellation"
    );
}
