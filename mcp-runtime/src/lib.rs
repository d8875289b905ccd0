//! The MCP SDK for Rust: annotate ordinary functions, get a Model Context Protocol server.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Add two integers.
//! #[mcp_tool(read_only, idempotent)]
//! async fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     #[arg(default = 0)]
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> anyhow::Result<()> {
//!     McpServer::from_registry(server_info!()).serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! | module | holds |
//! |---|---|
//! | [`tool`], [`prompt`], [`resource`], [`completion`] | what a server offers: the definitions, and what handlers may return |
//! | [`context`], [`extract`], [`elicit`], [`request_state`] | what a handler sees: the [`RequestContext`](context::RequestContext), its other parameters, elicitation forms, the state of a multi-round request |
//! | [`server`] | [`McpServer`](server::McpServer): its builder, its options, and the dispatcher that answers each request |
//! | [`connection`] | what the server keeps per peer, and the messages it sends to the peer |
//! | [`transport`] | stdio, Streamable HTTP, in-process: bytes in, [`McpServer::admit`](server::McpServer::admit), bytes out |
//! | [`sse`] | the `text/event-stream` encoder and decoder of Streamable HTTP |
//! | [`memory`] | the memory budget: one ceiling on what peers can make a server hold |
//! | [`store`] | what a deployment of several processes shares: the SSE event store, sessions, tasks |
//! | [`auth`] | who may use the server: the `Host`/`Origin` policy, OAuth 2.1 bearer tokens and their scopes |
//! | [`client`] | the MCP client |
//! | [`protocol`] | the protocol model (the `mcp-runtime-core` crate) |
//! | [`prelude`] | what most servers need, in one import |
//!
//! # Features
//!
//! | feature | adds |
//! |---|---|
//! | `http` (default) | the Streamable HTTP server transport (axum, hyper) |
//! | `http-handler` | the Streamable HTTP server transport without its listener: the axum router, and [`HttpTransport::handle`](transport::http::HttpTransport::handle) from `http::Request` to `http::Response` (for serverless platforms; `http` includes it) |
//! | `auth` | verifiers of OAuth access tokens for the HTTP server: JWTs against the issuer's keys, token introspection |
//! | `client-http` | the client's Streamable HTTP transport (reqwest with rustls) |
//! | `client-auth` | OAuth 2.1 authorization of the HTTP client: authorization code, refresh, client credentials, DPoP |
//! | `redis` | stores shared by several instances of a server (sessions, SSE events, tasks), in Redis |
//! | `otel` | OpenTelemetry: spans and the MCP duration metrics over OTLP/HTTP, W3C trace context in `_meta` |
//!
//! Stdio, the in-process transport and the client over stdio need no feature. On docs.rs each
//! item that needs a feature says which.
//!
//! On WebAssembly (`wasm32-unknown-unknown`, as Cloudflare Workers run it) the crate builds with
//! `default-features = false, features = ["http-handler"]` (and `auth`): no listener, stdio or
//! processes there, which that target lacks; `scripts/wasm.sh` checks it.
//!
//! `ARCHITECTURE.md` at the repository's root walks one request through these modules.
//!
//! # One path per item
//!
//! Each item lives in one module, and that module's path is the only one that names it: the
//! module that defines it, or, when the defining module is private (the handler modules live in
//! one folder, `handler/`), the one public module that re-exports it with `#[doc(inline)]`. The
//! [`prelude`] is the one exception: it re-exports what a server needs, plainly, so that
//! the documentation still shows each item at its home. The protocol's types are in [`protocol`]
//! only; a type of another crate that this API takes or returns (`axum`, `http`'s headers,
//! `url::Url`, ...) is re-exported once, next to the API that uses it. What the macros' generated
//! code calls is under the hidden `__private`, and is no API.
//!
//! `scripts/public-paths.py` lists the names that two paths reach (it should list none), and
//! `scripts/public-api.sh` checks the public API against the snapshot in `public-api/`, so
//! that the surface changes only on purpose (`scripts/public-api.sh --update` records a change).

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod auth;
pub mod client;
pub mod connection;
mod handler;
pub mod memory;
pub mod proxy;
mod random;
mod rt;
pub mod server;
mod spans;
#[cfg(any(feature = "http-handler", feature = "client-http"))]
pub mod sse;
pub mod store;
#[cfg(feature = "otel")]
pub mod telemetry;
pub mod transport;

#[doc(inline)]
pub use handler::{
    completion, context, elicit, extract, prompt, request_state, resource, skill, tool,
};

pub use mcp_runtime_core as protocol;
pub use mcp_runtime_macros::{Elicit, include_skills, mcp_prompt, mcp_resource, mcp_tool};
/// Builds a JSON value from a JSON literal (re-exported from `serde_json`), e.g. for
/// `#[mcp_tool(input_schema = json!({...}))]`.
pub use serde_json::json;

/// The `Implementation` naming the crate this macro is called from: its package name and version,
/// from Cargo (never the SDK's).
#[macro_export]
macro_rules! server_info {
    () => {
        $crate::protocol::implementation::Implementation::new(
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
        )
    };
}

/// What most servers need, in one import.
///
/// Each item here has its home in another module, where its documentation is: the prelude only
/// lists it (`#[doc(no_inline)]`).
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::auth::AccessToken;
    #[doc(no_inline)]
    pub use crate::completion::{CompletionRequest, prefix_match};
    #[doc(no_inline)]
    pub use crate::connection::ConnectionState;
    #[doc(no_inline)]
    pub use crate::context::RequestContext;
    #[doc(no_inline)]
    pub use crate::elicit::{Elicit, ElicitOutcome};
    #[doc(no_inline)]
    pub use crate::extract::{HttpExtension, HttpRequest, State};
    #[doc(no_inline)]
    pub use crate::protocol::content::{ContentBlock, Role};
    #[doc(no_inline)]
    pub use crate::protocol::implementation::Implementation;
    #[doc(no_inline)]
    pub use crate::protocol::logging::LoggingLevel;
    #[doc(no_inline)]
    pub use crate::protocol::prompts::{GetPromptResult, PromptMessage};
    #[doc(no_inline)]
    pub use crate::protocol::resources::ResourceContents;
    #[doc(no_inline)]
    pub use crate::protocol::tools::CallToolResult;
    #[doc(no_inline)]
    pub use crate::resource::ResourceError;
    #[doc(no_inline)]
    pub use crate::server::{McpServer, McpServerBuilder, ServerMode, TaskOptions};
    #[doc(no_inline)]
    pub use crate::tool::{Json, Structured, ToolDefinition, ToolError};
    #[doc(no_inline)]
    pub use crate::transport::Serve;
    #[doc(no_inline)]
    pub use crate::{
        Elicit, include_skills, json, mcp_prompt, mcp_resource, mcp_tool, server_info,
    };
}

/// What the attribute macros' generated code refers to: the glue of `handler/glue.rs`, the
/// registry's entries, the public items it names, and the crates it derives with. Not a public
/// API: `mcp-runtime-macros` and this list change together.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::skill::EmbeddedSkills;
    pub use ::indexmap::IndexMap;
    pub use ::inventory;
    pub use ::schemars;
    pub use ::serde;
    pub use mcp_runtime_core;

    // The traits the glue's checks require are named here too, so that a compiler error that
    // names one gives this path, not a private one.
    pub use crate::handler::arguments::FromArgumentText;
    pub use crate::handler::glue::{
        BuildInvalidTool, BuildTypedTool, PromptOutcome, ToolArgument, TypedTool, decode_enum,
        decode_field, describe_property, enum_schema, extraction_failed, form_schema,
        parse_argument, parse_variable, require_argument, require_variable, tool_argument,
    };
    pub use crate::server::middleware::{BoxedLayer, LayerEntry, boxed_layer};
    pub use crate::server::registry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};

    pub use crate::completion::completer;
    pub use crate::context::RequestContext;
    pub use crate::elicit::{Elicit, ElicitEnum, ElicitField};
    pub use crate::extract::FromRequestContext;
    pub use crate::prompt::{IntoPromptResult, PromptArguments, PromptDefinition};
    pub use crate::resource::uri_template::UriMatch;
    pub use crate::resource::{
        IntoResourceContents, ResourceDefinition, ResourceError, ResourceTemplateDefinition,
    };
    pub use crate::tool::{IntoToolResult, TaskStart, ToolDefinition};
}

/// The README's examples, compiled and run as documentation tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

/// The guide's examples (`docs/src`, one item per chapter), compiled and run as documentation
/// tests.
#[cfg(doctest)]
mod guide {
    macro_rules! chapters {
        ($($chapter:ident: $file:literal),* $(,)?) => {
            $(
                #[doc = include_str!(concat!("../../docs/src/", $file))]
                struct $chapter;
            )*
        };
    }

    chapters! {
        Introduction: "introduction.md",
        GettingStarted: "getting-started.md",
        Tools: "tools.md",
        PromptsAndResources: "prompts-and-resources.md",
        Skills: "skills.md",
        Apps: "apps.md",
        State: "state.md",
        Errors: "errors.md",
        Middleware: "middleware.md",
        Observability: "observability.md",
        ClientFeatures: "client-features.md",
        Tasks: "tasks.md",
        Eras: "eras.md",
        Transports: "transports.md",
        Serverless: "serverless.md",
        Authorization: "authorization.md",
        Gateways: "gateways.md",
        Testing: "testing.md",
        Client: "client.md",
        Cli: "cli.md",
        Performance: "performance.md",
        Checks: "checks.md",
        FromRmcp: "from-rmcp.md",
        FromFastmcp: "from-fastmcp.md",
    }
}
