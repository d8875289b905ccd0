//! Handler parameters that are not arguments: the request context and shared state.
//!
//! A parameter of a `#[mcp_tool]`, `#[mcp_prompt]` or `#[mcp_resource]` function whose type is
//! [`RequestContext`] or [`State<T>`] (or any type implementing [`FromRequestContext`] and marked
//! `#[ctx]`) is filled in by the server, axum-style, and does not appear in the schema.
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! #[derive(Clone)]
//! struct Greeting(&'static str);
//!
//! /// Greet someone with the server's greeting.
//! #[mcp_tool]
//! async fn greet(name: String, State(greeting): State<Greeting>) -> String {
//!     format!("{}, {name}!", greeting.0)
//! }
//!
//! let server = McpServer::builder(server_info!())
//!     .registered_tool("greet")
//!     .state(Greeting("Hello"))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

use std::any::TypeId;

use mcp_core::ErrorObject;

pub use super::caller::{HttpExtension, HttpRequest};
use crate::handler::RequestContext;

/// A value the server builds from the request context for a handler parameter.
pub trait FromRequestContext: Sized {
    /// Builds the value, or fails with the error the client gets.
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject>;
}

impl FromRequestContext for RequestContext {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        Ok(ctx.clone())
    }
}

/// Shared application state of type `T`, registered with
/// [`McpServerBuilder::state`](crate::server::McpServerBuilder::state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromRequestContext for State<T> {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            ErrorObject::internal_error(format!(
                "no state of type `{}` is registered on this server",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// A state type a handler needs; the server refuses to build without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateRequirement {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl StateRequirement {
    /// The requirement of a `State<T>` parameter.
    pub fn of<T: 'static>() -> Self {
        StateRequirement {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        }
    }
}
