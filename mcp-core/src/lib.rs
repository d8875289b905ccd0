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
//! | the root | [`ProtocolVersion`], [`Era`] and what differs between the eras ([`Asking`], [`TaskModel`]), negotiation ([`SupportedVersions`]); [`ErrorObject`] and its [`ErrorCode`]s |
//! | [`render`] | version-targeted serialization |
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
//! use mcp_runtime_core::{ProtocolVersion, render};
//! use mcp_runtime_core::messages::ClientRequest;
//!
//! let request = ClientRequest::decode("tools/list", None).unwrap();
//! assert_eq!(request.method(), "tools/list");
//! let wire = render::to_string(&request, ProtocolVersion::V2025_06_18).unwrap();
//! assert_eq!(wire, r#"{"method":"tools/list"}"#);
//! ```
//!
//! Each item has one path: its module's, or, for the versions and the error object that every
//! other module uses, the crate's root (their modules are private).
//!
//! # Revisions and eras
//!
//! MCP has five released revisions. The first four (the *handshake* era) agree on a version once, in the
//! `initialize` handshake; `2026-07-28` (the *stateless* era) carries the version on every request in
//! `_meta["io.modelcontextprotocol/protocolVersion"]` and has no handshake.
//!
//! ```
//! use mcp_runtime_core::{Era, ProtocolVersion, SupportedVersions};
//!
//! let supported = SupportedVersions::ALL;
//! // A handshake client asking for a revision we speak gets it...
//! assert_eq!(supported.negotiate_initialize("2025-06-18"), Ok(ProtocolVersion::V2025_06_18));
//! // ...and one asking for anything else gets our newest handshake revision.
//! assert_eq!(supported.negotiate_initialize("1999-01-01"), Ok(ProtocolVersion::V2025_11_25));
//! // A stateless request naming an unknown revision is refused with -32022.
//! let err = supported.check_stateless("1999-01-01").unwrap_err();
//! assert_eq!(err.requested, "1999-01-01");
//! assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Stateless);
//! ```
//!
//! Everything else that differs between the eras is a rule of [`Era`] (how the server asks the
//! client, the error of a missing client capability, what a result's `_meta` holds, how tasks
//! run): the runtime decides a request's era once, from its revision, and then asks the rules.
//!
//! The guide's chapter "The two protocol eras" (`docs/src/eras.md`) teaches it with examples.
//!
//! # Errors
//!
//! Each concern of this crate has its own typed error
//! ([`EnvelopeError`](crate::jsonrpc::EnvelopeError) for the JSON-RPC envelope,
//! [`DecodeError`](crate::messages::DecodeError) for methods and params, [`UnsupportedVersion`]
//! for version checks, [`UnknownVersion`] for revision names,
//! [`SchemaError`](crate::schema::SchemaError) and
//! [`SchemaViolation`](crate::schema::SchemaViolation) for JSON Schemas, [`ResourceNotFound`],
//! [`HeaderMismatch`] (for the HTTP headers of 2026-07-28, see [`headers`]) and
//! [`UrlElicitationRequired`](crate::elicitation::UrlElicitationRequired)); each converts into the
//! [`ErrorObject`] that goes on the wire.

#![warn(missing_docs)]

pub mod apps;
pub mod cancellation;
pub mod capabilities;
pub mod completion;
pub mod content;
mod de;
pub mod elicitation;
mod era;
mod error;
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
mod version;

/// A JSON object, as the protocol uses for schemas, arguments and `_meta` of entities.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

#[doc(inline)]
pub use era::{Asking, Era, TaskModel};
#[doc(inline)]
pub use error::{ErrorCode, ErrorObject, HeaderMismatch, ResourceNotFound};
pub use version::{ProtocolVersion, SupportedVersions, UnknownVersion, UnsupportedVersion};
