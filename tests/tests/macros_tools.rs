//! `#[mcp_tool]`: the schemas and results of annotated functions, through a real server.

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::server::BuildError;
use serde_json::{Value, json};
use tests::TestClient;

/// The tools under test.
mod catalogue {
    use mcp_runtime::prelude::*;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Add two integers.
    #[mcp_tool(read_only, idempotent)]
    async fn add(
        /// The first addend.
        a: i64,
        /// The second addend.
        #[arg(default = 0)]
        b: i64,
    ) -> i64 {
        a + b
    }

    /// Repeat a word.
    #[mcp_tool(
        name = "repeat_word",
        title = "Repeat",
        destructive = false,
        open_world = false
    )]
    fn repeat(
        #[arg(rename = "word", min_length = 1, max_length = 10)] text: String,
        /// How many times.
        #[arg(minimum = 1, maximum = 5)]
        times: u8,
        separator: Option<String>,
    ) -> String {
        vec![text; times as usize].join(separator.as_deref().unwrap_or(" "))
    }

    /// Takes nothing, returns nothing.
    #[mcp_tool]
    async fn nothing() {}

    #[derive(Deserialize, JsonSchema)]
    struct Query {
        /// What to look for.
        text: String,
        limit: Option<u32>,
    }

    #[derive(Serialize, JsonSchema)]
    struct Hits {
        hits: Vec<String>,
    }

    /// Search the corpus.
    #[mcp_tool(title = "Search")]
    async fn search(Json(query): Json<Query>) -> Result<Json<Hits>, ToolError> {
        if query.text.is_empty() {
            return Err(ToolError::new("the query is empty"));
        }
        let limit = query.limit.unwrap_or(2) as usize;
        let hits = ["alpha", "beta", "gamma"]
            .iter()
            .filter(|h| h.contains(query.text.as_str()))
            .take(limit)
            .map(|h| (*h).to_owned())
            .collect();
        Ok(Json(Hits { hits }))
    }

    /// Divide, failing on zero.
    #[mcp_tool]
    fn divide(a: f64, b: f64) -> Result<f64, String> {
        if b == 0.0 {
            Err("division by zero".to_owned())
        } else {
            Ok(a / b)
        }
    }

    /// Return content blocks.
    #[mcp_tool(icon = "https://example.com/pic.png", meta = json!({"com.example/kind": "demo"}))]
    async fn picture() -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("a picture:"),
            ContentBlock::image("iVBORw0KGgo=", "image/png"),
        ]
    }

    /// A schema given verbatim.
    #[mcp_tool(
        input_schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"positive": {"type": "integer", "minimum": 1}},
            "properties": {"n": {"$ref": "#/$defs/positive"}},
            "required": ["n"],
            "additionalProperties": false
        }),
        output_schema = json!({"type": "object", "properties": {"double": {"type": "integer"}}})
    )]
    async fn verbatim(n: i64) -> CallToolResult {
        CallToolResult::structured(json!({"double": n * 2}))
    }

    #[derive(Clone)]
    pub struct Counter(pub std::sync::Arc<std::sync::atomic::AtomicU64>);

    /// Count calls, using shared state and the request context.
    #[mcp_tool]
    async fn count(step: u64, State(counter): State<Counter>, ctx: RequestContext) -> String {
        let total = counter
            .0
            .fetch_add(step, std::sync::atomic::Ordering::SeqCst)
            + step;
        format!("{total} (request {})", ctx.request_id())
    }

    /// Panics.
    #[mcp_tool]
    async fn explode() -> String {
        panic!("kaboom")
    }
}

use catalogue::Counter;

fn server() -> McpServer {
    McpServer::from_module(server_info!(), "macros_tools::catalogue")
        .state(Counter(Default::default()))
        .build()
        .expect("the server builds")
}

async fn client() -> TestClient {
    TestClient::initialized(server(), ProtocolVersion::V2025_11_25, json!({})).await
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[tokio::test]
async fn schemas_come_from_parameters_and_docs() {
    let mut client = client().await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        tool(&tools, "add"),
        &json!({
            "name": "add",
            "description": "Add two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"description": "The first addend.", "type": "integer"},
                    "b": {"description": "The second addend.", "type": "integer", "default": 0}
                },
                "required": ["a"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true}
        })
    );
    assert_eq!(
        tool(&tools, "repeat_word"),
        &json!({
            "name": "repeat_word",
            "title": "Repeat",
            "description": "Repeat a word.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "word": {"type": "string", "maxLength": 10, "minLength": 1},
                    "times": {"description": "How many times.", "type": "integer", "maximum": 5, "minimum": 1},
                    "separator": {"type": "string"}
                },
                "required": ["word", "times"]
            },
            "annotations": {"destructiveHint": false, "openWorldHint": false}
        })
    );
    assert_eq!(
        tool(&tools, "nothing"),
        &json!({"name": "nothing", "description": "Takes nothing, returns nothing.",
                "inputSchema": {"type": "object", "properties": {}}})
    );
    assert_eq!(
        tool(&tools, "search"),
        &json!({
            "name": "search",
            "title": "Search",
            "description": "Search the corpus.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "text": {"description": "What to look for.", "type": "string"},
                    "limit": {"type": "integer", "minimum": 0}
                },
                "required": ["text"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"hits": {"type": "array", "items": {"type": "string"}}},
                "required": ["hits"]
            }
        })
    );
    assert_eq!(
        tool(&tools, "picture"),
        &json!({"name": "picture", "description": "Return content blocks.",
                "inputSchema": {"type": "object", "properties": {}},
                "icons": [{"src": "https://example.com/pic.png"}],
                "_meta": {"com.example/kind": "demo"}})
    );
    assert_eq!(
        tool(&tools, "verbatim")["inputSchema"],
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"positive": {"type": "integer", "minimum": 1}},
            "properties": {"n": {"$ref": "#/$defs/positive"}},
            "required": ["n"],
            "additionalProperties": false
        })
    );
    // State and context parameters are not arguments.
    assert_eq!(
        tool(&tools, "count")["inputSchema"],
        json!({"type": "object", "properties": {"step": {"type": "integer", "minimum": 0}},
               "required": ["step"]})
    );
    client.close().await;
}

async fn call(client: &mut TestClient, name: &str, arguments: Value) -> Value {
    client
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await
        .unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

#[tokio::test]
async fn results_follow_the_return_type() {
    let mut client = client().await;
    assert_eq!(
        call(&mut client, "add", json!({"a": 2})).await,
        json!({"content": [{"type": "text", "text": "2"}]})
    );
    assert_eq!(
        call(
            &mut client,
            "repeat_word",
            json!({"word": "ho", "times": 3, "separator": "-"})
        )
        .await,
        json!({"content": [{"type": "text", "text": "ho-ho-ho"}]})
    );
    assert_eq!(
        call(&mut client, "nothing", json!({})).await,
        json!({"content": []})
    );
    assert_eq!(
        call(&mut client, "search", json!({"text": "a", "limit": 5})).await,
        json!({"content": [{"type": "text", "text": "{\"hits\":[\"alpha\",\"beta\",\"gamma\"]}"}],
               "structuredContent": {"hits": ["alpha", "beta", "gamma"]}})
    );
    assert_eq!(
        call(&mut client, "search", json!({"text": ""})).await,
        json!({"content": [{"type": "text", "text": "the query is empty"}], "isError": true})
    );
    assert_eq!(
        call(&mut client, "divide", json!({"a": 1, "b": 0})).await,
        json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true})
    );
    assert_eq!(
        call(&mut client, "divide", json!({"a": 1, "b": 4})).await,
        json!({"content": [{"type": "text", "text": "0.25"}]})
    );
    assert_eq!(
        call(&mut client, "picture", json!({})).await,
        json!({"content": [{"type": "text", "text": "a picture:"},
                           {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]})
    );
    assert_eq!(
        call(&mut client, "verbatim", json!({"n": 4})).await,
        json!({"content": [{"type": "text", "text": "{\"double\":8}"}], "structuredContent": {"double": 8}})
    );
    let first = call(&mut client, "count", json!({"step": 2})).await;
    let second = call(&mut client, "count", json!({"step": 3})).await;
    assert_eq!(
        first["content"][0]["text"]
            .as_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("2")
    );
    assert_eq!(
        second["content"][0]["text"]
            .as_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("5")
    );
    client.close().await;
}

#[tokio::test]
async fn invalid_arguments_are_tool_errors_naming_the_property() {
    let mut client = client().await;
    assert_eq!(
        call(&mut client, "add", json!({"a": "two"})).await,
        json!({"content": [{"type": "text",
                            "text": "Invalid arguments for tool add: a: \"two\" is not of type \"integer\""}],
               "isError": true})
    );
    assert_eq!(
        call(&mut client, "add", json!({})).await,
        json!({"content": [{"type": "text",
                            "text": "Invalid arguments for tool add: \"a\" is a required property"}],
               "isError": true})
    );
    assert_eq!(
        call(&mut client, "repeat_word", json!({"word": "x", "times": 9})).await["content"][0]["text"],
        "Invalid arguments for tool repeat_word: times: 9 is greater than the maximum of 5"
    );
    assert_eq!(
        call(&mut client, "verbatim", json!({"n": 0, "extra": true})).await["isError"],
        true
    );
    client.close().await;
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result_and_the_server_keeps_serving() {
    let mut client = client().await;
    assert_eq!(
        call(&mut client, "explode", json!({})).await,
        json!({"content": [{"type": "text", "text": "Tool explode failed: it panicked (kaboom)"}],
               "isError": true})
    );
    assert_eq!(
        call(&mut client, "add", json!({"a": 1, "b": 1})).await["content"][0]["text"],
        "2"
    );
    client.close().await;
}

#[test]
fn server_info_names_the_calling_crate() {
    let info = server_info!();
    assert_eq!(info.name, "tests");
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
}

#[test]
fn missing_state_fails_the_build() {
    let err = McpServer::builder(server_info!())
        .registered_tool("count")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`count` takes `State<macros_tools::catalogue::Counter>`, and no state of that type was given to the server: register one with `McpServerBuilder::state(value)` before building it"
    );
    assert!(matches!(err, BuildError::MissingState { .. }));
}

#[test]
fn unknown_names_fail_the_build() {
    let err = McpServer::builder(server_info!())
        .registered_tool("nope")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no tool named `nope` is registered with the attribute macros: check the function's name (or its `name = \"...\"` option), and that the module holding it is compiled in"
    );
}

mod clash {
    use mcp_runtime::prelude::*;

    /// Another `add`.
    #[mcp_tool]
    pub async fn add(a: i64) -> i64 {
        a
    }
}

#[tokio::test]
async fn duplicate_tool_names_fail_the_build_naming_both() {
    let err = McpServer::from_registry(server_info!())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "two tools are named `add`: one in `macros_tools::catalogue` (tests/tests/macros_tools.rs:16), one in `macros_tools::clash` (tests/tests/macros_tools.rs:395)"
    );
    let err = McpServer::builder(server_info!())
        .registered_tool("add")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "2 tools named `add` are registered (in `macros_tools::catalogue` (tests/tests/macros_tools.rs:16), in `macros_tools::clash` (tests/tests/macros_tools.rs:395)); name one with its module, as in `registered_tool(\"macros_tools::catalogue::add\")`, or take a module's items with `registered_in`"
    );
    // A name qualified with its module picks that one.
    let picked = McpServer::builder(server_info!())
        .registered_tool("macros_tools::clash::add")
        .build()
        .unwrap();
    let mut client = TestClient::initialized(picked, ProtocolVersion::V2025_11_25, json!({})).await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(tools["tools"].as_array().unwrap().len(), 1);
    assert_eq!(tools["tools"][0]["description"], "Another `add`.");
    let err = McpServer::builder(server_info!())
        .registered_tool("macros_tools::elsewhere::add")
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, BuildError::NotRegistered { kind: "tool", name } if name == "macros_tools::elsewhere::add"),
        "{err}"
    );
    // A module path selects the entries under it.
    let clash = McpServer::from_module(server_info!(), "macros_tools::clash")
        .build()
        .unwrap();
    assert_eq!(clash.tool_names(), ["add"]);
}

/// Two tools of one module with one name.
mod twins {
    use mcp_runtime::prelude::*;

    /// The first.
    #[mcp_tool(name = "same")]
    pub async fn first() {}

    /// The second.
    #[mcp_tool(name = "same")]
    pub async fn second() {}
}

#[test]
fn duplicates_in_one_module_are_told_apart_by_their_lines() {
    let err = McpServer::from_module(server_info!(), "macros_tools::twins")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "two tools are named `same`: one in `macros_tools::twins` (tests/tests/macros_tools.rs:447), one in `macros_tools::twins` (tests/tests/macros_tools.rs:451)"
    );
}

/// Tools whose hints are all written out.
mod hints {
    use mcp_runtime::prelude::*;

    /// Erase everything.
    #[mcp_tool(
        read_only = false,
        idempotent = false,
        destructive = true,
        open_world = false
    )]
    pub async fn erase() {}

    /// Look, twice.
    #[mcp_tool(read_only = true, idempotent = true, destructive = false)]
    pub async fn look() {}
}

#[test]
fn module_paths_must_match_and_several_combine() {
    let err = McpServer::from_module(server_info!(), "macros_tools::catalog")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no tool, prompt or resource is registered in module `macros_tools::catalog` or under it; module paths are written as `module_path!()` gives them (`my_crate::tools`, with `_` for `-` in the crate name)"
    );
    assert_eq!(
        err,
        BuildError::EmptyModule {
            path: "macros_tools::catalog".into()
        }
    );
    // A misspelt path among good ones fails too.
    let err = McpServer::from_module(server_info!(), "macros_tools::hints")
        .registered_in("macros_tools::hint")
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::EmptyModule { path } if path == "macros_tools::hint"));
    // An explicit selection of nothing is not an error.
    let empty = McpServer::builder(server_info!()).build().unwrap();
    assert!(empty.tool_names().is_empty());
    // Modules add up.
    let both = McpServer::from_module(server_info!(), "macros_tools::clash")
        .registered_in("macros_tools::hints")
        .build()
        .unwrap();
    assert_eq!(both.tool_names(), ["add", "erase", "look"]);
}

#[tokio::test]
async fn hints_written_false_are_sent_as_false() {
    let server = McpServer::from_module(server_info!(), "macros_tools::hints")
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        tool(&tools, "erase")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false,
               "openWorldHint": false})
    );
    assert_eq!(
        tool(&tools, "look")["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true})
    );
    client.close().await;
}

/// Structured results with optional fields.
mod optional_output {
    use mcp_runtime::prelude::*;
    use schemars::JsonSchema;
    use serde::Serialize;

    #[derive(Serialize, JsonSchema)]
    pub struct Detail {
        pub level: u8,
        pub hint: Option<String>,
    }

    #[derive(Serialize, JsonSchema)]
    pub struct Note {
        pub n: u32,
        pub note: Option<String>,
        pub detail: Option<Detail>,
        pub scores: Vec<Option<u8>>,
    }

    /// Annotate a number.
    #[mcp_tool]
    pub async fn annotate(n: u32) -> Json<Note> {
        Json(Note {
            n,
            note: (n > 1).then(|| "big".to_owned()),
            detail: (n > 0).then_some(Detail {
                level: 2,
                hint: None,
            }),
            scores: vec![Some(3), None],
        })
    }
}

#[tokio::test]
async fn none_fields_are_left_out_of_structured_results_and_match_the_output_schema() {
    let server = McpServer::from_module(server_info!(), "macros_tools::optional_output")
        .validate_output(true)
        .build()
        .unwrap();
    let mut client = TestClient::initialized(server, ProtocolVersion::V2025_11_25, json!({})).await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        tool(&tools, "annotate")["outputSchema"],
        json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0},
                "note": {"type": "string"},
                "detail": {"type": "object", "properties": {
                    "level": {"type": "integer", "maximum": 255, "minimum": 0},
                    "hint": {"type": "string"}}, "required": ["level"]},
                "scores": {"type": "array",
                           "items": {"type": ["integer", "null"], "maximum": 255, "minimum": 0}}
            },
            "required": ["n", "scores"]
        })
    );
    assert_eq!(
        call(&mut client, "annotate", json!({"n": 0})).await,
        json!({"content": [{"type": "text", "text": "{\"n\":0,\"scores\":[3,null]}"}],
               "structuredContent": {"n": 0, "scores": [3, null]}})
    );
    assert_eq!(
        call(&mut client, "annotate", json!({"n": 2})).await,
        json!({"content": [{"type": "text",
                            "text": "{\"n\":2,\"note\":\"big\",\"detail\":{\"level\":2},\"scores\":[3,null]}"}],
               "structuredContent": {"n": 2, "note": "big", "detail": {"level": 2},
                                     "scores": [3, null]}})
    );
    client.close().await;
}

/// A structured result that is not an object.
mod listing {
    use mcp_runtime::prelude::*;

    /// List the names.
    #[mcp_tool]
    pub async fn names() -> Json<Vec<String>> {
        Json(vec!["a".to_owned()])
    }
}

#[test]
fn structured_results_must_be_objects() {
    let err = McpServer::from_module(server_info!(), "macros_tools::listing")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the output schema of tool `names` is invalid: an output schema must describe an object (`\"type\": \"object\"`), and this one has `\"type\": \"array\"`; return `Json` of a struct that holds the value"
    );
}

#[tokio::test]
async fn a_server_that_cannot_start_says_why_once() {
    let error = McpServer::builder(server_info!())
        .registered_tool("count")
        .serve_http("127.0.0.1:0")
        .await
        .unwrap_err();
    // The build error is in the message, and not repeated as its source.
    let expected = "the server cannot start: `count` takes `State<macros_tools::catalogue::Counter>`, and no state of that type was given to the server: register one with `McpServerBuilder::state(value)` before building it";
    assert_eq!(error.to_string(), expected);
    assert!(std::error::Error::source(&error).is_none());
}
