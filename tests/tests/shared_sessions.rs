//! Sessions served by several instances of a server that share a Redis (each test starts its own
//! `redis-server`): two HTTP transports on loopback, with a client that sends each request to
//! the instance the test names, as a load balancer without stickiness would.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::store::{RedisOptions, RedisStore};
use mcp_runtime::transport::http::HttpOptions;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::http::{SseReader, TestHttpServer, call, client, exchange, initialize_body, post};
use tests::redis::RedisServer;
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

/// One instance of the deployment: its own server, sharing `redis`.
async fn instance(redis: &RedisStore, idle: Duration, heard: Arc<Notify>) -> TestHttpServer {
    let server = McpServer::from_module(server_info!(), module_path!())
        .logging()
        .stateful()
        .state(heard)
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

/// `initialize` on `url`: the session's id.
async fn initialize(url: &str) -> String {
    let response = post(url, None, &initialize_body("2025-11-25"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// POSTs a notification or a response: its status.
async fn send(url: &str, session: &str, message: Value) -> StatusCode {
    post(url, Some(session), &message)
        .send()
        .await
        .unwrap()
        .status()
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
    let session = initialize(a).await;
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
    assert_eq!(names, ["chatty", "confirm", "endless"]);
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
    let response = post(b, Some(&session), &call(3, "chatty", json!({})))
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
async fn an_elicitation_answered_through_the_other_instance_completes_the_call() {
    let d = deployment(Duration::from_secs(60)).await;
    let (a, b) = (d.a.url.as_str(), d.b.url.as_str());
    let session = initialize(a).await;
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
    let session = initialize(&a).await;
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
    let idle = initialize(&a).await;
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
    let session = initialize(&a).await;
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
    let session = initialize(&a.url).await;
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
