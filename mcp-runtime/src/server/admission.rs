//! Admission: what the server does with a message as it arrives, before any handler runs.

use std::sync::Arc;

use futures_util::future::join_all;
use mcp_core::ErrorObject;
use mcp_core::jsonrpc::{self, EnvelopeError, Incoming, JsonRpcMessage, JsonRpcRequest};

use super::dispatch::{self, RequestTask};
use super::reply::{Reply, render_batch};
use super::{McpServer, lifecycle};
use crate::connection::{ConnectionState, SharedSink};

impl McpServer {
    /// Handles one received message from the peer of `connection`. Returns the reply to a
    /// request (none for notifications and responses, and none for a request the peer cancelled).
    /// `sink` carries the messages the handler sends while it runs (progress, logs, requests to the
    /// client); without one they are dropped.
    pub async fn handle(
        &self,
        message: JsonRpcMessage,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<Reply> {
        match message {
            JsonRpcMessage::Request(request) => {
                self.handle_request(request, connection, sink).await
            }
            JsonRpcMessage::Notification(notification) => {
                lifecycle::notification(self, notification, connection);
                None
            }
            JsonRpcMessage::Response(response) => {
                if !connection.resolve(&response.id, Ok(response.result)) {
                    tracing::debug!(id = %response.id, "a response matches no request of ours");
                }
                None
            }
            JsonRpcMessage::Error(error) => {
                match &error.id {
                    Some(id) if connection.resolve(id, Err(error.error.clone())) => {}
                    _ => {
                        tracing::debug!(?error, "the client sent an error that matches no request")
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Handles wire text: one message or a batch. Returns the text of the reply, if any. Text that
    /// is not JSON gets a parse error (`-32700`) and an invalid message an invalid-request error
    /// (`-32600`), both with a `null` id unless the message's id could be read. A batch is accepted
    /// from a peer speaking 2025-03-26, the only revision that allows them.
    pub async fn handle_raw(
        &self,
        text: &[u8],
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<String> {
        let version = connection.version();
        match jsonrpc::parse(text) {
            Err(error) => {
                Some(Reply::error(version, error.id().cloned(), ErrorObject::from(&error)).render())
            }
            Ok(Incoming::Message(message)) => self
                .handle(message, connection, sink)
                .await
                .map(|r| r.render()),
            Ok(Incoming::Batch(entries)) => self.handle_batch(entries, connection, sink).await,
            Ok(_) => None,
        }
    }

    /// Handles a batch (2025-03-26): every entry concurrently, the replies in one array. A batch
    /// from a peer speaking another revision is refused as a whole.
    pub async fn handle_batch(
        &self,
        entries: Vec<Result<JsonRpcMessage, EnvelopeError>>,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<String> {
        let version = connection.version();
        if !version.accepts_batches() {
            let error = ErrorObject::invalid_request(format!(
                "JSON-RPC batches are accepted only from peers speaking 2025-03-26 (this one speaks {version})"
            ));
            return Some(Reply::error(version, None, error).render());
        }
        let replies = join_all(entries.into_iter().map(|entry| {
            let sink = sink.clone();
            async move {
                match entry {
                    Err(error) => Some(Reply::error(
                        version,
                        error.id().cloned(),
                        ErrorObject::from(&error),
                    )),
                    Ok(JsonRpcMessage::Request(request))
                        if request.request.method == "initialize" =>
                    {
                        Some(Reply::error(
                            version,
                            Some(request.id),
                            ErrorObject::invalid_request("initialize must not be part of a batch"),
                        ))
                    }
                    Ok(message) => self.handle(message, connection, sink).await,
                }
            }
        }))
        .await;
        let replies: Vec<Reply> = replies.into_iter().flatten().collect();
        (!replies.is_empty()).then(|| render_batch(&replies))
    }

    async fn handle_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> Option<Reply> {
        match self.start_request(request, connection, sink) {
            RequestTask::Answered(reply) => Some(*reply),
            RequestTask::Running(run) => run.await,
        }
    }

    /// Starts handling a request: decodes it and registers it as in flight (so that a
    /// cancellation read right after it finds it), then returns either the immediate answer (an
    /// invalid request) or the work that produces the answer, for the transport to run.
    pub fn start_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
    ) -> RequestTask {
        dispatch::start(self, request, connection, sink, None)
    }

    /// [`start_request`](Self::start_request) for a request the transport already checked as one
    /// of 2026-07-28 (`checked`: its revision).
    pub(crate) fn start_checked_request(
        &self,
        request: JsonRpcRequest,
        connection: &Arc<ConnectionState>,
        sink: Option<SharedSink>,
        checked: Option<mcp_core::ProtocolVersion>,
    ) -> RequestTask {
        dispatch::start(self, request, connection, sink, checked)
    }
}
