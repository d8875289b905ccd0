//! Handler parameters that are not arguments: the request context and shared state.
//!
//! A parameter of a `#[mcp_tool]`, `#[mcp_prompt]` or `#[mcp_resource]` function whose type is
//! [`RequestContext`] or [`State<T>`] (or any type implementing [`FromRequestContext`] and marked
//! `#[ctx]`) is filled in by the server, axum-style, and does not appear in the schema.
//!
//! ```standalone_crate
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
//!
//! The guide's chapter "State and extractors" (`docs/src/state.md`) teaches it with examples.

use std::any::TypeId;

use mcp_runtime_core::ErrorObject;

pub use super::caller::{HttpExtension, HttpRequest};
use crate::handler::RequestContext;

/// A value the server builds from the request context for a handler parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the request context",
    label = "not an extractor",
    note = "a `#[ctx]` parameter is `RequestContext`, `State<T>`, `AccessToken`, `HttpRequest`, \
            `HttpExtension<T>`, `McpServer`, or a type of yours that implements \
            `FromRequestContext`; a parameter without `#[ctx]` is an argument of the tool"
)]
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
///
/// `T` must be `Clone + Send + Sync + 'static`: the server keeps the value registered and hands
/// each call **its own clone**. A change a call makes to its clone is therefore lost, unless `T`
/// is a handle to shared data: register data that calls change as `Arc<Mutex<_>>` or
/// `Arc<RwLock<_>>` (cloning an `Arc` is cheap and shares what it points to), or a type that is
/// itself such a handle (a database pool, a channel sender). A server built without a state its
/// handlers take refuses to start ([`BuildError`](crate::server::BuildError)), and the macros
/// refuse `State<Mutex<_>>` at compile time, pointing at the `Arc`.
///
/// ```standalone_crate
/// use std::sync::{Arc, Mutex};
/// use mcp_runtime::prelude::*;
///
/// /// Count the calls, across every client.
/// #[mcp_tool]
/// async fn count(State(counter): State<Arc<Mutex<u64>>>) -> u64 {
///     let mut calls = counter.lock().unwrap();
///     *calls += 1;
///     *calls
/// }
///
/// let counter = Arc::new(Mutex::new(0_u64));
/// let server = McpServer::builder(server_info!())
///     .registered_tool("count")
///     .state(counter.clone())
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
///
/// The guide's chapter "State and extractors" (`docs/src/state.md`) has more.
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

/// A state type a handler needs; a server built without it refuses to start.
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
