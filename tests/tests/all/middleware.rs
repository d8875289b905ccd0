//! Middleware: layers between admission and the handler, server-wide and per tool, prompt or
//! resource; tower's own layers and the built-ins. Every test runs each layer four ways: on the
//! line transport of stdio (in process) and over Streamable HTTP, in a session of 2025-11-25 and
//! as 2026-07-28 requests without one.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::protocol::messages::ServerResult;
use mcp_runtime::server::middleware::{
    self, Audit, ConcurrencyLimit, Hide, Listed, McpRequest, Next, RateLimit, ResponseSizeLimit,
    Timeout,
};
use serde_json::{Value, json};
use tests::ways::{Peer, WAYS, Way};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn object(value: Value) -> mcp_runtime::protocol::JsonObject {
    value.as_object().cloned().unwrap()
}

/// Echoes `text`.
fn echo() -> ToolDefinition {
    let schema = object(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
    ToolDefinition::new("echo", schema, |arguments, _| async move {
        arguments["text"].as_str().unwrap_or_default().to_owned()
    })
}

/// Answers with `size` bytes of text.
fn big() -> ToolDefinition {
    let schema = object(json!({"type": "object", "properties": {"size": {"type": "integer"}}}));
    ToolDefinition::new("big", schema, |arguments, _| async move {
        "x".repeat(arguments["size"].as_u64().unwrap_or_default() as usize)
    })
}

/// Waits for the gate, counting how many wait at once.
#[derive(Clone)]
struct Crowd {
    now: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    gate: Arc<tokio::sync::Semaphore>,
}

impl Default for Crowd {
    fn default() -> Self {
        Crowd {
            now: Arc::default(),
            most: Arc::default(),
            gate: Arc::new(tokio::sync::Semaphore::new(0)),
        }
    }
}

fn hold(crowd: Crowd) -> ToolDefinition {
    ToolDefinition::new("hold", object(json!({"type": "object"})), move |_, _| {
        let crowd = crowd.clone();
        async move {
            let now = crowd.now.fetch_add(1, Ordering::SeqCst) + 1;
            crowd.most.fetch_max(now, Ordering::SeqCst);
            let permit = crowd.gate.acquire().await.expect("the gate stays");
            permit.forget();
            crowd.now.fetch_sub(1, Ordering::SeqCst);
            "held".to_owned()
        }
    })
}

/// Sleeps a minute (what a timeout cuts short).
fn slow() -> ToolDefinition {
    ToolDefinition::new("slow", object(json!({"type": "object"})), |_, _| async {
        tokio::time::sleep(Duration::from_secs(60)).await;
        "slept"
    })
}

/// Reports progress three times.
fn chatty() -> ToolDefinition {
    ToolDefinition::new(
        "chatty",
        object(json!({"type": "object"})),
        |_, ctx: RequestContext| async move {
            for step in 1..=3 {
                ctx.progress(step, 3).await;
            }
            "chatted"
        },
    )
}

fn builder() -> McpServerBuilder {
    McpServer::builder(Implementation::new("tests", "1"))
}

/// Appends " (seen)" to the text of every tool result.
async fn seen(request: McpRequest, next: Next) -> Result<ServerResult, ErrorObject> {
    if request.target().name() == Some("admin_reset") {
        return Err(ErrorObject::invalid_request(format!(
            "{} is refused by a layer",
            request.describe()
        )));
    }
    let mut result = next.run(request).await?;
    if let ServerResult::CallTool(call) = &mut result {
        let said = call.content[0].as_text().unwrap_or_default().to_owned();
        call.content[0] = ContentBlock::text(format!("{said} (seen)"));
    }
    Ok(result)
}

#[tokio::test]
async fn a_from_fn_layer_refuses_answers_and_changes_results_every_way() {
    for way in WAYS {
        let server = builder()
            .tool(echo())
            .tool(tests::placeholder_tool("admin_reset"))
            .layer(middleware::from_fn(seen))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        assert_eq!(
            peer.call("echo", json!({"text": "hi"})).await,
            Ok(text("hi (seen)")),
            "{way:?}"
        );
        assert_eq!(
            peer.call("admin_reset", json!({})).await,
            Err(json!({"code": -32600,
                "message": "tools/call admin_reset is refused by a layer"})),
            "{way:?}"
        );
        // A request without a target passes through too.
        let listed = peer.request("tools/list", json!({})).await.unwrap();
        assert_eq!(listed["tools"].as_array().unwrap().len(), 2, "{way:?}");
    }
}

#[tokio::test]
async fn a_tool_layer_runs_after_the_servers_and_for_that_tool_alone() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let mark = |name: &'static str| {
        let order = order.clone();
        middleware::from_fn(move |request: McpRequest, next: Next| {
            let order = order.clone();
            async move {
                if request.method() == "tools/call" {
                    order.lock().unwrap().push(name);
                }
                next.run(request).await
            }
        })
    };
    for way in WAYS {
        order.lock().unwrap().clear();
        let server = builder()
            .tool(echo())
            .tool(big())
            .tool_layer("echo", mark("echo's"))
            .layer(mark("inner"))
            .layer(mark("outer"))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        peer.call("echo", json!({"text": "a"})).await.unwrap();
        peer.call("big", json!({"size": 1})).await.unwrap();
        assert_eq!(
            *order.lock().unwrap(),
            ["outer", "inner", "echo's", "outer", "inner"],
            "{way:?}"
        );
    }
    let unknown = builder().tool_layer("nope", Audit).build().unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "a layer was given for tool `nope`, and the server has no tool of that name: check the \
         name given to `tool_layer` (a resource is named by its URI, a template by its URI \
         template)"
    );
}

#[tokio::test]
async fn timeouts_stop_the_handler_with_32001() {
    for way in WAYS {
        let server = builder()
            .tool(slow())
            .tool(echo())
            .tool_layer("slow", Timeout::new(Duration::from_millis(50)))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        assert_eq!(
            peer.call("slow", json!({})).await,
            Err(json!({"code": -32001, "message":
                "tools/call slow timed out: it took longer than the 50 ms the server allows"})),
            "{way:?}"
        );
        assert_eq!(
            peer.call("echo", json!({"text": "on"})).await,
            Ok(text("on"))
        );
        // Tower's own timeout, as it is.
        let server = builder()
            .tool(slow())
            .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        assert_eq!(
            peer.call("slow", json!({})).await,
            Err(json!({"code": -32001, "message":
                "tools/call timed out: it took longer than the server allows"})),
            "{way:?}"
        );
    }
}

#[tokio::test]
async fn a_concurrency_limit_runs_so_many_calls_at_once() {
    for way in WAYS {
        let crowd = Crowd::default();
        let server = builder()
            .tool(hold(crowd.clone()))
            .tool_layer("hold", ConcurrencyLimit::new(2))
            .build()
            .unwrap();
        let first = Peer::open(server, way).await;
        let mut peers = vec![first.another().await, first.another().await];
        for _ in 0..3 {
            peers.push(first.another().await);
        }
        // Five callers at once, each on a peer of its own. Once two are in, the gate opens
        // for all: no third was let in meanwhile.
        let calls = join_all(
            peers
                .iter_mut()
                .map(|peer| async { peer.call("hold", json!({})).await }),
        );
        let opener = async {
            let two_in = async {
                while crowd.now.load(Ordering::SeqCst) < 2 {
                    tokio::task::yield_now().await;
                }
            };
            tokio::time::timeout(Duration::from_secs(10), two_in)
                .await
                .expect("two calls get in");
            crowd.gate.add_permits(5);
        };
        let (answers, ()) = tokio::join!(calls, opener);
        for answer in answers {
            assert_eq!(answer, Ok(text("held")), "{way:?}");
        }
        assert_eq!(crowd.most.load(Ordering::SeqCst), 2, "{way:?}");
    }
}

#[tokio::test]
async fn tower_load_shed_over_a_concurrency_limit_refuses_what_waits() {
    for way in WAYS {
        let crowd = Crowd::default();
        let server = builder()
            .tool(hold(crowd.clone()))
            .layer(tower::limit::ConcurrencyLimitLayer::new(1))
            .layer(tower::load_shed::LoadShedLayer::new())
            .build()
            .unwrap();
        let mut first = Peer::open(server, way).await;
        let mut second = first.another().await;
        let held = first.call("hold", json!({}));
        let refused = async {
            while crowd.now.load(Ordering::SeqCst) < 1 {
                tokio::task::yield_now().await;
            }
            let refused = second.call("hold", json!({})).await;
            crowd.gate.add_permits(1);
            refused
        };
        let (held, refused) = tokio::join!(held, refused);
        assert_eq!(held, Ok(text("held")), "{way:?}");
        assert_eq!(
            refused,
            Err(json!({"code": -32000, "message":
                "tools/call refused: the server is at its limit of requests; retry shortly"})),
            "{way:?}"
        );
    }
}

#[tokio::test]
async fn a_rate_limit_counts_per_caller() {
    for way in WAYS {
        let server = builder()
            .tool(echo())
            .tool_layer("echo", RateLimit::per_minute(2))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        for _ in 0..2 {
            assert_eq!(peer.call("echo", json!({"text": "a"})).await, Ok(text("a")));
        }
        let refused = peer.call("echo", json!({"text": "a"})).await.unwrap_err();
        let wait = refused["data"]["retryAfterMs"].as_u64().unwrap();
        // Two a minute: the next one in about half a minute.
        assert!((29_000..=30_000).contains(&wait), "{way:?}: {wait}");
        assert_eq!(
            refused,
            json!({"code": -32000, "data": {"retryAfterMs": wait}, "message": format!(
                "tools/call echo refused: too many requests from this caller; retry in {wait} ms"
            )}),
            "{way:?}"
        );
        // Over stdio, another connection is another caller; over HTTP without tokens, callers
        // are told apart by address, and every test client is 127.0.0.1.
        let mut other = peer.another().await;
        let expected = match way {
            Way::Stdio2025 | Way::Stdio2026 => Ok(text("b")),
            _ => Err(()),
        };
        assert_eq!(
            other
                .call("echo", json!({"text": "b"}))
                .await
                .map_err(|_| ()),
            expected,
            "{way:?}"
        );
    }
}

#[tokio::test]
async fn a_response_size_limit_refuses_larger_results() {
    for way in WAYS {
        let server = builder()
            .tool(big())
            .layer(ResponseSizeLimit::new(1000))
            .resource(mcp_runtime::resource::ResourceDefinition::new(
                "notes://all",
                "all",
                |_| async { Ok::<_, ResourceError>("y".repeat(2000)) },
            ))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        assert_eq!(
            peer.call("big", json!({"size": 900})).await,
            Ok(text(&"x".repeat(900)))
        );
        // {"content":[{"type":"text","text":"..."}],"resultType":"complete"}: 63 bytes around
        // the text.
        assert_eq!(
            peer.call("big", json!({"size": 2000})).await,
            Ok(json!({"content": [{"type": "text", "text":
                "The result of tools/call big is 2,063 bytes, over the limit of 1,000 the server \
                 sets"}], "isError": true})),
            "{way:?}"
        );
        let read = peer
            .request("resources/read", json!({"uri": "notes://all"}))
            .await
            .unwrap_err();
        assert_eq!(read["code"], -32603, "{way:?}");
        assert!(
            read["message"]
                .as_str()
                .unwrap()
                .starts_with("The result of resources/read notes://all is 2,"),
            "{way:?}: {read}"
        );
    }
}

#[tokio::test]
async fn hidden_tools_are_left_out_of_lists_and_unknown_to_calls() {
    for way in WAYS {
        let server = builder()
            .tool(echo())
            .tool(tests::placeholder_tool("admin_reset"))
            .prompt(mcp_runtime::prompt::PromptDefinition::new(
                "admin_prompt",
                |_, _| async { Ok::<_, ErrorObject>(GetPromptResult::new(vec![])) },
            ))
            .layer(Hide::new(|_ctx: &RequestContext, item: Listed<'_>| {
                item.name().starts_with("admin_")
            }))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        let tools = peer.request("tools/list", json!({})).await.unwrap();
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["echo"], "{way:?}");
        let prompts = peer.request("prompts/list", json!({})).await.unwrap();
        assert_eq!(prompts["prompts"], json!([]), "{way:?}");
        assert_eq!(
            peer.call("admin_reset", json!({})).await,
            Err(json!({"code": -32602, "message": "Unknown tool: admin_reset"})),
            "{way:?}"
        );
        assert_eq!(
            peer.request("prompts/get", json!({"name": "admin_prompt"}))
                .await,
            Err(json!({"code": -32602, "message": "Unknown prompt: admin_prompt"})),
            "{way:?}"
        );
        assert_eq!(peer.call("echo", json!({"text": "x"})).await, Ok(text("x")));
    }
}

/// The fields of the audit events emitted while a test runs, on its thread.
#[derive(Clone, Default)]
struct AuditLog(Arc<Mutex<Vec<BTreeMap<String, String>>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for AuditLog {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "mcp::audit" {
            return;
        }
        struct Fields(BTreeMap<String, String>);
        impl Visit for Fields {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                self.0.insert(
                    field.name().to_owned(),
                    format!("{value:?}").replace('"', ""),
                );
            }
        }
        let mut fields = Fields(BTreeMap::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

#[tokio::test]
async fn the_audit_layer_emits_one_event_per_request() {
    let log = AuditLog::default();
    let _capture =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(log.clone()));
    for way in WAYS {
        let server = builder()
            .tool(echo())
            .tool(slow())
            .tool_layer("slow", Timeout::new(Duration::from_millis(10)))
            .layer(Audit)
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        // What opening a session sent (initialize, ping) was audited too.
        log.0.lock().unwrap().clear();
        peer.call("echo", json!({"text": "a"})).await.unwrap();
        peer.call("slow", json!({})).await.unwrap_err();
        peer.request("tools/list", json!({})).await.unwrap();
        let version = if way.is_2026() {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        let events: Vec<BTreeMap<String, String>> = log
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|fields| {
                let mut fields = fields.clone();
                assert!(fields.remove("duration_ms").unwrap().parse::<u64>().is_ok());
                assert!(fields.remove("connection").unwrap().parse::<u64>().is_ok());
                assert!(!fields.remove("id").unwrap().is_empty());
                fields
            })
            .collect();
        let event = |method: &str, target: Option<&str>, result: &str, code: Option<&str>| {
            let mut fields: BTreeMap<String, String> = [
                ("message", "request"),
                ("method", method),
                ("result", result),
                ("version", version),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
            if let Some(target) = target {
                fields.insert("target".into(), target.into());
            }
            if let Some(code) = code {
                fields.insert("code".into(), code.into());
            }
            fields
        };
        assert_eq!(
            events,
            [
                event("tools/call", Some("echo"), "ok", None),
                event("tools/call", Some("slow"), "error", Some("-32001")),
                event("tools/list", None, "ok", None),
            ],
            "{way:?}"
        );
    }
}

#[tokio::test]
async fn a_layer_observes_what_the_handler_sends() {
    for way in WAYS {
        let server = builder()
            .tool(chatty())
            .layer(middleware::from_fn(
                |request: McpRequest, next: Next| async move {
                    let seen = Arc::new(AtomicUsize::new(0));
                    let counter = seen.clone();
                    request.context().observe(move |sent| {
                        if let mcp_runtime::context::Sent::Notification(_) = sent {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                    });
                    let mut result = next.run(request).await?;
                    if let ServerResult::CallTool(call) = &mut result {
                        let count = seen.load(Ordering::SeqCst);
                        call.content
                            .push(ContentBlock::text(format!("{count} notifications")));
                    }
                    Ok(result)
                },
            ))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        let params = json!({"name": "chatty", "arguments": {}, "_meta": {"progressToken": "p"}});
        let (outcome, notifications) = peer.exchange("tools/call", params).await;
        assert_eq!(
            outcome,
            Ok(json!({"content": [{"type": "text", "text": "chatted"},
                {"type": "text", "text": "3 notifications"}]})),
            "{way:?}"
        );
        assert_eq!(notifications.len(), 3, "{way:?}: {notifications:?}");
    }
}

/// Tools whose layers their attribute gives.
mod annotated {
    use super::*;

    /// Naps a minute, if its timeout lets it.
    #[mcp_tool(layer = Timeout::new(Duration::from_millis(20)))]
    async fn nap() -> String {
        tokio::time::sleep(Duration::from_secs(60)).await;
        "napped".into()
    }

    /// Greets, seen by a layer, within a timeout.
    #[mcp_tool(layer = [middleware::from_fn(super::seen), Timeout::new(Duration::from_secs(10))])]
    async fn greet(name: String) -> String {
        format!("hi {name}")
    }
}

#[tokio::test]
async fn the_attribute_gives_a_tool_its_own_layers() {
    for way in WAYS {
        let path = format!("{}::annotated", module_path!());
        let server = McpServer::from_module(Implementation::new("tests", "1"), &path)
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        assert_eq!(
            peer.call("nap", json!({})).await,
            Err(json!({"code": -32001, "message":
                "tools/call nap timed out: it took longer than the 20 ms the server allows"})),
            "{way:?}"
        );
        assert_eq!(
            peer.call("greet", json!({"name": "ann"})).await,
            Ok(text("hi ann (seen)")),
            "{way:?}"
        );
    }
}

#[tokio::test]
async fn layers_run_around_the_work_of_a_task() {
    use tests::tasks::{Session, call_2026, masked, task_2026, until_status, with};
    // 2026-07-28: the call becomes a task, whose result the layer changed.
    let (builder, fixture) = tests::tasks::builder();
    let server = builder.layer(middleware::from_fn(seen)).build().unwrap();
    let created = call_2026(&server, "work", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    fixture.gate.open(1);
    let got = until_status(&server, &id, "completed").await;
    assert_eq!(
        masked(&got),
        with(
            task_2026("completed"),
            json!({"resultType": "complete", "result": {"resultType": "complete",
                "content": [{"type": "text", "text": "worked (seen)"}]}})
        )
    );
    // 2025-11-25: a task-augmented call.
    let mut session = Session::new(&server, json!({})).await;
    let id = session.start_task("must", json!({})).await;
    fixture.gate.open(1);
    let result = session
        .request("tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "done (seen)"}])
    );
}
