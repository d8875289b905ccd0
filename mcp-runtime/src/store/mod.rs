//! What the processes of one deployment share.
//!
//! One process keeps everything in memory, and needs nothing from this module but its defaults.
//! Several processes behind a load balancer must agree on what a client left behind on another
//! one; each such piece of state is a trait here, with an in-memory implementation that is the
//! default:
//!
//! | trait | holds | in memory |
//! |---|---|---|
//! | [`EventStore`] | the SSE events of Streamable HTTP streams, for resumption after `Last-Event-ID` | [`InMemoryEventStore`] |
//! | [`TaskStore`] | tasks: their state, outcome and the input they wait for | [`InMemoryTaskStore`] |
//! | [`SessionStore`] | Streamable HTTP sessions, and the messages instances exchange about them | none: one process keeps its sessions itself |
//!
//! A store on a shared system implements the trait and is set on the transport's options; the
//! server and the transport call it and never know which it is. With the `redis` feature,
//! `RedisStore` supplies both in Redis.
//!
//! The guide's chapter "Transports and deployment" (`docs/src/transports.md`) teaches it with examples.

mod event;
#[cfg(feature = "redis")]
mod redis;
mod session;
mod task;
#[cfg(any(feature = "http-handler", feature = "redis"))]
mod wake;

pub use event::{EventStore, InMemoryEventStore, StoreFuture};
#[cfg(feature = "redis")]
pub use redis::{
    RedisEventStore, RedisOptions, RedisSessionStore, RedisStore, RedisStoreError, RedisTaskStore,
};
pub use session::{RawJson, SessionMessage, SessionRecord, SessionStore, SessionStoreError};
#[cfg(feature = "redis")]
pub(crate) use task::apply;
pub(crate) use task::timestamp;
pub use task::{
    InMemoryTaskStore, TaskChange, TaskLimits, TaskOutcome, TaskPage, TaskRecord, TaskStore,
    TaskStoreError,
};
#[cfg(any(feature = "http-handler", feature = "redis"))]
pub(crate) use wake::{Wakes, Watch};
