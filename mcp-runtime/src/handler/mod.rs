//! What a server offers, and what its handlers see.
//!
//! A handler is an ordinary async function. The attribute macros turn it into a definition
//! ([`tool::ToolDefinition`], [`prompt::PromptDefinition`], [`resource::ResourceDefinition`] or
//! [`resource::ResourceTemplateDefinition`]) whose handler decodes the request's arguments, builds
//! the other parameters from the [`RequestContext`] through [`extract::FromRequestContext`], calls
//! the function, and turns what it returns into a result.
//!
//! This folder is private: the crate's root re-exports its public modules, so that their items'
//! paths are `mcp_runtime::tool::ToolDefinition`, `mcp_runtime::context::RequestContext`, ...
//! (one path each: the rule is at the top of `lib.rs`).
//!
//! | module | holds |
//! |---|---|
//! | [`tool`], [`prompt`], [`resource`], [`completion`] | the definitions, and what handlers may return |
//! | [`skill`] | skills: folders of instructions and files, read and checked, that a server serves as resources |
//! | [`context`] | the [`RequestContext`]: progress, logs, cancellation, requests to the client |
//! | [`extract`] | handler parameters that are not arguments: the context, shared state, the HTTP request (defined in `caller`) |
//! | `caller` | who is calling: the verified access token, the HTTP request and its extensions |
//! | `arguments` | arguments that travel as text (prompt arguments, URI variables) |
//! | [`elicit`] | typed elicitation forms |
//! | [`request_state`], `rounds` | the input-required rounds of a 2026-07-28 request, and their sealed state |
//! | `task` | a tool call that runs as a task: when it becomes one ([`tool::TaskStart`]), and what its context talks to then |
//! | `glue` | what the macros' generated code calls, and nothing else does (`mcp_runtime::__private`) |
//!
//! This module knows nothing of the [`server`](crate::server): the server depends on it, never
//! the reverse. What a context needs of the server that runs it (shared state, timeouts, the log
//! level) it reaches through a narrow handle.
//!
//! The guide's chapter "Tools" (`docs/src/tools.md`) teaches it with examples.

pub mod completion;
pub mod context;
pub mod elicit;
pub mod extract;
pub(crate) mod host;
pub mod prompt;
pub mod request_state;
pub mod resource;
pub(crate) mod rounds;
pub mod skill;
pub(crate) mod task;
pub mod tool;

pub(crate) mod arguments;
pub(crate) mod caller;
mod client_request;
pub(crate) mod glue;

pub(crate) use caller::HttpRequest;
pub(crate) use client_request::ClientRequestError;
pub(crate) use context::RequestContext;
