//! A gateway in front of a real program: `conformance-server` over stdio is the upstream, a
//! [`Proxy`] mirrors it on a server of this process, and our client drives that server on both
//! eras, with the upstream on both eras too. Everything the upstream sends or asks for crosses
//! with exact values.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{McpClient, RequestOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcp_runtime::protocol::logging::LoggingLevel;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::roots::Root;
use mcp_runtime::protocol::sampling::CreateMessageResult;
use mcp_runtime::protocol::subscriptions::SubscriptionFilter;
use mcp_runtime::protocol::{JsonObject, ProtocolVersion};
use mcp_runtime::proxy::{Proxy, upstream_client};
use mcp_runtime::resource::{ResourceDefinition, ResourceError, ResourceTemplateDefinition};
use serde_json::{Value, json};
use tests::interop::{HttpExample, example_binary};

/// `conformance-server` over stdio, mirrored on a server of this process; the upstream speaks
/// `upstream` (detected when `None`).
async fn gateway(upstream: Option<ProtocolVersion>) -> (McpServer, McpClient) {
    let mut command = tokio::process::Command::new(example_binary("conformance-server"));
    command.arg("stdio");
    let builder = upstream_client(Implementation::new("gateway", "1.0.0")).capture_stderr();
    let builder = match upstream {
        Some(version) => builder.protocol_version(version),
        None => builder,
    };
    let client = builder.connect_stdio(command).await.unwrap();
    let proxy = Proxy::new(client.clone()).await.unwrap();
    let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .proxy(proxy)
        .build()
        .unwrap();
    (server, client)
}

/// A gateway in front of `upstream`, served in this process and spoken to in `version`.
async fn gateway_in_process(upstream: &McpServer, version: ProtocolVersion) -> McpServer {
    let connection = upstream_client(Implementation::new("gateway", "1.0.0"))
        .protocol_version(version)
        .connect_in_process(upstream.clone())
        .await
        .unwrap();
    McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .proxy(Proxy::new(connection).await.unwrap())
        .build()
        .unwrap()
}

/// A downstream client of `server` that answers everything, speaking `version`.
async fn downstream(server: McpServer, version: ProtocolVersion) -> McpClient {
    McpClient::builder(Implementation::new("downstream", "1.0.0"))
        .protocol_version(version)
        .log_level(LoggingLevel::Debug)
        .sampling(|params| async move {
            let asked = params.messages[0].content.text();
            let mut answer: CreateMessageResult = serde_json::from_value(json!({
                "role": "assistant", "content": {"type": "text", "text": format!("echo {asked}")},
                "model": "test-model"}))
            .unwrap();
            answer.stop_reason = Some("endTurn".into());
            Ok(answer)
        })
        .elicitation(|params| async move {
            let ElicitRequestParams::Form(form) = params else {
                panic!("a form was asked for");
            };
            // The user answers what the form asks: a confirmation (declined), or who they are.
            let content = if form.requested_schema.properties.contains_key("confirm") {
                [("confirm".to_owned(), ElicitValue::Boolean(false))]
                    .into_iter()
                    .collect()
            } else {
                [
                    (
                        "username".to_owned(),
                        ElicitValue::String(form.message.clone()),
                    ),
                    (
                        "email".to_owned(),
                        ElicitValue::String("ada@example.com".into()),
                    ),
                ]
                .into_iter()
                .collect()
            };
            Ok(ElicitResult::accept(content))
        })
        .roots(vec![Root::new("file:///work/project")])
        .connect_in_process(server)
        .await
        .unwrap()
}

const ERAS: [(Option<ProtocolVersion>, ProtocolVersion); 4] = [
    (
        Some(ProtocolVersion::V2025_11_25),
        ProtocolVersion::V2025_11_25,
    ),
    (
        Some(ProtocolVersion::V2025_11_25),
        ProtocolVersion::V2026_07_28,
    ),
    (None, ProtocolVersion::V2025_11_25),
    (None, ProtocolVersion::V2026_07_28),
];

/// For each pair of eras (the upstream's, detected when `None`, and the client's): its name
/// (`upstream -> client`), a client of a gateway in front of `conformance-server`, and the
/// gateway's own client of the upstream.
async fn through_each_pair_of_eras() -> Vec<(String, McpClient, McpClient)> {
    let mut pairs = Vec::new();
    for (upstream, version) in ERAS {
        let (server, direct) = gateway(upstream).await;
        let client = downstream(server, version).await;
        let name = format!("{} -> {version}", direct.protocol_version());
        pairs.push((name, client, direct));
    }
    pairs
}

/// The first notification of `notifications` that `pick` takes, waiting at most 10 seconds.
async fn next_notification<T>(
    notifications: &mut tokio::sync::broadcast::Receiver<ServerNotification>,
    mut pick: impl FnMut(ServerNotification) -> Option<T>,
) -> T {
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), notifications.recv())
            .await
            .expect("the notification comes within 10 seconds")
            .unwrap();
        if let Some(picked) = pick(next) {
            return picked;
        }
    }
}

/// `result` as JSON, without the name of the server that answered (the gateway signs its
/// 2026-07-28 results, as every server of this SDK does).
fn unsigned(result: &impl serde::Serialize) -> Value {
    let mut value = serde_json::to_value(result).unwrap();
    if let Some(meta) = value.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove("io.modelcontextprotocol/serverInfo");
        if meta.is_empty() {
            value.as_object_mut().unwrap().remove("_meta");
        }
    }
    value
}

fn text(result: &mcp_runtime::protocol::tools::CallToolResult) -> String {
    result.content[0].as_text().unwrap().to_owned()
}

#[tokio::test]
async fn the_gateway_lists_what_the_upstream_offers_as_it_is() {
    for (pair, client, direct) in through_each_pair_of_eras().await {
        let strip = |mut tools: Vec<mcp_runtime::protocol::tools::Tool>| {
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            serde_json::to_value(tools).unwrap()
        };
        assert_eq!(
            strip(client.list_all_tools().await.unwrap()),
            strip(direct.list_all_tools().await.unwrap()),
            "{pair}"
        );
        assert_eq!(
            serde_json::to_value(client.list_all_prompts().await.unwrap()).unwrap(),
            serde_json::to_value(direct.list_all_prompts().await.unwrap()).unwrap()
        );
        assert_eq!(
            serde_json::to_value(client.list_all_resources().await.unwrap()).unwrap(),
            serde_json::to_value(direct.list_all_resources().await.unwrap()).unwrap()
        );
        assert_eq!(
            serde_json::to_value(client.list_all_resource_templates().await.unwrap()).unwrap(),
            serde_json::to_value(direct.list_all_resource_templates().await.unwrap()).unwrap()
        );
    }
}

#[tokio::test]
async fn calls_reads_prompts_and_completions_cross_with_their_exact_results() {
    for (pair, client, direct) in through_each_pair_of_eras().await {
        let call = |name: &'static str| {
            let client = client.clone();
            async move { client.call_tool(name, json!({})).await.unwrap() }
        };
        assert_eq!(
            text(&call("test_simple_text").await),
            "This is a simple text response for testing."
        );
        let failed = call("test_error_handling").await;
        assert!(failed.is_error(), "{pair}");
        assert_eq!(
            unsigned(&failed),
            unsigned(
                &direct
                    .call_tool("test_error_handling", json!({}))
                    .await
                    .unwrap()
            )
        );
        let read = client
            .read_resource("test://template/7/data")
            .await
            .unwrap();
        assert_eq!(
            unsigned(&read),
            unsigned(
                &direct
                    .read_resource("test://template/7/data")
                    .await
                    .unwrap()
            )
        );
        let prompt = client
            .get_prompt("test_prompt_with_arguments", [("arg1", "a"), ("arg2", "b")])
            .await
            .unwrap();
        let upstream_prompt = direct
            .get_prompt("test_prompt_with_arguments", [("arg1", "a"), ("arg2", "b")])
            .await
            .unwrap();
        assert_eq!(unsigned(&prompt), unsigned(&upstream_prompt));
        let completed = client
            .complete(
                serde_json::from_value(json!({
                    "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                    "argument": {"name": "arg1", "value": "tes"}
                }))
                .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(completed.completion.values, ["test", "testing", "tested"]);
        // A resource the upstream does not list is missing, with the code of the client's era.
        let missing = client
            .read_resource("test://nothing-here")
            .await
            .unwrap_err();
        let code = match client.protocol_version() {
            ProtocolVersion::V2026_07_28 => -32602,
            _ => -32002,
        };
        assert_eq!(
            missing.server_error().map(|e| e.code.0),
            Some(code),
            "{pair}: {missing}"
        );
        // The gateway checks the prompt's arguments as the upstream listed them.
        let invalid = client
            .get_prompt("test_prompt_with_arguments", [("arg1", "a")])
            .await
            .unwrap_err();
        assert_eq!(
            invalid
                .server_error()
                .map(|e| (e.code.0, e.message.as_str())),
            Some((
                -32602,
                "Missing required argument(s) for prompt test_prompt_with_arguments: arg2"
            )),
            "{pair}: {invalid}"
        );
    }
}

#[tokio::test]
async fn elicitation_and_sampling_are_asked_of_the_client_that_made_the_call() {
    for (pair, client, _direct) in through_each_pair_of_eras().await {
        let elicited = client
            .call_tool("test_elicitation", json!({"message": "Who are you?"}))
            .await
            .unwrap();
        assert_eq!(
            text(&elicited),
            r#"User response: action=accept, content={"username":"Who are you?","email":"ada@example.com"}"#,
            "{pair}"
        );
        let sampled = client
            .call_tool("test_sampling", json!({"prompt": "Say hi"}))
            .await
            .unwrap();
        assert_eq!(text(&sampled), "LLM response: echo Say hi", "{pair}");
    }
}

#[tokio::test]
async fn progress_reaches_the_client_that_asked_for_it() {
    for (pair, client, _direct) in through_each_pair_of_eras().await {
        let (sink, mut updates) = tokio::sync::mpsc::unbounded_channel();
        let result = client
            .call_tool_with(
                "test_tool_with_progress",
                json!({}),
                RequestOptions::new().progress(sink),
            )
            .await
            .unwrap();
        assert_eq!(text(&result), "Progress test completed");
        let mut seen = Vec::new();
        while let Ok(update) = updates.try_recv() {
            seen.push((update.progress, update.total));
        }
        assert_eq!(
            seen,
            [
                (0.0, Some(100.0)),
                (50.0, Some(100.0)),
                (100.0, Some(100.0))
            ],
            "{pair}"
        );
    }
}

#[tokio::test]
async fn the_upstreams_logs_reach_the_sessions_at_their_level() {
    let (server, _direct) = gateway(Some(ProtocolVersion::V2025_11_25)).await;
    let client = downstream(server, ProtocolVersion::V2025_11_25).await;
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    let mut notifications = client.notifications();
    let result = client
        .call_tool("test_tool_with_logging", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&result), "Tool with logging executed successfully");
    let mut logged = Vec::new();
    while logged.len() < 3 {
        let data = next_notification(&mut notifications, |next| match next {
            ServerNotification::LoggingMessage(message) => Some(message.data),
            _ => None,
        });
        logged.push(data.await);
    }
    assert_eq!(
        logged,
        [
            Value::from("Tool execution started"),
            Value::from("Tool processing data"),
            Value::from("Tool execution completed")
        ]
    );
}

#[tokio::test]
async fn a_list_change_announced_upstream_is_announced_downstream() {
    let (server, _direct) = gateway(Some(ProtocolVersion::V2025_11_25)).await;
    let client = downstream(server, ProtocolVersion::V2025_11_25).await;
    let mut notifications = client.notifications();
    let result = client
        .call_tool("test_trigger_tool_change", json!({}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "Announced a tool list change to 1 listener(s)."
    );
    next_notification(&mut notifications, |next| {
        matches!(next, ServerNotification::ToolListChanged(_)).then_some(())
    })
    .await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 35);
}

#[tokio::test]
async fn tools_added_and_removed_upstream_come_and_go_downstream() {
    let upstream = McpServer::builder(Implementation::new("upstream", "1.0.0"))
        .tool(ToolDefinition::new(
            "first",
            JsonObject::new(),
            |_, _| async { "one" },
        ))
        .resource_template(
            ResourceTemplateDefinition::new("notes://{id}", "note", |_, _, _| async {
                Err::<String, _>(ResourceError::invalid_uri("x is not a note id"))
            })
            .unwrap(),
        )
        .resource(ResourceDefinition::new("notes://1", "note", |_| async {
            "the first note"
        }))
        .resource_subscriptions()
        .tools_list_changed()
        .build()
        .unwrap();
    let connection = upstream_client(Implementation::new("gateway", "1.0.0"))
        .connect_in_process(upstream.clone())
        .await
        .unwrap();
    let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
        .proxy(Proxy::new(connection).await.unwrap())
        .build()
        .unwrap();
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = downstream(server.clone(), version).await;
        let names = |tools: Vec<mcp_runtime::protocol::tools::Tool>| {
            tools.into_iter().map(|t| t.name).collect::<Vec<_>>()
        };
        assert_eq!(names(client.list_all_tools().await.unwrap()), ["first"]);
        // A subscription goes upstream, and the upstream's update comes back.
        let mut updates = match version {
            ProtocolVersion::V2025_11_25 => {
                client.subscribe("notes://1").await.unwrap();
                None
            }
            _ => {
                let mut filter = SubscriptionFilter::default();
                filter.resource_subscriptions = Some(vec!["notes://1".into()]);
                Some(client.listen(filter).await.unwrap())
            }
        };
        let mut notifications = client.notifications();
        assert!(upstream.notify_resource_updated("notes://1") >= 1);
        let update = match &mut updates {
            Some(subscription) => subscription.next().await,
            None => Some(
                next_notification(&mut notifications, |next| {
                    matches!(next, ServerNotification::ResourceUpdated(_)).then_some(next)
                })
                .await,
            ),
        };
        let Some(ServerNotification::ResourceUpdated(update)) = update else {
            panic!("no update: {update:?}");
        };
        assert_eq!(update.uri, "notes://1");
        // An error of the upstream is the downstream's, code and message.
        let refused = client.read_resource("notes://x").await.unwrap_err();
        assert_eq!(
            refused
                .server_error()
                .map(|e| (e.code.0, e.message.as_str())),
            Some((-32602, "x is not a note id"))
        );
        let mut notifications = client.notifications();
        upstream
            .add_tool(ToolDefinition::new(
                "second",
                JsonObject::new(),
                |_, _| async { "two" },
            ))
            .unwrap();
        upstream.remove_tool("first");
        // The gateway lists again after each announcement: wait for the list without `first`.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if version == ProtocolVersion::V2025_11_25 {
                let next = tokio::time::timeout_at(deadline, notifications.recv()).await;
                assert!(matches!(next, Ok(Ok(_))), "no announcement came");
            } else {
                tokio::time::sleep(Duration::from_millis(20)).await;
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the list never changed"
                );
            }
            if names(client.list_all_tools().await.unwrap()) == ["second"] {
                break;
            }
        }
        assert_eq!(
            text(&client.call_tool("second", json!({})).await.unwrap()),
            "two"
        );
        upstream.remove_tool("second");
        upstream
            .add_tool(ToolDefinition::new(
                "first",
                JsonObject::new(),
                |_, _| async { "one" },
            ))
            .unwrap();
        while names(client.list_all_tools().await.unwrap()) != ["first"] {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test]
async fn an_upstream_that_dies_mid_call_fails_the_call_and_the_gateway_keeps_serving() {
    let (server, direct) = gateway(Some(ProtocolVersion::V2025_11_25)).await;
    let (asked, mut hanging) = tokio::sync::mpsc::unbounded_channel();
    // A client whose user never answers: the upstream's call waits until it dies.
    let client = McpClient::builder(Implementation::new("downstream", "1.0.0"))
        .protocol_version(ProtocolVersion::V2025_11_25)
        .elicitation(move |_| {
            let _ = asked.send(());
            std::future::pending()
        })
        .connect_in_process(server)
        .await
        .unwrap();
    let call = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("test_elicitation", json!({"message": "Who are you?"}))
                .await
        })
    };
    hanging.recv().await.unwrap();
    let pid = direct.process_id().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let failed = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    let error = failed.server_error().expect("an error of the gateway");
    assert_eq!(
        error.message,
        "tools/call failed: the server behind this gateway is gone (its connection closed)"
    );
    // The gateway still answers what does not need the upstream.
    client.ping().await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 35);
}

#[tokio::test]
async fn an_http_upstreams_logs_and_questions_reach_the_client_of_the_request() {
    let upstream = HttpExample::start("conformance-server", &["http", "127.0.0.1:0"]);
    for upstream_version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let connection = upstream_client(Implementation::new("gateway", "1.0.0"))
            .protocol_version(upstream_version)
            .connect_http(upstream.url.clone())
            .await
            .unwrap();
        let server = McpServer::builder(Implementation::new("gateway", "1.0.0"))
            .proxy(Proxy::new(connection).await.unwrap())
            .build()
            .unwrap();
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let client = downstream(server.clone(), version).await;
            if version == ProtocolVersion::V2025_11_25 {
                client.set_logging_level(LoggingLevel::Info).await.unwrap();
            }
            let mut notifications = client.notifications();
            let result = client
                .call_tool("test_tool_with_logging", json!({}))
                .await
                .unwrap();
            assert_eq!(text(&result), "Tool with logging executed successfully");
            let mut logged = Vec::new();
            while let Ok(Ok(next)) =
                tokio::time::timeout(Duration::from_millis(500), notifications.recv()).await
            {
                if let ServerNotification::LoggingMessage(message) = next {
                    logged.push(message.data);
                }
            }
            assert_eq!(
                logged,
                [
                    Value::from("Tool execution started"),
                    Value::from("Tool processing data"),
                    Value::from("Tool execution completed")
                ],
                "{upstream_version} -> {version}"
            );
            // Over HTTP each question comes on its request's stream: two calls at once each
            // reach their own client's user.
            let other = downstream(server.clone(), version).await;
            let (first, second) = tokio::join!(
                client.call_tool("test_elicitation", json!({"message": "first"})),
                other.call_tool("test_elicitation", json!({"message": "second"})),
            );
            assert!(text(&first.unwrap()).contains(r#""username":"first""#));
            assert!(text(&second.unwrap()).contains(r#""username":"second""#));
        }
    }
}

#[tokio::test]
async fn tools_that_run_as_tasks_run_as_tasks_through_the_gateway() {
    for (pair, client, _direct) in through_each_pair_of_eras().await {
        // A tool the upstream runs only as a task: followed upstream, a task here too.
        let task = client
            .call_tool_as_task("failing_job", json!({}), RequestOptions::new())
            .await
            .unwrap();
        assert!(task.id().is_some(), "{pair}");
        let failed = task.wait().await.unwrap();
        assert!(failed.is_error());
        assert_eq!(text(&failed), "The job failed: the input was rejected");
        // A tool that may run as one, asked to by the client.
        let task = client
            .call_tool_as_task(
                "slow_compute",
                json!({"seconds": 1, "label": "pi"}),
                RequestOptions::new(),
            )
            .await
            .unwrap();
        let result = task.wait().await.unwrap();
        assert_eq!(text(&result), "Computed pi in 1s", "{pair}");
        // What the upstream asks during a task is asked of the client through the task.
        let task = client
            .call_tool_as_task(
                "confirm_delete",
                json!({"filename": "a.txt"}),
                RequestOptions::new(),
            )
            .await
            .unwrap();
        let result = task.wait().await.unwrap();
        assert_eq!(text(&result), "Kept a.txt", "{pair}");
    }
}

#[tokio::test]
async fn a_cancelled_call_is_cancelled_upstream() {
    let cancelled = Arc::new(tokio::sync::Notify::new());
    let seen = cancelled.clone();
    let upstream = McpServer::builder(Implementation::new("upstream", "1.0.0"))
        .tool(ToolDefinition::new(
            "wait",
            JsonObject::new(),
            move |_, ctx: RequestContext| {
                let seen = seen.clone();
                async move {
                    ctx.cancelled().await;
                    seen.notify_one();
                    Err::<String, _>(ToolError::cancelled())
                }
            },
        ))
        .build()
        .unwrap();
    for upstream_version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let server = gateway_in_process(&upstream, upstream_version).await;
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let client = downstream(server.clone(), version).await;
            let stop = mcp_runtime::client::CancellationToken::new();
            let call = {
                let client = client.clone();
                let options = RequestOptions::new().cancel_on(stop.clone());
                tokio::spawn(async move { client.call_tool_with("wait", json!({}), options).await })
            };
            tokio::time::sleep(Duration::from_millis(50)).await;
            stop.cancel();
            // The upstream's handler sees its request cancelled.
            tokio::time::timeout(Duration::from_secs(10), cancelled.notified())
                .await
                .unwrap_or_else(|_| panic!("{upstream_version} -> {version}: not cancelled"));
            assert!(matches!(
                call.await.unwrap(),
                Err(mcp_runtime::client::ClientError::Cancelled { .. })
            ));
        }
    }
}

#[tokio::test]
async fn a_url_elicitation_and_its_completion_reach_the_client_that_was_asked() {
    let upstream = McpServer::builder(Implementation::new("upstream", "1.0.0"))
        .tool(ToolDefinition::new(
            "consent",
            JsonObject::new(),
            |_, ctx: RequestContext| async move {
                let answer = ctx
                    .elicit_url(
                        "Open the consent page",
                        "https://example.com/consent",
                        "e-9",
                    )
                    .await?;
                ctx.complete_url_elicitation("e-9").await;
                Ok::<_, ToolError>(format!("{:?}", answer.action))
            },
        ))
        .build()
        .unwrap();
    for upstream_version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let server = gateway_in_process(&upstream, upstream_version).await;
        let client = McpClient::builder(Implementation::new("downstream", "1.0.0"))
            .protocol_version(ProtocolVersion::V2025_11_25)
            .elicitation(|params| async move {
                let ElicitRequestParams::Url(url) = params else {
                    panic!("a URL was asked for");
                };
                assert_eq!(url.url, "https://example.com/consent");
                Ok(ElicitResult::accept(Default::default()))
            })
            .url_elicitation()
            .connect_in_process(server)
            .await
            .unwrap();
        let mut notifications = client.notifications();
        let result = client.call_tool("consent", json!({})).await.unwrap();
        assert_eq!(text(&result), "Accept", "{upstream_version}");
        // Only 2025-11-25 has the completion notification (and elicitation ids: the gateway
        // gives a 2026-07-28 upstream's URL elicitation one, which a 2025-11-25 client needs).
        if upstream_version == ProtocolVersion::V2026_07_28 {
            continue;
        }
        let completed = next_notification(&mut notifications, |next| match next {
            ServerNotification::ElicitationComplete(done) => Some(done.elicitation_id),
            _ => None,
        })
        .await;
        assert_eq!(completed, "e-9", "{upstream_version}");
    }
}

#[tokio::test]
async fn the_upstreams_skills_are_the_gateways() {
    for (pair, client, direct) in through_each_pair_of_eras().await {
        let skills = client.list_all_skills().await.unwrap();
        let upstream = direct.list_all_skills().await.unwrap();
        assert!(!skills.is_empty(), "{pair}");
        assert_eq!(
            serde_json::to_value(&skills).unwrap(),
            serde_json::to_value(&upstream).unwrap(),
            "{pair}"
        );
        // Each file reads the same, verified against the entry, as the upstream's.
        for entry in &skills {
            let loaded = client.load_skill(entry).await.unwrap();
            assert_eq!(loaded, direct.load_skill(entry).await.unwrap(), "{pair}");
            for file in &entry.resources {
                assert_eq!(
                    client.read_skill_file(entry, &file.uri).await.unwrap(),
                    direct.read_skill_file(entry, &file.uri).await.unwrap(),
                    "{pair}: {}",
                    file.uri
                );
            }
        }
    }
}
