//! The client the official MCP conformance suite (`@modelcontextprotocol/conformance`) runs in
//! its client mode, written with the SDK's [`McpClient`] as an application would use it:
//!
//! ```sh
//! npx conformance client --command target/debug/conformance-client --scenario tools_call
//! ```
//!
//! The suite starts the scenario's mock server and runs this program with the server's URL as
//! the last argument; `MCP_CONFORMANCE_SCENARIO` names the scenario,
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` the revision to speak (2026-07-28 per-request metadata,
//! or a handshake revision), and `MCP_CONFORMANCE_CONTEXT` carries a scenario's data (the tool
//! calls of `http-custom-headers`, the credentials of the auth scenarios). The program does
//! what the scenario asks of a client and exits 0, or exits 1 with the reason on stderr.
//! `scripts/conformance.sh` runs every client scenario this way, one at a time.
//!
//! The `auth/*` scenarios put the server behind a mock authorization server: the client gets
//! there through [`OAuth`], with a [`Headless`] user agent (the mock approves at once and
//! redirects to `http://localhost:3000/callback`), or with the credentials the scenario gives
//! for the grants without a user.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use mcp_runtime::auth::Algorithm;
use mcp_runtime::client::McpClient;
use mcp_runtime::client::oauth::{
    Assertion, ClientCredentials, EnterpriseIdp, Headless, OAuth, Secret,
};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::protocol::roots::Root;
use mcp_runtime::protocol::sampling::CreateMessageResult;
use mcp_runtime::protocol::skills::SKILLS_EXTENSION;
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|arg| arg.starts_with("http"))
        .context("usage: conformance-client URL (the suite appends the server's URL)")?;
    let scenario =
        std::env::var("MCP_CONFORMANCE_SCENARIO").context("MCP_CONFORMANCE_SCENARIO is not set")?;
    let version = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        Ok(name) => Some(
            ProtocolVersion::from_name(&name)
                .with_context(|| format!("unknown protocol version {name}"))?,
        ),
        Err(_) => None,
    };
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .context("MCP_CONFORMANCE_CONTEXT is not JSON")?
        .unwrap_or(Value::Null);
    let oauth = match scenario.strip_prefix("auth/") {
        Some(name) => Some(oauth(name, &context)?),
        None => None,
    };
    let client = connect(&url, version, &scenario, oauth).await?;
    play(&client, &scenario, &context).await?;
    client.close().await?;
    Ok(())
}

/// Where the mock authorization servers send the user back.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The client ID metadata document the `auth/basic-cimd` scenario expects as client id.
const CLIENT_METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";

/// How the client authorizes in the auth scenario `name`, with the credentials of `context`.
fn oauth(name: &str, context: &Value) -> anyhow::Result<OAuth> {
    let field = |key: &str| -> anyhow::Result<String> {
        context[key]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("MCP_CONFORMANCE_CONTEXT has no {key}"))
    };
    let user = || {
        OAuth::authorization_code(Headless::new(REDIRECT_URI))
            .client_name("mcp-runtime conformance client")
            .client_metadata_document(CLIENT_METADATA_DOCUMENT)
    };
    Ok(match name {
        "pre-registration" => user().pre_registered(
            ClientCredentials::with_secret(field("client_id")?, field("client_secret")?)
                .for_issuer(field("issuer")?),
        ),
        "client-credentials-basic" => OAuth::client_credentials(ClientCredentials::with_secret(
            field("client_id")?,
            field("client_secret")?,
        )),
        "client-credentials-jwt" => {
            let algorithm = match field("signing_algorithm")?.as_str() {
                "ES256" => Algorithm::ES256,
                "ES384" => Algorithm::ES384,
                "RS256" => Algorithm::RS256,
                "PS256" => Algorithm::PS256,
                "EdDSA" => Algorithm::EdDSA,
                other => bail!("unsupported signing algorithm {other}"),
            };
            OAuth::client_credentials(ClientCredentials::private_key_jwt(
                field("client_id")?,
                &field("private_key_pem")?,
                algorithm,
            )?)
        }
        "wif-jwt-bearer" => OAuth::workload_identity(
            ClientCredentials::public(field("client_id")?),
            Assertion::new(Secret::new(field("valid_jwt")?)),
        ),
        "enterprise-managed-authorization" => OAuth::enterprise(
            ClientCredentials::with_secret(field("client_id")?, field("client_secret")?),
            EnterpriseIdp::new(
                field("idp_token_endpoint")?,
                ClientCredentials::public(field("idp_client_id")?),
                Assertion::new(Secret::new(field("idp_id_token")?)),
            ),
        ),
        "dpop" | "dpop-nonce" => user().dpop(),
        _ => user(),
    })
}

/// A client that declares and answers everything a scenario may ask of it.
async fn connect(
    url: &str,
    version: Option<ProtocolVersion>,
    scenario: &str,
    oauth: Option<OAuth>,
) -> anyhow::Result<McpClient> {
    let mut builder = McpClient::builder(Implementation::new(
        "mcp-runtime-conformance-client",
        env!("CARGO_PKG_VERSION"),
    ))
    .request_timeout(Duration::from_secs(20))
    .sampling(|_| async {
        Ok(serde_json::from_value::<CreateMessageResult>(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "This is a test response from the client"},
            "model": "test-model",
            "stopReason": "endTurn"
        }))
        .expect("a valid sampling result"))
    })
    .elicitation(|params| async move { Ok(accept(&params)) })
    .roots(vec![Root::new("file:///conformance")]);
    if scenario.starts_with("sep-2640-") {
        builder = builder.extension(SKILLS_EXTENSION, Default::default());
    }
    if let Some(version) = version {
        builder = builder.protocol_version(version);
    }
    if let Some(oauth) = oauth {
        builder = builder.oauth(oauth);
    }
    Ok(builder.connect_http(url).await?)
}

/// Accepts a form, giving a value to each field without a default (the client fills those in
/// from the schema itself, SEP-1034); agrees to open a URL.
fn accept(params: &ElicitRequestParams) -> ElicitResult {
    let ElicitRequestParams::Form(form) = params else {
        return serde_json::from_value(json!({"action": "accept"})).expect("a valid answer");
    };
    let mut content = serde_json::Map::new();
    for (name, property) in &form.requested_schema.properties {
        let property = serde_json::to_value(property).unwrap_or_default();
        if property.get("default").is_some() {
            continue;
        }
        let value = match property["type"].as_str() {
            Some("boolean") => json!(true),
            Some("integer" | "number") => json!(1),
            _ => match property["enum"].get(0) {
                Some(first) => first.clone(),
                None => json!("conformance"),
            },
        };
        content.insert(name.clone(), value);
    }
    serde_json::from_value(json!({"action": "accept", "content": content})).expect("a valid answer")
}

/// What `scenario` asks of a client.
async fn play(client: &McpClient, scenario: &str, context: &Value) -> anyhow::Result<()> {
    match scenario {
        // The handshake (or the 2026-07-28 probe) is the whole scenario.
        "initialize" | "request-metadata" => {
            client.list_all_tools().await?;
        }
        "tools_call" => {
            let tools = client.list_all_tools().await?;
            let tool = tools
                .iter()
                .find(|t| t.name == "add_numbers")
                .context("the server lists no add_numbers tool")?;
            let result = client
                .call_tool(&tool.name, json!({"a": 5, "b": 3}))
                .await?;
            println!("{}", text_of(&result.content));
        }
        "elicitation-sep1034-client-defaults" => {
            call_listed(client, "test_client_elicitation_defaults", json!({})).await?;
        }
        "sse-retry" => {
            call_listed(client, "test_reconnection", json!({})).await?;
        }
        "sep-2322-client-request-state" => {
            client.list_all_tools().await?;
            // The unrelated call runs while the other one is between its rounds.
            let (echo, unrelated) = tokio::join!(
                client.call_tool("test_mrtr_echo_state", json!({})),
                client.call_tool("test_mrtr_unrelated", json!({}))
            );
            echo?;
            unrelated?;
            client.call_tool("test_mrtr_no_state", json!({})).await?;
            client
                .call_tool("test_mrtr_no_result_type", json!({}))
                .await?;
        }
        "http-standard-headers" => {
            let tools = client.list_all_tools().await?;
            for tool in &tools {
                client.call_tool(&tool.name, json!({})).await?;
            }
            for resource in client.list_all_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_all_prompts().await? {
                client
                    .get_prompt(&prompt.name, None::<(&str, &str)>)
                    .await?;
            }
        }
        "http-custom-headers" => {
            client.list_all_tools().await?;
            let calls = context["toolCalls"]
                .as_array()
                .context("MCP_CONFORMANCE_CONTEXT has no toolCalls")?;
            for call in calls {
                let name = call["name"]
                    .as_str()
                    .context("a tool call without a name")?;
                client.call_tool(name, &call["arguments"]).await?;
            }
        }
        "http-invalid-tool-headers" => {
            // The tools with invalid header annotations are left out of the list.
            for tool in client.list_all_tools().await? {
                client
                    .call_tool(&tool.name, sample_arguments(&tool.input_schema))
                    .await?;
            }
        }
        "json-schema-ref-no-deref" => {
            client.list_all_tools().await?;
        }
        "json-schema-2020-12-preservation" => {
            let tools = client.list_all_tools().await?;
            let tool = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .context("the server lists no json_schema_2020_12_tool")?;
            let echo = json!({"schema": tool.input_schema});
            client.call_tool("json_schema_echo", echo).await?;
        }
        // A host lists the skills but reads none of their files ahead of need.
        "sep-2640-client-no-prefetch" => {
            let skills = client.list_all_skills().await?;
            println!("{} skills listed", skills.len());
        }
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => {
            for entry in client.list_all_skills().await? {
                let skill = client.load_skill(&entry).await?;
                for file in &entry.resources {
                    if file.uri != entry.uri {
                        client.read_skill_file(&entry, &file.uri).await?;
                    }
                }
                println!("loaded skill {}", skill.entry.uri);
            }
        }
        // Behind the authorization server: list, then call what is listed (the step-up
        // scenarios ask for more scope at the call).
        auth if auth.starts_with("auth/") => {
            for tool in client.list_all_tools().await? {
                let result = client.call_tool(&tool.name, json!({})).await?;
                println!("{}", text_of(&result.content));
            }
        }
        other => return Err(anyhow!("unknown scenario {other}")),
    }
    Ok(())
}

/// Calls tool `name`, which the server must list, with `arguments`.
async fn call_listed(client: &McpClient, name: &str, arguments: Value) -> anyhow::Result<()> {
    let tools = client.list_all_tools().await?;
    if !tools.iter().any(|t| t.name == name) {
        bail!("the server lists no {name} tool");
    }
    let result = client.call_tool(name, arguments).await?;
    println!("{}", text_of(&result.content));
    Ok(())
}

/// Arguments for a schema: a value for each required property, by its type.
fn sample_arguments(schema: &serde_json::Map<String, Value>) -> Value {
    let mut arguments = serde_json::Map::new();
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let value = match schema["properties"][name]["type"].as_str() {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            _ => json!("us-west1"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}

fn text_of(content: &[mcp_runtime::protocol::content::ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|block| block.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}
