//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) scores:
//! every tool, resource and prompt its server scenarios call, with the names, arguments, texts and
//! behaviours they expect, written with the SDK's macros as a user would write them.
//!
//! ```sh
//! cargo run -p examples --bin conformance-server -- http 127.0.0.1:8000   # http://127.0.0.1:8000/mcp
//! cargo run -p examples --bin conformance-server -- stdio
//! ```
//!
//! `scripts/conformance.sh` builds it, starts it on a free port and runs the suite against it.
//! Over HTTP the server is stateful (sessions, the standalone stream, subscriptions); it prints
//! `MCP endpoint: URL` on stderr once it listens.

use std::time::Duration;

use indexmap::IndexMap;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::content::EmbeddedResource;
use mcp_runtime::protocol::elicitation::{
    ElicitRequestFormParams, ElicitResult, ElicitationSchema,
};
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::resources::{ResourceContents, TextResourceContents};
use mcp_runtime::protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
use mcp_runtime::transport::http::{HttpOptions, serve_on};
use serde::Serialize;
use serde_json::json;

/// A 1×1 PNG image.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A short WAV sound.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// Tools. `test_simple_text` comes first: scenarios call the first listed tool with `{}`.

/// Returns a simple text.
#[mcp_tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[mcp_tool]
async fn test_image_content() -> ContentBlock {
    ContentBlock::image(PNG, "image/png")
}

/// Returns a sound.
#[mcp_tool]
async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(WAV, "audio/wav")
}

fn embedded(uri: &str, mime_type: &str, text: &str) -> ContentBlock {
    let mut contents = TextResourceContents::new(uri, text);
    contents.mime_type = Some(mime_type.into());
    ContentBlock::EmbeddedResource(EmbeddedResource::new(ResourceContents::Text(contents)))
}

/// Returns an embedded resource.
#[mcp_tool]
async fn test_embedded_resource() -> ContentBlock {
    embedded(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and an embedded resource.
#[mcp_tool]
async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        embedded(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Logs three messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool execution completed")
        .await;
    "Tool with logging executed successfully"
}

/// Reports progress three times before it answers.
#[mcp_tool]
async fn test_tool_with_progress(ctx: RequestContext) -> &'static str {
    ctx.progress(0, 100).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50, 100).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100, 100).await;
    "Progress test completed"
}

/// Always fails, with an error result.
#[mcp_tool]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Closes its response stream early; the client reconnects to get the result.
#[mcp_tool]
async fn test_reconnection(ctx: RequestContext) -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    ctx.close_sse_stream(Duration::from_millis(500));
    tokio::time::sleep(Duration::from_millis(200)).await;
    "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
}

/// Asks the client's model and returns its answer.
#[mcp_tool]
async fn test_sampling(
    /// What to ask the model.
    prompt: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let request = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
    let answer = ctx.sample(request).await?;
    Ok(format!("LLM response: {}", answer.content.text()))
}

/// What the user answered, as `<what>: action=<action>, content=<JSON>`.
fn describe(what: &str, answer: &ElicitResult) -> String {
    let action = json!(answer.action);
    let action = action.as_str().unwrap_or_default();
    format!("{what}: action={action}, content={}", json!(answer.content))
}

/// What the user answered in a typed form, as `<what>: action=<action>, content=<JSON>`.
fn describe_outcome<T: Serialize>(what: &str, outcome: ElicitOutcome<T>) -> String {
    match outcome {
        ElicitOutcome::Accepted(form) => format!("{what}: action=accept, content={}", json!(form)),
        ElicitOutcome::Declined => format!("{what}: action=decline, content=null"),
        ElicitOutcome::Cancelled => format!("{what}: action=cancel, content=null"),
    }
}

/// Who the user is.
#[derive(Elicit, Serialize)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user for their name and email.
#[mcp_tool]
async fn test_elicitation(
    /// What to tell the user.
    message: String,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<UserInfo>(message).await?;
    Ok(describe_outcome("User response", answer))
}

/// A user's status.
#[derive(Elicit, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[elicit(rename = "active")]
    Active,
    #[elicit(rename = "inactive")]
    Inactive,
    #[elicit(rename = "pending")]
    Pending,
}

/// A form whose fields have defaults (SEP-1034).
#[derive(Elicit, Serialize)]
struct Profile {
    /// User name
    #[elicit(default = "John Doe".to_owned())]
    name: String,
    /// User age
    #[elicit(default = 30)]
    age: i64,
    /// User score
    #[elicit(default = 95.5)]
    score: f64,
    /// User status
    #[elicit(default = Status::Active)]
    status: Status,
    /// Verification status
    #[elicit(default = true)]
    verified: bool,
}

/// Asks for a form whose fields have defaults.
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Profile>("Please review and update the form fields with defaults")
        .await?;
    Ok(describe_outcome("Elicitation completed", answer))
}

/// The five shapes of enum a form can hold (SEP-1330), as the wire spells them.
fn enum_form() -> ElicitationSchema {
    let titled = |entries: [(&str, &str); 3]| {
        entries
            .iter()
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect::<Vec<_>>()
    };
    let properties = json!({
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": titled(
            [("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": titled(
            [("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}},
    });
    let properties: IndexMap<_, _> =
        serde_json::from_value(properties).expect("the enum form is a valid elicitation schema");
    let mut schema = ElicitationSchema::new(properties);
    schema.required = Some(Vec::new());
    schema
}

/// Asks for a form with every kind of enum.
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: RequestContext) -> Result<String, ToolError> {
    let params =
        ElicitRequestFormParams::new("Please select options from the enum fields", enum_form());
    let answer = ctx.elicit_form(params).await?;
    Ok(describe("Elicitation completed", &answer))
}

/// Tool with JSON Schema 2020-12 features
#[mcp_tool(input_schema = json!({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"}
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
}))]
async fn json_schema_2020_12_tool(name: Option<String>) -> String {
    format!("Hello, {}!", name.as_deref().unwrap_or("anonymous"))
}

/// Needs the client's `sampling` capability: a 2026-07-28 request that does not declare it gets
/// a missing-capability error (-32021).
#[mcp_tool(requires = "sampling")]
async fn test_missing_capability() -> &'static str {
    "The client declared sampling."
}

/// Asks the user for their name and email; a 2026-07-28 request, which has no channel for a
/// server request, gets an error result at once.
#[mcp_tool]
async fn test_streaming_elicitation(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<UserInfo>("Who are you?").await?;
    Ok(describe_outcome("User response", answer))
}

/// Logs while it runs: a 2026-07-28 request gets the messages only when its `_meta` asks for a
/// log level.
#[mcp_tool]
async fn test_logging_tool(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, "Logging tool ran").await;
    "Logging tool completed"
}

/// Announces a change of the tool list to the clients listening for it.
#[mcp_tool]
async fn test_trigger_tool_change(server: McpServer) -> String {
    let reached = server.notify(ServerNotification::ToolListChanged(Default::default()));
    format!("Announced a tool list change to {reached} listener(s).")
}

/// Announces a change of the prompt list to the clients listening for it.
#[mcp_tool]
async fn test_trigger_prompt_change(server: McpServer) -> String {
    let reached = server.notify(ServerNotification::PromptListChanged(Default::default()));
    format!("Announced a prompt list change to {reached} listener(s).")
}

/// Echoes its region, which proxies can route on: the client mirrors it into the
/// `Mcp-Param-Region` header (SEP-2243).
#[mcp_tool(input_schema = json!({
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"]
}))]
async fn test_header_param(region: String) -> String {
    format!("Region: {region}")
}

// Multi-round-trip requests (2026-07-28): a handler asks the client for input and finds the
// answers when the client retries. On a 2025 session the same calls send real requests.

/// A name.
#[derive(Elicit, Serialize)]
struct Name {
    /// Your name
    name: String,
}

/// A favourite color.
#[derive(Elicit, Serialize)]
struct Color {
    /// Your favourite color
    color: String,
}

/// A confirmation.
#[derive(Elicit, Serialize)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// What the request is about.
#[derive(Elicit, Serialize)]
struct Context {
    /// Some context
    context: String,
}

/// The text of a sampled answer.
fn sampled(prompt: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100)
}

/// Greets the user by the name they give.
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx
        .input("user_name")
        .elicit::<Name>("What is your name?")
        .await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Hello, {name}!"),
        None => "Hello, stranger!".to_owned(),
    })
}

/// Asks the client's model a question.
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: RequestContext) -> Result<String, ToolError> {
    let question = sampled("What is the capital of France?");
    let answer = ctx.input("capital_question").sample(question).await?;
    Ok(format!("The model says: {}", answer.content.text()))
}

/// Lists the client's roots.
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: RequestContext) -> Result<String, ToolError> {
    let roots = ctx.input("client_roots").list_roots().await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// What the request-state tools keep between rounds.
#[derive(Serialize, serde::Deserialize)]
struct Step {
    step: u32,
}

/// Asks for a confirmation, keeping state between the rounds.
#[mcp_tool]
async fn test_input_required_result_request_state(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    confirm_with_state(&ctx).await
}

/// Like `test_input_required_result_request_state`: the conformance suite alters the state this
/// one hands out, which the server must refuse.
#[mcp_tool]
async fn test_input_required_result_tampered_state(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    confirm_with_state(&ctx).await
}

async fn confirm_with_state(ctx: &RequestContext) -> Result<String, ToolError> {
    let step = ctx.request_state::<Step>().map_or(1, |s| s.step + 1);
    ctx.keep_request_state(&Step { step });
    let answer = ctx.input("confirm").elicit::<Confirm>("Proceed?").await?;
    let ok = answer.accepted().is_some_and(|c| c.ok);
    Ok(format!("state-ok: round {step}, confirmed: {ok}"))
}

/// Asks for a name, a greeting from the model and the roots, all in one round.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(
    ctx: RequestContext,
) -> Result<String, ToolError> {
    ctx.keep_request_state(&Step { step: 1 });
    let name = ctx.input("user_name").elicit::<Name>("What is your name?");
    let greeting = ctx.input("greeting").sample(sampled("Say hello."));
    let roots = ctx.input("client_roots").list_roots();
    // All three are asked for at once: the first round names every input it needs.
    let (name, greeting, roots) = tokio::join!(name, greeting, roots);
    let name = name?
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    let roots = roots?.roots.len();
    Ok(format!(
        "{} {name} ({roots} roots)",
        greeting?.content.text()
    ))
}

/// Asks for a name, then for a color: three rounds.
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: RequestContext) -> Result<String, ToolError> {
    let step = ctx.request_state::<Step>().map_or(1, |s| s.step + 1);
    ctx.keep_request_state(&Step { step });
    let name = ctx
        .input("name")
        .elicit::<Name>("What is your name?")
        .await?;
    let color = ctx
        .input("color")
        .elicit::<Color>("What is your favourite color?")
        .await?;
    let name = name
        .accepted()
        .map_or_else(|| "someone".to_owned(), |n| n.name);
    let color = color
        .accepted()
        .map_or_else(|| "no color".to_owned(), |c| c.color);
    Ok(format!("{name} likes {color}"))
}

/// Asks only for what the client declared it can give: a form when it can show one, a sampled
/// message when it has a model.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: RequestContext) -> Result<String, ToolError> {
    let capabilities = ctx.client_capabilities().clone();
    let mut found = Vec::new();
    if capabilities.supports_elicitation_form() {
        let name = ctx
            .input("user_name")
            .elicit::<Name>("What is your name?")
            .await?;
        found.push(
            name.accepted()
                .map_or_else(|| "no name".to_owned(), |n| n.name),
        );
    }
    if capabilities.supports_sampling() {
        let answer = ctx.input("greeting").sample(sampled("Say hello.")).await?;
        found.push(answer.content.text());
    }
    Ok(format!("Got: {}", found.join("; ")))
}

// The tasks extension's fixtures (SEP-2663; on 2025-11-25 they run as tasks when the client asks).

/// Greets someone, at once.
#[mcp_tool]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds` seconds, reporting progress; a long computation becomes a task.
#[mcp_tool(task = "optional", task_start = "200ms")]
async fn slow_compute(
    ctx: RequestContext,
    /// How long to compute, in seconds.
    seconds: u64,
    /// A label for the result.
    label: Option<String>,
) -> Result<String, ToolError> {
    for done in 0..seconds {
        ctx.progress(done as f64, seconds as f64).await;
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            () = ctx.cancelled() => return Err(ToolError::cancelled()),
        }
    }
    let label = label.unwrap_or_else(|| "result".to_owned());
    Ok(format!("Computed {label} in {seconds}s"))
}

/// A job that fails after a second, with a tool error.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("The job failed: the input was rejected"))
}

/// A job that crashes: its task fails with a protocol error.
#[mcp_tool(task = "required")]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job's worker crashed")
}

/// Whether to go ahead with a deletion.
#[derive(Elicit, Serialize)]
struct DeleteConfirmation {
    /// Delete the file?
    confirm: bool,
}

/// Deletes a file once the user confirms.
#[mcp_tool(task = "optional")]
async fn confirm_delete(
    ctx: RequestContext,
    /// The file to delete.
    filename: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<DeleteConfirmation>(format!("Delete {filename}?"))
        .await?;
    Ok(match answer.accepted() {
        Some(DeleteConfirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// Asks for a name and a confirmation at once.
#[mcp_tool(task = "optional")]
async fn multi_input(ctx: RequestContext) -> Result<String, ToolError> {
    let (name, confirm) = tokio::join!(
        ctx.input("name").elicit::<Name>("What is your name?"),
        ctx.input("confirm")
            .elicit::<DeleteConfirmation>("Go ahead?"),
    );
    let name = name?
        .accepted()
        .map_or_else(|| "someone".to_owned(), |n| n.name);
    let confirmed = confirm?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("{name} confirmed: {confirmed}"))
}

/// Asks for a name in the call's own rounds, then greets in a task.
#[mcp_tool(task = "required", task_start = "explicitly")]
async fn test_tool_with_task(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx
        .input("user_name")
        .elicit::<Name>("What is your name?")
        .await?;
    let name = answer
        .accepted()
        .map_or_else(|| "stranger".to_owned(), |n| n.name);
    ctx.start_task().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(format!("Hello, {name}!"))
}

// Resources. `test://static-text` comes first: scenarios read the first listed resource.

/// A static text resource.
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a PNG image).
#[mcp_resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
async fn static_binary() -> Result<Vec<u8>, ResourceError> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .map_err(|e| ResourceError::new(e.to_string()))
}

/// A resource to subscribe to.
#[mcp_resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
async fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// Data for an id.
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template",
    mime_type = "application/json"
)]
async fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// Prompts.

/// A simple prompt without arguments.
#[mcp_prompt]
async fn test_simple_prompt() -> PromptMessage {
    PromptMessage::user("This is a simple prompt for testing.")
}

/// A prompt that asks the user for context first.
#[mcp_prompt]
async fn test_input_required_result_prompt(
    ctx: RequestContext,
) -> Result<PromptMessage, ToolError> {
    let answer = ctx
        .input("user_context")
        .elicit::<Context>("What is this about?")
        .await?;
    let context = answer.accepted().map_or_else(String::new, |c| c.context);
    Ok(PromptMessage::user(format!("Context: {context}")))
}

fn arg1_values(request: &CompletionRequest) -> Vec<String> {
    prefix_match(["test", "testing", "tested", "value"], &request.value)
}

/// A prompt with two arguments.
#[mcp_prompt]
async fn test_prompt_with_arguments(
    /// The first argument.
    #[arg(complete = arg1_values)]
    arg1: String,
    /// The second argument.
    arg2: String,
) -> PromptMessage {
    PromptMessage::user(format!(
        "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
    ))
}

/// A prompt that embeds a resource.
#[mcp_prompt]
async fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            embedded(
                &resource_uri,
                "text/plain",
                "Embedded resource content for testing.",
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[mcp_prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// The server the conformance suite drives.
#[derive(clap::Parser, Debug)]
#[command(name = "conformance-server")]
struct Args {
    /// `stdio`, or `http` to serve Streamable HTTP at http://ADDRESS/mcp.
    #[arg(value_parser = ["stdio", "http"])]
    transport: String,
    /// Where to listen, with `http` (port 0 picks a free one).
    #[arg(required_if_eq("transport", "http"))]
    address: Option<String>,
    #[command(flatten)]
    instance: examples::instance::InstanceArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = <Args as clap::Parser>::parse();
    let builder = McpServer::from_module(
        Implementation::new("mcp-conformance-test-server", "1.0.0"),
        module_path!(),
    )
    .stateful()
    .logging()
    .resource_subscriptions()
    .tools_list_changed()
    .prompts_list_changed()
    .resources_list_changed()
    // The fixture of the skills scenarios (SEP-2640): a skill with files and a sub-folder.
    .skills(include_skills!("../../conformance-skills"));
    match args.address {
        Some(address) if args.transport == "http" => {
            let (builder, options) = args
                .instance
                .apply(builder, HttpOptions::default(), None)
                .await?;
            let listener = tokio::net::TcpListener::bind(&address).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            serve_on(listener, builder.build()?, options).await?;
        }
        None if args.instance.redis.is_none() => builder.serve_stdio().await?,
        _ => anyhow::bail!(
            "usage: conformance-server stdio | conformance-server http ADDRESS [--redis URL]"
        ),
    }
    Ok(())
}
