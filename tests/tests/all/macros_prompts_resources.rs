//! `#[mcp_prompt]`, `#[mcp_resource]` and completions, through a real server.

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use serde_json::json;
use tests::TestClient;

fn languages(request: &CompletionRequest) -> Vec<String> {
    prefix_match(["rust", "ruby", "go"], &request.value)
}

/// Review a piece of code.
#[mcp_prompt(title = "Code review", icon = "https://example.com/review.png")]
async fn review(
    /// The code to review.
    code: String,
    /// The language it is written in.
    #[arg(complete = languages)]
    language: Option<String>,
) -> Vec<PromptMessage> {
    let language = language.unwrap_or_else(|| "an unknown language".into());
    vec![
        PromptMessage::user(format!("Review this code, written in {language}:\n{code}")),
        PromptMessage::assistant("Gladly."),
    ]
}

/// Greet someone a number of times.
#[mcp_prompt(name = "greet")]
fn greeting(#[arg(rename = "who", title = "Who")] name: String, times: u8) -> String {
    format!("Hello {name}! ")
        .repeat(times as usize)
        .trim_end()
        .to_owned()
}

/// A failing prompt.
#[mcp_prompt]
async fn broken() -> Result<String, String> {
    Err("the template is missing".into())
}

/// The project's read-me.
#[mcp_resource(
    uri = "file:///project/README.md",
    mime_type = "text/markdown",
    size = 13
)]
async fn readme() -> String {
    "# The project\n".into()
}

/// The logo.
#[mcp_resource(
    uri = "file:///project/logo.png",
    name = "logo",
    mime_type = "image/png"
)]
fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

fn days(request: &CompletionRequest) -> Vec<String> {
    prefix_match(["2025-01-01", "2025-01-02", "2025-02-01"], &request.value)
}

/// A day's notes.
#[mcp_resource(
    uri = "notes://{day}/summary",
    mime_type = "text/markdown",
    title = "Daily notes"
)]
async fn notes(#[arg(complete = days)] day: String) -> Result<String, ResourceError> {
    if day.starts_with("2025") {
        Ok(format!("Notes of {day}"))
    } else {
        Err(ResourceError::not_found())
    }
}

/// An item by number, with optional query parameters.
#[mcp_resource(uri = "items://{id}{?verbose}")]
async fn item(id: u32, verbose: Option<bool>) -> String {
    format!(
        "item {id}{}",
        if verbose == Some(true) {
            " (verbose)"
        } else {
            ""
        }
    )
}

/// A file under the project, by path.
#[mcp_resource(uri = "file:///project/{path*}")]
async fn project_file(path: String) -> Result<String, std::io::Error> {
    match path.as_str() {
        "src/main.rs" => Ok("fn main() {}".into()),
        other => Err(std::io::Error::other(format!("cannot read {other}"))),
    }
}

/// A resource with every option.
mod annotated {
    use mcp_runtime::prelude::*;
    use mcp_runtime::protocol::content::Annotations;
    use mcp_runtime::protocol::implementation::Icon;

    pub fn for_users() -> Annotations {
        let mut annotations = Annotations::default();
        annotations.audience = Some(vec![Role::User]);
        annotations.priority = Some(0.5);
        annotations.last_modified = Some("2025-01-01T00:00:00Z".into());
        annotations
    }

    /// Ignored: `description` is given.
    #[mcp_resource(
        uri = "file:///project/GUIDE.md",
        name = "guide",
        title = "User guide",
        description = "How to use the project.",
        mime_type = "text/markdown",
        size = 7,
        annotations = for_users(),
        icons = vec![Icon::new("https://example.com/guide.png")],
        cache = mcp_runtime::protocol::result::CacheHint::public(std::time::Duration::from_secs(90))
    )]
    pub async fn user_guide() -> String {
        "# Guide".into()
    }
}

async fn client(version: ProtocolVersion) -> TestClient {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    TestClient::initialized(server, version, json!({})).await
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    let mut client = client(ProtocolVersion::V2025_11_25).await;
    let list = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"prompts": [
            {"name": "review", "title": "Code review", "description": "Review a piece of code.",
             "arguments": [
                {"name": "code", "description": "The code to review.", "required": true},
                {"name": "language", "description": "The language it is written in.", "required": false}
             ],
             "icons": [{"src": "https://example.com/review.png"}]},
            {"name": "greet", "description": "Greet someone a number of times.",
             "arguments": [
                {"name": "who", "title": "Who", "required": true},
                {"name": "times", "required": true}
             ]},
            {"name": "broken", "description": "A failing prompt."}
        ]})
    );
    client.close().await;
}

#[tokio::test]
async fn prompts_parse_their_arguments() {
    let mut client = client(ProtocolVersion::V2025_11_25).await;
    let result = client
        .request(
            "prompts/get",
            json!({"name": "review", "arguments": {"code": "fn f() {}", "language": "rust"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this code, written in rust:\nfn f() {}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Gladly."}}
        ]})
    );
    let result = client
        .request(
            "prompts/get",
            json!({"name": "greet", "arguments": {"who": "Ada", "times": "2"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        result["messages"][0]["content"]["text"],
        "Hello Ada! Hello Ada!"
    );
    let error = client
        .request(
            "prompts/get",
            json!({"name": "greet", "arguments": {"who": "Ada", "times": "many"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32602,
               "message": "Invalid argument `times`: expected u8, got \"many\" (invalid digit found in string)"})
    );
    let error = client
        .request("prompts/get", json!({"name": "review", "arguments": {}}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32602, "message": "Missing required argument(s) for prompt review: code"})
    );
    let error = client
        .request("prompts/get", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32602, "message": "Unknown prompt: nope"})
    );
    let error = client
        .request("prompts/get", json!({"name": "broken"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32603, "message": "the template is missing"})
    );
    client.close().await;
}

#[tokio::test]
async fn resources_and_templates_are_listed() {
    let mut client = client(ProtocolVersion::V2025_11_25).await;
    assert_eq!(
        client.request("resources/list", json!({})).await.unwrap(),
        json!({"resources": [
            {"uri": "file:///project/README.md", "name": "readme", "description": "The project's read-me.",
             "mimeType": "text/markdown", "size": 13},
            {"uri": "file:///project/logo.png", "name": "logo", "description": "The logo.", "mimeType": "image/png"},
            {"uri": "file:///project/GUIDE.md", "name": "guide", "title": "User guide",
             "description": "How to use the project.", "mimeType": "text/markdown", "size": 7,
             "annotations": {"audience": ["user"], "priority": 0.5,
                             "lastModified": "2025-01-01T00:00:00Z"},
             "icons": [{"src": "https://example.com/guide.png"}]}
        ]})
    );
    // Before 2025-06-18, annotations carry no `lastModified` (and resources no title or icons).
    let mut old = self::client(ProtocolVersion::V2025_03_26).await;
    let listed = old.request("resources/list", json!({})).await.unwrap();
    assert_eq!(
        listed["resources"][2],
        json!({"uri": "file:///project/GUIDE.md", "name": "guide",
               "description": "How to use the project.", "mimeType": "text/markdown", "size": 7,
               "annotations": {"audience": ["user"], "priority": 0.5}})
    );
    old.close().await;
    // A 2026-07-28 read of it may be reused for 90 s by anyone; 2025 reads carry no hints.
    let mut stateless = TestClient::connect(
        McpServer::from_module(server_info!(), module_path!())
            .build()
            .unwrap(),
    );
    stateless.expect_version(ProtocolVersion::V2026_07_28);
    let read = json!({"uri": "file:///project/GUIDE.md", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}});
    let read = stateless.request("resources/read", read).await.unwrap();
    assert_eq!(
        (read["ttlMs"].clone(), read["cacheScope"].clone()),
        (json!(90_000), json!("public"))
    );
    let read = client
        .request("resources/read", json!({"uri": "file:///project/GUIDE.md"}))
        .await;
    assert_eq!(read.unwrap().get("ttlMs"), None);
    assert_eq!(
        client
            .request("resources/templates/list", json!({}))
            .await
            .unwrap(),
        json!({"resourceTemplates": [
            {"uriTemplate": "notes://{day}/summary", "name": "notes", "title": "Daily notes",
             "description": "A day's notes.", "mimeType": "text/markdown"},
            {"uriTemplate": "items://{id}{?verbose}", "name": "item",
             "description": "An item by number, with optional query parameters."},
            {"uriTemplate": "file:///project/{path*}", "name": "project_file",
             "description": "A file under the project, by path."}
        ]})
    );
    client.close().await;
}

async fn read(client: &mut TestClient, uri: &str) -> Result<serde_json::Value, serde_json::Value> {
    client.request("resources/read", json!({"uri": uri})).await
}

#[tokio::test]
async fn resources_are_read_with_captured_variables() {
    let mut client = client(ProtocolVersion::V2025_11_25).await;
    assert_eq!(
        read(&mut client, "file:///project/README.md")
            .await
            .unwrap(),
        json!({"contents": [{"uri": "file:///project/README.md", "mimeType": "text/markdown",
                             "text": "# The project\n"}]})
    );
    assert_eq!(
        read(&mut client, "file:///project/logo.png").await.unwrap(),
        json!({"contents": [{"uri": "file:///project/logo.png", "mimeType": "image/png", "blob": "iVBORw=="}]})
    );
    assert_eq!(
        read(&mut client, "notes://2025-01-02/summary")
            .await
            .unwrap(),
        json!({"contents": [{"uri": "notes://2025-01-02/summary", "mimeType": "text/markdown",
                             "text": "Notes of 2025-01-02"}]})
    );
    assert_eq!(
        read(&mut client, "items://7?verbose=true").await.unwrap()["contents"][0]["text"],
        "item 7 (verbose)"
    );
    assert_eq!(
        read(&mut client, "items://7").await.unwrap()["contents"][0]["text"],
        "item 7"
    );
    assert_eq!(
        read(&mut client, "file:///project/src/main.rs")
            .await
            .unwrap()["contents"][0]["text"],
        "fn main() {}"
    );
    client.close().await;
}

#[tokio::test]
async fn resource_errors_follow_the_revision() {
    for (version, not_found) in [
        (ProtocolVersion::V2025_06_18, -32002),
        (ProtocolVersion::V2025_11_25, -32002),
    ] {
        let mut client = client(version).await;
        assert_eq!(
            read(&mut client, "unknown://x").await.unwrap_err(),
            json!({"code": not_found, "message": "Resource not found: unknown://x", "data": {"uri": "unknown://x"}})
        );
        // The reader says the day does not exist.
        assert_eq!(
            read(&mut client, "notes://1999-01-01/summary")
                .await
                .unwrap_err()["code"],
            not_found
        );
        assert_eq!(
            read(&mut client, "items://seven").await.unwrap_err(),
            json!({"code": -32602, "message": "Invalid value for `{id}`: expected u32, got \"seven\" (invalid digit found in string)"})
        );
        assert_eq!(
            read(&mut client, "file:///project/secret")
                .await
                .unwrap_err(),
            json!({"code": -32603, "message": "cannot read secret"})
        );
        client.close().await;
    }
}

#[tokio::test]
async fn completions_come_from_argument_completers() {
    let mut client = client(ProtocolVersion::V2025_11_25).await;
    let init_caps = client.request("ping", json!({})).await.unwrap();
    assert_eq!(init_caps, json!({}));
    let complete = |reference: serde_json::Value, name: &str, value: &str| json!({"ref": reference, "argument": {"name": name, "value": value}});
    assert_eq!(
        client
            .request(
                "completion/complete",
                complete(
                    json!({"type": "ref/prompt", "name": "review"}),
                    "language",
                    "ru"
                )
            )
            .await
            .unwrap(),
        json!({"completion": {"values": ["rust", "ruby"]}})
    );
    assert_eq!(
        client
            .request(
                "completion/complete",
                complete(json!({"type": "ref/prompt", "name": "review"}), "code", "x")
            )
            .await
            .unwrap(),
        json!({"completion": {"values": []}})
    );
    assert_eq!(
        client
            .request(
                "completion/complete",
                complete(
                    json!({"type": "ref/resource", "uri": "notes://{day}/summary"}),
                    "day",
                    "2025-01"
                ),
            )
            .await
            .unwrap(),
        json!({"completion": {"values": ["2025-01-01", "2025-01-02"]}})
    );
    assert_eq!(
        client
            .request(
                "completion/complete",
                complete(json!({"type": "ref/prompt", "name": "nope"}), "x", "")
            )
            .await
            .unwrap_err(),
        json!({"code": -32602, "message": "Unknown prompt: nope"})
    );
    client.close().await;
}

#[tokio::test]
async fn completers_advertise_the_completions_capability() {
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    let capabilities = serde_json::to_value(server.capabilities()).unwrap();
    assert_eq!(
        capabilities,
        json!({"completions": {}, "prompts": {}, "resources": {}})
    );
}
