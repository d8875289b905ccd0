//! Three instances of `conformance-server` sharing a Redis behind HAProxy, round-robin per
//! request (`examples/deploy/run.sh`): every request of these tests goes through the load
//! balancer, so that a session's requests alternate instances.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::deployment::Deployment;
use tests::http::{SseReader, call, listen_2026, open_session, post};

const WAIT: Duration = Duration::from_secs(10);

/// POSTs `body`: the status, the instance that answered, and the JSON answer.
async fn exchange(url: &str, session: Option<&str>, body: &Value) -> (StatusCode, String, Value) {
    let response = post(url, session, body).send().await.unwrap();
    let instance = response.headers()["x-instance"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.status(), instance, response.json().await.unwrap())
}

#[tokio::test]
async fn a_sessions_requests_go_round_robin_to_every_instance() {
    let deployment = Deployment::start("conformance-server", 3);
    let session = open_session(&deployment.url, "2025-11-25").await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let mut answered = Vec::new();
    for _ in 0..6 {
        let (status, instance, body) = exchange(&deployment.url, Some(&session), &list).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            body["result"]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty())
        );
        answered.push(instance);
    }
    // Each instance in turn, the same turn twice.
    let mut first_turn = answered[..3].to_vec();
    first_turn.sort();
    assert_eq!(first_turn, ["i0", "i1", "i2"]);
    assert_eq!(answered[..3], answered[3..]);
}

#[tokio::test]
async fn a_client_resumes_on_another_instance_the_stream_of_one_that_was_killed() {
    let deployment = Deployment::start("conformance-server", 3);
    let session = open_session(&deployment.url, "2025-11-25").await;
    let mut slow = call(2, "slow_compute", json!({"seconds": 30}));
    slow["params"]["_meta"] = json!({"progressToken": "p-1"});
    let response = post(&deployment.url, Some(&session), &slow)
        .send()
        .await
        .unwrap();
    let running_on = response.headers()["x-instance"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut stream = SseReader::new(response);
    let priming = stream.next(WAIT).await.expect("the priming event");
    assert_eq!(priming.data, "");
    let first = loop {
        let event = stream.next(WAIT).await.expect("the first progress");
        if !event.data.is_empty() {
            break event;
        }
    };
    assert_eq!(
        first.json(),
        Some(json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p-1", "progress": 0.0, "total": 30.0}}))
    );
    let first_id = first.id.expect("an id");
    // The next progress is written (and kept in Redis) a second later; then the instance dies.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    deployment.kill(&running_on);
    drop(stream);
    let resumed = tests::http::standalone_get(&deployment.url, &session, "2025-11-25")
        .header("last-event-id", &first_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), StatusCode::OK);
    let resumed_on = resumed.headers()["x-instance"].to_str().unwrap().to_owned();
    assert_ne!(resumed_on, running_on);
    let events = SseReader::new(resumed).all(WAIT).await;
    let replayed: Vec<(String, Value)> = events
        .iter()
        .filter_map(|e| Some((e.id.clone()?, e.json()?)))
        .collect();
    let (stream_id, _) = first_id.rsplit_once(':').unwrap();
    assert_eq!(
        replayed.first(),
        Some(&(
            format!("{stream_id}:2"),
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "p-1", "progress": 1.0, "total": 30.0}})
        ))
    );
    // The session itself lives on: the other instances serve it.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    for _ in 0..4 {
        let (status, instance, _) = exchange(&deployment.url, Some(&session), &list).await;
        assert_eq!(status, StatusCode::OK);
        assert_ne!(instance, running_on);
    }
}

/// The standalone stream of `session`, opened through the load balancer: the reader (past its
/// priming event) and the instance that carries it.
async fn standalone(url: &str, session: &str) -> (SseReader, String) {
    let response = tests::http::standalone_get(url, session, "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let instance = response.headers()["x-instance"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut stream = SseReader::new(response);
    assert_eq!(stream.next(WAIT).await.expect("priming").data, "");
    (stream, instance)
}

/// The next message of `stream`.
async fn next_message(stream: &mut SseReader) -> Value {
    loop {
        if let Some(message) = stream.next(WAIT).await.expect("a message").json() {
            return message;
        }
    }
}

#[tokio::test]
async fn a_list_change_raised_on_one_instance_reaches_the_listeners_of_all() {
    let deployment = Deployment::start("conformance-server", 3);
    let url = deployment.url.as_str();
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(open_session(url, "2025-11-25").await);
    }
    // Three consecutive GETs: round-robin puts them on the three instances.
    let mut streams = Vec::new();
    for session in &sessions {
        streams.push(standalone(url, session).await);
    }
    let mut carriers: Vec<&str> = streams.iter().map(|(_, i)| i.as_str()).collect();
    carriers.sort();
    assert_eq!(carriers, ["i0", "i1", "i2"]);
    // And a 2026-07-28 listen stream.
    let mut listening = listen_2026(url, json!({"toolsListChanged": true}), json!({})).await;
    let trigger = call(5, "test_trigger_tool_change", json!({}));
    let (status, raised_on, _) = exchange(url, Some(&sessions[0]), &trigger).await;
    assert_eq!(status, StatusCode::OK);
    for (stream, carrier) in &mut streams {
        assert_eq!(
            next_message(stream).await,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            "the stream on {carrier}, raised on {raised_on}"
        );
    }
    assert_eq!(
        next_message(&mut listening).await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}})
    );
}

#[tokio::test]
async fn a_task_is_created_polled_and_cancelled_through_different_instances() {
    let deployment = Deployment::start("conformance-server", 3);
    let url = deployment.url.as_str();
    let params = json!({"name": "slow_compute", "arguments": {"seconds": 30}});
    let (status, created) =
        tests::tasks::post_2026(url, None, "tools/call", Some("slow_compute"), params).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let task = json!({"taskId": id});
    // Round-robin (see the first test): each request below reaches the next instance.
    let (_, got) = tests::tasks::post_2026(url, None, "tasks/get", Some(&id), task.clone()).await;
    assert_eq!(got["result"]["status"], "working");
    let (status, _) =
        tests::tasks::post_2026(url, None, "tasks/cancel", Some(&id), task.clone()).await;
    assert_eq!(status, StatusCode::OK);
    // Every instance sees it cancelled.
    for _ in 0..3 {
        let (_, got) =
            tests::tasks::post_2026(url, None, "tasks/get", Some(&id), task.clone()).await;
        assert_eq!(got["result"]["status"], "cancelled");
    }
}

#[tokio::test]
async fn an_elicitation_answered_through_another_instance_completes_the_call() {
    let deployment = Deployment::start("conformance-server", 3);
    let url = deployment.url.as_str();
    let session = open_session(url, "2025-11-25").await;
    let ask = call(4, "test_elicitation", json!({"message": "Who are you?"}));
    let response = post(url, Some(&session), &ask).send().await.unwrap();
    let asked_on = response.headers()["x-instance"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut stream = SseReader::new(response);
    let request = next_message(&mut stream).await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Who are you?");
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept",
        "content": {"username": "ada", "email": "ada@example.com"}}});
    let sent = post(url, Some(&session), &answer).send().await.unwrap();
    assert_eq!(sent.status(), StatusCode::ACCEPTED);
    let answered_on = sent.headers()["x-instance"].to_str().unwrap().to_owned();
    assert_ne!(answered_on, asked_on);
    assert_eq!(
        next_message(&mut stream).await,
        json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text",
            "text": "User response: action=accept, content={\"username\":\"ada\",\"email\":\"ada@example.com\"}"}]}})
    );
}
