//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) on the server, a test for
//! each rule: server-directed tasks for clients that declare it (`-32021` for the others), the
//! immediate-result shortcut, explicit starts after input-required rounds, the detailed
//! `tasks/get`, `tasks/update`, `tasks/cancel`'s acknowledgement, the methods it removed, and over
//! HTTP the `Mcp-Name` header and tasks bound to the token's principal (issuer, subject, client).
//! The server and its clients are in `tests::tasks`.

use mcp_runtime::auth::{ResourceServer, TokenError};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpOptions;
use serde_json::{Value, json};
use tests::http::TestHttpServer;
use tests::tasks::*;

#[tokio::test]
async fn a_2026_call_becomes_a_task_only_for_a_client_that_declares_the_extension() {
    let (server, fixture) = server();
    let created = call_2026(&server, "work", json!({})).await.unwrap();
    assert_eq!(
        masked(&created),
        with(task_2026("working"), json!({"resultType": "task"}))
    );
    let id = created["taskId"].as_str().unwrap().to_owned();
    // Without the extension, the call runs as any other; a required tool is refused.
    let plain = |tool: &str| {
        let params = json!({"name": tool, "arguments": {}});
        stateless(&server, "tools/call", params, capabilities(false, false))
    };
    assert_eq!(
        plain("quick").await,
        Ok(json!({"resultType": "complete", "content": [{"type": "text", "text": "quick"}]}))
    );
    assert_eq!(plain("must").await, Err(missing_extension()));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": id, "inputResponses": {}});
        assert_eq!(
            stateless(&server, method, params, capabilities(false, false)).await,
            Err(missing_extension()),
            "{method}"
        );
    }
    fixture.gate.open(1);
    let got = until_status(&server, &id, "completed").await;
    assert_eq!(
        masked(&got),
        with(
            task_2026("completed"),
            json!({"resultType": "complete",
            "result": {"resultType": "complete", "content": [{"type": "text", "text": "worked"}]}})
        )
    );
}

#[tokio::test]
async fn a_handler_that_ends_within_its_grace_period_answers_the_call_itself() {
    let (server, fixture) = server();
    assert_eq!(
        call_2026(&server, "grace", json!({"fast": true})).await,
        Ok(json!({"resultType": "complete", "content": [{"type": "text", "text": "fast"}]}))
    );
    let created = call_2026(&server, "grace", json!({"fast": false}))
        .await
        .unwrap();
    assert_eq!(
        masked(&created),
        with(task_2026("working"), json!({"resultType": "task"}))
    );
    fixture.gate.open(1);
    let id = created["taskId"].as_str().unwrap();
    let got = until_status(&server, id, "completed").await;
    assert_eq!(got["result"]["content"][0]["text"], "slow");
}

#[tokio::test]
async fn an_explicit_start_asks_in_the_calls_rounds_then_hands_over_to_a_task() {
    let (server, fixture) = server();
    let asked = call_2026(&server, "explicit", json!({})).await.unwrap();
    assert_eq!(
        asked,
        json!({"resultType": "input_required", "inputRequests": {"user_name": {
            "method": "elicitation/create", "params": {"mode": "form",
                "message": "What is your name?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string", "description": "Your name."}},
                    "required": ["name"]}}}}})
    );
    let params = json!({"name": "explicit", "arguments": {}, "inputResponses": {
        "user_name": {"action": "accept", "content": {"name": "Ada"}}}});
    let created = stateless(&server, "tools/call", params, capabilities(true, true))
        .await
        .unwrap();
    assert_eq!(
        masked(&created),
        with(task_2026("working"), json!({"resultType": "task"}))
    );
    fixture.gate.open(1);
    let id = created["taskId"].as_str().unwrap();
    let got = until_status(&server, id, "completed").await;
    assert_eq!(
        got["result"],
        json!({"resultType": "complete", "content": [{"type": "text", "text": "Hello, Ada! (task: true)"}]})
    );
}

#[tokio::test]
async fn tasks_get_inlines_the_error_of_a_failed_task_and_a_tool_error_completes() {
    let (server, _fixture) = server();
    let created = call_2026(&server, "crash", json!({})).await.unwrap();
    let message = "Tool crash failed: it panicked (the worker crashed)";
    let got = until_status(&server, created["taskId"].as_str().unwrap(), "failed").await;
    assert_eq!(
        masked(&got),
        with(
            task_2026("failed"),
            json!({"resultType": "complete", "statusMessage": message,
            "error": {"code": -32603, "message": message}})
        )
    );
    // The extension keeps `failed` for protocol errors: a tool error completes the task.
    let created = call_2026(&server, "broken", json!({})).await.unwrap();
    let got = until_status(&server, created["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(
        got["result"],
        json!({"resultType": "complete", "isError": true,
            "content": [{"type": "text", "text": "the input was rejected"}]})
    );
}

#[tokio::test]
async fn tasks_update_answers_what_the_task_waits_for_key_by_key() {
    let (server, _fixture) = server();
    let created = call_2026(&server, "two_inputs", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let form = |message: &str, property: &str, schema: Value| {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": {property: schema},
                "required": [property]}}})
    };
    let name = form(
        "Who are you?",
        "name",
        json!({"type": "string", "description": "Your name."}),
    );
    let go = form(
        "Go ahead?",
        "confirm",
        json!({"type": "boolean", "description": "Go ahead?"}),
    );
    let waiting = eventually("both questions", || async {
        let got = get_2026(&server, &id).await.unwrap();
        (got["inputRequests"].as_object().map(|r| r.len()) == Some(2)).then_some(got)
    })
    .await;
    assert_eq!(
        masked(&waiting),
        with(
            task_2026("input_required"),
            json!({"resultType": "complete",
            "inputRequests": {"name": name, "confirm": go}})
        )
    );
    let update = |responses: Value| {
        let params = json!({"taskId": id, "inputResponses": responses});
        stateless(&server, "tasks/update", params, capabilities(true, true))
    };
    let ack = Ok(json!({"resultType": "complete"}));
    // Answers to nothing asked are ignored, whatever their shape.
    assert_eq!(update(json!({"bogus": 42})).await, ack);
    assert_eq!(
        get_2026(&server, &id).await.unwrap()["inputRequests"]
            .as_object()
            .unwrap()
            .len(),
        2
    );
    // A partial answer leaves the task waiting for the rest.
    let accepted = json!({"action": "accept", "content": {"name": "Ada"}});
    assert_eq!(update(json!({"name": accepted, "bogus": {}})).await, ack);
    let got = get_2026(&server, &id).await.unwrap();
    assert_eq!(
        (got["status"].clone(), got["inputRequests"].clone()),
        (json!("input_required"), json!({"confirm": go}))
    );
    // An answer that is none to an outstanding key is refused, and changes nothing.
    assert_eq!(
        update(json!({"confirm": 42})).await,
        Err(
            json!({"code": -32602, "message": "inputResponses[\"confirm\"] is not an answer: \
            an input response must be an elicitation, roots or sampling result"})
        )
    );
    let got = get_2026(&server, &id).await.unwrap();
    assert_eq!(got["inputRequests"], json!({"confirm": go}));
    let confirmed = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(update(json!({"confirm": confirmed})).await, ack);
    let got = until_status(&server, &id, "completed").await;
    assert_eq!(
        masked(&got),
        with(
            task_2026("completed"),
            json!({"resultType": "complete",
            "result": {"resultType": "complete",
                "content": [{"type": "text", "text": "Ada confirmed: true"}]}})
        )
    );
    assert_eq!(
        update(json!({"name": "late"})).await,
        ack,
        "an ended task acknowledges and ignores answers"
    );
}

#[tokio::test]
async fn tasks_cancel_is_acknowledged_whatever_the_tasks_state() {
    let (server, mut fixture) = server();
    let cancel = |id: &str| {
        let params = json!({"taskId": id});
        stateless(&server, "tasks/cancel", params, capabilities(true, false))
    };
    let ack = Ok(json!({"resultType": "complete"}));
    let created = call_2026(&server, "work", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(cancel(&id).await, ack);
    assert_eq!(fixture.event().await, "cancelled: true");
    assert_eq!(fixture.event().await, "returned");
    let got = get_2026(&server, &id).await.unwrap();
    assert_eq!(
        masked(&got),
        with(
            task_2026("cancelled"),
            json!({"resultType": "complete",
            "statusMessage": "The task was cancelled by request."})
        )
    );
    assert_eq!(cancel(&id).await, ack, "an ended task is acknowledged too");
    let created = call_2026(&server, "quick", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    until_status(&server, &id, "completed").await;
    assert_eq!(cancel(&id).await, ack);
    assert_eq!(get_2026(&server, &id).await.unwrap()["status"], "completed");
    assert_eq!(
        cancel("nope").await,
        Err(json!({"code": -32602, "message": "Failed to retrieve task: Task not found (nope)"}))
    );
}

#[tokio::test]
async fn tasks_result_and_tasks_list_do_not_exist_in_2026() {
    let (server, _fixture) = server();
    let created = call_2026(&server, "quick", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    for (method, params) in [
        ("tasks/result", json!({"taskId": id})),
        ("tasks/list", json!({})),
    ] {
        assert_eq!(
            stateless(&server, method, params, capabilities(true, false)).await,
            Err(json!({"code": -32601, "message": format!("Method not found: {method}")}))
        );
    }
}

// Over HTTP.

/// Starts `work` as a task over HTTP with `token`; the task's id.
async fn start_work(url: &str, token: Option<&str>) -> String {
    let params = json!({"name": "work", "arguments": {}});
    let (status, created) = post_2026(url, token, "tools/call", Some("work"), params).await;
    assert_eq!(status, 200);
    assert_eq!(created["result"]["resultType"], "task");
    created["result"]["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn over_http_mcp_name_must_repeat_the_task_id() {
    let (server, _fixture) = server();
    let http = TestHttpServer::start(server, HttpOptions::default()).await;
    let url = &http.url;
    let id = start_work(url, None).await;
    let params = json!({"taskId": id});
    let (status, got) = post_2026(url, None, "tasks/get", Some(&id), params.clone()).await;
    assert_eq!(
        (status.as_u16(), &got["result"]["status"]),
        (200, &json!("working"))
    );
    let mismatch = |method: &str, name: Option<&str>| {
        let message = match name {
            Some(name) => format!(
                "Header mismatch: Mcp-Name header value \"{name}\" does not match body value \"{id}\""
            ),
            None => format!("Header mismatch: the Mcp-Name header is missing for {method}"),
        };
        (
            400,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": message}}),
        )
    };
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        for name in [Some("other"), None] {
            let (status, answer) = post_2026(url, None, method, name, params.clone()).await;
            assert_eq!(
                (status.as_u16(), answer),
                mismatch(method, name),
                "{method}"
            );
        }
    }
    // None of them reached the task.
    let (_, got) = post_2026(url, None, "tasks/get", Some(&id), params).await;
    assert_eq!(got["result"]["status"], "working");
}

/// The verifier of the principal test: a token per principal, of two issuers the server trusts.
async fn verify(token: String) -> Result<AccessToken, TokenError> {
    let of = |issuer: &str, subject: &str| {
        AccessToken::new()
            .with_issuer(issuer)
            .with_subject(subject)
            .with_client_id("agent")
    };
    match token.as_str() {
        "alice" => Ok(of("https://idp.test", "alice")),
        "bob" => Ok(of("https://idp.test", "bob")),
        // Alice's `sub` from the other issuer, and alice through another client.
        "alice-elsewhere" => Ok(of("https://other-idp.test", "alice")),
        "alice-other-app" => Ok(of("https://idp.test", "alice").with_client_id("other-app")),
        _ => Err(TokenError::invalid("unknown token")),
    }
}

#[tokio::test]
async fn a_task_belongs_to_the_principal_whose_token_created_it() {
    let (server, _fixture) = server();
    let http = TestHttpServer::start_with(server, |url| {
        HttpOptions::default().authorization(ResourceServer::new(url, verify))
    })
    .await;
    let url = &http.url;
    let id = start_work(url, Some("alice")).await;
    let params = json!({"taskId": id});
    let not_found = json!({"code": -32602,
        "message": format!("Failed to retrieve task: Task not found ({id})")});
    for other in ["bob", "alice-elsewhere", "alice-other-app"] {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let (_, answer) = post_2026(url, Some(other), method, Some(&id), params.clone()).await;
            assert_eq!(answer["error"], not_found, "{other} {method}");
        }
    }
    let (_, got) = post_2026(url, Some("alice"), "tasks/get", Some(&id), params).await;
    assert_eq!(got["result"]["status"], "working");
}

#[tokio::test]
async fn a_listen_stream_hears_of_the_tasks_it_names_and_progress_is_the_status_message() {
    let (server, fixture) = server();
    let created = call_2026(&server, "work", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    // The handler's progress (1 of 2) is what tasks/get shows while it works.
    let working = eventually("the progress as status message", || async {
        let got = get_2026(&server, &id).await.unwrap();
        got.get("statusMessage").is_some().then_some(got)
    })
    .await;
    assert_eq!(
        masked(&working),
        with(
            task_2026("working"),
            json!({"statusMessage": "1/2", "resultType": "complete"})
        )
    );
    // A listen stream that names the task (and one nobody owns) hears of the task only.
    let mut client = tests::client::TestClient::connect(server.clone());
    client.expect_version(mcp_runtime::protocol::ProtocolVersion::V2026_07_28);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(true, false)});
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": [id, "0123456789abcdef0123456789abcdef"]},
                "_meta": meta}}),
        )
        .await;
    assert_eq!(
        client
            .notification("notifications/subscriptions/acknowledged")
            .await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": {"taskIds": [id]},
                "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}})
    );
    fixture.gate.open(1);
    let mut heard = client.notification("notifications/tasks").await;
    let params = heard["params"].as_object_mut().unwrap();
    assert_eq!(
        params.remove("_meta"),
        Some(json!({"io.modelcontextprotocol/subscriptionId": "listen-1"}))
    );
    assert_eq!(
        masked(&heard["params"]),
        with(
            task_2026("completed"),
            json!({"result": {"resultType": "complete",
                "content": [{"type": "text", "text": "worked"}]}})
        )
    );
    // Naming tasks without declaring the extension is refused.
    let mut bare = tests::client::TestClient::connect(server.clone());
    bare.expect_version(mcp_runtime::protocol::ProtocolVersion::V2026_07_28);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let request = json!({"jsonrpc": "2.0", "id": "listen-2", "method": "subscriptions/listen",
        "params": {"notifications": {"taskIds": [id]}, "_meta": meta}});
    bare.send(&request).await;
    let refused = bare
        .response_to(&json!("listen-2"), "subscriptions/listen")
        .await;
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredCapabilities": {"extensions": {TASKS: {}}}})
    );
}
