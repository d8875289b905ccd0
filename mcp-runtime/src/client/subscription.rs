//! The client's side of `subscriptions/listen` (2026-07-28): a [`Subscription`] is one long-lived
//! request whose stream carries the notifications the client asked for, until the client drops it
//! or the server ends it.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::subscriptions::SubscriptionFilter;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::ClientError;
use super::peer::{Answer, Outstanding, Peer};

const METHOD: &str = "subscriptions/listen";

/// An open `subscriptions/listen` stream (see [`McpClient::listen`](super::McpClient::listen)).
/// Dropping it cancels the subscription.
pub struct Subscription {
    acknowledged: SubscriptionFilter,
    notifications: mpsc::UnboundedReceiver<ServerNotification>,
    ended: Option<oneshot::Receiver<Answer>>,
    _outstanding: Outstanding,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// Sends `subscriptions/listen` with `params` and waits (at most `timeout`) for the
    /// acknowledgement, the first message of the stream.
    pub(super) async fn open(
        peer: Arc<Peer>,
        params: Value,
        timeout: Option<Duration>,
    ) -> Result<Subscription, ClientError> {
        let id = peer.next_id();
        let (sink, mut notifications) = mpsc::unbounded_channel();
        peer.route_subscription(id.clone(), sink);
        let mut ended = peer.expect(id.clone());
        let outstanding = Outstanding::new(peer.clone(), id.clone());
        peer.send(&json!({"jsonrpc": "2.0", "id": id, "method": METHOD, "params": params}))?;
        let acknowledgement = async {
            tokio::select! {
                first = notifications.recv() => match first {
                    Some(ServerNotification::SubscriptionsAcknowledged(ack)) => Ok(ack.notifications),
                    Some(other) => Err(protocol(format!(
                        "the stream began with {} instead of its acknowledgement",
                        other.method()
                    ))),
                    None => Err(ClientError::Disconnected),
                },
                answer = &mut ended => Err(match answer {
                    Ok(Err(failure)) => failure.into_error(METHOD),
                    Err(_) => ClientError::Disconnected,
                    Ok(Ok(_)) => protocol("the server ended the stream before acknowledging it".into()),
                }),
            }
        };
        let acknowledged = match timeout {
            Some(timeout) => crate::rt::timeout(timeout, acknowledgement)
                .await
                .map_err(|_| ClientError::TimedOut {
                    method: METHOD,
                    timeout,
                })??,
            None => acknowledgement.await?,
        };
        Ok(Subscription {
            acknowledged,
            notifications,
            ended: Some(ended),
            _outstanding: outstanding,
        })
    }

    /// The notifications the server agreed to send (a subset of those asked for).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// The next notification; `None` once the server ended the subscription (gracefully, with
    /// its result, or because the connection closed) and every notification before the end
    /// was read.
    pub async fn next(&mut self) -> Option<ServerNotification> {
        if let Some(ended) = &mut self.ended {
            tokio::select! {
                biased;
                notification = self.notifications.recv() => return notification,
                _ = ended => self.ended = None,
            }
        }
        self.notifications.try_recv().ok()
    }
}

fn protocol(detail: String) -> ClientError {
    ClientError::Protocol {
        method: METHOD,
        detail,
    }
}
