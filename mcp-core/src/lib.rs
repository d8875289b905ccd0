//! The Model Context Protocol as Rust data.
//!
//! This crate models every message of every MCP revision from `2024-11-05` to `2026-07-28` in one
//! set of types, with no I/O. Fields a later revision added are `Option`s; variants it added are
//! more variants. Two things make one model serve five revisions:
//!
//! - **Parsing accepts every revision.** Unknown fields are ignored; a missing required field is an
//!   error that names it ([`messages::DecodeError`]).
//! - **Rendering targets one revision.** [`render::to_value`] and friends serialize for a given
//!   [`ProtocolVersion`]: fields newer than it are left out, and content it does not know is turned
//!   into a form it accepts. What a peer receives validates against its revision's schema; what
//!   the revision cannot carry at all is a rendering error.
//!
//! The modules follow the spec's structure:
//!
//! | module | holds |
//! |---|---|
//! | [`jsonrpc`] | ids, envelopes, batches, parse and invalid-request errors |
//! | [`version`] | [`ProtocolVersion`], eras, negotiation |
//! | [`render`] | version-targeted serialization |
//! | [`error`] | error codes and [`ErrorObject`] |
//! | [`messages`], [`methods`] | every request, notification and result, typed |
//! | [`lifecycle`], [`capabilities`], [`implementation`] | `initialize`, `server/discover`, capabilities, server and client info |
//! | [`tools`], [`prompts`], [`resources`], [`completion`], [`logging`] | server features |
//! | [`sampling`], [`elicitation`], [`roots`] | client features |
//! | [`content`] | content blocks |
//! | [`progress`], [`cancellation`], [`tasks`] | utilities |
//! | [`input`], [`subscriptions`], [`result`] | 2026-07-28: multi-round-trip requests, `subscriptions/listen`, `resultType` and caching hints |
//! | [`meta`], [`params`] | `_meta` objects and shared params |
//!
//! ```
//! use mcp_core::{ProtocolVersion, render};
//! use mcp_core::messages::ClientRequest;
//!
//! let request = ClientRequest::decode("tools/list", None).unwrap();
//! assert_eq!(request.method(), "tools/list");
//! let wire = render::to_string(&request, ProtocolVersion::V2025_06_18).unwrap();
//! assert_eq!(wire, r#"{"method":"tools/list"}"#);
//! ```
//!
//! The guide's chapter "The two protocol eras" (`docs/src/eras.md`) teaches it with examples.

#![warn(missing_docs)]

pub mod cancellation;
pub mod capabilities;
pub mod completion;
pub mod content;
mod de;
pub mod elicitation;
pub mod error;
pub mod headers;
pub mod implementation;
pub mod input;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod messages;
pub mod meta;
pub mod methods;
pub mod params;
pub mod progress;
pub mod prompts;
pub mod render;
pub mod resources;
pub mod result;
pub mod roots;
pub mod sampling;
pub mod schema;
pub mod skills;
pub mod stateless;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod version;

/// A JSON object, as the protocol uses for schemas, arguments and `_meta` of entities.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

pub use error::{ErrorCode, ErrorObject};
pub use version::{Era, ProtocolVersion, SupportedVersions, UnknownVersion, UnsupportedVersion};
