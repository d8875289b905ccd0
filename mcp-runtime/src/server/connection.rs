//! Per-peer state: one [`ConnectionState`] per stdio process, in-process pair or HTTP session, and a
//! transient one per request on a stateless HTTP server.
//!
//! Everything a peer changes lives here, never in the [`McpServer`](super::McpServer): the
//! negotiated version and the client's capabilities, the log level, resource subscriptions, the
//! requests in flight (so that a cancellation only reaches the request of the peer that sent it),
//! and the server-to-client requests awaiting an answer. Two connections never see each other's
//! state, even when their request ids coincide.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use mcp_core::capabilities::ClientCapabilities;
use mcp_core::implementation::Implementation;
use mcp_core::jsonrpc::RequestId;
use mcp_core::logging::LoggingLevel;
use mcp_core::messages::ServerRequest;
use mcp_core::{ErrorObject, ProtocolVersion};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::sink::{Outbound, SharedSink};

/// What the `initialize` handshake settled.
#[derive(Clone, Debug, PartialEq)]
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
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
    next_request_id: AtomicI64,
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

/// Locks a mutex, recovering the data if a panicking thread poisoned it (the state guarded here is
/// always left consistent between statements).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

static NEXT_CONNECTION_ID: AtomicU64 = AtomicU64::new(1);

impl ConnectionState {
    /// The state of a peer that stays connected (a stdio process, an in-process pair, an HTTP
    /// session). `sink` receives the server's unsolicited messages (list changes, resource
    /// updates, pings); without one they are dropped.
    pub fn persistent(sink: Option<SharedSink>) -> Arc<ConnectionState> {
        Arc::new(ConnectionState::new(
            true,
            ProtocolVersion::LATEST_LEGACY,
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
            in_flight: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            next_request_id: AtomicI64::new(0),
        }
    }

    /// A number that identifies this connection within the process.
    pub fn id(&self) -> u64 {
        self.id
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
        self.initialized.store(true, Ordering::Release);
    }

    /// The level the client set with `logging/setLevel`, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    /// Subscribes to changes of `uri`.
    pub(crate) fn subscribe(&self, uri: &str) {
        lock(&self.subscriptions).insert(uri.to_owned());
    }

    /// Ends a subscription; false when there was none.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        lock(&self.subscriptions).remove(uri)
    }

    /// Whether the client subscribed to changes of `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Registers a request in flight and returns its cancellation token; `None` when a request
    /// with the same id is already in flight on this connection.
    pub(crate) fn begin_request(&self, id: &RequestId) -> Option<CancellationToken> {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.contains_key(id) {
            return None;
        }
        let token = CancellationToken::new();
        in_flight.insert(id.clone(), token.clone());
        Some(token)
    }

    /// Forgets a finished request.
    pub(crate) fn end_request(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
    }

    /// Cancels the request `id` of this connection; false when no such request is in flight.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Cancels every request in flight (the peer's session ended).
    pub(crate) fn cancel_all(&self) {
        for token in lock(&self.in_flight).values() {
            token.cancel();
        }
    }

    /// How many requests of this peer are being handled.
    pub fn requests_in_flight(&self) -> usize {
        lock(&self.in_flight).len()
    }

    /// Sends `request` through `sink` and waits for the peer's answer, or until `cancel` fires.
    pub(crate) async fn send_request(
        &self,
        sink: &SharedSink,
        request: ServerRequest,
        cancel: &CancellationToken,
    ) -> Result<Value, PeerRequestError> {
        let id = RequestId::Number(self.next_request_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let forget = || lock(&self.pending).remove(&id);
        if sink
            .send(Outbound::Request(id.clone(), Box::new(request)))
            .is_err()
        {
            forget();
            return Err(PeerRequestError::Disconnected);
        }
        tokio::select! {
            answer = rx => match answer {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(error)) => Err(PeerRequestError::Refused(error)),
                Err(_) => Err(PeerRequestError::Disconnected),
            },
            () = cancel.cancelled() => {
                forget();
                Err(PeerRequestError::Cancelled)
            }
        }
    }

    /// Routes the peer's answer to the server request `id`; false when no such request waits.
    pub(crate) fn resolve(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match lock(&self.pending).remove(id) {
            Some(waiter) => waiter.send(answer).is_ok(),
            None => false,
        }
    }

    /// Fails every server request still waiting for an answer (the peer went away).
    pub(crate) fn abandon_pending(&self) {
        lock(&self.pending).clear();
    }
}

/// A server-to-client request did not get a result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerRequestError {
    /// The peer answered with an error.
    #[error("the client answered with an error: {0}")]
    Refused(ErrorObject),
    /// The connection closed before the answer came.
    #[error("the client disconnected before answering")]
    Disconnected,
    /// The request the server was handling was cancelled meanwhile.
    #[error("the request was cancelled")]
    Cancelled,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_scoped_to_the_connection() {
        let a = ConnectionState::persistent(None);
        let b = ConnectionState::persistent(None);
        let id = RequestId::Number(1);
        let token_a = a.begin_request(&id).unwrap();
        let token_b = b.begin_request(&id).unwrap();
        assert!(
            a.begin_request(&id).is_none(),
            "an id in flight cannot be reused"
        );
        assert!(a.cancel(&id));
        assert!(token_a.is_cancelled());
        assert!(
            !token_b.is_cancelled(),
            "cancelling on one connection touches no other"
        );
        a.end_request(&id);
        assert!(!a.cancel(&id));
        assert_ne!(a.id(), b.id());
    }

    #[tokio::test]
    async fn server_requests_are_correlated_by_id() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: SharedSink = Arc::new(tx);
        let conn = ConnectionState::persistent(Some(sink.clone()));
        let cancel = CancellationToken::new();
        let waiting = {
            let conn = conn.clone();
            let sink = sink.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move {
                conn.send_request(&sink, ServerRequest::Ping(Default::default()), &cancel)
                    .await
            })
        };
        let Some(Outbound::Request(id, request)) = rx.recv().await else {
            panic!("expected a request");
        };
        assert_eq!(request.method(), "ping");
        assert!(!conn.resolve(&RequestId::Number(99), Ok(Value::Null)));
        assert!(conn.resolve(&id, Ok(serde_json::json!({}))));
        assert_eq!(waiting.await.unwrap(), Ok(serde_json::json!({})));
    }

    #[tokio::test]
    async fn a_cancelled_wait_stops_waiting() {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: SharedSink = Arc::new(tx);
        let conn = ConnectionState::persistent(None);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let result = conn
            .send_request(&sink, ServerRequest::Ping(Default::default()), &cancel)
            .await;
        assert_eq!(result, Err(PeerRequestError::Cancelled));
    }
}
