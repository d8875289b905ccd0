//! Where the server's own messages go: notifications and server-to-client requests.
//!
//! A transport gives the server a [`MessageSink`] for each connection (for unsolicited messages,
//! such as list-changed notifications) and for each request (for messages about that request, such
//! as progress, which Streamable HTTP sends on the request's own response stream). The transport
//! renders each [`Outbound`] message for the peer's protocol revision when it writes it.
//!
//! The transports' queues are bounded, so that a peer that does not read cannot grow the server's
//! memory. A handler's own messages (progress, logs, requests to the client) go out with
//! [`MessageSink::send_when_ready`], which waits while the queue is full: a handler that reports
//! faster than its client reads is slowed down to the client's pace. Broadcasts (list changes,
//! resource updates) go out with [`MessageSink::send`], which never waits: a peer whose queue is
//! full misses them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::ProtocolVersion;
use mcp_runtime_core::jsonrpc::{JsonRpcNotification, JsonRpcRequest, RequestId};
use mcp_runtime_core::messages::{ServerNotification, ServerRequest};
use serde::Serialize;

/// A message the server sends on its own initiative.
// Notifications are the common case and are not boxed; requests (rarer and larger) are.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outbound {
    /// A notification.
    Notification(ServerNotification),
    /// A request; the peer's response is routed back by its id.
    Request(RequestId, Box<ServerRequest>),
    /// A notification about a 2026-07-28 request (its progress or logs, or what its listen
    /// stream carries), written in that revision's form whatever the connection negotiated: one
    /// stdio connection may serve both eras.
    Stateless(ServerNotification),
}

impl Outbound {
    /// The JSON-RPC message, ready to be rendered.
    pub fn to_message(&self) -> OutboundMessage<'_> {
        match self {
            Outbound::Notification(n) | Outbound::Stateless(n) => {
                OutboundMessage::Notification(JsonRpcNotification::new(n))
            }
            Outbound::Request(id, r) => {
                OutboundMessage::Request(JsonRpcRequest::new(id.clone(), &**r))
            }
        }
    }

    /// The message rendered for `version`, as one line of JSON.
    ///
    /// Fails when `version` cannot carry the message (a method it does not define, a field it
    /// requires and the message lacks, ...): the message must then not be sent.
    pub fn render(&self, version: ProtocolVersion) -> serde_json::Result<String> {
        let version = match self {
            Outbound::Stateless(_) => ProtocolVersion::V2026_07_28,
            _ => version,
        };
        mcp_runtime_core::render::to_string(&self.to_message(), version)
    }
}

/// An [`Outbound`] message in its JSON-RPC envelope.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum OutboundMessage<'a> {
    /// A notification.
    Notification(JsonRpcNotification<&'a ServerNotification>),
    /// A request.
    Request(JsonRpcRequest<&'a ServerRequest>),
}

/// The peer is gone (its connection or stream closed), or, for [`MessageSink::send`], so far
/// behind that its queue is full: the message was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the peer is no longer connected, or not reading what the server sends")]
pub struct PeerGone;

/// What [`MessageSink::send_when_ready`] returns.
pub type SendFuture<'a> = Pin<Box<dyn Future<Output = Result<(), PeerGone>> + Send + 'a>>;

/// A destination for [`Outbound`] messages.
pub trait MessageSink: Send + Sync + 'static {
    /// Queues `message` for the peer, without waiting; when the peer's queue is full, the
    /// message is dropped (and `PeerGone` returned).
    fn send(&self, message: Outbound) -> Result<(), PeerGone>;

    /// Queues `message` for the peer, waiting while its queue is full. Sinks without a bound
    /// queue need not override it: it calls [`send`](Self::send).
    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        Box::pin(std::future::ready(self.send(message)))
    }

    /// Ends the response stream that carries this request's messages, asking the client to come
    /// back after `retry` (SSE polling, SEP-1699); the messages that follow are kept for it.
    /// Returns whether the transport did so (only Streamable HTTP can).
    fn close_stream(&self, retry: std::time::Duration) -> bool {
        let _ = retry;
        false
    }
}

/// A sink that is shared between the connection and its requests.
pub type SharedSink = Arc<dyn MessageSink>;

impl MessageSink for tokio::sync::mpsc::UnboundedSender<Outbound> {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        tokio::sync::mpsc::UnboundedSender::send(self, message).map_err(|_| PeerGone)
    }
}

impl MessageSink for tokio::sync::mpsc::Sender<Outbound> {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        try_enqueue(self, message)
    }

    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        enqueue(self, message)
    }
}

/// [`MessageSink::send`] of a sink that is a bounded queue of `T`: `item` goes in if there is
/// room.
pub(crate) fn try_enqueue<T>(
    queue: &tokio::sync::mpsc::Sender<T>,
    item: T,
) -> Result<(), PeerGone> {
    queue.try_send(item).map_err(|_| PeerGone)
}

/// [`MessageSink::send_when_ready`] of a sink that is a bounded queue of `T`.
pub(crate) fn enqueue<T: Send + 'static>(
    queue: &tokio::sync::mpsc::Sender<T>,
    item: T,
) -> SendFuture<'_> {
    Box::pin(async move { queue.send(item).await.map_err(|_| PeerGone) })
}
