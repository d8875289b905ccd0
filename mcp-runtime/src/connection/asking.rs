//! The requests the server sends its peer (elicitation, sampling, roots, ping) and waits for,
//! and the share of the memory budget that a server's sessions' requests draw from.
//!
//! Each request sent gets the next id of its connection and waits, under that id, for the
//! peer's answer ([`ConnectionState::resolve`]), for the request that needed it to be cancelled,
//! or for its timeout; the peer is told with `notifications/cancelled` when the server stops
//! waiting for any other reason than the answer.
//!
//! On a server whose sessions share a [`RequestBudget`] (the HTTP transport's), each request in
//! flight weighs [`REQUEST_WEIGHT`] and each wait for an answer [`ANSWER_WAIT_WEIGHT`] more. A
//! client can leave the server's requests unanswered for as long as their timeouts, so when the
//! share is full the budget makes room the way the event store does: the oldest wait of the
//! connection waiting for the most answers ends ([`PeerRequestError::Busy`] for its handler,
//! `notifications/cancelled` for its peer). A client that leaves many questions unanswered loses
//! them first, and cannot lock everyone else out.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::cancellation::CancelledNotificationParams;
use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::messages::{ServerNotification, ServerRequest};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{ConnectionState, Outbound, SharedSink};
use crate::memory::{ANSWER_WAIT_WEIGHT, Pool, REQUEST_WEIGHT};
use crate::spans;

/// A request the server sent and waits for the answer to.
pub(super) struct Waiter {
    answer: oneshot::Sender<Answer>,
    /// Whether it is weighed in the connection's budget (given back by whoever removes it).
    weighed: bool,
}

/// How a wait ends, short of the waiting side giving up.
enum Answer {
    /// The peer answered.
    Answered(Result<Value, ErrorObject>),
    /// The budget needed the memory.
    Evicted,
}

/// The share of the memory budget that the requests of a server's connections draw from, and
/// the connections that draw from it (to find the one waiting for the most answers).
pub(crate) struct RequestBudget {
    pool: Arc<Pool>,
    members: Mutex<HashMap<u64, Weak<ConnectionState>>>,
}

impl RequestBudget {
    /// A share of `bytes`.
    pub(crate) fn new(bytes: usize) -> Arc<RequestBudget> {
        Arc::new(RequestBudget {
            pool: Pool::new(bytes),
            members: Mutex::new(HashMap::new()),
        })
    }

    /// The bytes its requests hold now.
    pub(crate) fn used(&self) -> usize {
        self.pool.used()
    }

    /// Takes `bytes`, making room when the share is full (see the [module docs](self)); false
    /// when there is none to make.
    fn take(&self, bytes: usize) -> bool {
        self.pool.try_take(bytes) || (self.evict_one() && self.pool.try_take(bytes))
    }

    fn give_back(&self, bytes: usize) {
        self.pool.give_back(bytes);
    }

    /// Ends the oldest wait of the connection waiting for the most answers; false when none
    /// waits.
    fn evict_one(&self) -> bool {
        let greediest = {
            let mut members = self.members.lock();
            members.retain(|_, member| member.strong_count() > 0);
            members
                .values()
                .filter_map(Weak::upgrade)
                .map(|member| {
                    let waits = member.pending.lock().len();
                    (waits, member)
                })
                .filter(|(waits, _)| *waits > 0)
                .max_by_key(|(waits, _)| *waits)
        };
        greediest.is_some_and(|(_, member)| member.evict_oldest_wait())
    }
}

impl ConnectionState {
    /// Weighs this peer's requests in flight, and the answers they wait for, against `budget`,
    /// which the server's other connections share: when it is spent and no room can be made, a
    /// new request is refused ([`Refusal::Busy`](super::Refusal::Busy)) and a request to the
    /// peer is not sent ([`PeerRequestError::Busy`]).
    #[cfg(feature = "http-handler")]
    pub(crate) fn weigh_requests_in(self: &Arc<Self>, budget: Arc<RequestBudget>) {
        budget
            .members
            .lock()
            .insert(self.id(), Arc::downgrade(self));
        let _ = self.request_budget.set(budget);
    }

    /// Whether a new request of this peer would find room in the budget, made if need be.
    #[cfg(feature = "http-handler")]
    pub(crate) fn make_room_for_request(&self) -> bool {
        match self.request_budget.get() {
            Some(budget) => {
                budget.pool.has_room_for(REQUEST_WEIGHT)
                    || (budget.evict_one() && budget.pool.has_room_for(REQUEST_WEIGHT))
            }
            None => true,
        }
    }

    /// Takes the weight of a new request in flight; `Some(false)` when it is not weighed,
    /// `None` when the budget has no room.
    pub(super) fn weigh_request(&self) -> Option<bool> {
        match self.request_budget.get() {
            Some(budget) => budget.take(REQUEST_WEIGHT).then_some(true),
            None => Some(false),
        }
    }

    /// Gives back the weight of a request that is no longer in flight.
    pub(super) fn unweigh_request(&self) {
        if let Some(budget) = self.request_budget.get() {
            budget.give_back(REQUEST_WEIGHT);
        }
    }

    /// Leaves the budget (the connection closed).
    pub(super) fn leave_budget(&self) {
        if let Some(budget) = self.request_budget.get() {
            budget.members.lock().remove(&self.id());
        }
    }

    /// Sends `request` through `sink` and waits for the peer's answer, until `cancel` fires or
    /// `timeout` (if any) elapses. When the server stops waiting for any reason other than the
    /// peer's answer or the connection closing (cancellation, timeout, the budget needing the
    /// memory, the waiting future being dropped), the peer is sent `notifications/cancelled` for
    /// the request.
    pub(crate) async fn send_request(
        &self,
        sink: &SharedSink,
        request: ServerRequest,
        cancel: &CancellationToken,
        timeout: Option<Duration>,
    ) -> Result<Value, PeerRequestError> {
        // A client span of its own, inside the span of the call that needed the answer.
        let span = spans::server_request(request.method(), self.version());
        #[cfg(feature = "otel")]
        let request = {
            let mut request = request;
            crate::telemetry::inject_meta(&span, request.meta_mut());
            request
        };
        let outcome = self
            .exchange(sink, request, cancel, timeout)
            .instrument(span.clone())
            .await;
        match &outcome {
            Ok(_) => {}
            Err(PeerRequestError::Refused(error)) => spans::record_error(&span, error),
            Err(failure) => spans::record_failure(&span, failure.kind(), failure),
        }
        outcome
    }

    /// [`send_request`](Self::send_request), inside its span.
    async fn exchange(
        &self,
        sink: &SharedSink,
        request: ServerRequest,
        cancel: &CancellationToken,
        timeout: Option<Duration>,
    ) -> Result<Value, PeerRequestError> {
        let weighed = match self.request_budget.get() {
            Some(budget) if budget.take(ANSWER_WAIT_WEIGHT) => true,
            Some(_) => return Err(PeerRequestError::Busy),
            None => false,
        };
        let id = RequestId::Number(self.next_request_id.fetch_add(1, Ordering::Relaxed));
        spans::record_id(&tracing::Span::current(), &id);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().insert(
            id.clone(),
            Waiter {
                answer: tx,
                weighed,
            },
        );
        // Checked after registering: a `close` that comes later clears the entry, so the wait
        // below ends either way.
        if self.is_closed() {
            self.take_waiter(&id);
            return Err(PeerRequestError::Disconnected);
        }
        let mut waiting = Waiting {
            connection: self,
            sink,
            id: id.clone(),
            reason: "the server no longer waits for the answer",
        };
        if sink
            .send_when_ready(Outbound::Request(id.clone(), Box::new(request)))
            .await
            .is_err()
        {
            self.take_waiter(&id);
            return Err(PeerRequestError::Disconnected);
        }
        let expired = async {
            match timeout {
                Some(limit) => crate::rt::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            answer = rx => match answer {
                Ok(Answer::Answered(Ok(result))) => Ok(result),
                Ok(Answer::Answered(Err(error))) => Err(PeerRequestError::Refused(error)),
                Ok(Answer::Evicted) => {
                    waiting.tell(
                        "the server needed the memory for newer requests: the client left this \
                         one unanswered the longest",
                    );
                    Err(PeerRequestError::Busy)
                }
                Err(_) => Err(PeerRequestError::Disconnected),
            },
            () = cancel.cancelled() => {
                // Closing the connection fires every request's token too; that is a disconnection.
                if self.is_closed() {
                    return Err(PeerRequestError::Disconnected);
                }
                waiting.reason = "the request that needed the answer was cancelled";
                Err(PeerRequestError::Cancelled)
            }
            () = expired => {
                waiting.reason = "no answer came in time";
                Err(PeerRequestError::TimedOut)
            }
        }
    }

    /// Removes the wait `id`, giving back its weight.
    fn take_waiter(&self, id: &RequestId) -> Option<oneshot::Sender<Answer>> {
        let waiter = self.pending.lock().remove(id)?;
        if waiter.weighed
            && let Some(budget) = self.request_budget.get()
        {
            budget.give_back(ANSWER_WAIT_WEIGHT);
        }
        Some(waiter.answer)
    }

    /// Ends the wait this connection has had the longest; false when it has none.
    fn evict_oldest_wait(&self) -> bool {
        let oldest = {
            let pending = self.pending.lock();
            // The server numbers its requests in order.
            pending
                .keys()
                .min_by_key(|id| match id {
                    RequestId::Number(n) => *n,
                    _ => i64::MAX,
                })
                .cloned()
        };
        match oldest.and_then(|id| self.take_waiter(&id)) {
            Some(waiter) => {
                let _ = waiter.send(Answer::Evicted);
                true
            }
            None => false,
        }
    }

    /// Routes the peer's answer to the server request `id`; false when no such request waits
    /// (on a shared session, the answer goes to the other instances, and it is true).
    pub(crate) fn resolve(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match self.take_waiter(id) {
            Some(waiter) => waiter.send(Answer::Answered(answer)).is_ok(),
            None => self.tell_others(super::SharedEvent::Answer(id.clone(), answer)),
        }
    }

    /// Routes the peer's answer to the server request `id` if it waits on this instance; false
    /// when it does not.
    #[cfg(feature = "http-handler")]
    pub(crate) fn resolve_here(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match self.take_waiter(id) {
            Some(waiter) => waiter.send(Answer::Answered(answer)).is_ok(),
            None => false,
        }
    }

    /// Fails every server request still waiting for an answer (the peer went away).
    pub(crate) fn abandon_pending(&self) {
        let ids: Vec<RequestId> = self.pending.lock().keys().cloned().collect();
        for id in ids {
            self.take_waiter(&id);
        }
    }
}

/// A server-to-client request being waited for. Dropped before the answer came (and before the
/// connection closed), it withdraws the request and tells the peer with `notifications/cancelled`.
struct Waiting<'a> {
    connection: &'a ConnectionState,
    sink: &'a SharedSink,
    id: RequestId,
    reason: &'static str,
}

impl Waiting<'_> {
    /// Tells the peer that the server no longer waits, for `reason`.
    fn tell(&self, reason: &str) {
        let mut params = CancelledNotificationParams::new(self.id.clone());
        params.reason = Some(reason.to_owned());
        let notification = ServerNotification::Cancelled(params);
        if self
            .sink
            .send(Outbound::Notification(notification))
            .is_err()
        {
            tracing::debug!(id = %self.id, "could not withdraw a request: the client is gone");
        }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let withdrawn = self.connection.take_waiter(&self.id).is_some();
        // Nothing to tell when it was answered or evicted, or when the connection closed.
        if withdrawn && !self.connection.is_closed() {
            self.tell(self.reason);
        }
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
    /// No answer came within the timeout set on the server builder.
    #[error("the client did not answer in time")]
    TimedOut,
    /// The requests in flight of the server's sessions, and the answers they wait for, hold the
    /// share of its memory budget they may
    /// ([`HttpOptions::memory_budget`](crate::transport::http::HttpOptions::memory_budget)): the
    /// request was not sent, or (when this client left it unanswered the longest of those that
    /// leave the most unanswered) was withdrawn. Try again shortly.
    #[error(
        "the server is handling as many requests as its memory budget allows; try again in a \
         few seconds"
    )]
    Busy,
}

impl PeerRequestError {
    /// The error's class, as a span's `error.type` records it.
    fn kind(&self) -> &'static str {
        match self {
            PeerRequestError::Refused(_) => "refused",
            PeerRequestError::Disconnected => "disconnected",
            PeerRequestError::Cancelled => "cancelled",
            PeerRequestError::TimedOut => "timeout",
            PeerRequestError::Busy => "busy",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::Refusal;

    fn ping() -> ServerRequest {
        ServerRequest::Ping(Default::default())
    }

    /// A connection that answers nothing, weighed in `budget`, and what it was sent.
    fn silent_peer(
        budget: &Arc<RequestBudget>,
    ) -> (
        Arc<ConnectionState>,
        SharedSink,
        tokio::sync::mpsc::UnboundedReceiver<Outbound>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: SharedSink = Arc::new(tx);
        let connection = ConnectionState::persistent(Some(sink.clone()));
        connection.weigh_requests_in(budget.clone());
        (connection, sink, rx)
    }

    #[tokio::test]
    async fn a_full_budget_ends_the_oldest_wait_of_the_greediest_connection() {
        // Room for three waits (each a request in flight and its wait for an answer).
        let budget = RequestBudget::new(3 * (REQUEST_WEIGHT + ANSWER_WAIT_WEIGHT));
        let (greedy, greedy_sink, mut greedy_sent) = silent_peer(&budget);
        let (modest, modest_sink, _modest_sent) = silent_peer(&budget);
        let wait = |connection: &Arc<ConnectionState>, sink: &SharedSink, id: i64| {
            let guard = connection.begin_request(&RequestId::Number(id), 8).unwrap();
            let (connection, sink) = (connection.clone(), sink.clone());
            tokio::spawn(async move {
                let answer = connection
                    .send_request(&sink, ping(), guard.token(), None)
                    .await;
                drop(guard);
                answer
            })
        };
        let first = wait(&greedy, &greedy_sink, 1);
        let second = wait(&greedy, &greedy_sink, 2);
        let modest_wait = wait(&modest, &modest_sink, 1);
        while budget.used() < 3 * (REQUEST_WEIGHT + ANSWER_WAIT_WEIGHT) {
            tokio::task::yield_now().await;
        }
        // A new request of the modest client finds the budget full: the greedy client's oldest
        // wait ends to make room.
        let guard = modest.begin_request(&RequestId::Number(2), 8).unwrap();
        assert_eq!(first.await.unwrap(), Err(PeerRequestError::Busy));
        let Some(Outbound::Request(oldest, _)) = greedy_sent.recv().await else {
            panic!("the first ping");
        };
        let _second_ping = greedy_sent.recv().await;
        let mut withdrawn = CancelledNotificationParams::new(oldest);
        withdrawn.reason = Some(
            "the server needed the memory for newer requests: the client left this one \
             unanswered the longest"
                .to_owned(),
        );
        assert_eq!(
            greedy_sent.recv().await,
            Some(Outbound::Notification(ServerNotification::Cancelled(
                withdrawn
            )))
        );
        assert_eq!(
            budget.used(),
            3 * REQUEST_WEIGHT + 2 * ANSWER_WAIT_WEIGHT,
            "the new request is in flight, the evicted wait's request ended"
        );
        // With no wait left to end, a request that does not fit is refused.
        let full = RequestBudget::new(REQUEST_WEIGHT);
        let (lone, _, _) = silent_peer(&full);
        let _only = lone.begin_request(&RequestId::Number(1), 8).unwrap();
        assert_eq!(
            lone.begin_request(&RequestId::Number(2), 8).err(),
            Some(Refusal::Busy)
        );
        drop(guard);
        second.abort();
        modest_wait.abort();
    }

    #[tokio::test]
    async fn answers_and_closing_give_the_memory_back() {
        let budget = RequestBudget::new(1 << 20);
        let (connection, sink, mut sent) = silent_peer(&budget);
        let token = CancellationToken::new();
        let waiting = {
            let (connection, sink, token) = (connection.clone(), sink.clone(), token.clone());
            tokio::spawn(async move { connection.send_request(&sink, ping(), &token, None).await })
        };
        let Some(Outbound::Request(id, _)) = sent.recv().await else {
            panic!("the ping");
        };
        assert_eq!(budget.used(), ANSWER_WAIT_WEIGHT);
        assert!(connection.resolve(&id, Ok(serde_json::json!({}))));
        assert_eq!(budget.used(), 0);
        assert_eq!(waiting.await.unwrap(), Ok(serde_json::json!({})));
        let waiting = {
            let (connection, sink, token) = (connection.clone(), sink.clone(), token.clone());
            tokio::spawn(async move { connection.send_request(&sink, ping(), &token, None).await })
        };
        let _ = sent.recv().await;
        connection.close();
        assert_eq!(waiting.await.unwrap(), Err(PeerRequestError::Disconnected));
        assert_eq!(budget.used(), 0);
        assert!(budget.members.lock().is_empty());
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
                conn.send_request(
                    &sink,
                    ServerRequest::Ping(Default::default()),
                    &cancel,
                    None,
                )
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
    async fn a_cancelled_wait_stops_waiting_and_withdraws_the_request() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: SharedSink = Arc::new(tx);
        let conn = ConnectionState::persistent(None);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let result = conn
            .send_request(
                &sink,
                ServerRequest::Ping(Default::default()),
                &cancel,
                None,
            )
            .await;
        assert_eq!(result, Err(PeerRequestError::Cancelled));
        let Some(Outbound::Request(id, _)) = rx.recv().await else {
            panic!("expected the request");
        };
        let mut expected = CancelledNotificationParams::new(id);
        expected.reason = Some("the request that needed the answer was cancelled".to_owned());
        assert_eq!(
            rx.recv().await,
            Some(Outbound::Notification(ServerNotification::Cancelled(
                expected
            )))
        );
    }

    #[tokio::test]
    async fn a_closed_connection_sends_no_more_requests() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sink: SharedSink = Arc::new(tx);
        let conn = ConnectionState::persistent(None);
        conn.close();
        let result = conn
            .send_request(
                &sink,
                ServerRequest::Ping(Default::default()),
                &CancellationToken::new(),
                None,
            )
            .await;
        assert_eq!(result, Err(PeerRequestError::Disconnected));
        drop(sink);
        assert_eq!(rx.recv().await, None, "nothing was sent");
    }
}
