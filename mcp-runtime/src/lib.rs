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
//! | [`handler`] | what a server offers and what its handlers see: [`tool`], [`prompt`], [`resource`] and [`completion`] definitions, the [`RequestContext`](handler::RequestContext), the [`extract`]ors, [`elicit`]ation forms |
//! | [`server`] | [`McpServer`](server::McpServer): its builder, its registry, and the dispatcher that answers each request |
//! | [`connection`] | what the server keeps per peer, and the messages it sends to the peer |
//! | [`transport`] | stdio, Streamable HTTP, in-process: bytes in, [`McpServer::admit`](server::McpServer::admit), bytes out |
//! | [`sse`] | the `text/event-stream` encoder and decoder of Streamable HTTP |
//! | [`memory`] | the memory budget: one ceiling on what peers can make a server hold |
//! | [`store`] | what a deployment of several processes shares: the SSE event store |
//! | [`auth`] | who may use the server: the `Host`/`Origin` policy, OAuth 2.1 bearer tokens and their scopes |
//! | [`client`] | the MCP client |
//! | [`protocol`] | the protocol model (the `mcp-core` crate) |
//!
//! `ARCHITECTURE.md` at the repository's root walks one request through these modules.

#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod connection;
pub mod handler;
pub mod memory;
pub mod server;
#[cfg(any(feature = "http", feature = "client-http"))]
pub mod sse;
pub mod store;
pub mod transport;

pub use handler::resource::uri_template;
pub use handler::{completion, elicit, extract, prompt, request_state, resource, tool};
pub use server::caching;

pub use mcp_core as protocol;
pub use mcp_macros::{Elicit, include_skills, mcp_prompt, mcp_resource, mcp_tool};
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
pub mod prelude {
    pub use crate::auth::AccessToken;
    pub use crate::completion::{CompletionRequest, prefix_match};
    pub use crate::elicit::{Elicit, ElicitOutcome};
    pub use crate::extract::{HttpExtension, HttpRequest, State};
    pub use crate::protocol::content::{ContentBlock, Role};
    pub use crate::protocol::implementation::Implementation;
    pub use crate::protocol::logging::LoggingLevel;
    pub use crate::protocol::prompts::{GetPromptResult, PromptMessage};
    pub use crate::protocol::resources::ResourceContents;
    pub use crate::protocol::tools::CallToolResult;
    pub use crate::resource::ResourceError;
    pub use crate::server::{
        ConnectionState, McpServer, McpServerBuilder, RequestContext, ServerMode, TaskOptions,
    };
    pub use crate::tool::{Json, ToolDefinition, ToolError};
    pub use crate::transport::Serve;
    pub use crate::{
        Elicit, include_skills, json, mcp_prompt, mcp_resource, mcp_tool, server_info,
    };
}

/// What the attribute macros' generated code refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::skill::EmbeddedSkills;
    pub use ::indexmap::IndexMap;
    pub use ::inventory;
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;
    pub use mcp_core;

    pub use crate::completion::{CompletionRequest, completer};
    pub use crate::elicit::{
        Elicit, ElicitEnum, ElicitField, decode_enum, decode_field, describe_property, enum_schema,
        form_schema,
    };
    pub use crate::extract::FromRequestContext;
    pub use crate::handler::RequestContext;
    pub use crate::handler::arguments::FromArgumentText;
    pub use crate::prompt::{
        IntoPromptResult, PromptArguments, PromptDefinition, PromptOutcome, parse_argument,
        require_argument,
    };
    pub use crate::resource::{
        IntoResourceContents, ResourceDefinition, ResourceError, ResourceTemplateDefinition,
        parse_variable, require_variable,
    };
    pub use crate::server::middleware::{BoxedLayer, LayerEntry, boxed_layer};
    pub use crate::server::registry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};
    pub use crate::tool::{
        BuildInvalidTool, BuildTypedTool, IntoToolResult, TaskStart, ToolDefinition, TypedTool,
        extraction_failed, tool_argument,
    };
    pub use crate::uri_template::UriMatch;
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
        State: "state.md",
        Errors: "errors.md",
        Middleware: "middleware.md",
        ClientFeatures: "client-features.md",
        Tasks: "tasks.md",
        Eras: "eras.md",
        Transports: "transports.md",
        Authorization: "authorization.md",
        Testing: "testing.md",
        Client: "client.md",
        Cli: "cli.md",
        Performance: "performance.md",
        Checks: "checks.md",
        FromRmcp: "from-rmcp.md",
        FromFastmcp: "from-fastmcp.md",
    }
}
