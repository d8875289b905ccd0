//! The server of the serverless examples (`cloudflare-worker/`, `aws-lambda/`), one file that both
//! compile as a module of their own: its tools, resource and prompt, and its HTTP transport, set
//! up from the platform's variables.
//!
//! A stateless 2026-07-28 server is a function from one HTTP request to one response:
//! [`HttpTransport::handle`] answers each request the platform hands over, with every check the
//! SDK's HTTP server makes (the `Mcp-*` headers, the origin, a bearer token). A tool that asks the
//! user something does so in input-required rounds, whose state travels sealed in the request, so
//! no instance needs to remember anything between them. Handshake-era clients (2025-11-25 and
//! before) are served too, without sessions.
//!
//! Authorization is on when the variable `JWT_ISSUER` is set: tokens of that issuer for the
//! audience `MCP_RESOURCE` (the function's public URL) are verified inside the function, against
//! the keys in `JWKS` (a JSON Web Key Set) when it is set, else against those the issuer publishes.

use mcp_runtime::auth::{AccessToken, HostPolicy, JwtVerifier, ResourceServer};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport};

// ANCHOR: tools
/// Tomorrow's weather somewhere.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    /// The city.
    city: String,
    /// The temperature at noon, in degrees Celsius.
    celsius: i64,
    /// The sky: `clear`, `cloudy` or `rain`.
    sky: &'static str,
}

/// Tomorrow's weather in a city (structured output).
#[mcp_tool(read_only, idempotent)]
async fn forecast(
    /// The city, by name.
    city: String,
) -> Json<Forecast> {
    // A stand-in for a weather service: the same city always gets the same forecast.
    let letters = i64::try_from(city.chars().count()).unwrap_or(i64::MAX);
    let sky = ["clear", "cloudy", "rain"][city.len() % 3];
    Json(Forecast {
        celsius: 10 + letters % 15,
        sky,
        city,
    })
}

/// The user's name, asked for by [`greet`].
#[derive(serde::Deserialize, schemars::JsonSchema, Elicit)]
struct Name {
    /// Your name
    name: String,
}

/// Greets the user by the name it asks them for.
#[mcp_tool]
async fn greet(ctx: RequestContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Name>("What is your name?").await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Hello, {name}!"),
        None => "Hello, stranger!".to_owned(),
    })
}
// ANCHOR_END: tools

/// Who the caller's verified token speaks for (`anonymous` without authorization).
#[mcp_tool(read_only)]
async fn whoami(#[ctx] token: Option<AccessToken>) -> String {
    match token {
        Some(token) => format!(
            "{} via {}",
            token.subject().unwrap_or("nobody"),
            token.issuer().unwrap_or("no issuer")
        ),
        None => "anonymous".to_owned(),
    }
}

/// What this server is.
#[mcp_resource(uri = "edge://about", mime_type = "text/markdown")]
async fn about() -> &'static str {
    "# An MCP server at the edge\n\nStateless: every request stands alone.\n"
}

/// A haiku about a topic.
#[mcp_prompt]
async fn haiku(
    /// What the haiku is about.
    topic: String,
) -> String {
    format!("Write a haiku about {topic}.")
}

// ANCHOR: transport
/// The server and its HTTP transport, set up from the platform's variables (`variable` returns
/// one by name, if it is set). An error says which variable is wrong, and how.
pub fn transport(variable: impl Fn(&str) -> Option<String>) -> Result<HttpTransport, String> {
    let variable = |name: &str| variable(name).filter(|value| !value.is_empty());
    let server = McpServer::from_registry(server_info!())
        .instructions("Weather, greetings and a haiku, from the edge.")
        .stateless()
        .build()
        .map_err(|error| error.to_string())?;
    // The platform reaches the function through its own routing by host name, which is the
    // protection against DNS rebinding that `Host` checks give a server on a private network.
    let mut options = HttpOptions::default().host_policy(HostPolicy::any_host());
    if let Some(issuer) = variable("JWT_ISSUER") {
        let resource = variable("MCP_RESOURCE").ok_or(
            "JWT_ISSUER is set but MCP_RESOURCE is not: set it to the function's public URL \
             (https://.../mcp), the audience its tokens are for",
        )?;
        let mut verifier = JwtVerifier::new(&issuer, &resource);
        if let Some(keys) = variable("JWKS") {
            let keys = serde_json::from_str(&keys)
                .map_err(|error| format!("JWKS is not a JSON Web Key Set: {error}"))?;
            verifier = verifier.jwks(keys);
        }
        options = options
            .authorization(ResourceServer::new(&resource, verifier).authorization_server(issuer));
    }
    Ok(HttpTransport::new(server, options))
}
// ANCHOR_END: transport
