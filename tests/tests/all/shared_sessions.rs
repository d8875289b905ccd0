//! Sessions served by several instances of a server that share a Redis (each test starts its own
//! `redis-server`): two HTTP transports on loopback, with a client that sends each request to
//! the instance the test names, as a load balancer without stickiness would.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::auth::{ResourceServer, TokenError};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::server::TaskOptions;
use mcp_runtime::store::{RedisOptions, RedisStore};
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{
    SseReader, TestHttpServer, call, client, exchange, initialize_body, initialize_session,
    listen_2026, open_session, post,
};
use tests::redis::RedisServer;
use tests::tasks::post_2026;
use tokio::sync::Notify;

const WAIT: Duration = Duration::from_secs(10);

/// Logs at two levels, then answers.
#[mcp_tool]
async fn chatty(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "for the curious").await;
    ctx.log(LoggingLevel::Warning, "for everyone").await;
    "said"
}

/// Whether to go ahead.
#[derive(Elicit)]
struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// Deletes a file once the user confirms.
#[mcp_tool]
async fn confirm(ctx: RequestContext, filename: String) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirmation>(format!("Delete {filename}?"))
        .await?;
    Ok(match answer.accepted() {
        Some(Confirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// Runs until cancelled, and says so.
#[mcp_tool]
async fn endless(ctx: RequestContext, State(heard): State<Arc<Notify>>) -> &'static str {
    ctx.cancelled().await;
    heard.notify_one();
    "cancelled"
}

/// Today's note.
#[mcp_resource(uri = "notes://today", mime_type = "text/plain")]
async fn today() -> String {
    "Nothing planned".into()
}

/// Reports, closes its stream so that the client comes back, then reports and answers.
#[mcp_tool]
async fn slow_report(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "first half").await;
    ctx.close_sse_stream(Duration::from_millis(50));
    tokio::time::sleep(Duration::from_millis(300)).await;
    ctx.log(LoggingLevel::Info, "second half").await;
    "reported"
}

/// Works until its task is cancelled, and says so.
#[mcp_tool(task = "optional")]
async fn long_job(ctx: RequestContext, State(heard): State<Arc<Notify>>) -> &'static str {
    ctx.progress(1, 10).await;
    ctx.cancelled().await;
    heard.notify_one();
    "stopped"
}

/// One instance of the deployment: its own server, sharing `redis`.
async fn instance(redis: &RedisStore, idle: Duration, heard: Arc<Notify>) -> TestHttpServer {
    let server = McpServer::from_module(server_info!(), module_path!())
        .logging()
        .tools_list_changed()
        .resource_subscriptions()
        .stateful()
        .state(heard)
        .tasks(TaskOptions::new().store(redis.task_store()))
        .build()
        .unwrap();
    let options = HttpOptions::default()
        .redis(redis)
        .session_idle_timeout(idle);
    TestHttpServer::start(server, options).await
}

/// A Redis, and two instances that share it.
struct Deployment {
    redis: RedisServer,
    a: TestHttpServer,
    b: TestHttpServer,
    heard: Arc<Notify>,
}

async fn deployment(idle: Duration) -> Deployment {
    let redis = RedisServer::start();
    let heard = Arc::new(Notify::new());
    let store = RedisStore::connect_with(&redis.url(), RedisOptions::new())
        .await
        .unwrap();
    let a = instance(&store, idle, heard.clone()).await;
    // The second instance connects to Redis on its own, as another process would.
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let b = instance(&store, idle, heard.clone()).await;
    Deployment { redis, a, b, heard }
}

/// POSTs a notification or a response: its status.
async fn send(url: &str, session: &str, message: Value) -> StatusCode {
    post(url, Some(session), &message)
        .send()
        .await
        .unwrap()
        .status()
}

/// Calls `chatty` in `session` through `url`: only its warning comes, as the log level set
/// through the other instance says.
async fn assert_logs_at_warning(url: &str, session: &str) {
    let response = post(url, Some(session), &call(3, "chatty", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(
        messages(response).await,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "warning", "data": "for everyone"}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {
                "content": [{"type": "text", "text": "said"}]}}),
        ]
    );
}

/// The messages of an SSE answer, until it ends.
async fn messages(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(
        response.headers()["content-type"],
        "text/event-stream",
        "a streamed answer"
    );
    let events = SseReader::new(response).all(WAIT).await;
    events.iter().filter_map(|e| e.json()).collect()
}

#[tokio::test]
async fn a_session_opened_on_one_instance_is_served_by_the_other_until_deleted() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = initialize_session(a, "2025-11-25").await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(b, &session, initialized).await, StatusCode::ACCEPTED);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, listed) = exchange(b, Some(&session), &list).await;
    assert_eq!(status, StatusCode::OK);
    let mut names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["chatty", "confirm", "endless", "long_job", "slow_report"]
    );
    // The log level set through one instance holds on the other.
    let level = json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "warning"}});
    assert_eq!(
        exchange(a, Some(&session), &level).await,
        (
            StatusCode::OK,
            json!({"jsonrpc": "2.0", "id": 2, "result": {}})
        )
    );
    assert_logs_at_warning(b, &session).await;
    // DELETE through one instance ends the session on both.
    let deleted = client()
        .delete(b)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    for url in [a, b] {
        let (status, body) = exchange(url, Some(&session), &list).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(
            body["error"]["message"],
            "Session not found: start a new one with initialize"
        );
    }
}

#[tokio::test]
async fn an_instance_reads_a_session_from_redis_once_until_another_instance_changes_it() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = initialize_session(a, "2025-11-25").await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let loads = || d.redis.calls("hmget");
    let before = loads();
    // The first request on each instance reads the session; the next ones are answered from
    // the instance's client-side cache.
    for url in [b, a, b, a, b] {
        assert_eq!(exchange(url, Some(&session), &list).await.0, StatusCode::OK);
    }
    assert_eq!(loads() - before, 2);
    // Nor did they renew the session's expiry: the renewal its creation set is not due yet.
    assert_eq!(d.redis.calls("evalsha") + d.redis.calls("eval"), 0);
    assert_eq!(d.redis.calls("pexpire"), 1);
    // A change through one instance reaches the other's next request.
    let level = json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "warning"}});
    assert_eq!(exchange(a, Some(&session), &level).await.0, StatusCode::OK);
    assert_logs_at_warning(b, &session).await;
}

#[tokio::test]
async fn an_elicitation_answered_through_the_other_instance_completes_the_call() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = initialize_session(a, "2025-11-25").await;
    let response = post(
        a,
        Some(&session),
        &call(5, "confirm", json!({"filename": "a.txt"})),
    )
    .send()
    .await
    .unwrap();
    let mut stream = SseReader::new(response);
    let request = loop {
        let event = stream.next(WAIT).await.expect("the elicitation");
        if let Some(message) = event.json() {
            break message;
        }
    };
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Delete a.txt?");
    let answer = json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"confirm": true}}});
    assert_eq!(send(b, &session, answer).await, StatusCode::ACCEPTED);
    let rest: Vec<Value> = stream
        .all(WAIT)
        .await
        .iter()
        .filter_map(|e| e.json())
        .collect();
    assert_eq!(
        rest,
        [json!({"jsonrpc": "2.0", "id": 5, "result": {
            "content": [{"type": "text", "text": "Deleted a.txt"}]}})]
    );
}

#[tokio::test]
async fn a_cancellation_through_the_other_instance_reaches_the_request() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.clone(), d.b.url.as_str());
    let session = initialize_session(&a, "2025-11-25").await;
    let call = {
        let session = session.clone();
        tokio::spawn(async move {
            post(&a, Some(&session), &call(9, "endless", json!({})))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    // Sent until the request is in flight on the first instance and hears of it.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "reason": "changed my mind"}});
    let heard = d.heard.notified();
    tokio::pin!(heard);
    let cancelled = tokio::time::timeout(WAIT, async {
        loop {
            assert_eq!(
                send(b, &session, cancel.clone()).await,
                StatusCode::ACCEPTED
            );
            tokio::select! {
                () = &mut heard => break,
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        }
    })
    .await;
    assert!(cancelled.is_ok(), "the handler heard of the cancellation");
    call.abort();
}

#[tokio::test]
async fn an_idle_session_expires_in_redis_and_redis_lost_is_a_503() {
    let mut d = deployment(Duration::from_millis(500)).await;
    let (a, b) = (d.a.url.clone(), d.b.url.clone());
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let idle = initialize_session(&a, "2025-11-25").await;
    // Used within its idle time, it lives on.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(exchange(&b, Some(&idle), &list).await.0, StatusCode::OK);
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        exchange(&a, Some(&idle), &list).await.0,
        StatusCode::NOT_FOUND
    );
    // Redis goes away: a request that needs its session gets 503, saying why.
    let session = initialize_session(&a, "2025-11-25").await;
    d.redis.kill();
    let (status, body) = exchange(&b, Some(&session), &list).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["error"]["code"], -32603);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the session store is unavailable: Redis could not read a session: "),
        "{message}"
    );
    assert!(message.ends_with("; try again shortly"), "{message}");
    // Back (empty: it saves nothing), the instances serve new sessions again by themselves.
    d.redis.restart();
    let mut served = None;
    for _ in 0..50 {
        let response = post(&b, None, &initialize_body("2025-11-25"))
            .send()
            .await
            .unwrap();
        if response.status() == StatusCode::OK {
            served = Some(
                response.headers()["mcp-session-id"]
                    .to_str()
                    .unwrap()
                    .to_owned(),
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fresh = served.expect("a new session once Redis is back");
    // The other instance, idle meanwhile, has noticed by itself (it checks its connection).
    let mut status = StatusCode::SERVICE_UNAVAILABLE;
    for _ in 0..50 {
        status = exchange(&a, Some(&fresh), &list).await.0;
        if status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        exchange(&a, Some(&session), &list).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn notes_server_instances_share_sessions_through_a_redis_with_a_password() {
    let redis = RedisServer::with_password("notes-pw");
    let key = "c2hhcmVkLWtleS1vZi10aGUtbm90ZXMtZGVwbG95bWVudC0wMQ==";
    let start = || {
        let mut command =
            std::process::Command::new(tests::interop::example_binary("notes-server"));
        command
            .args(["--http", "127.0.0.1:0", "--redis", &redis.url()])
            .env("MCP_REQUEST_STATE_KEY", key);
        tests::interop::HttpExample::spawn(command)
    };
    let (a, b) = (start(), start());
    let session = initialize_session(&a.url, "2025-11-25").await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, listed) = exchange(&b.url, Some(&session), &list).await;
    assert_eq!(status, StatusCode::OK);
    let tasks: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["execution"]["taskSupport"] == "optional")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, ["export_notes"]);
    let deleted = client()
        .delete(&a.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_eq!(
        exchange(&b.url, Some(&session), &list).await.0,
        StatusCode::NOT_FOUND
    );
}

/// The standalone stream of `session` on `url` (resumed after `last` when given), once its
/// priming event arrived: the reader, and the priming event's id.
async fn standalone(url: &str, session: &str, last: Option<&str>) -> (SseReader, String) {
    let mut get = tests::http::standalone_get(url, session, "2025-11-25");
    if let Some(last) = last {
        get = get.header("last-event-id", last);
    }
    let response = get.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = SseReader::new(response);
    let priming = stream.next(WAIT).await.expect("the priming event");
    assert_eq!(priming.data, "");
    (stream, priming.id.expect("an id"))
}

/// The next message on `stream`, with its event id.
async fn next_message(stream: &mut SseReader) -> (String, Value) {
    loop {
        let event = stream.next(WAIT).await.expect("a message");
        if let Some(message) = event.json() {
            return (event.id.expect("an id"), message);
        }
    }
}

#[tokio::test]
async fn broadcasts_and_requests_of_one_instance_reach_the_stream_held_by_the_other() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = open_session(a, "2025-11-25").await;
    let (mut stream, priming) = standalone(b, &session, None).await;
    assert_eq!(priming, format!("{session}:0"));
    // A list change raised on the first instance.
    let changed = ServerNotification::ToolListChanged(Default::default());
    d.a.transport.server().notify(changed);
    let (id, message) = next_message(&mut stream).await;
    assert_eq!(id, format!("{session}:1"));
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    // A subscription made through the first instance; the update raised there.
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
        "params": {"uri": "notes://today"}});
    assert_eq!(
        exchange(a, Some(&session), &subscribe).await.0,
        StatusCode::OK
    );
    d.a.transport
        .server()
        .notify_resource_updated("notes://today");
    let (id, message) = next_message(&mut stream).await;
    assert_eq!(id, format!("{session}:2"));
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "notes://today"}})
    );
    // A ping the first instance sends the client, answered through the second.
    let ping = {
        let transport = d.a.transport.clone();
        let session = session.clone();
        tokio::spawn(async move { transport.ping_client(&session).await })
    };
    let (id, request) = next_message(&mut stream).await;
    assert_eq!(id, format!("{session}:3"));
    assert_eq!(request["method"], "ping");
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {}});
    assert_eq!(send(b, &session, answer).await, StatusCode::ACCEPTED);
    assert_eq!(
        tokio::time::timeout(WAIT, ping).await.unwrap().unwrap(),
        Ok(())
    );
}

#[tokio::test]
async fn the_standalone_stream_resumes_on_another_instance_after_its_own_went_away() {
    let d = deployment(Duration::from_secs(60)).await;
    let Deployment {
        redis: _redis,
        a,
        b,
        ..
    } = d;
    let session = open_session(&a.url, "2025-11-25").await;
    let (mut stream, _) = standalone(&b.url, &session, None).await;
    let ping = |transport: mcp_runtime::transport::http::HttpTransport| {
        let session = session.clone();
        tokio::spawn(async move { transport.ping_client(&session).await })
    };
    let _first = ping(a.transport.clone());
    let (seen, _) = next_message(&mut stream).await;
    // The instance that carried the stream goes away; meanwhile the other sends two requests.
    drop(stream);
    drop(b);
    let _second = ping(a.transport.clone());
    let _third = ping(a.transport.clone());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (mut resumed, priming) = standalone(&a.url, &session, Some(&seen)).await;
    assert_eq!(priming, seen);
    let (second, request) = next_message(&mut resumed).await;
    assert_eq!(request["method"], "ping");
    let (third, _) = next_message(&mut resumed).await;
    assert_eq!(
        [second, third],
        [format!("{session}:2"), format!("{session}:3")]
    );
    // And it goes on live.
    let _fourth = ping(a.transport.clone());
    assert_eq!(next_message(&mut resumed).await.0, format!("{session}:4"));
}

#[tokio::test]
async fn a_request_stream_of_one_instance_is_resumed_through_the_other() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = open_session(a, "2025-11-25").await;
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
        "params": {"level": "info"}});
    assert_eq!(exchange(b, Some(&session), &level).await.0, StatusCode::OK);
    let response = post(a, Some(&session), &call(7, "slow_report", json!({})))
        .send()
        .await
        .unwrap();
    // The first half, then the server closes the stream.
    let events = SseReader::new(response).all(WAIT).await;
    let first: Vec<Value> = events.iter().filter_map(|e| e.json()).collect();
    assert_eq!(
        first,
        [json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "first half"}})]
    );
    let mut last = events
        .last()
        .unwrap()
        .id
        .clone()
        .or_else(|| events.iter().rev().find_map(|e| e.id.clone()));
    // The client comes back through the other instance until it has the reply.
    let mut rest = Vec::new();
    for _ in 0..50 {
        let mut get = tests::http::standalone_get(b, &session, "2025-11-25");
        get = get.header("last-event-id", last.clone().unwrap());
        let events = SseReader::new(get.send().await.unwrap()).all(WAIT).await;
        for event in &events {
            if let Some(message) = event.json() {
                rest.push(message);
            }
            if event.id.is_some() {
                last = event.id.clone();
            }
        }
        if rest.iter().any(|m| m.get("id").is_some()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        rest,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "second half"}}),
            json!({"jsonrpc": "2.0", "id": 7, "result": {
                "content": [{"type": "text", "text": "reported"}]}}),
        ]
    );
}

#[tokio::test]
async fn a_task_created_through_one_instance_is_polled_and_cancelled_through_the_other() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let call = json!({"name": "long_job", "arguments": {}});
    let (status, created) = post_2026(a, None, "tools/call", Some("long_job"), call).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(created["result"]["resultType"], "task");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let task = json!({"taskId": id});
    // Polled through the other instance: the progress is its status message.
    let mut got = Value::Null;
    for _ in 0..50 {
        got = post_2026(b, None, "tasks/get", Some(&id), task.clone())
            .await
            .1;
        if got["result"]["statusMessage"] == "1/10" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        (&got["result"]["status"], &got["result"]["statusMessage"]),
        (&json!("working"), &json!("1/10"))
    );
    // Cancelled through the other instance: the handler, which runs on the first, hears of it.
    let heard = d.heard.notified();
    let (status, cancelled) = post_2026(b, None, "tasks/cancel", Some(&id), task.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled["result"]["resultType"], "complete");
    tokio::time::timeout(WAIT, heard)
        .await
        .expect("the handler heard of the cancellation");
    let got = post_2026(a, None, "tasks/get", Some(&id), task).await.1;
    assert_eq!(got["result"]["status"], "cancelled");
}

#[tokio::test]
async fn a_listen_stream_on_one_instance_hears_of_a_task_running_on_the_other() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let call = json!({"name": "long_job", "arguments": {}});
    let (_, created) = post_2026(a, None, "tools/call", Some("long_job"), call).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let capabilities = tests::tasks::capabilities(true, false);
    let mut listening = listen_2026(b, json!({"taskIds": [id]}), capabilities).await;
    let task = json!({"taskId": id});
    let (status, _) = post_2026(a, None, "tasks/cancel", Some(&id), task).await;
    assert_eq!(status, StatusCode::OK);
    // Its progress may come first (as its status message), then its end.
    loop {
        let (_, heard) = next_message(&mut listening).await;
        assert_eq!(heard["method"], "notifications/tasks");
        assert_eq!(heard["params"]["taskId"], json!(id));
        match heard["params"]["status"].as_str() {
            Some("cancelled") => break,
            Some("working") => assert_eq!(heard["params"]["statusMessage"], "1/10"),
            other => panic!("{other:?}"),
        }
    }
}

/// The verifier of the principal test: alice's `sub` from either of two issuers.
async fn two_issuers(token: String) -> Result<AccessToken, TokenError> {
    let alice = |issuer: &str| {
        AccessToken::new()
            .with_issuer(issuer)
            .with_subject("alice")
            .with_client_id("agent")
    };
    match token.as_str() {
        "alice" => Ok(alice("https://idp.test")),
        "alice-elsewhere" => Ok(alice("https://other-idp.test")),
        _ => Err(TokenError::invalid("unknown token")),
    }
}

#[tokio::test]
async fn a_session_is_bound_to_its_principal_on_every_instance_and_an_older_record_has_ended() {
    let redis = RedisServer::start();
    let mut instances = Vec::new();
    for _ in 0..2 {
        let store = RedisStore::connect(&redis.url()).await.unwrap();
        let server = McpServer::from_module(server_info!(), module_path!())
            .stateful()
            .state(Arc::new(Notify::new()))
            .build()
            .unwrap();
        let http = TestHttpServer::start_with(server, |url| {
            HttpOptions::default()
                .redis(&store)
                .authorization(ResourceServer::new(url, two_issuers))
        })
        .await;
        instances.push(http);
    }
    let (a, b) = (instances[0].url.as_str(), instances[1].url.as_str());
    let initialize = post(a, None, &initialize_body("2025-11-25")).bearer_auth("alice");
    let response = initialize.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let status = async |url: &str, token: &str| {
        let request = post(url, Some(&session), &list).bearer_auth(token);
        request.send().await.unwrap().status()
    };
    // Alice's `sub` from the other issuer finds it on neither instance; alice finds it on both.
    assert_eq!(status(b, "alice-elsewhere").await, StatusCode::NOT_FOUND);
    assert_eq!(status(a, "alice-elsewhere").await, StatusCode::NOT_FOUND);
    assert_eq!(status(b, "alice").await, StatusCode::OK);
    assert_eq!(status(a, "alice").await, StatusCode::OK);

    // A record an earlier version kept (its principal the bare subject) is not read: the
    // session is over for every instance that loads it, and its client starts a new one.
    let key = format!("mcp:session:{session}");
    assert_eq!(redis.command(&["HSET", &key, "principal", "alice"]), ":0");
    assert_eq!(status(b, "alice").await, StatusCode::NOT_FOUND);
    assert_eq!(status(a, "alice").await, StatusCode::NOT_FOUND);
}
