//! Sessions that several instances of a server serve: what a session holds, and what the
//! instances tell each other about it.
//!
//! One process keeps its sessions in memory and needs none of this. Behind a load balancer, the
//! next request of a session may land on any instance: each keeps a local copy of the sessions
//! it served, loaded from a [`SessionStore`] on every request, and saves what the request
//! changed before it answers. Some things concern the one instance that holds a piece of
//! in-process state, and travel as [`SessionMessage`]s to every instance: the end of a session
//! (every copy closes), the client's answer to a request the server sent from another instance,
//! and a cancellation of a request running on another instance.
//!
//! [`RedisStore`](super::RedisStore) implements it; the HTTP transport uses it once
//! [`HttpOptions::session_store`](crate::transport::http::HttpOptions::session_store) is set.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::{ErrorObject, ProtocolVersion};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::StoreFuture;
use crate::auth::Principal;
use crate::connection::{ConnectionState, Handshake, SessionChange};

/// What a session holds, as every instance must know it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionRecord {
    /// Who the access token that opened the session speaks for (its issuer, subject and
    /// client); only a token of the same principal may use it. `None` for a session opened
    /// without a token (or with one naming neither a subject nor a client).
    pub principal: Option<Principal>,
    /// What `initialize` settled.
    pub handshake: Handshake,
    /// Whether the client sent `notifications/initialized`.
    pub initialized: bool,
    /// The level the client set with `logging/setLevel`.
    pub log_level: Option<LoggingLevel>,
    /// The resources the client subscribed to.
    pub subscriptions: BTreeSet<String>,
}

impl SessionRecord {
    /// The record of a session whose `initialize` settled `handshake`, opened by `principal`.
    pub fn new(principal: Option<Principal>, handshake: Handshake) -> Self {
        SessionRecord {
            principal,
            handshake,
            initialized: false,
            log_level: None,
            subscriptions: BTreeSet::new(),
        }
    }

    /// The record of the session whose connection is `connection`, once its `initialize`
    /// succeeded.
    #[cfg(feature = "http-handler")]
    pub(crate) fn of(principal: Option<Principal>, connection: &ConnectionState) -> Option<Self> {
        let mut record = SessionRecord::new(principal, connection.handshake()?.clone());
        record.initialized = connection.is_initialized();
        record.log_level = connection.log_level();
        record.subscriptions = connection.subscriptions();
        Some(record)
    }

    /// The revision the session speaks.
    pub fn version(&self) -> ProtocolVersion {
        self.handshake.version
    }

    /// Gives `connection`, this instance's copy of the session, the state the record holds.
    #[cfg(feature = "http-handler")]
    pub(crate) fn restore_into(&self, connection: &ConnectionState) {
        connection.restore(
            &self.handshake,
            self.initialized,
            self.log_level,
            self.subscriptions.iter().cloned(),
        );
    }
}

/// What an instance tells every instance (itself included) about a session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionMessage {
    /// The session ended (`DELETE`): every copy closes, and its requests are cancelled.
    Ended {
        /// The session.
        session: String,
    },
    /// The client answered the server's request `id`, which an instance other than the one
    /// the answer reached is waiting for.
    Answer {
        /// The session.
        session: String,
        /// The server's request.
        id: RequestId,
        /// The result, or the error the client answered with.
        answer: Result<Value, ErrorObject>,
    },
    /// The client cancelled its request `id`, which runs on another instance.
    Cancel {
        /// The session.
        session: String,
        /// The client's request.
        id: RequestId,
    },
    /// A request changed the session (its log level or subscriptions): the copies of other
    /// instances load it again.
    Changed {
        /// The session.
        session: String,
    },
    /// An event was added to the session's standalone stream: the instance whose response
    /// carries that stream reads it.
    Appended {
        /// The session.
        session: String,
    },
    /// The server of instance `from` broadcast `notification` (a list change, a resource
    /// update, a task's new state): every other instance delivers it to its clients.
    Broadcast {
        /// The instance that broadcast it.
        from: String,
        /// The notification, as JSON-RPC params and method.
        notification: RawJson,
    },
}

/// JSON text carried as it is, neither parsed into a tree when a message is read nor
/// re-serialized when it is written (a broadcast notification, which every instance reads and
/// only the others decode). Compared by its text.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// `value` as JSON text.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        serde_json::value::to_raw_value(value).map(RawJson)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl SessionMessage {
    /// The session it is about; `None` for a broadcast.
    pub fn session(&self) -> Option<&str> {
        match self {
            SessionMessage::Ended { session }
            | SessionMessage::Answer { session, .. }
            | SessionMessage::Cancel { session, .. }
            | SessionMessage::Changed { session }
            | SessionMessage::Appended { session } => Some(session),
            SessionMessage::Broadcast { .. } => None,
        }
    }
}

/// Why a session store could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the session store is unavailable: {0}")]
pub struct SessionStoreError(pub String);

impl From<SessionStoreError> for ErrorObject {
    fn from(error: SessionStoreError) -> Self {
        ErrorObject::internal_error(error.to_string())
    }
}

/// Storage of sessions shared by the instances of one server, and the messages they exchange.
///
/// A session is kept while it is used: it expires once `idle` passed since it was created or
/// last loaded, or somewhat later (a store may renew its expiry lazily: the
/// Redis session store keeps it up to `idle × 1¼`).
pub trait SessionStore: Send + Sync + 'static {
    /// Keeps the new session `id`.
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        idle: Duration,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>>;

    /// The session `id`, its idle time restarted; `None` when unknown, ended or expired.
    fn load<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> StoreFuture<'a, Result<Option<SessionRecord>, SessionStoreError>>;

    /// Applies `changes` to the session `id`, in order.
    fn change<'a>(
        &'a self,
        id: &'a str,
        changes: &'a [SessionChange],
    ) -> StoreFuture<'a, Result<(), SessionStoreError>>;

    /// Forgets the session `id`; whether it was kept.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, SessionStoreError>>;

    /// Tells every instance `message`.
    fn publish(&self, message: SessionMessage) -> StoreFuture<'_, Result<(), SessionStoreError>>;

    /// The messages the instances publish from now on. Delivery is at most once: a message
    /// published while this instance cannot hear it is missed.
    fn messages(&self) -> mpsc::Receiver<SessionMessage>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broadcast_carries_its_notification_as_text() {
        let notification = serde_json::json!({
            "method": "notifications/tools/list_changed", "params": {"_meta": {"k": "é"}}
        });
        let message = SessionMessage::Broadcast {
            from: "instance-1".into(),
            notification: RawJson::new(&notification).unwrap(),
        };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(
            text,
            r#"{"broadcast":{"from":"instance-1","notification":{"method":"notifications/tools/list_changed","params":{"_meta":{"k":"é"}}}}}"#
        );
        let read: SessionMessage = serde_json::from_str(&text).unwrap();
        assert_eq!(read, message);
        let SessionMessage::Broadcast { notification, .. } = read else {
            unreachable!("read back as it was written");
        };
        assert_eq!(
            serde_json::from_str::<Value>(notification.get()).unwrap(),
            serde_json::json!({
                "method": "notifications/tools/list_changed", "params": {"_meta": {"k": "é"}}
            })
        );
    }
}
