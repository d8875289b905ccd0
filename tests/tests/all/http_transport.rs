//! The Streamable HTTP transport, driven by a real HTTP client against a server on 127.0.0.1.

use std::time::Duration;

use mcp_runtime::auth::HostPolicy;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{
    SseEvent, SseReader, TestHttpServer, call, client, exchange, initialize_body, json_body,
    open_session, post, standalone_get,
};

const WAIT: Duration = Duration::from_secs(5);

/// Echo a text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Report progress twice, then answer.
#[mcp_tool]
async fn busy(ctx: RequestContext) -> &'static str {
    ctx.progress(1, 2).await;
    ctx.progress(2, 2).await;
    "done"
}

/// Ask the client's model.
#[mcp_tool]
async fn ask(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx
        .sample(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("Hi?")],
            10,
        ))
        .await?;
    Ok(format!("model {}", answer.model))
}

/// Send a notification, close the stream early, then answer.
#[mcp_tool]
async fn reconnect(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "before the break").await;
    ctx.close_sse_stream(Duration::from_millis(100));
    tokio::time::sleep(Duration::from_millis(200)).await;
    ctx.log(LoggingLevel::Info, "after the break").await;
    "reconnected"
}

/// Answer with the region, which proxies route on (`Mcp-Param-Region`).
#[mcp_tool(input_schema = json!({"type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]}))]
async fn regional(region: String) -> String {
    region
}

/// Needs the client's sampling capability.
#[mcp_tool(requires = "sampling")]
async fn needs_sampling() -> &'static str {
    "sampling declared"
}

/// Log, then answer.
#[mcp_tool]
async fn chatty(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "working").await;
    "done"
}

/// A name.
#[derive(Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Greets the user by name, then asks the model for a compliment: written once for both eras.
#[mcp_tool]
async fn greet(ctx: RequestContext, style: String) -> Result<String, ToolError> {
    let name = ctx.elicit::<Name>("What is your name?").await?;
    let name = name
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    let prompt = format!("A {style} compliment for {name}.");
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 20);
    let compliment = ctx.sample(params).await?;
    Ok(format!("Hello, {name}! {}", compliment.content.text()))
}

/// A resource to subscribe to.
#[mcp_resource(uri = "test://watched")]
async fn watched() -> &'static str {
    "v1"
}

fn server(stateful: bool) -> McpServer {
    let builder = McpServer::from_module(server_info!(), module_path!())
        .logging()
        .resource_subscriptions()
        .tools_list_changed();
    let builder = if stateful {
        builder.stateful()
    } else {
        builder.stateless()
    };
    builder.build().unwrap()
}

async fn start(stateful: bool, options: HttpOptions) -> (TestHttpServer, McpServer) {
    let server = server(stateful);
    (TestHttpServer::start(server.clone(), options).await, server)
}

#[tokio::test]
async fn malformed_requests_get_the_right_status() {
    let (http, _) = start(true, HttpOptions::default().body_limit(1000)).await;
    let url = &http.url;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let only_json = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(ping.to_string());
    let (status, body) = json_body(only_json.send().await.unwrap()).await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(body["error"]["code"], -32600);
    let text_body = client()
        .post(url)
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .body(ping.to_string());
    assert_eq!(
        text_body.send().await.unwrap().status(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let big = call(1, "echo", json!({"text": "x".repeat(2000)}));
    assert_eq!(
        post(url, None, &big).send().await.unwrap().status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
    let response = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (status, body) = json_body(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["id"], Value::Null);
    assert_eq!(body["error"]["code"], -32700);
    let bad_version = post(url, None, &initialize_body("2025-06-18"))
        .header("mcp-protocol-version", "1999-01-01");
    assert_eq!(
        bad_version.send().await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        client().put(url).send().await.unwrap().status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn sessions_are_minted_required_and_ended() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-11-25").await;
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let other = open_session(url, "2025-11-25").await;
    assert_ne!(session, other);
    let (status, body) = exchange(url, None, &call(1, "echo", json!({"text": "x"}))).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32600))
    );
    let unknown = post(
        url,
        Some("no-such-session"),
        &call(1, "echo", json!({"text": "x"})),
    );
    assert_eq!(
        unknown.send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    let (status, body) = exchange(
        url,
        Some(&session),
        &call(1, "echo", json!({"text": "hello"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "hello"}]}})
    );
    let delete = client()
        .delete(url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::OK);
    let after = post(url, Some(&session), &call(2, "echo", json!({"text": "x"})));
    assert_eq!(after.send().await.unwrap().status(), StatusCode::NOT_FOUND);
    let again = client()
        .delete(url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    // The other session is untouched.
    let (status, _) = exchange(url, Some(&other), &call(3, "echo", json!({"text": "x"}))).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn sessions_are_capped_and_expire() {
    let options = HttpOptions::default()
        .max_sessions(1)
        .session_idle_timeout(Duration::from_millis(300));
    let (http, _) = start(true, options).await;
    let url = &http.url;
    // At the cap, a new session takes the place of the idle one.
    let first = open_session(url, "2025-06-18").await;
    let session = open_session(url, "2025-06-18").await;
    assert_eq!(http.transport.session_ids(), std::slice::from_ref(&session));
    let ended = post(url, Some(&first), &call(1, "echo", json!({"text": "x"})));
    assert_eq!(ended.send().await.unwrap().status(), StatusCode::NOT_FOUND);
    // Idle sessions are swept (every half timeout) without any request arriving.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(http.transport.session_count(), 0);
    let expired = post(url, Some(&session), &call(1, "echo", json!({"text": "x"})));
    assert_eq!(
        expired.send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // The expired session no longer counts against the cap.
    open_session(url, "2025-06-18").await;
}

#[tokio::test]
async fn a_session_whose_client_holds_its_stream_open_is_not_idle() {
    let options = HttpOptions::default().session_idle_timeout(Duration::from_millis(500));
    let (http, _) = start(true, options).await;
    let url = &http.url;
    // The stream is opened at once: on a loaded machine, opening another session first may
    // take longer than the idle timeout.
    let listening = open_session(url, "2025-11-25").await;
    let stream = standalone_get(url, &listening, "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let quiet = open_session(url, "2025-11-25").await;
    // Longer than the idle timeout, with the sweep running meanwhile.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(http.transport.session_count(), 1);
    let (status, _) = exchange(
        url,
        Some(&listening),
        &call(1, "echo", json!({"text": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = exchange(url, Some(&quiet), &call(2, "echo", json!({"text": "x"}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Once the client lets go of the stream, the session idles out like any other.
    drop(stream);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(http.transport.session_count(), 0);
}

#[tokio::test]
async fn a_stateless_server_has_no_sessions() {
    let (http, _) = start(false, HttpOptions::default()).await;
    let url = &http.url;
    let response = post(url, None, &initialize_body("2025-06-18"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get("mcp-session-id").is_none());
    let (status, body) = exchange(url, None, &call(1, "echo", json!({"text": "free"}))).await;
    assert_eq!(
        (status, body["result"]["content"][0]["text"].clone()),
        (StatusCode::OK, json!("free"))
    );
    let get = client()
        .get(url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        client().delete(url).send().await.unwrap().status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "test://watched"}});
    let (_, body) = exchange(url, None, &subscribe).await;
    assert_eq!(
        body["error"],
        json!({"code": -32600, "message": "resources/subscribe needs a session, and this request has none: the server was built `.stateless()` (sessions are the default over HTTP; stdio always has one)"})
    );
    let set_level = json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "debug"}});
    let (_, body) = exchange(url, None, &set_level).await;
    assert_eq!(
        body["error"],
        json!({"code": -32600, "message": "logging/setLevel needs a session, and this request has none: the server was built `.stateless()` (sessions are the default over HTTP; stdio always has one)"})
    );
    // A handshake-era client without a session cannot be asked anything: the error says why,
    // not that the client lacks the capability.
    let no_session = "cannot ask the client for sampling: a client of a revision before \
                      2026-07-28 can be asked only within a session, and this server was built \
                      `.stateless()`, so the exchange has none; build the server with sessions \
                      (the default: drop `.stateless()`), or connect with a 2026-07-28 client";
    let (_, body) = exchange(url, None, &call(3, "ask", json!({}))).await;
    assert_eq!(
        body["result"],
        json!({"content": [{"type": "text", "text": no_session}], "isError": true})
    );
    let (_, body) = exchange(url, None, &call(5, "needs_sampling", json!({}))).await;
    assert_eq!(
        body["result"]["content"][0]["text"],
        format!("Tool needs_sampling {no_session}")
    );
    // Without MCP-Protocol-Version, a stateless request is taken as 2025-03-26.
    let list = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
    let (_, body) = exchange(url, None, &list).await;
    assert!(
        body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("title").is_none())
    );
}

async fn sse(response: reqwest::Response) -> Vec<SseEvent> {
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    SseReader::new(response).all(WAIT).await
}

#[tokio::test]
async fn handlers_that_send_get_an_sse_stream_with_a_priming_event() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-11-25").await;
    let mut request = call(7, "busy", json!({}));
    request["params"]["_meta"] = json!({"progressToken": "p"});
    let events = sse(post(url, Some(&session), &request).send().await.unwrap()).await;
    assert_eq!(events.len(), 5, "{events:?}");
    let stream = events[0].id.clone().unwrap();
    assert_eq!((events[0].data.as_str(), events[1].retry), ("", Some(1000)));
    assert!(stream.ends_with(":0"));
    assert_eq!(
        events[2].json().unwrap()["params"],
        json!({"progressToken": "p", "progress": 1.0, "total": 2.0})
    );
    assert_eq!(events[3].json().unwrap()["params"]["progress"], 2.0);
    assert_eq!(
        events[4].json().unwrap(),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "done"}]}})
    );
    let prefix = stream.rsplit_once(':').unwrap().0;
    assert!(
        events[2..]
            .iter()
            .all(|e| e.id.as_deref().unwrap().starts_with(prefix))
    );
    // Without progress to report the answer is plain JSON; older revisions get no priming event.
    let old = open_session(url, "2025-06-18").await;
    let events = sse(post(url, Some(&old), &request).send().await.unwrap()).await;
    assert_eq!(events.len(), 3);
    assert!(events.iter().all(|e| !e.data.is_empty() && e.id.is_some()));
    let (status, _) = exchange(url, Some(&old), &call(8, "busy", json!({}))).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn the_server_can_always_stream() {
    let (http, _) = start(true, HttpOptions::default().always_stream(true)).await;
    let session = open_session(&http.url, "2025-06-18").await;
    let events = sse(post(
        &http.url,
        Some(&session),
        &call(1, "echo", json!({"text": "s"})),
    )
    .send()
    .await
    .unwrap())
    .await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].json().unwrap()["result"]["content"][0]["text"],
        "s"
    );
}

#[tokio::test]
async fn server_requests_go_out_on_the_post_stream_and_answers_come_back() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-11-25").await;
    let response = post(url, Some(&session), &call(9, "ask", json!({})))
        .send()
        .await
        .unwrap();
    let mut reader = SseReader::new(response);
    let mut request = None;
    while let Some(event) = reader.next(WAIT).await {
        if let Some(message) = event.json() {
            request = Some(message);
            break;
        }
    }
    let request = request.expect("a sampling request");
    assert_eq!(request["method"], "sampling/createMessage");
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m-7"}});
    let posted = post(url, Some(&session), &answer).send().await.unwrap();
    assert_eq!(posted.status(), StatusCode::ACCEPTED);
    let result = reader.next(WAIT).await.unwrap().json().unwrap();
    assert_eq!(
        result,
        json!({"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": "model m-7"}]}})
    );
}

#[tokio::test]
async fn the_get_stream_carries_unsolicited_messages_to_the_right_session() {
    let (http, server) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let watcher = open_session(url, "2025-11-25").await;
    let bystander = open_session(url, "2025-11-25").await;
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "test://watched"}});
    let (_, body) = exchange(url, Some(&watcher), &subscribe).await;
    assert_eq!(body["result"], json!({}));
    let get = |session: &str| {
        client()
            .get(url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .send()
    };
    let mut watcher_stream = SseReader::new(get(&watcher).await.unwrap());
    let mut bystander_stream = SseReader::new(get(&bystander).await.unwrap());
    assert_eq!(get(&watcher).await.unwrap().status(), StatusCode::CONFLICT);
    // Priming events first.
    assert_eq!(watcher_stream.next(WAIT).await.unwrap().data, "");
    assert_eq!(bystander_stream.next(WAIT).await.unwrap().data, "");
    watcher_stream.next(WAIT).await.unwrap(); // retry
    bystander_stream.next(WAIT).await.unwrap();
    assert_eq!(server.notify_resource_updated("test://watched"), 1);
    let updated = watcher_stream.next(WAIT).await.unwrap().json().unwrap();
    assert_eq!(
        updated,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://watched"}})
    );
    server.add_tool(tests::placeholder_tool("late")).unwrap();
    for stream in [&mut watcher_stream, &mut bystander_stream] {
        let changed = stream.next(WAIT).await.unwrap().json().unwrap();
        assert_eq!(changed["method"], "notifications/tools/list_changed");
    }
    // The server pings one session over its stream.
    let ping = tokio::spawn({
        let (transport, watcher) = (http.transport.clone(), watcher.clone());
        async move { transport.ping_client(&watcher).await }
    });
    let request = watcher_stream.next(WAIT).await.unwrap().json().unwrap();
    assert_eq!(request["method"], "ping");
    let pong = json!({"jsonrpc": "2.0", "id": request["id"], "result": {}});
    assert_eq!(
        post(url, Some(&watcher), &pong)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::ACCEPTED
    );
    assert_eq!(ping.await.unwrap(), Ok(()));
    assert_eq!(
        http.transport.ping_client("no-such-session").await,
        Err(mcp_runtime::connection::PeerRequestError::Disconnected)
    );
    assert!(
        bystander_stream
            .next(Duration::from_millis(200))
            .await
            .is_none()
    );
}

#[tokio::test]
async fn a_stream_closed_early_is_resumed_with_last_event_id() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-11-25").await;
    let events = sse(post(url, Some(&session), &call(5, "reconnect", json!({})))
        .send()
        .await
        .unwrap())
    .await;
    // Priming, retry, the first log, and the retry the server sends as it closes the stream.
    assert_eq!(events.len(), 4, "{events:?}");
    assert_eq!(
        events[2].json().unwrap()["params"]["data"],
        "before the break"
    );
    assert_eq!(events[3].retry, Some(100));
    let last = events[2].id.clone().unwrap();
    // The messages of the stream after `last`, as a resuming GET gets them.
    let resume = || async {
        let resumed = client()
            .get(url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("last-event-id", &last)
            .send()
            .await
            .unwrap();
        let events: Vec<Value> = sse(resumed)
            .await
            .iter()
            .filter_map(SseEvent::json)
            .collect();
        events
    };
    let events = resume().await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["params"]["data"], "after the break");
    assert_eq!(
        events[1],
        json!({"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "reconnected"}]}})
    );
    // The stream finished: the server let go of it, and the store replays it all the same.
    assert_eq!(resume().await, events);
    // Another session cannot resume this session's stream: it gets its own standalone stream.
    let other = open_session(url, "2025-11-25").await;
    let foreign = client()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &other)
        .header("last-event-id", &last)
        .send()
        .await
        .unwrap();
    let mut foreign = SseReader::new(foreign);
    assert_eq!(foreign.next(WAIT).await.unwrap().data, "");
    assert!(foreign.next(WAIT).await.unwrap().retry.is_some());
    assert!(foreign.next(Duration::from_millis(300)).await.is_none());
}

#[tokio::test]
async fn dropped_get_streams_are_released() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-11-25").await;
    for _ in 0..20 {
        let response = client()
            .get(url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut reader = SseReader::new(response);
        reader.next(WAIT).await.unwrap();
        drop(reader);
        // A new GET is accepted once the dropped one is noticed (at the latest on the next event).
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn host_and_origin_are_checked_first() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let evil = post(url, None, &initialize_body("2025-11-25"))
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com");
    let (status, body) = json_body(evil.send().await.unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["code"], -32600);
    let bad_origin =
        post(url, None, &initialize_body("2025-11-25")).header("origin", "http://evil.example.com");
    assert_eq!(
        bad_origin.send().await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
    // The server's own origin passes; another host or port of loopback is another origin.
    let good = post(url, None, &initialize_body("2025-11-25"))
        .header("origin", format!("http://127.0.0.1:{port}"));
    assert_eq!(good.send().await.unwrap().status(), StatusCode::OK);
    for other in [
        format!("http://localhost:{port}"),
        "http://127.0.0.1:1".into(),
    ] {
        let cross = post(url, None, &initialize_body("2025-11-25")).header("origin", other);
        assert_eq!(cross.send().await.unwrap().status(), StatusCode::FORBIDDEN);
    }
    let (open, _) = start(
        true,
        HttpOptions::default().host_policy(HostPolicy::any_host()),
    )
    .await;
    let anywhere =
        post(&open.url, None, &initialize_body("2025-11-25")).header("host", "evil.example.com");
    assert_eq!(anywhere.send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn the_version_header_is_checked_but_need_not_match_the_session() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let session = open_session(url, "2025-06-18").await;
    for header in [Some("2025-11-25"), Some("2025-06-18"), None] {
        let request = post(url, Some(&session), &call(1, "echo", json!({"text": "v"})));
        let request = match header {
            Some(v) => request.header("mcp-protocol-version", v),
            None => request,
        };
        let (status, _) = json_body(request.send().await.unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{header:?}");
    }
}

#[tokio::test]
async fn batches_are_accepted_on_2025_03_26_sessions_only() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let batch = json!([call(1, "echo", json!({"text": "a"})), {"jsonrpc": "2.0", "method": "notifications/initialized"},
                       call(2, "echo", json!({"text": "b"}))]);
    let old = open_session(url, "2025-03-26").await;
    let (status, body) = exchange(url, Some(&old), &batch).await;
    assert_eq!(status, StatusCode::OK);
    let texts: Vec<Value> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"]["content"][0]["text"].clone())
        .collect();
    assert_eq!(texts, [json!("a"), json!("b")]);
    let newer = open_session(url, "2025-06-18").await;
    let (status, body) = exchange(url, Some(&newer), &batch).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32600))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sessions_stay_isolated() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = http.url.clone();
    let mut tasks = Vec::new();
    for n in 0..8 {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let session = open_session(&url, "2025-11-25").await;
            let level = if n % 2 == 0 { "error" } else { "debug" };
            let set = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": level}});
            let (status, _) = exchange(&url, Some(&session), &set).await;
            assert_eq!(status, StatusCode::OK);
            for id in 2..12 {
                let text = format!("session {n} call {id}");
                let (_, body) = exchange(&url, Some(&session), &call(id, "echo", json!({"text": text}))).await;
                assert_eq!(body["id"], id);
                assert_eq!(body["result"]["content"][0]["text"], text);
            }
            // Logs follow this session's level only.
            let mut reconnect = call(99, "reconnect", json!({}));
            reconnect["params"]["name"] = json!("reconnect");
            let events = SseReader::new(post(&url, Some(&session), &reconnect).send().await.unwrap()).all(WAIT).await;
            let logs = events.iter().filter_map(SseEvent::json).filter(|m| m["method"] == "notifications/message").count();
            assert_eq!(logs, if n % 2 == 0 { 0 } else { 1 }, "session {n}");
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_sessions_under_load_each_get_their_own_answers() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = http.url.clone();
    let client = client();
    let mut tasks = Vec::new();
    for n in 0..200 {
        let (url, client) = (url.clone(), client.clone());
        tasks.push(tokio::spawn(async move {
            let session = open_session(&url, "2025-11-25").await;
            for id in 0..10 {
                let text = format!("session {n} call {id}");
                let request = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-session-id", &session)
                    .body(call(id, "echo", json!({"text": text})).to_string());
                let (status, body) = json_body(request.send().await.unwrap()).await;
                assert_eq!(status, StatusCode::OK);
                assert_eq!(body["id"], id);
                assert_eq!(body["result"]["content"][0]["text"], text);
            }
            let end = client.delete(&url).header("mcp-session-id", &session);
            assert_eq!(end.send().await.unwrap().status(), StatusCode::OK);
            session
        }));
    }
    let mut sessions = std::collections::HashSet::new();
    for task in tasks {
        assert!(
            sessions.insert(task.await.unwrap()),
            "a session id was minted twice"
        );
    }
    assert_eq!(sessions.len(), 200);
}

/// A 2026-07-28 POST: the version header, the mirrored headers, and `_meta` in the params.
fn stateless_post(url: &str, headers: &[(&str, &str)], body: &Value) -> reqwest::RequestBuilder {
    let mut request = post(url, None, body).header("mcp-protocol-version", "2026-07-28");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
}

/// Sends a 2026-07-28 POST and returns the status and the JSON answer.
async fn stateless_exchange(
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (StatusCode, Value) {
    json_body(stateless_post(url, headers, body).send().await.unwrap()).await
}

fn stateless_call(id: i64, name: &str, arguments: Value) -> Value {
    let mut request = call(id, name, arguments);
    request["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    request
}

#[tokio::test]
async fn stateless_requests_skip_sessions_and_their_headers_must_match_the_body() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let body = stateless_call(7, "regional", json!({"region": "us-west1"}));
    let call_headers = [
        ("mcp-method", "tools/call"),
        ("mcp-name", "regional"),
        ("mcp-param-region", "us-west1"),
    ];
    // A stateful server serves it without a session.
    let (status, answer) = stateless_exchange(url, &call_headers, &body).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "us-west1");
    assert_eq!(http.transport.session_count(), 0);
    // Encoded values are decoded; header names are case-insensitive.
    let encoded = [
        ("MCP-METHOD", "tools/call"),
        ("Mcp-Name", "=?base64?cmVnaW9uYWw=?="),
        ("Mcp-Param-Region", "=?base64?dXMtd2VzdDE=?="),
    ];
    let (status, _) = stateless_exchange(url, &encoded, &body).await;
    assert_eq!(status, StatusCode::OK);

    let refused = |headers: &'static [(&'static str, &'static str)]| {
        let request = stateless_post(url, headers, &body);
        async move { json_body(request.send().await.unwrap()).await }
    };
    for (headers, message) in [
        (
            &[
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
                ("mcp-param-region", "us-west1"),
            ][..],
            "Header mismatch: Mcp-Name header value \"other\" does not match body value \"regional\"",
        ),
        (
            &[("mcp-method", "tools/call"), ("mcp-name", "regional")][..],
            "Header mismatch: the Mcp-Param-Region header is missing",
        ),
        (
            &[
                ("mcp-method", "tools/call"),
                ("mcp-name", "regional"),
                ("mcp-param-region", "eu"),
            ][..],
            "Header mismatch: Mcp-Param-Region header value \"eu\" does not match body value \"us-west1\"",
        ),
        (
            &[("mcp-method", "tools/list")][..],
            "Header mismatch: Mcp-Method header value \"tools/list\" does not match body value \"tools/call\"",
        ),
    ] {
        let (status, answer) = refused(headers).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020, "message": message}})
        );
    }
    // A 2025-era request to the same endpoint still needs its session.
    let (status, _) = json_body(
        post(url, None, &call(8, "echo", json!({"text": "x"})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// Every revision the server speaks, newest first.
const ALL_VERSIONS: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

#[tokio::test]
async fn stateless_requests_are_checked_in_the_order_the_revision_gives() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let meta = |version: &str| {
        json!({"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {}})
    };
    let request = |id: i64, method: &str, meta: Option<Value>| {
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}});
        if let Some(meta) = meta {
            body["params"]["_meta"] = meta;
        }
        body
    };
    let cases = [
        // No _meta at all.
        (
            "2026-07-28",
            request(1, "server/discover", None),
            StatusCode::BAD_REQUEST,
            json!({"code": -32602, "message": "Invalid params: a 2026-07-28 request needs _meta"}),
        ),
        (
            "2026-07-28",
            request(
                2,
                "server/discover",
                Some(json!({"io.modelcontextprotocol/clientCapabilities": {}})),
            ),
            StatusCode::BAD_REQUEST,
            json!({"code": -32602, "message": "Invalid params: _meta lacks io.modelcontextprotocol/protocolVersion"}),
        ),
        (
            "2026-07-28",
            request(3, "server/discover", Some(meta("v999.0.0"))),
            StatusCode::BAD_REQUEST,
            json!({"code": -32020, "message":
                "Header mismatch: MCP-Protocol-Version header value \"2026-07-28\" does not match _meta value \"v999.0.0\""}),
        ),
        (
            "v999.0.0",
            request(4, "server/discover", Some(meta("v999.0.0"))),
            StatusCode::BAD_REQUEST,
            json!({"code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ALL_VERSIONS, "requested": "v999.0.0"}}),
        ),
        (
            "2026-07-28",
            request(5, "ping", Some(meta("2026-07-28"))),
            StatusCode::NOT_FOUND,
            json!({"code": -32601, "message": "Method not found: ping"}),
        ),
        (
            "2026-07-28",
            request(6, "logging/setLevel", Some(meta("2026-07-28"))),
            StatusCode::NOT_FOUND,
            json!({"code": -32601, "message": "Method not found: logging/setLevel"}),
        ),
    ];
    for (version, body, status, error) in cases {
        let method = body["method"].as_str().unwrap().to_owned();
        let response = post(url, None, &body)
            .header("mcp-protocol-version", version)
            .header("mcp-method", method)
            .send()
            .await
            .unwrap();
        let (got, answer) = json_body(response).await;
        assert_eq!(got, status, "{body}");
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": body["id"], "error": error})
        );
    }
    // Without the version header, a request whose _meta is stateless is refused.
    let (status, answer) = exchange(
        url,
        None,
        &request(7, "tools/list", Some(meta("2026-07-28"))),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"]["code"], -32020);
    // A stateless request that passes is answered with a result for its revision.
    let (status, answer) = stateless_exchange(
        url,
        &[("mcp-method", "server/discover")],
        &request(8, "server/discover", Some(meta("2026-07-28"))),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["supportedVersions"], json!(ALL_VERSIONS));
    assert_eq!(answer["result"]["resultType"], "complete");
    // That revision has no standalone stream and no sessions to end.
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = client()
            .request(method, url)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}

#[tokio::test]
async fn the_endpoint_mounts_at_any_path_of_an_app_with_cors() {
    use mcp_runtime::transport::http::HttpTransport;
    use mcp_runtime::transport::http::axum::{self, routing::get};
    use mcp_runtime::transport::http::cors::{AllowOrigin, Any, CorsLayer};

    let origin = "http://localhost:3000";
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::exact(origin.parse().unwrap()))
        .allow_methods(Any)
        .allow_headers(Any)
        .expose_headers(["mcp-session-id".parse().unwrap()]);
    let options = HttpOptions::default()
        .cors(cors)
        .host_policy(HostPolicy::loopback().allow_origins([origin]));
    let transport = HttpTransport::new(server(true), options);
    let app = axum::Router::new()
        .nest("/api/v1/mcp", transport.router())
        .route("/health", get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let url = format!("{base}/api/v1/mcp");
    let preflight = client()
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), StatusCode::OK);
    assert_eq!(preflight.headers()["access-control-allow-origin"], origin);
    let response = post(&url, None, &initialize_body("2025-11-25"))
        .header("origin", origin)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["access-control-expose-headers"],
        "mcp-session-id"
    );
    assert!(response.headers().contains_key("mcp-session-id"));
    assert_eq!(transport.session_count(), 1);
    let health = client().get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn stateless_requests_bring_their_own_capabilities_and_log_level() {
    let (http, _) = start(false, HttpOptions::default()).await;
    let url = &http.url;
    let headers = |name: &'static str| [("mcp-method", "tools/call"), ("mcp-name", name)];
    // Capabilities come from the request's _meta: without sampling, -32021 and HTTP 400.
    let body = stateless_call(1, "needs_sampling", json!({}));
    let (status, answer) = stateless_exchange(url, &headers("needs_sampling"), &body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer["error"],
        json!({"code": -32021, "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"sampling": {}}}})
    );
    let mut body = stateless_call(2, "needs_sampling", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let (status, answer) = stateless_exchange(url, &headers("needs_sampling"), &body).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["content"][0]["text"], "sampling declared");
    // Without logLevel in _meta, no log message; with it, the log comes on the request's stream.
    let body = stateless_call(3, "chatty", json!({}));
    let (status, answer) = stateless_exchange(url, &headers("chatty"), &body).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    let mut body = stateless_call(4, "chatty", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let events = sse(stateless_post(url, &headers("chatty"), &body)
        .send()
        .await
        .unwrap())
    .await;
    let messages: Vec<Value> = events.iter().filter_map(SseEvent::json).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0],
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "working"}})
    );
    assert_eq!(messages[1]["id"], 4);
    assert_eq!(messages[1]["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn listen_streams_carry_what_they_asked_for_until_closed() {
    let (http, server) = start(false, HttpOptions::default()).await;
    let url = &http.url;
    let listen = |id: i64, filter: Value| {
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"notifications": filter}});
        body["params"]["_meta"] = stateless_call(0, "", json!({}))["params"]["_meta"].clone();
        stateless_post(url, &[("mcp-method", "subscriptions/listen")], &body)
    };
    // The server announces tool list changes and resource updates, not prompt list changes.
    let mut tools = SseReader::new(
        listen(
            1,
            json!({"toolsListChanged": true, "promptsListChanged": true}),
        )
        .send()
        .await
        .unwrap(),
    );
    let mut watched = SseReader::new(
        listen(2, json!({"resourceSubscriptions": ["test://watched"]}))
            .send()
            .await
            .unwrap(),
    );
    let first_message = async |reader: &mut SseReader| loop {
        let event = reader.next(WAIT).await.expect("an event");
        if let Some(message) = event.json() {
            return message;
        }
    };
    assert_eq!(
        first_message(&mut tools).await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": {"toolsListChanged": true},
                "_meta": {"io.modelcontextprotocol/subscriptionId": 1}}})
    );
    assert_eq!(
        first_message(&mut watched).await["params"]["notifications"],
        json!({"resourceSubscriptions": ["test://watched"]})
    );
    server.add_tool(tests::placeholder_tool("late")).unwrap();
    assert_eq!(
        first_message(&mut tools).await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}})
    );
    assert_eq!(server.notify_resource_updated("test://other"), 0);
    assert_eq!(server.notify_resource_updated("test://watched"), 1);
    assert_eq!(
        first_message(&mut watched).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "test://watched",
                "_meta": {"io.modelcontextprotocol/subscriptionId": 2}}})
    );
    // Closing a stream ends its listen request: it no longer counts.
    drop(watched);
    let mut reached = server.notify_resource_updated("test://watched");
    for _ in 0..100 {
        if reached == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        reached = server.notify_resource_updated("test://watched");
    }
    assert_eq!(reached, 0);
    // A server-side close ends the stream with the listen result.
    server.shutdown();
    assert_eq!(
        first_message(&mut tools).await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
            "_meta": {"io.modelcontextprotocol/subscriptionId": 1,
                "io.modelcontextprotocol/serverInfo": {"name": "tests", "version": "0.1.0"}}}})
    );
}

/// `answer` without the `serverInfo` a 2026-07-28 result carries in `_meta` (checked here).
fn without_server_info(mut answer: Value) -> Value {
    if let Some(meta) = answer["result"]
        .get_mut("_meta")
        .and_then(Value::as_object_mut)
    {
        let info = meta.remove("io.modelcontextprotocol/serverInfo");
        assert_eq!(info, Some(json!({"name": "tests", "version": "0.1.0"})));
        if meta.is_empty() {
            answer["result"].as_object_mut().unwrap().remove("_meta");
        }
    }
    answer
}

/// A stateless `tools/call` of `greet` with `capabilities`, and `extra` params (answers, state).
fn greet_call(id: i64, capabilities: Value, extra: Value) -> Value {
    let mut body = stateless_call(id, "greet", json!({"style": "kind"}));
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    for (key, value) in extra.as_object().unwrap() {
        body["params"][key] = value.clone();
    }
    body
}

#[tokio::test]
async fn a_handler_written_once_asks_for_input_on_both_eras() {
    let (http, _) = start(true, HttpOptions::default()).await;
    let url = &http.url;
    let headers = [("mcp-method", "tools/call"), ("mcp-name", "greet")];
    let send = |body: Value| {
        let request = stateless_post(url, &headers, &body);
        async move { without_server_info(json_body(request.send().await.unwrap()).await.1) }
    };
    let both = json!({"elicitation": {"form": {}}, "sampling": {}});
    let name_form = json!({"mode": "form", "message": "What is your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"]}});
    let accepted = json!({"action": "accept", "content": {"name": "Ada"}});
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "You shine."},
        "model": "m"});

    // Round 1: the first thing the handler needs is asked for, under an automatic key.
    let answer = send(greet_call(1, both.clone(), json!({}))).await;
    assert_eq!(
        answer["result"],
        json!({"resultType": "input_required", "inputRequests": {
            "elicitation/create#1": {"method": "elicitation/create", "params": name_form}}})
    );
    // Round 2: the name is known; the model is asked, and the name travels in the state.
    let answers = json!({"inputResponses": {"elicitation/create#1": accepted}});
    let answer = send(greet_call(2, both.clone(), answers)).await;
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({"sampling/createMessage#1": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text",
                "text": "A kind compliment for Ada."}}], "maxTokens": 20}}})
    );
    let state = result["requestState"]
        .as_str()
        .expect("the state carries the name")
        .to_owned();
    // Round 3: complete. Extra answers are ignored.
    let answers = json!({"requestState": state,
        "inputResponses": {"sampling/createMessage#1": sampled, "unasked": accepted}});
    let answer = send(greet_call(3, both.clone(), answers)).await;
    assert_eq!(
        answer["result"],
        json!({"resultType": "complete", "content": [{"type": "text", "text": "Hello, Ada! You shine."}]})
    );
    // A tampered state, or one issued for other arguments, is refused.
    let tampered = json!({"requestState": format!("{state}x"),
        "inputResponses": {"sampling/createMessage#1": sampled}});
    assert_eq!(
        send(greet_call(4, both.clone(), tampered)).await["error"],
        json!({"code": -32602, "message": "requestState integrity check failed"})
    );
    let mut other = greet_call(5, both.clone(), json!({"requestState": state}));
    other["params"]["arguments"]["style"] = json!("grim");
    assert_eq!(
        send(other).await["error"],
        json!({"code": -32602, "message": "requestState was issued for another request"})
    );
    // Nothing is asked of a client that did not declare the capability: the request fails
    // with the error that names it (and HTTP 400).
    let (status, answer) =
        stateless_exchange(url, &headers, &greet_call(6, json!({}), json!({}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer["error"],
        json!({"code": -32021, "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"elicitation": {"form": {}}}}})
    );

    // The same handler on a 2025-11-25 session sends real requests on the POST stream.
    let session = open_session(url, "2025-11-25").await;
    let mut reader = SseReader::new(
        post(
            url,
            Some(&session),
            &call(7, "greet", json!({"style": "kind"})),
        )
        .send()
        .await
        .unwrap(),
    );
    for answer in [accepted, sampled] {
        let request = loop {
            let event = reader.next(WAIT).await.expect("a request from the server");
            if let Some(message) = event.json() {
                break message;
            }
        };
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": answer});
        let posted = post(url, Some(&session), &reply).send().await.unwrap();
        assert_eq!(posted.status(), StatusCode::ACCEPTED);
    }
    let result = reader.next(WAIT).await.unwrap().json().unwrap();
    assert_eq!(
        result["result"],
        json!({"content": [{"type": "text", "text": "Hello, Ada! You shine."}]})
    );
}

#[tokio::test]
async fn a_shutdown_ends_the_standalone_stream_so_the_server_stops() {
    let server = server(true);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let transport =
        mcp_runtime::transport::http::HttpTransport::new(server.clone(), HttpOptions::default());
    let serving = tokio::spawn(transport.serve(listener));
    let session = open_session(&url, "2025-11-25").await;
    let response = standalone_get(&url, &session, "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = SseReader::new(response);
    // The priming event: the stream is open, and only the client would end it.
    assert_eq!(stream.next(WAIT).await.unwrap().data, "");
    server.shutdown();
    // The server waits for open responses to finish: the standalone stream ends at the
    // shutdown rather than keeping the server up for as long as the client stays.
    let stopped = tokio::time::timeout(Duration::from_secs(30), serving).await;
    assert!(matches!(stopped, Ok(Ok(Ok(())))), "{stopped:?}");
}

#[tokio::test]
async fn a_port_in_use_is_named_with_what_to_do() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap();
    let error =
        mcp_runtime::transport::http::serve_http(server(true), address, HttpOptions::default())
            .await
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot listen on {address}: Address already in use (os error 98): another program \
             (or another copy of this server) has the port; stop it, or serve on another port"
        )
    );
}
