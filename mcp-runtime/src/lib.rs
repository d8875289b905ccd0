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
//! | [`server`] | [`McpServer`](server::McpServer), its builder, per-connection state, the request context |
//! | [`transport`] | stdio, in-process |
//! | [`tool`], [`prompt`], [`resource`], [`completion`] | definitions of what a server offers, and what handlers return |
//! | [`elicit`] | typed elicitation forms |
//! | [`extract`] | handler parameters that are not arguments: the context and shared state |
//! | [`uri_template`] | RFC 6570 templates for resource URIs |
//! | [`protocol`] | the protocol model (the `mcp-core` crate) |

#![warn(missing_docs)]

pub mod caching;
pub mod client;
pub mod completion;
pub mod elicit;
pub mod extract;
pub mod prompt;
pub mod request_state;
pub mod resource;
pub mod server;
pub(crate) mod sync;
pub mod tool;
pub(crate) mod tool_headers;
pub mod transport;
pub mod uri_template;

pub use mcp_core as protocol;
pub use mcp_macros::{Elicit, mcp_prompt, mcp_resource, mcp_tool};
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
    pub use crate::completion::{CompletionRequest, prefix_match};
    pub use crate::elicit::{Elicit, ElicitOutcome};
    pub use crate::extract::State;
    pub use crate::protocol::content::{ContentBlock, Role};
    pub use crate::protocol::implementation::Implementation;
    pub use crate::protocol::logging::LoggingLevel;
    pub use crate::protocol::prompts::{GetPromptResult, PromptMessage};
    pub use crate::protocol::resources::ResourceContents;
    pub use crate::protocol::tools::CallToolResult;
    pub use crate::resource::ResourceError;
    pub use crate::server::{
        ConnectionState, McpServer, McpServerBuilder, RequestContext, ServerMode,
    };
    pub use crate::tool::{Json, ToolDefinition, ToolError};
    pub use crate::{Elicit, json, mcp_prompt, mcp_resource, mcp_tool, server_info};
}

/// What the attribute macros' generated code refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
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
    pub use crate::prompt::{
        FromArgumentText, IntoPromptResult, PromptArguments, PromptDefinition, PromptOutcome,
        parse_argument, require_argument,
    };
    pub use crate::resource::{
        IntoResourceContents, ResourceDefinition, ResourceError, ResourceTemplateDefinition,
        parse_variable, require_variable,
    };
    pub use crate::server::RequestContext;
    pub use crate::server::registry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};
    pub use crate::tool::{
        BuildInvalidTool, BuildTypedTool, IntoToolResult, ToolDefinition, TypedTool,
        capabilities_named, extraction_failed, tool_argument,
    };
    pub use crate::uri_template::UriMatch;
}

/// The README's examples, compiled and run as documentation tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
