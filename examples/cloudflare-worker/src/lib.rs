//! An MCP server on Cloudflare Workers.
//!
//! A Worker is a function from one HTTP request to one response, which is what a stateless
//! 2026-07-28 server is: [`HttpTransport::handle`] answers each request the platform hands to
//! [`fetch`], with every check the SDK's HTTP server makes (the `Mcp-*` headers, the origin, a
//! bearer token). A tool that asks the user something does so in input-required rounds, whose
//! state travels sealed in the request, so no instance needs to remember anything between them.
//! Handshake-era clients (2025-11-25 and before) are served too, without sessions.
//!
//! Authorization is on when the variable `JWT_ISSUER` is set: tokens of that issuer for the
//! audience `MCP_RESOURCE` (the worker's public URL) are verified inside the worker, against the
//! keys in `JWKS` (a JSON Web Key Set) when it is set, else against those the issuer publishes.
//!
//! Build it with `worker-build --release` (see README.md).

use std::cell::OnceCell;

use mcp_runtime::auth::{AccessToken, HostPolicy, JwtVerifier, ResourceServer};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::{HttpOptions, HttpTransport, axum::body::Body};
use worker::{Context, Env, HttpRequest, console_error, event};

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
    "# An MCP server on Cloudflare Workers\n\nStateless: every request stands alone.\n"
}

/// A haiku about a topic.
#[mcp_prompt]
async fn haiku(
    /// What the haiku is about.
    topic: String,
) -> String {
    format!("Write a haiku about {topic}.")
}

// ANCHOR: entry
thread_local! {
    /// The server, built on the first request an instance of the worker gets (the isolate keeps
    /// it between requests; a Worker has one thread).
    static TRANSPORT: OnceCell<HttpTransport> = const { OnceCell::new() };
}

/// The worker's entry point: each request, answered by the MCP server.
#[event(fetch)]
async fn fetch(
    request: HttpRequest,
    env: Env,
    _context: Context,
) -> worker::Result<http::Response<Body>> {
    let transport = match TRANSPORT.with(|cell| cell.get().cloned()) {
        Some(transport) => transport,
        None => match transport(&env) {
            Ok(transport) => TRANSPORT.with(|cell| cell.get_or_init(|| transport).clone()),
            Err(error) => {
                console_error!("the MCP server cannot start: {error}");
                return Ok(http::Response::builder()
                    .status(http::StatusCode::INTERNAL_SERVER_ERROR)
                    .body(Body::from(format!("the MCP server cannot start: {error}")))?);
            }
        },
    };
    Ok(transport.handle(request).await)
}

/// The server and its HTTP options, from the worker's variables.
fn transport(env: &Env) -> Result<HttpTransport, String> {
    let server = McpServer::from_registry(server_info!())
        .instructions("Weather, greetings and a haiku, from the edge.")
        .stateless()
        .build()
        .map_err(|error| error.to_string())?;
    // Workers are reached through Cloudflare's routing by host name, which is the protection
    // against DNS rebinding that `Host` checks give a server on a private network.
    let mut options = HttpOptions::default().host_policy(HostPolicy::any_host());
    if let Some(issuer) = variable(env, "JWT_ISSUER") {
        let resource = variable(env, "MCP_RESOURCE").ok_or(
            "JWT_ISSUER is set but MCP_RESOURCE is not: set it to the worker's public URL \
             (https://<name>.<account>.workers.dev/mcp), the audience its tokens are for",
        )?;
        let mut verifier = JwtVerifier::new(&issuer, &resource);
        if let Some(keys) = variable(env, "JWKS") {
            let keys = serde_json::from_str(&keys)
                .map_err(|error| format!("JWKS is not a JSON Web Key Set: {error}"))?;
            verifier = verifier.jwks(keys);
        }
        options = options
            .authorization(ResourceServer::new(&resource, verifier).authorization_server(issuer));
    }
    Ok(HttpTransport::new(server, options))
}
// ANCHOR_END: entry

/// A variable or secret of the worker, if it is set and not empty.
fn variable(env: &Env, name: &str) -> Option<String> {
    env.var(name)
        .map(|value| value.to_string())
        .or_else(|_| env.secret(name).map(|value| value.to_string()))
        .ok()
        .filter(|value| !value.is_empty())
}
