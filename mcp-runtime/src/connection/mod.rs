//! Per-peer state: one [`ConnectionState`] per stdio process, in-process pair or HTTP session, and a
//! transient one per request on a stateless HTTP server.
//!
//! Everything a peer changes lives here, never in the [`McpServer`](crate::server::McpServer): the
//! negotiated version and the client's capabilities, the log level, resource subscriptions, the
//! requests in flight (so that a cancellation only reaches the request of the peer that sent it),
//! and the server-to-client requests awaiting an answer. Two connections never see each other's
//! state, even when their request ids coincide.
//!
//! What the server sends the peer on its own (notifications, server-to-client requests) goes
//! through the connection's [`MessageSink`], as [`Outbound`] messages.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use mcp_runtime_core::capabilities::ClientCapabilities;
use mcp_runtime_core::implementation::Implementation;
use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::logging::LoggingLevel;
use mcp_runtime_core::{ErrorObject, ProtocolVersion};
use parking_lot::Mutex;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod asking;
mod outbound;

pub use asking::PeerRequestError;
#[cfg(feature = "http-handler")]
pub(crate) use asking::RequestBudget;
use asking::Waiter;

pub use outbound::{MessageSink, Outbound, OutboundMessage, PeerGone, SendFuture, SharedSink};
pub(crate) use outbound::{enqueue, try_enqueue};

/// What the `initialize` handshake settled.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Handshake {
    /// The negotiated revision.
    pub version: ProtocolVersion,
    /// What the client supports.
    pub client_capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
}

/// The mutable state of one peer.
pub struct ConnectionState {
    id: u64,
    persistent: bool,
    default_version: ProtocolVersion,
    sink: Option<SharedSink>,
    handshake: OnceLock<Handshake>,
    initialize_seen: AtomicBool,
    initialized: AtomicBool,
    log_level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<HashSet<String>>,
    /// Keyed with a fast hasher, randomly seeded (the ids are the peer's): a lookup of each
    /// request's id costs a fraction of SipHash's.
    in_flight: Mutex<HashMap<RequestId, InFlight, foldhash::fast::RandomState>>,
    pending: Mutex<HashMap<RequestId, Waiter, foldhash::fast::RandomState>>,
    next_request_id: AtomicI64,
    /// Fires when the connection closes; every request's token is a child of it.
    closing: CancellationToken,
    /// Set on the connection of a session that several instances serve: what it must tell the
    /// others, until the transport takes it.
    shared: OnceLock<Mutex<Vec<SharedEvent>>>,
    /// The share of the memory budget that this peer's requests in flight, and the answers they
    /// wait for, draw from, shared with the server's other connections (none: only this
    /// connection's [in-flight limit](crate::server::McpServerBuilder::max_requests_in_flight)
    /// bounds them).
    request_budget: OnceLock<Arc<asking::RequestBudget>>,
}

/// A change a request made to its session, which the instances that share the session must
/// learn (see [`store::SessionStore`](crate::store::SessionStore)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionChange {
    /// The client sent `notifications/initialized`.
    Initialized,
    /// The client set the log level.
    LogLevel(LoggingLevel),
    /// The client subscribed to the resource.
    Subscribed(String),
    /// The client ended its subscription to the resource.
    Unsubscribed(String),
}

/// What the connection of a session that several instances serve must tell the others (see
/// [`store::SessionStore`](crate::store::SessionStore)); the transport takes these after each
/// message it admitted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SharedEvent {
    /// A request changed the session.
    Change(SessionChange),
    /// The client answered a server request that no request of this instance waits for.
    Answer(RequestId, Result<Value, ErrorObject>),
    /// The client cancelled a request that does not run on this instance.
    Cancel(RequestId),
}

/// A request in flight: the token its handler watches, and whether the peer cancelled it.
struct InFlight {
    token: CancellationToken,
    cancelled_by_peer: Arc<AtomicBool>,
}

/// Why a request could not be registered as in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A request with the same id is in flight on this connection.
    Duplicate,
    /// The connection already has `limit` requests in flight.
    TooMany {
        /// The cap.
        limit: usize,
    },
    /// The requests in flight of every connection hold the memory budget's share.
    Busy,
}

/// A request's place among the requests in flight of its connection: it gives the handler's
/// cancellation token, and frees the request id when dropped, however the handling ends (a
/// result, an error, a panic, or the future being dropped).
pub(crate) struct InFlightGuard {
    connection: Arc<ConnectionState>,
    /// The id, when the request is registered (`initialize` is not: it cannot be cancelled).
    id: Option<RequestId>,
    token: CancellationToken,
    cancelled_by_peer: Arc<AtomicBool>,
    /// Whether the request is weighed in the connection's request budget.
    weighed: bool,
}

impl InFlightGuard {
    /// The token the handler watches: it fires when the peer cancels the request or the connection
    /// closes.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// Whether the peer sent `notifications/cancelled` for this request (then its response must
    /// not be sent).
    pub(crate) fn cancelled_by_peer(&self) -> bool {
        self.cancelled_by_peer.load(Ordering::Acquire)
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if let Some(id) = &self.id {
            self.connection.in_flight.lock().remove(id);
        }
        if self.weighed {
            self.connection.unweigh_request();
        }
    }
}

impl std::fmt::Debug for ConnectionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionState")
            .field("id", &self.id)
            .field("persistent", &self.persistent)
            .field("version", &self.version())
            .finish_non_exhaustive()
    }
}

static NEXT_CONNECTION_ID: AtomicU64 = AtomicU64::new(1);

impl ConnectionState {
    /// The state of a peer that stays connected (a stdio process, an in-process pair, an HTTP
    /// session). `sink` receives the server's unsolicited messages (list changes, resource
    /// updates, pings); without one they are dropped.
    pub fn persistent(sink: Option<SharedSink>) -> Arc<ConnectionState> {
        Arc::new(ConnectionState::new(
            true,
            ProtocolVersion::LATEST_HANDSHAKE,
            sink,
        ))
    }

    /// The state of a single request on a stateless server, speaking `version`. Nothing set on it
    /// outlives the request, so features that need state across requests refuse to work on it.
    pub fn transient(version: ProtocolVersion) -> Arc<ConnectionState> {
        Arc::new(ConnectionState::new(false, version, None))
    }

    fn new(persistent: bool, default_version: ProtocolVersion, sink: Option<SharedSink>) -> Self {
        ConnectionState {
            id: NEXT_CONNECTION_ID.fetch_add(1, Ordering::Relaxed),
            persistent,
            default_version,
            sink,
            handshake: OnceLock::new(),
            initialize_seen: AtomicBool::new(false),
            initialized: AtomicBool::new(false),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
            in_flight: Mutex::new(HashMap::default()),
            pending: Mutex::new(HashMap::default()),
            next_request_id: AtomicI64::new(0),
            closing: CancellationToken::new(),
            shared: OnceLock::new(),
            request_budget: OnceLock::new(),
        }
    }

    /// Makes this the connection of a session that several instances serve: the changes
    /// requests make, and the answers and cancellations meant for another instance, are kept
    /// for the transport to pass on ([`take_shared`](Self::take_shared)); the ids of the server's
    /// requests start at a random point, so that two instances never send the client the same.
    #[cfg(feature = "http-handler")]
    pub(crate) fn share(&self) {
        if self.shared.set(Mutex::new(Vec::new())).is_ok() {
            let mut bytes = [0u8; 4];
            // Without randomness the ids still work; they only may meet another instance's.
            let _ = getrandom::fill(&mut bytes);
            // Up to 2^31 instances' worth of room below 2^53, the largest id every JSON peer
            // reads exactly.
            let base = i64::from(u32::from_le_bytes(bytes) >> 1) << 21;
            self.next_request_id.store(base, Ordering::Relaxed);
        }
    }

    /// Takes what this connection must tell the other instances.
    #[cfg(feature = "http-handler")]
    pub(crate) fn take_shared(&self) -> Vec<SharedEvent> {
        self.shared
            .get()
            .map(|events| std::mem::take(&mut *events.lock()))
            .unwrap_or_default()
    }

    /// Keeps `event` for the other instances, when the connection is shared; whether it is.
    fn tell_others(&self, event: SharedEvent) -> bool {
        match self.shared.get() {
            Some(events) => {
                events.lock().push(event);
                true
            }
            None => false,
        }
    }

    /// Takes the session's state as another instance left it: the handshake (when this copy has
    /// none yet), whether the client sent `initialized`, its log level and subscriptions.
    #[cfg(feature = "http-handler")]
    pub(crate) fn restore(
        &self,
        handshake: &Handshake,
        initialized: bool,
        log_level: Option<LoggingLevel>,
        subscriptions: impl IntoIterator<Item = String>,
    ) {
        if self.handshake.set(handshake.clone()).is_ok() {
            self.initialize_seen.store(true, Ordering::Release);
        }
        self.initialized.store(initialized, Ordering::Release);
        *self.log_level.lock() = log_level;
        *self.subscriptions.lock() = subscriptions.into_iter().collect();
    }

    /// A number that identifies this connection within the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The token that fires when the connection closes.
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.closing
    }

    /// Whether state set by one request is kept for the next (false on a stateless server's
    /// per-request state).
    pub fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// The sink for unsolicited messages, if the transport gave one.
    pub fn sink(&self) -> Option<&SharedSink> {
        self.sink.as_ref()
    }

    /// The revision this connection speaks: the negotiated one after `initialize`, the transport's
    /// default before.
    pub fn version(&self) -> ProtocolVersion {
        self.handshake
            .get()
            .map_or(self.default_version, |h| h.version)
    }

    /// What `initialize` settled, once it has run.
    pub fn handshake(&self) -> Option<&Handshake> {
        self.handshake.get()
    }

    /// The client's capabilities (empty before `initialize`).
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.handshake
            .get()
            .map(|h| h.client_capabilities.clone())
            .unwrap_or_default()
    }

    /// Claims the right to run `initialize`: true the first time only.
    pub(crate) fn claim_initialize(&self) -> bool {
        !self.initialize_seen.swap(true, Ordering::AcqRel)
    }

    /// Records the outcome of `initialize`.
    pub(crate) fn complete_handshake(&self, handshake: Handshake) {
        // `claim_initialize` lets only one `initialize` through, so this is set at most once.
        let _ = self.handshake.set(handshake);
    }

    /// Whether the client has sent `notifications/initialized`.
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub(crate) fn mark_initialized(&self) {
        if !self.initialized.swap(true, Ordering::AcqRel) {
            self.tell_others(SharedEvent::Change(SessionChange::Initialized));
        }
    }

    /// The level the client set with `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        *self.log_level.lock()
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *self.log_level.lock() = Some(level);
        self.tell_others(SharedEvent::Change(SessionChange::LogLevel(level)));
    }

    /// Subscribes to changes of `uri`.
    pub(crate) fn subscribe(&self, uri: &str) {
        self.subscriptions.lock().insert(uri.to_owned());
        self.tell_others(SharedEvent::Change(SessionChange::Subscribed(uri.into())));
    }

    /// Ends a subscription; false when there was none.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        let removed = self.subscriptions.lock().remove(uri);
        if removed {
            self.tell_others(SharedEvent::Change(SessionChange::Unsubscribed(uri.into())));
        }
        removed
    }

    /// The resources the client subscribed to.
    #[cfg(feature = "http-handler")]
    pub(crate) fn subscriptions(&self) -> std::collections::BTreeSet<String> {
        self.subscriptions.lock().iter().cloned().collect()
    }

    /// Whether the client subscribed to changes of `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions.lock().contains(uri)
    }

    /// Registers the request `id` as in flight, unless the same id is already in flight or
    /// `limit` requests are. The returned guard frees the id when dropped.
    pub(crate) fn begin_request(
        self: &Arc<Self>,
        id: &RequestId,
        limit: usize,
    ) -> Result<InFlightGuard, Refusal> {
        // Weighed first, without holding the requests in flight: making room may end a wait of
        // another connection.
        let weighed = self.weigh_request().ok_or(Refusal::Busy)?;
        let mut in_flight = self.in_flight.lock();
        let refused = if in_flight.contains_key(id) {
            Some(Refusal::Duplicate)
        } else if in_flight.len() >= limit {
            Some(Refusal::TooMany { limit })
        } else {
            None
        };
        if let Some(refusal) = refused {
            if weighed {
                self.unweigh_request();
            }
            return Err(refusal);
        }
        let mut guard = self.untracked_request();
        guard.weighed = weighed;
        in_flight.insert(
            id.clone(),
            InFlight {
                token: guard.token.clone(),
                cancelled_by_peer: guard.cancelled_by_peer.clone(),
            },
        );
        guard.id = Some(id.clone());
        Ok(guard)
    }

    /// A guard for a request the peer cannot cancel (`initialize`): it is not registered, so a
    /// cancellation naming its id finds nothing, but its token still fires when the connection
    /// closes.
    pub(crate) fn untracked_request(self: &Arc<Self>) -> InFlightGuard {
        InFlightGuard {
            connection: self.clone(),
            id: None,
            token: self.closing.child_token(),
            cancelled_by_peer: Arc::new(AtomicBool::new(false)),
            weighed: false,
        }
    }

    /// Cancels the request `id` of this connection on the peer's behalf; false when no such
    /// request is in flight here (on a shared session, the other instances are told, and it is
    /// true).
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        self.cancel_here(id) || self.tell_others(SharedEvent::Cancel(id.clone()))
    }

    /// Cancels the request `id` if it runs on this instance; false when it does not.
    pub(crate) fn cancel_here(&self, id: &RequestId) -> bool {
        match self.in_flight.lock().get(id) {
            Some(request) => {
                request.cancelled_by_peer.store(true, Ordering::Release);
                request.token.cancel();
                true
            }
            None => false,
        }
    }

    /// Closes the connection (the peer went away or the session ended): every server request
    /// still waiting for an answer fails at once, later ones fail without being sent, and the
    /// token of every request in flight fires. Responses of handlers that still finish are not
    /// suppressed: the transport may still deliver them.
    pub fn close(&self) {
        self.closing.cancel();
        self.abandon_pending();
        self.leave_budget();
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closing.is_cancelled()
    }

    /// How many requests of this peer are being handled.
    pub fn requests_in_flight(&self) -> usize {
        self.in_flight.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_scoped_to_the_connection() {
        let a = ConnectionState::persistent(None);
        let b = ConnectionState::persistent(None);
        let id = RequestId::Number(1);
        let guard_a = a.begin_request(&id, 8).unwrap();
        let guard_b = b.begin_request(&id, 8).unwrap();
        assert_eq!(
            a.begin_request(&id, 8).err(),
            Some(Refusal::Duplicate),
            "an id in flight cannot be reused"
        );
        assert!(a.cancel(&id));
        assert!(guard_a.token().is_cancelled());
        assert!(guard_a.cancelled_by_peer());
        assert!(
            !guard_b.token().is_cancelled(),
            "cancelling on one connection touches no other"
        );
        drop(guard_a);
        assert!(!a.cancel(&id));
        assert_eq!(a.requests_in_flight(), 0);
        assert_eq!(b.requests_in_flight(), 1);
        assert_ne!(a.id(), b.id());
    }

    #[test]
    fn in_flight_requests_are_capped_and_closing_cancels_them() {
        let conn = ConnectionState::persistent(None);
        let first = conn.begin_request(&RequestId::Number(1), 2).unwrap();
        let second = conn.begin_request(&RequestId::from("two"), 2).unwrap();
        assert_eq!(
            conn.begin_request(&RequestId::Number(3), 2).err(),
            Some(Refusal::TooMany { limit: 2 })
        );
        drop(second);
        let third = conn.begin_request(&RequestId::Number(3), 2).unwrap();
        let untracked = conn.untracked_request();
        assert!(!conn.cancel(&RequestId::Number(0)));
        conn.close();
        assert!(conn.is_closed());
        for guard in [&first, &third, &untracked] {
            assert!(guard.token().is_cancelled());
            assert!(
                !guard.cancelled_by_peer(),
                "closing is not the peer's cancellation"
            );
        }
    }
}
