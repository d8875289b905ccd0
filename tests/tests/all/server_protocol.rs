//! The server's protocol behaviour: lifecycle, capabilities, pagination, subscriptions, dynamic
//! registration, notifications from clients, and malformed input of every kind.

use std::sync::{Arc, Mutex};

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::completion::CompleteResult;
use mcp_runtime::protocol::implementation::Icon;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::resource::ResourceDefinition;
use mcp_runtime::resource::uri_template::MAX_MATCHED_URI_LENGTH;
use mcp_runtime::transport::in_process;
use mcp_runtime::transport::lines::LineOptions;
use serde_json::{Value, json};
use tests::TestClient;

/// Echo a text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Say hi.
#[mcp_prompt]
async fn hi() -> String {
    "hi".into()
}

/// A resource to watch.
#[mcp_resource(uri = "test://watched")]
async fn watched() -> String {
    "v1".into()
}

fn full_info() -> Implementation {
    let mut info = server_info!();
    info.title = Some("Test server".into());
    info.description = Some("Serves tests.".into());
    info.website_url = Some("https://example.com".into());
    info.icons = Some(vec![Icon::new("https://example.com/icon.png")]);
    info
}

fn builder() -> McpServerBuilder {
    McpServer::from_module(full_info(), module_path!())
}

fn initialize(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})
}

#[tokio::test]
async fn initialize_negotiates_and_renders_server_info_per_revision() {
    let server = builder().instructions("Be brief.").build().unwrap();
    for (asked, expected_version, expected_info) in [
        (
            "2024-11-05",
            "2024-11-05",
            json!({"name": "tests", "version": env!("CARGO_PKG_VERSION")}),
        ),
        (
            "2025-03-26",
            "2025-03-26",
            json!({"name": "tests", "version": env!("CARGO_PKG_VERSION")}),
        ),
        (
            "2025-06-18",
            "2025-06-18",
            json!({"name": "tests", "title": "Test server", "version": env!("CARGO_PKG_VERSION")}),
        ),
        (
            "2025-11-25",
            "2025-11-25",
            json!({"name": "tests", "title": "Test server", "version": env!("CARGO_PKG_VERSION"),
                                            "description": "Serves tests.", "icons": [{"src": "https://example.com/icon.png"}],
                                            "websiteUrl": "https://example.com"}),
        ),
        ("1999-01-01", "2025-11-25", Value::Null),
        ("2026-07-28", "2025-11-25", Value::Null),
    ] {
        let mut client = TestClient::connect(server.clone());
        client.expect_version(ProtocolVersion::from_name(expected_version).unwrap());
        let result = client
            .request("initialize", initialize(asked))
            .await
            .unwrap();
        assert_eq!(result["protocolVersion"], expected_version, "asked {asked}");
        assert_eq!(result["instructions"], "Be brief.");
        assert_eq!(
            result["capabilities"],
            json!({"prompts": {}, "resources": {}, "tools": {}})
        );
        if !expected_info.is_null() {
            assert_eq!(result["serverInfo"], expected_info, "asked {asked}");
        }
        client.close().await;
    }
}

#[tokio::test]
async fn a_second_initialize_is_refused() {
    let mut client = TestClient::initialized(
        builder().build().unwrap(),
        ProtocolVersion::V2025_06_18,
        json!({}),
    )
    .await;
    let error = client
        .request("initialize", initialize("2025-06-18"))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "the connection is already initialized; initialize may be sent once"})
    );
    client.close().await;
}

#[tokio::test]
async fn the_initialized_gate_is_opt_in() {
    let server = builder().require_initialized(true).build().unwrap();
    let mut client = TestClient::connect(server);
    client
        .request("initialize", initialize("2025-06-18"))
        .await
        .unwrap();
    client.expect_version(ProtocolVersion::V2025_06_18);
    let error = client.request("tools/list", json!({})).await.unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32002, "message": "tools/list refused: the client has not sent notifications/initialized yet"})
    );
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    client.notify("notifications/initialized", json!({})).await;
    assert_eq!(
        client.request("tools/list", json!({})).await.unwrap()["tools"][0]["name"],
        "echo"
    );
    client.close().await;
    // Without the gate, requests before `initialized` are served.
    let mut client = TestClient::connect(builder().build().unwrap());
    client
        .request("initialize", initialize("2025-06-18"))
        .await
        .unwrap();
    client.expect_version(ProtocolVersion::V2025_06_18);
    assert!(client.request("tools/list", json!({})).await.is_ok());
    client.close().await;
}

#[test]
fn capabilities_follow_what_is_offered_and_opted_into() {
    let bare = McpServer::builder(server_info!()).build().unwrap();
    assert_eq!(
        serde_json::to_value(bare.capabilities()).unwrap(),
        json!({})
    );
    let full = builder()
        .logging()
        .resource_subscriptions()
        .tools_list_changed()
        .prompts_list_changed()
        .resources_list_changed()
        .completions()
        .extension(
            "io.modelcontextprotocol/ui",
            json!({"mimeTypes": ["text/html"]})
                .as_object()
                .unwrap()
                .clone(),
        )
        .build()
        .unwrap();
    assert_eq!(
        serde_json::to_value(full.capabilities()).unwrap(),
        json!({
            "logging": {},
            "completions": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true},
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}
        })
    );
}

#[tokio::test]
async fn every_list_is_paginated_with_opaque_cursors() {
    let mut builder = builder().page_size(2);
    for i in 0..3 {
        builder = builder.tool(ToolDefinition::new(
            format!("t{i}"),
            json!({"type": "object"}).as_object().unwrap().clone(),
            |_, _| async { "" },
        ));
        builder = builder.resource(ResourceDefinition::new(
            format!("test://r{i}"),
            format!("r{i}"),
            |_| async { "" },
        ));
    }
    let mut client = TestClient::initialized(
        builder.build().unwrap(),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let page = client.request("tools/list", params).await.unwrap();
        let tools = page["tools"].as_array().unwrap();
        assert!(tools.len() <= 2);
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(names, ["echo", "t0", "t1", "t2"]);
    let first = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(first["resources"].as_array().unwrap().len(), 2);
    let rest = client
        .request("resources/list", json!({"cursor": first["nextCursor"]}))
        .await
        .unwrap();
    assert_eq!(rest["resources"].as_array().unwrap().len(), 2);
    assert_eq!(rest.get("nextCursor"), None);
    let error = client
        .request("prompts/list", json!({"cursor": "not-a-cursor"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32602, "message": "Invalid cursor for prompts/list: \"not-a-cursor\""})
    );
    // A cursor belongs to its list: the tools cursor is refused by the other lists.
    let tools_cursor = client.request("tools/list", json!({})).await.unwrap()["nextCursor"].clone();
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let error = client
            .request(method, json!({"cursor": tools_cursor}))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32602, "message": format!("Invalid cursor for {method}: {tools_cursor}")})
        );
    }
    // Hand-made cursors: a signed offset, and one past the end of the list.
    use base64::Engine;
    let forge = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    let error = client
        .request("tools/list", json!({"cursor": forge("mcp-page:tools:+2")}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    let past_end = forge("mcp-page:tools:4");
    let error = client
        .request("tools/list", json!({"cursor": past_end}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32602, "message": format!("Invalid cursor for tools/list: \"{past_end}\" points past the end of the list")})
    );
    let last = client
        .request("tools/list", json!({"cursor": forge("mcp-page:tools:3")}))
        .await
        .unwrap();
    assert_eq!(last, json!({"tools": [last["tools"][0].clone()]}));
    assert_eq!(last["tools"][0]["name"], "t2");
    client.close().await;
}

#[tokio::test]
async fn subscriptions_reach_only_subscribers() {
    let server = builder().resource_subscriptions().build().unwrap();
    let mut subscriber =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    let mut bystander =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    subscriber
        .request("resources/subscribe", json!({"uri": "test://watched"}))
        .await
        .unwrap();
    let error = subscriber
        .request("resources/subscribe", json!({"uri": "test://nothing"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32002);
    assert_eq!(server.notify_resource_updated("test://watched"), 1);
    assert_eq!(server.notify_resource_updated("test://other"), 0);
    let updated = subscriber
        .notification("notifications/resources/updated")
        .await;
    assert_eq!(updated["params"], json!({"uri": "test://watched"}));
    subscriber
        .request("resources/unsubscribe", json!({"uri": "test://watched"}))
        .await
        .unwrap();
    assert_eq!(server.notify_resource_updated("test://watched"), 0);
    assert_eq!(
        bystander.request("ping", json!({})).await.unwrap(),
        json!({})
    );
    assert!(bystander.take_notifications().is_empty());
    subscriber.close().await;
    bystander.close().await;
}

#[tokio::test]
async fn features_that_are_not_enabled_are_unknown_methods() {
    let mut client = TestClient::initialized(
        builder().build().unwrap(),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    for (method, params) in [
        ("resources/subscribe", json!({"uri": "test://watched"})),
        ("logging/setLevel", json!({"level": "info"})),
        ("tasks/list", json!({})),
    ] {
        let error = client.request(method, params).await.unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32601, "message": format!("Method not found: {method}")})
        );
    }
    client.close().await;
}

#[tokio::test]
async fn dynamic_registration_announces_list_changes() {
    let server = builder()
        .tools_list_changed()
        .prompts_list_changed()
        .resources_list_changed()
        .build()
        .unwrap();
    let mut client =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    let schema = json!({"type": "object", "properties": {}})
        .as_object()
        .unwrap()
        .clone();
    server
        .add_tool(ToolDefinition::new("late", schema.clone(), |_, _| async {
            "late"
        }))
        .unwrap();
    client
        .notification("notifications/tools/list_changed")
        .await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(tools["tools"][1]["name"], "late");
    assert_eq!(
        server
            .add_tool(ToolDefinition::new("late", schema, |_, _| async { "" }))
            .unwrap_err()
            .to_string(),
        "two tools are named `late`: one registered at run time, one registered at run time"
    );
    assert!(server.remove_tool("late"));
    client
        .notification("notifications/tools/list_changed")
        .await;
    assert!(!server.remove_tool("late"));
    assert!(server.remove_prompt("hi"));
    client
        .notification("notifications/prompts/list_changed")
        .await;
    assert!(server.remove_resource("test://watched"));
    client
        .notification("notifications/resources/list_changed")
        .await;
    assert_eq!(
        client.request("resources/list", json!({})).await.unwrap(),
        json!({"resources": []})
    );
    client.close().await;
}

#[tokio::test]
async fn client_notifications_reach_observers() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let roots_changed = Arc::new(Mutex::new(0));
    let server = {
        let seen = seen.clone();
        let roots_changed = roots_changed.clone();
        builder()
            .on_notification(move |n, _| {
                seen.lock()
                    .unwrap()
                    .push(format!("{n:?}").split('(').next().unwrap().to_owned())
            })
            .on_roots_list_changed(move |_| *roots_changed.lock().unwrap() += 1)
            .build()
            .unwrap()
    };
    let mut client = TestClient::initialized(
        server,
        ProtocolVersion::V2025_11_25,
        json!({"roots": {"listChanged": true}}),
    )
    .await;
    client
        .notify("notifications/roots/list_changed", json!({}))
        .await;
    client.notify("notifications/unknown", json!({})).await;
    client.request("ping", json!({})).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), ["Initialized", "RootsListChanged"]);
    assert_eq!(*roots_changed.lock().unwrap(), 1);
    client.close().await;
}

/// Sends `line` and returns the one reply.
async fn exchange(client: &mut TestClient, line: &str) -> Value {
    client.send_raw(line).await;
    client.recv().await.expect("a reply")
}

#[tokio::test]
async fn params_nested_too_deep_are_refused_saying_so() {
    let server = builder().build().unwrap();
    let connection = ConnectionState::persistent(None);
    let depth = 300;
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}{}}}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let reply: Value = serde_json::from_str(
        &server
            .handle_raw(request.as_bytes(), &connection, None)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "Invalid params for tools/call: recursion limit exceeded at line 1 column 161"}})
    );
}

#[tokio::test]
async fn malformed_input_gets_the_json_rpc_error_and_the_server_keeps_serving() {
    let mut client = TestClient::initialized(
        builder().build().unwrap(),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    let cases: Vec<(&str, Value)> = vec![
        (
            "{not json",
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700}}),
        ),
        (
            "[",
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700}}),
        ),
        (
            "\"just a string\"",
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            "[]",
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":42}"#,
            json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":0,"method":"no/such/method"}"#,
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32601}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":[1,2]}"#,
            json!({"jsonrpc": "2.0", "id": "s", "error": {"code": -32602}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":-1,"method":"tools/call","params":{"name":7}}"#,
            json!({"jsonrpc": "2.0", "id": -1, "error": {"code": -32602}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ghost"}}"#,
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602}}),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        // Ids that are neither strings nor integers of i64 cannot be echoed.
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}),
        ),
        // `params` of any wrong type is invalid params, whatever the type.
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":"str"}"#,
            json!({"jsonrpc": "2.0", "id": 11, "error": {"code": -32602}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/list","params":1}"#,
            json!({"jsonrpc": "2.0", "id": 12, "error": {"code": -32602}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":[1]}"#,
            json!({"jsonrpc": "2.0", "id": 13, "error": {"code": -32602}}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/list","params":true}"#,
            json!({"jsonrpc": "2.0", "id": 14, "error": {"code": -32602}}),
        ),
    ];
    for (line, expected) in cases {
        let reply = exchange(&mut client, line).await;
        assert_eq!(reply["jsonrpc"], expected["jsonrpc"], "{line}");
        assert_eq!(reply["id"], expected["id"], "{line}");
        assert_eq!(
            reply["error"]["code"], expected["error"]["code"],
            "{line}: {reply}"
        );
        assert!(reply["error"]["message"].is_string(), "{line}");
        let bad_id = [
            "true",
            "{\"n\":1}",
            "1.5",
            "9223372036854775808",
            "18446744073709551616",
        ]
        .iter()
        .any(|id| line.contains(&format!(r#""id":{id},"#)));
        if bad_id {
            assert_eq!(
                reply["error"]["message"],
                "Invalid request: the id must be a string or an integer from -2^63 to 2^63-1",
                "{line}"
            );
        }
        if expected["error"]["code"] == -32602 && line.contains("tools/list") {
            assert_eq!(
                reply["error"]["message"],
                "Invalid params for tools/list: params must be an object",
                "{line}"
            );
        }
    }
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(exchange(&mut client, &deep).await["error"]["code"], -32700);
    // Ids of every kind are echoed exactly.
    for id in [
        json!(0),
        json!("0"),
        json!(""),
        json!(9_007_199_254_740_993_i64),
        json!("ü-id"),
    ] {
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        assert_eq!(
            client.recv().await.unwrap(),
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
    }
    assert_eq!(
        client
            .request(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "still here"}})
            )
            .await
            .unwrap()["content"][0]["text"],
        "still here"
    );
    client.close().await;
}

#[tokio::test]
async fn an_oversized_message_is_refused_and_the_next_one_served() {
    let server = builder().build().unwrap();
    let mut peer = in_process::connect_with(server, LineOptions::default().max_message_size(1024));
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"text": "x".repeat(5000)}}});
    peer.send(&big).await.unwrap();
    let reply = peer.recv().await.unwrap().unwrap();
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit of 1024 bytes")
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await
        .unwrap();
    assert_eq!(
        peer.recv().await.unwrap().unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    peer.close().await.unwrap();
}

#[tokio::test]
async fn batches_are_served_for_2025_03_26() {
    let mut client = TestClient::initialized(
        builder().build().unwrap(),
        ProtocolVersion::V2025_03_26,
        json!({}),
    )
    .await;
    client
        .send_raw(
            r#"[{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},
                {"jsonrpc":"2.0","method":"notifications/initialized"},
                {"jsonrpc":"2.0","id":11,"method":"nope"},
                {"jsonrpc":"2.0","id":12,"method":"initialize","params":{}},
                7]"#
                .replace('\n', "")
                .as_str(),
        )
        .await;
    let reply = client.recv().await.unwrap();
    let replies = reply.as_array().expect("a batch reply");
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).cloned().unwrap();
    assert_eq!(replies.len(), 4);
    assert_eq!(by_id(json!(10))["result"]["content"][0]["text"], "a");
    assert_eq!(by_id(json!(11))["error"]["code"], -32601);
    assert_eq!(
        by_id(json!(12))["error"]["message"],
        "initialize must not be part of a batch"
    );
    assert_eq!(by_id(Value::Null)["error"]["code"], -32600);
    // An all-notification batch gets no reply.
    client
        .send_raw(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#)
        .await;
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    client.close().await;
}

#[tokio::test]
async fn responses_are_rendered_for_the_negotiated_revision() {
    let server = builder()
        .tool(
            ToolDefinition::new(
                "fancy",
                json!({"type": "object"}).as_object().unwrap().clone(),
                |_, _| async {
                    vec![
                        ContentBlock::audio("UklGRg==", "audio/wav"),
                        ContentBlock::resource_link(
                            mcp_runtime::protocol::resources::Resource::new(
                                "test://watched",
                                "watched",
                            ),
                        ),
                    ]
                },
            )
            .title("Fancy")
            .icons(vec![Icon::new("https://example.com/f.png")]),
        )
        .build()
        .unwrap();
    let mut old =
        TestClient::initialized(server.clone(), ProtocolVersion::V2024_11_05, json!({})).await;
    let tools = old.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        tools["tools"][1],
        json!({"name": "fancy", "inputSchema": {"type": "object"}})
    );
    let result = old
        .request("tools/call", json!({"name": "fancy"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"content": [
            {"type": "resource", "resource": {"uri": "data:audio/wav;base64,UklGRg==", "mimeType": "audio/wav", "blob": "UklGRg=="}},
            {"type": "text", "text": "watched <test://watched>"}
        ]})
    );
    old.close().await;
    let mut new = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let result = new
        .request("tools/call", json!({"name": "fancy"}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["type"], "audio");
    assert_eq!(result["content"][1]["type"], "resource_link");
    new.close().await;
}

#[tokio::test]
async fn input_validation_can_be_turned_off_and_output_validation_on() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let output =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let tool = |name: &str, structured: Option<Value>| {
        ToolDefinition::new(name, schema.as_object().unwrap().clone(), move |args, _| {
            let structured = structured.clone();
            async move {
                let mut result = CallToolResult::success(vec![ContentBlock::text(
                    Value::Object(args).to_string(),
                )]);
                result.structured_content = structured;
                result
            }
        })
        .output_schema(output.as_object().unwrap().clone())
    };
    let server = McpServer::builder(server_info!())
        .tool(tool("good", Some(json!({"ok": true}))))
        .tool(tool("bad", Some(json!({"ok": "yes"}))))
        .tool(tool("none", None))
        .validate_input(false)
        .validate_output(true)
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let unchecked = client
        .request(
            "tools/call",
            json!({"name": "good", "arguments": {"n": "x"}}),
        )
        .await
        .unwrap();
    assert_eq!(unchecked["content"][0]["text"], "{\"n\":\"x\"}");
    let error = client
        .request("tools/call", json!({"name": "bad", "arguments": {"n": 1}}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32603, "message": "Tool bad returned structured content that does not match its output schema: ok: \"yes\" is not of type \"boolean\""})
    );
    let error = client
        .request("tools/call", json!({"name": "none", "arguments": {"n": 1}}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32603, "message": "Tool none has an output schema but returned no structured content"})
    );
    client.close().await;
}

#[tokio::test]
async fn requests_run_concurrently_on_one_connection() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let server = {
        let gate = gate.clone();
        McpServer::builder(server_info!())
            .tool(ToolDefinition::new(
                "blocked",
                json!({"type": "object"}).as_object().unwrap().clone(),
                move |_, _| {
                    let gate = gate.clone();
                    async move {
                        gate.notified().await;
                        "released"
                    }
                },
            ))
            .build()
            .unwrap()
    };
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    client.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "blocked"}})).await;
    // A ping is answered while the tool still waits.
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    gate.notify_one();
    let slow = client.response_to(&json!("slow"), "tools/call").await;
    assert_eq!(slow["result"]["content"][0]["text"], "released");
    client.close().await;
}

#[tokio::test]
async fn a_global_completion_handler_comes_before_argument_completers() {
    use mcp_runtime::protocol::completion::{CompleteResult, CompletionReference};
    let server = builder()
        .completion_handler(|params, _ctx| async move {
            match &params.reference {
                CompletionReference::Prompt(p) if p.name == "hi" => Some(CompleteResult::new(
                    vec![format!("{}!", params.argument.value)],
                )),
                _ => None,
            }
        })
        .build()
        .unwrap();
    assert!(server.capabilities().completions.is_some());
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let answer = client
        .request("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "hi"}, "argument": {"name": "x", "value": "he"}}))
        .await
        .unwrap();
    assert_eq!(answer, json!({"completion": {"values": ["he!"]}}));
    let answer = client
        .request("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "test://watched"}, "argument": {"name": "x", "value": ""}}))
        .await
        .unwrap();
    assert_eq!(answer, json!({"completion": {"values": []}}));
    client.close().await;
}

fn object_schema() -> mcp_runtime::protocol::JsonObject {
    json!({"type": "object"}).as_object().unwrap().clone()
}

/// A server whose handlers panic in every place a request can reach.
fn panicking_server() -> McpServerBuilder {
    use mcp_runtime::prompt::PromptDefinition;
    use mcp_runtime::resource::ResourceTemplateDefinition;
    builder()
        .completion_handler(|params, _ctx| {
            assert_ne!(params.argument.name, "boom", "the completion handler broke");
            async { None }
        })
        .prompt(
            PromptDefinition::new("fragile", |_, _| async { "fine" }).complete_argument(
                "name",
                Arc::new(|_: &CompletionRequest, _: &RequestContext| -> Vec<String> {
                    panic!("the completer broke")
                }),
            ),
        )
        .tool(ToolDefinition::new(
            "sync_panic",
            object_schema(),
            |_, _| -> std::future::Ready<&'static str> { panic!("before any await") },
        ))
        .resource_template(
            ResourceTemplateDefinition::new(
                "broken://{x}",
                "broken",
                |_, _, _| -> std::future::Ready<&'static str> { panic!("the reader broke early") },
            )
            .unwrap(),
        )
}

#[tokio::test]
async fn panics_on_the_request_path_are_internal_errors_and_free_the_id() {
    let mut client = TestClient::initialized(
        panicking_server().build().unwrap(),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    let cases = [
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "hi"}, "argument": {"name": "boom", "value": ""}}),
            "completion/complete failed: the handler panicked (assertion `left != right` failed: the completion handler broke\n  left: \"boom\"\n right: \"boom\")",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "fragile"}, "argument": {"name": "name", "value": ""}}),
            "completion/complete failed: the handler panicked (the completer broke)",
        ),
        (
            "resources/read",
            json!({"uri": "broken://1"}),
            "resources/read failed: the handler panicked (the reader broke early)",
        ),
    ];
    for (method, params, message) in cases {
        // The same id twice: the first use was freed despite the panic.
        for _ in 0..2 {
            client
                .send(&json!({"jsonrpc": "2.0", "id": 50, "method": method, "params": params}))
                .await;
            let reply = client.response_to(&json!(50), method).await;
            assert_eq!(
                reply,
                json!({"jsonrpc": "2.0", "id": 50, "error": {"code": -32603, "message": message}})
            );
        }
    }
    // A tool that panics before its future exists is still a tool error result.
    let result = client
        .request("tools/call", json!({"name": "sync_panic"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "Tool sync_panic failed: it panicked (before any await)"}], "isError": true})
    );
    client.close().await;
}

#[tokio::test]
async fn a_panicking_observer_does_not_stop_the_connection() {
    let server = builder()
        .on_roots_list_changed(|_| panic!("the observer broke"))
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    client
        .notify("notifications/roots/list_changed", json!({}))
        .await;
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    client
        .notify("notifications/roots/list_changed", json!({}))
        .await;
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    client.close().await;
}

#[tokio::test]
async fn a_cancellation_of_initialize_is_ignored() {
    let mut client = TestClient::connect(builder().build().unwrap());
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize("2025-11-25")}))
        .await;
    client
        .notify("notifications/cancelled", json!({"requestId": 1}))
        .await;
    let reply = client.response_to(&json!(1), "initialize").await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    client.notify("notifications/initialized", json!({})).await;
    client.sync().await;
    let (responses, _) = client.finish().await;
    assert_eq!(responses, Vec::<Value>::new());
}

/// A server with a tool that blocks until `gate` is notified.
fn gated_server(gate: Arc<tokio::sync::Notify>) -> McpServerBuilder {
    builder().tool(ToolDefinition::new(
        "blocked",
        object_schema(),
        move |_, _| {
            let gate = gate.clone();
            async move {
                gate.notified().await;
                "released"
            }
        },
    ))
}

#[tokio::test]
async fn a_duplicate_id_in_flight_is_refused_without_hiding_the_original() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let server = gated_server(gate.clone()).build().unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "blocked"}}))
        .await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        .await;
    // The refusal carries no id (2025-11-25 leaves an unknown id out), so it cannot be taken
    // for the answer to the original.
    assert_eq!(
        client.recv().await.unwrap(),
        json!({"jsonrpc": "2.0", "error": {
            "code": -32600,
            "message": "request id 9 is already in use by a request in flight; the duplicate was not handled",
            "data": {"duplicateId": 9}
        }})
    );
    gate.notify_one();
    let (responses, _) = client.finish().await;
    assert_eq!(
        responses,
        vec![
            json!({"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": "released"}]}})
        ]
    );
}

#[tokio::test]
async fn requests_beyond_the_in_flight_cap_are_refused() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let server = gated_server(gate.clone())
        .max_requests_in_flight(1)
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "blocked"}}))
        .await;
    assert_eq!(
        client.request("ping", json!({})).await.unwrap_err(),
        json!({"code": -32000, "message": "too many requests in flight on this connection (the limit is 1); retry when some have been answered"})
    );
    gate.notify_one();
    let slow = client.response_to(&json!("slow"), "tools/call").await;
    assert_eq!(slow["result"]["content"][0]["text"], "released");
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    client.close().await;
}

#[tokio::test]
async fn list_changes_reach_only_clients_that_finished_the_handshake() {
    let server = builder().tools_list_changed().build().unwrap();
    let tool = |name: &str| ToolDefinition::new(name, object_schema(), |_, _| async { "" });
    let mut client = TestClient::connect(server.clone());
    client
        .request("initialize", initialize("2025-11-25"))
        .await
        .unwrap();
    // Initialized, but `notifications/initialized` not sent yet: nothing is announced.
    server.add_tool(tool("early")).unwrap();
    assert!(server.connections().is_empty());
    client.notify("notifications/initialized", json!({})).await;
    client.sync().await;
    assert_eq!(client.take_notifications(), Vec::<Value>::new());
    assert_eq!(server.connections().len(), 1);
    server.add_tool(tool("late")).unwrap();
    client.sync().await;
    assert_eq!(
        client.take_notifications(),
        vec![json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})]
    );
    client.close().await;
}

#[tokio::test]
async fn every_kind_of_dynamic_registration_is_announced_to_every_client() {
    use mcp_runtime::prompt::PromptDefinition;
    use mcp_runtime::resource::ResourceTemplateDefinition;
    let server = builder()
        .prompts_list_changed()
        .resources_list_changed()
        .build()
        .unwrap();
    let mut first =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_11_25, json!({})).await;
    let mut second =
        TestClient::initialized(server.clone(), ProtocolVersion::V2025_06_18, json!({})).await;
    let template =
        || ResourceTemplateDefinition::new("t://{x}", "t", |_, _, _| async { "" }).unwrap();
    let prompts = json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"});
    let resources = json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"});
    type Change<'a> = Box<dyn Fn() -> bool + 'a>;
    let steps: Vec<(Change, &Value)> = vec![
        (
            Box::new(|| {
                server
                    .add_prompt(PromptDefinition::new("p", |_, _| async { "" }))
                    .is_ok()
            }),
            &prompts,
        ),
        (Box::new(|| server.remove_prompt("p")), &prompts),
        (
            Box::new(|| {
                server
                    .add_resource(ResourceDefinition::new("r://1", "r", |_| async { "" }))
                    .is_ok()
            }),
            &resources,
        ),
        (Box::new(|| server.remove_resource("r://1")), &resources),
        (
            Box::new(|| server.add_resource_template(template()).is_ok()),
            &resources,
        ),
        (
            Box::new(|| server.remove_resource_template("t://{x}")),
            &resources,
        ),
    ];
    for (change, expected) in steps {
        assert!(change());
        for client in [&mut first, &mut second] {
            client.sync().await;
            assert_eq!(client.take_notifications(), vec![expected.clone()]);
        }
    }
    // Removing what is not there changes nothing and announces nothing.
    assert!(!server.remove_resource_template("t://{x}"));
    assert!(!server.remove_prompt("p"));
    // Tool list changes were not opted in to: nothing is sent.
    server
        .add_tool(ToolDefinition::new(
            "quiet",
            object_schema(),
            |_, _| async { "" },
        ))
        .unwrap();
    for client in [&mut first, &mut second] {
        client.sync().await;
        assert_eq!(client.take_notifications(), Vec::<Value>::new());
    }
    first.close().await;
    second.close().await;
}

#[tokio::test]
async fn handle_raw_answers_parse_errors_and_refuses_batches_by_revision() {
    let server = builder().build().unwrap();
    let connection = ConnectionState::persistent(None);
    let reply: Value = serde_json::from_str(
        &server
            .handle_raw(b"{oops", &connection, None)
            .await
            .unwrap(),
    )
    .unwrap();
    // No handshake yet: the parse error follows the connection's default revision (2025-11-25),
    // which leaves the unknown id out.
    assert_eq!(
        (reply.get("id"), reply["error"]["code"].clone()),
        (None, json!(-32700))
    );
    let batch =
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    assert_eq!(
        server.handle_raw(batch, &connection, None).await.unwrap(),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"JSON-RPC batches are accepted only from peers speaking 2025-03-26 (this one speaks 2025-11-25)"}}"#
    );
    // A peer that negotiated 2025-03-26 may batch.
    let old = ConnectionState::persistent(None);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize("2025-03-26")});
    server
        .handle_raw(init.to_string().as_bytes(), &old, None)
        .await
        .unwrap();
    assert_eq!(
        server.handle_raw(batch, &old, None).await.unwrap(),
        r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]"#
    );
    // A notification gets no reply.
    assert_eq!(
        server
            .handle_raw(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &old,
                None
            )
            .await,
        None
    );
}

#[tokio::test]
async fn state_features_are_refused_on_a_transient_connection() {
    let server = builder()
        .logging()
        .resource_subscriptions()
        .build()
        .unwrap();
    let connection = ConnectionState::transient(ProtocolVersion::V2025_06_18);
    for (method, params) in [
        ("resources/subscribe", json!({"uri": "test://watched"})),
        ("resources/unsubscribe", json!({"uri": "test://watched"})),
        ("logging/setLevel", json!({"level": "debug"})),
    ] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let reply = server
            .handle_raw(request.to_string().as_bytes(), &connection, None)
            .await
            .unwrap();
        assert_eq!(
            reply,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32600,"message":"{method} needs a session, and this request has none: the server was built `.stateless()` (sessions are the default over HTTP; stdio always has one)"}}}}"#
            )
        );
    }
    // The same server in its default (stateless) mode keeps a persistent connection's state.
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    assert_eq!(
        client
            .request("logging/setLevel", json!({"level": "debug"}))
            .await
            .unwrap(),
        json!({})
    );
    assert_eq!(
        client
            .request("resources/subscribe", json!({"uri": "test://watched"}))
            .await
            .unwrap(),
        json!({})
    );
    client.close().await;
}

#[tokio::test]
async fn a_completion_handler_returning_none_falls_back_to_the_completers() {
    use mcp_runtime::prompt::PromptDefinition;
    let server = builder()
        .completion_handler(|params, _ctx| async move {
            (params.argument.name == "mood").then(|| CompleteResult::new(vec!["happy".to_owned()]))
        })
        .prompt(
            PromptDefinition::new("greet", |_, _| async { "hello" }).complete_argument(
                "name",
                Arc::new(|request: &CompletionRequest, _: &RequestContext| {
                    ["ada", "alan", "bob"]
                        .into_iter()
                        .filter(|n| n.starts_with(&request.value))
                        .map(str::to_owned)
                        .collect()
                }),
            ),
        )
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let complete = |name: &str, value: &str| json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": name, "value": value}});
    assert_eq!(
        client
            .request("completion/complete", complete("name", "a"))
            .await
            .unwrap(),
        json!({"completion": {"values": ["ada", "alan"]}})
    );
    assert_eq!(
        client
            .request("completion/complete", complete("mood", ""))
            .await
            .unwrap(),
        json!({"completion": {"values": ["happy"]}})
    );
    client.close().await;
}

#[tokio::test]
async fn the_default_log_level_filters_until_the_client_sets_one() {
    let server = builder()
        .default_log_level(LoggingLevel::Warning)
        .tool(ToolDefinition::new(
            "chatty",
            object_schema(),
            |_, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Info, "info").await;
                ctx.log(LoggingLevel::Warning, "warning").await;
                "done"
            },
        ))
        .build()
        .unwrap();
    assert_eq!(server.capabilities().logging, Some(Default::default()));
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let log = |level: &str, data: &str| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "data": data}});
    client
        .request("tools/call", json!({"name": "chatty"}))
        .await
        .unwrap();
    assert_eq!(client.take_notifications(), vec![log("warning", "warning")]);
    client
        .request("logging/setLevel", json!({"level": "info"}))
        .await
        .unwrap();
    client
        .request("tools/call", json!({"name": "chatty"}))
        .await
        .unwrap();
    assert_eq!(
        client.take_notifications(),
        vec![log("info", "info"), log("warning", "warning")]
    );
    client.close().await;
}

#[tokio::test]
async fn crafted_long_uris_are_matched_quickly_and_overlong_ones_are_not_found() {
    use mcp_runtime::resource::ResourceTemplateDefinition;
    let server = builder()
        .resource_template(
            ResourceTemplateDefinition::new("x://{a}-{b}", "pair", |_, captured, _| async move {
                let a = captured.get("a").unwrap_or_default().len();
                let b = captured.get("b").unwrap_or_default().len();
                format!("a={a} b={b}")
            })
            .unwrap(),
        )
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    // Every `-` is a candidate split, and none works: this took minutes before.
    let body = "%41-".repeat(2040);
    let no_match = format!("x://{body}/");
    let error = client
        .request("resources/read", json!({"uri": no_match}))
        .await
        .unwrap_err();
    assert_eq!(
        (error["code"].clone(), error["data"]["uri"].clone()),
        (json!(-32002), json!(no_match))
    );
    let matching = format!("x://{body}z");
    let read = client
        .request("resources/read", json!({"uri": matching}))
        .await
        .unwrap();
    assert_eq!(
        read["contents"][0]["text"],
        format!("a=1 b={}", 2 * 2039 + 1)
    );
    // Beyond the cap, nothing matches.
    let overlong = format!("x://a-{}", "b".repeat(MAX_MATCHED_URI_LENGTH));
    let error = client
        .request("resources/read", json!({"uri": overlong}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32002);
    client.close().await;
}

#[tokio::test]
async fn a_2026_07_28_client_needs_no_handshake_on_a_persistent_connection() {
    let mut client = TestClient::connect(builder().build().unwrap());
    client.expect_version(ProtocolVersion::V2026_07_28);
    let meta = |version: &str| {
        json!({"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {}})
    };
    let call = json!({"name": "echo", "arguments": {"text": "hi"}, "_meta": meta("2026-07-28")});
    let mut result = client.request("tools/call", call).await.unwrap();
    // No handshake named the server: the result does.
    let info = result["_meta"]["io.modelcontextprotocol/serverInfo"].take();
    assert_eq!(
        (info["name"].clone(), info["title"].clone()),
        (json!("tests"), json!("Test server"))
    );
    assert_eq!(
        result,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "hi"}],
            "_meta": {"io.modelcontextprotocol/serverInfo": null}})
    );
    assert_eq!(
        client
            .request("ping", json!({"_meta": meta("2026-07-28")}))
            .await,
        Err(json!({"code": -32601, "message": "Method not found: ping"}))
    );
    let no_capabilities =
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    assert_eq!(
        client.request("tools/list", no_capabilities).await,
        Err(json!({"code": -32602,
            "message": "Invalid params: _meta lacks io.modelcontextprotocol/clientCapabilities"}))
    );
    assert_eq!(
        client
            .request("tools/list", json!({"_meta": meta("2099-01-01")}))
            .await,
        Err(
            json!({"code": -32022, "message": "Unsupported protocol version", "data": {
            "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "requested": "2099-01-01"}})
        )
    );
    // The same connection still serves the handshake era to a request without that _meta.
    client.expect_version(ProtocolVersion::V2025_11_25);
    let result = client
        .request("initialize", initialize("2025-11-25"))
        .await
        .unwrap();
    assert_eq!(result["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn a_listen_stream_on_a_persistent_connection_ends_with_its_cancellation() {
    let server = builder().tools_list_changed().build().unwrap();
    let mut client = TestClient::connect(server.clone());
    client.expect_version(ProtocolVersion::V2026_07_28);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}}),
        )
        .await;
    // The acknowledgement and what follows are written in the request's revision, although the
    // connection never negotiated one.
    assert_eq!(
        client
            .notification("notifications/subscriptions/acknowledged")
            .await,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": {"toolsListChanged": true},
                "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}})
    );
    server.add_tool(tests::placeholder_tool("late")).unwrap();
    assert_eq!(
        client
            .notification("notifications/tools/list_changed")
            .await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}})
    );
    // Cancelling the request ends the stream: nothing reaches it any more, and no response comes.
    client
        .notify("notifications/cancelled", json!({"requestId": "listen-1"}))
        .await;
    let mut reached = usize::MAX;
    for _ in 0..100 {
        reached = server.notify(ServerNotification::ToolListChanged(Default::default()));
        if reached == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(reached, 0);
    let (responses, rest) = client.finish().await;
    assert!(
        responses.iter().all(|r| r["id"] != "listen-1"),
        "{responses:?}"
    );
    assert!(
        rest.iter()
            .all(|m| m["method"] == "notifications/tools/list_changed"),
        "{rest:?}"
    );
}

#[tokio::test]
async fn cache_hints_are_set_per_list_and_per_resource() {
    use mcp_runtime::protocol::result::CacheHint;
    use mcp_runtime::server::caching::CachedList;
    use std::time::Duration;

    let cached = ResourceDefinition::new("test://cached", "cached", |_| async { "fresh" })
        .cache(CacheHint::private(Duration::from_secs(60)));
    let server = builder()
        .cache_hint(
            CachedList::Tools,
            CacheHint::public(Duration::from_secs(300)),
        )
        .cache_hint(
            CachedList::Discover,
            CacheHint::public(Duration::from_secs(3600)),
        )
        .resource(cached)
        .build()
        .unwrap();
    let mut client = TestClient::connect(server);
    client.expect_version(ProtocolVersion::V2026_07_28);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let hints = |result: Value| (result["ttlMs"].clone(), result["cacheScope"].clone());
    let discover = client
        .request("server/discover", json!({"_meta": meta}))
        .await
        .unwrap();
    assert_eq!(hints(discover), (json!(3_600_000), json!("public")));
    let tools = client
        .request("tools/list", json!({"_meta": meta}))
        .await
        .unwrap();
    assert_eq!(hints(tools), (json!(300_000), json!("public")));
    // Lists without a hint must not be reused.
    let prompts = client
        .request("prompts/list", json!({"_meta": meta}))
        .await
        .unwrap();
    assert_eq!(hints(prompts), (json!(0), json!("private")));
    let read = json!({"uri": "test://cached", "_meta": meta});
    let read = client.request("resources/read", read).await.unwrap();
    assert_eq!(hints(read.clone()), (json!(60_000), json!("private")));
    assert_eq!(read["contents"][0]["text"], "fresh");
    let read = json!({"uri": "test://watched", "_meta": meta});
    let read = client.request("resources/read", read).await.unwrap();
    assert_eq!(hints(read), (json!(0), json!("private")));
}

#[test]
fn tools_with_invalid_header_annotations_do_not_build() {
    let schema = |header: &str, kind: &str| {
        json!({"type": "object", "properties": {"p": {"type": kind, "x-mcp-header": header}}})
            .as_object()
            .unwrap()
            .clone()
    };
    let tool = |name: &str, header: &str, kind: &str| {
        ToolDefinition::new(name, schema(header, kind), |_, _| async { "ok" })
    };
    builder()
        .tool(tool("routed", "Region", "string"))
        .build()
        .unwrap();
    let cases = [
        (
            tool("float_header", "Score", "number"),
            "the input schema of tool `float_header` is invalid: invalid x-mcp-header annotation at /p: the property is not a string, integer or boolean",
        ),
        (
            tool("spaced_header", "Has Space", "string"),
            "the input schema of tool `spaced_header` is invalid: invalid x-mcp-header annotation at /p: the name is not an HTTP header token",
        ),
    ];
    for (definition, message) in cases {
        let error = builder().tool(definition).build().unwrap_err();
        assert_eq!(error.to_string(), message);
    }
    // Nor can such a tool be added at run time.
    let server = builder().build().unwrap();
    let error = server
        .add_tool(tool("late", "Has Space", "string"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the input schema of tool `late` is invalid: invalid x-mcp-header annotation at /p: the name is not an HTTP header token"
    );
    assert_eq!(server.tool_names(), ["echo"]);
}

#[tokio::test]
async fn a_schema_given_as_json_is_checked_at_build_and_a_derived_one_at_first_use() {
    // Given as JSON, a schema that breaks its meta-schema fails the build, naming the tool.
    let bad = json!({"type": "object", "properties": {"n": {"type": 5}}});
    let error = builder()
        .tool(ToolDefinition::new(
            "bad",
            bad.as_object().unwrap().clone(),
            |_, _| async { "" },
        ))
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the input schema of tool `bad` is invalid: "),
        "{error}"
    );
    // So does one that replaces a derived schema.
    let replaced = ToolDefinition::typed("replaced", |_: Value, _| async { "" })
        .input_schema(bad.as_object().unwrap().clone());
    assert!(builder().tool(replaced).build().is_err());
    // One derived from Rust types is compiled when first used, and checks the arguments then.
    let mut client = TestClient::initialized(
        builder().build().unwrap(),
        ProtocolVersion::V2025_11_25,
        json!({}),
    )
    .await;
    for _ in 0..2 {
        let refused = client
            .request(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": 1}}),
            )
            .await
            .unwrap();
        assert_eq!(refused["isError"], true);
        assert_eq!(
            refused["content"][0]["text"],
            "Invalid arguments for tool echo: text: 1 is not of type \"string\""
        );
    }
    client.close().await;
}
