//! The JSON-RPC plumbing of a client connection over newline-delimited JSON (stdio, in-process):
//! a writer task, a reader task that routes responses to the requests waiting for them, server
//! requests to the application's handlers and notifications to subscribers.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use mcp_runtime_core::input::InputRequest;
use mcp_runtime_core::jsonrpc::{self, Incoming, JsonRpcMessage, ProgressToken, RequestId};
use mcp_runtime_core::messages::{ServerNotification, ServerRequest};
use mcp_runtime_core::meta::keys;
use mcp_runtime_core::progress::ProgressNotificationParams;
use mcp_runtime_core::{ErrorObject, ProtocolVersion, render};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::answering::Handlers;
use super::options::Sink;
use super::{AskedInput, ClientError};

/// What answers a request: its result, or why there is none.
pub(crate) type Answer = Result<Value, Failure>;

/// Why a request has no result.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server answered with an error.
    Server(ErrorObject),
    /// The transport could not carry the request or its answer.
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    Transport(String),
    /// The server no longer knows the HTTP session (404): a fresh handshake is needed.
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    SessionExpired,
    /// The client could not get a token the server takes.
    #[cfg(feature = "client-auth")]
    Authorization(super::oauth::AuthError),
}

/// The shared state of a connection.
pub(crate) struct Peer {
    outgoing: mpsc::UnboundedSender<String>,
    handlers: Handlers,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
    progress: Mutex<HashMap<ProgressToken, Sink<ProgressNotificationParams>>>,
    next_id: AtomicI64,
    notifications: broadcast::Sender<ServerNotification>,
    /// The notifications of each open `subscriptions/listen` stream, by its request id.
    subscriptions: Mutex<HashMap<RequestId, mpsc::UnboundedSender<ServerNotification>>>,
    /// Where what the server asks during a request goes, by the request's id, for the
    /// requests made with [`RequestOptions::ask_through`](super::RequestOptions::ask_through).
    askers: Mutex<HashMap<RequestId, mpsc::Sender<AskedInput>>>,
    /// Where the notifications that come on a request's stream go, by the request's id, for
    /// the requests made with
    /// [`RequestOptions::notifications`](super::RequestOptions::notifications).
    notes: Mutex<HashMap<RequestId, mpsc::Sender<ServerNotification>>>,
    /// Whether the connection closed (the server's output ended).
    closed: std::sync::atomic::AtomicBool,
    version: Mutex<ProtocolVersion>,
    /// When the connection opened, and over what (`pipe`, `tcp`): the session's duration is
    /// recorded when the peer goes.
    opened: crate::rt::Instant,
    transport: &'static str,
    /// How many authorizations are under way (their requests wait instead of timing out).
    #[cfg(feature = "client-auth")]
    authorizing: Arc<std::sync::atomic::AtomicUsize>,
}

impl Drop for Peer {
    fn drop(&mut self) {
        crate::spans::session_ended(
            crate::spans::Side::Client,
            self.opened,
            Some(*self.version.get_mut()),
            self.transport,
        );
    }
}

impl Failure {
    /// The error of a request of `method` that failed so (a forgotten session is the
    /// connection's end).
    pub(crate) fn into_error(self, method: &'static str) -> ClientError {
        match self {
            Failure::Server(error) => ClientError::Server { method, error },
            Failure::Transport(detail) => ClientError::Transport { method, detail },
            Failure::SessionExpired => ClientError::Disconnected,
            #[cfg(feature = "client-auth")]
            Failure::Authorization(error) => ClientError::Authorization { method, error },
        }
    }
}

/// Marks an authorization under way while it lives.
#[cfg(feature = "client-auth")]
pub(crate) struct Authorizing(Arc<std::sync::atomic::AtomicUsize>);

#[cfg(feature = "client-auth")]
impl Drop for Authorizing {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Peer {
    /// Starts the tasks that write to `writer` and read from `reader`; server requests go to
    /// `handlers`. Once the peer is gone, `after` says whether the reader stops at once or
    /// reads on to the end: a server program that writes after its client left must not meet a
    /// closed pipe while it is given time to exit.
    pub(crate) fn start<R, W>(
        reader: R,
        writer: W,
        handlers: Handlers,
        after: AfterClose,
    ) -> Arc<Peer>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (peer, lines) = Peer::new(handlers, "pipe");
        crate::rt::spawn(write_lines(writer, lines));
        crate::rt::spawn(read_messages(reader, Arc::downgrade(&peer), after));
        peer
    }

    /// A peer whose outgoing messages (one JSON text each) come out of the returned receiver,
    /// for a transport to carry; what the transport receives goes to [`deliver`](Self::deliver).
    /// `transport` names the carrier as the OpenTelemetry conventions do (`tcp` for HTTP).
    pub(crate) fn new(
        handlers: Handlers,
        transport: &'static str,
    ) -> (Arc<Peer>, mpsc::UnboundedReceiver<String>) {
        let (outgoing, lines) = mpsc::unbounded_channel();
        let (notifications, _) = broadcast::channel(256);
        let peer = Arc::new(Peer {
            outgoing,
            handlers,
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(0),
            notifications,
            subscriptions: Mutex::new(HashMap::new()),
            askers: Mutex::new(HashMap::new()),
            notes: Mutex::new(HashMap::new()),
            closed: std::sync::atomic::AtomicBool::new(false),
            version: Mutex::new(ProtocolVersion::LATEST_HANDSHAKE),
            opened: crate::rt::Instant::now(),
            transport,
            #[cfg(feature = "client-auth")]
            authorizing: Arc::default(),
        });
        (peer, lines)
    }

    /// Routes `text` from the server: one message or a batch. `related` is the request whose
    /// stream it came on, when the transport knows (an HTTP POST's).
    pub(crate) fn deliver(self: &Arc<Self>, text: &str, related: Option<&RequestId>) {
        match jsonrpc::parse(text.as_bytes()) {
            Ok(Incoming::Message(message)) => self.receive(message, related),
            Ok(Incoming::Batch(entries)) => {
                for message in entries.into_iter().flatten() {
                    self.receive(message, related);
                }
            }
            Ok(_) => tracing::debug!("ignored an empty batch"),
            Err(error) => tracing::warn!(%error, "the server sent something that is not JSON-RPC"),
        }
    }

    /// Fails request `id` (the transport could not carry it).
    #[cfg(feature = "client-http")]
    pub(crate) fn fail(&self, id: &RequestId, failure: Failure) {
        if let Some(waiting) = self.pending.lock().remove(id) {
            let _ = waiting.send(Err(failure));
        }
    }

    /// Whether request `id` still waits for its answer.
    #[cfg(feature = "client-http")]
    pub(crate) fn is_pending(&self, id: &RequestId) -> bool {
        self.pending.lock().contains_key(id)
    }

    /// Marks an authorization under way until the guard is dropped.
    #[cfg(feature = "client-auth")]
    pub(crate) fn authorizing(&self) -> Authorizing {
        self.authorizing
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Authorizing(self.authorizing.clone())
    }

    /// Whether an authorization is under way: the user may be at the authorization server.
    pub(crate) fn is_authorizing(&self) -> bool {
        #[cfg(feature = "client-auth")]
        {
            self.authorizing.load(std::sync::atomic::Ordering::SeqCst) > 0
        }
        #[cfg(not(feature = "client-auth"))]
        false
    }

    /// The revision messages are written for.
    pub(crate) fn version(&self) -> ProtocolVersion {
        *self.version.lock()
    }

    /// Settles the revision (after `initialize`).
    pub(crate) fn set_version(&self, version: ProtocolVersion) {
        *self.version.lock() = version;
    }

    /// A fresh request id.
    pub(crate) fn next_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Writes one message; fails once the connection is closed (a request sent then would wait
    /// for an answer that cannot come).
    pub(crate) fn send(&self, message: &Value) -> Result<(), ClientError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ClientError::Disconnected);
        }
        self.outgoing
            .send(message.to_string())
            .map_err(|_| ClientError::Disconnected)
    }

    /// Registers request `id` as waiting for its answer.
    pub(crate) fn expect(&self, id: RequestId) -> oneshot::Receiver<Answer> {
        let (tx, rx) = oneshot::channel();
        self.pending.lock().insert(id, tx);
        rx
    }

    /// Stops waiting for request `id`.
    pub(crate) fn forget(&self, id: &RequestId) -> bool {
        self.pending.lock().remove(id).is_some()
    }

    /// Routes the progress notifications of `token` to `sink` until [`unwatch`](Self::unwatch).
    pub(crate) fn watch(&self, token: ProgressToken, sink: Sink<ProgressNotificationParams>) {
        self.progress.lock().insert(token, sink);
    }

    /// Stops routing the progress notifications of `token`.
    pub(crate) fn unwatch(&self, token: &ProgressToken) {
        self.progress.lock().remove(token);
    }

    /// The server's notifications, from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.notifications.subscribe()
    }

    /// Routes the notifications of the listen stream opened by request `id` to `sink`.
    pub(crate) fn route_subscription(
        &self,
        id: RequestId,
        sink: mpsc::UnboundedSender<ServerNotification>,
    ) {
        self.subscriptions.lock().insert(id, sink);
    }

    /// Stops routing the notifications of the listen stream `id`.
    pub(crate) fn unroute_subscription(&self, id: &RequestId) {
        self.subscriptions.lock().remove(id);
    }

    /// Sends what the server asks during request `id` to `sink`, until
    /// [`stop_asking`](Self::stop_asking).
    pub(crate) fn ask_through(&self, id: RequestId, sink: mpsc::Sender<AskedInput>) {
        self.askers.lock().insert(id, sink);
    }

    /// Stops sending what the server asks during request `id` to its sink.
    pub(crate) fn stop_asking(&self, id: &RequestId) {
        self.askers.lock().remove(id);
    }

    /// Sends the notifications that come on the stream of request `id` to `sink`, until
    /// [`stop_noting`](Self::stop_noting).
    pub(crate) fn note_through(&self, id: RequestId, sink: mpsc::Sender<ServerNotification>) {
        self.notes.lock().insert(id, sink);
    }

    /// Stops sending the notifications of request `id` to its sink.
    pub(crate) fn stop_noting(&self, id: &RequestId) {
        self.notes.lock().remove(id);
    }

    /// Where a server request that came on the stream of `related` (or on no request's) goes:
    /// that request's sink; without a request, the sink of the only request in flight with one.
    fn asker(&self, related: Option<&RequestId>) -> Option<mpsc::Sender<AskedInput>> {
        let askers = self.askers.lock();
        match related {
            Some(id) => askers.get(id).cloned(),
            None if askers.len() == 1 => askers.values().next().cloned(),
            None => None,
        }
    }

    /// Routes one message from the server, which came on the stream of request `related`, if
    /// known.
    fn receive(self: &Arc<Self>, message: JsonRpcMessage, related: Option<&RequestId>) {
        match message {
            JsonRpcMessage::Response(response) => {
                if let Some(waiting) = self.pending.lock().remove(&response.id) {
                    let _ = waiting.send(Ok(response.result));
                }
            }
            JsonRpcMessage::Error(error) => {
                let waiting = error.id.and_then(|id| self.pending.lock().remove(&id));
                if let Some(waiting) = waiting {
                    let _ = waiting.send(Err(Failure::Server(error.error)));
                }
            }
            JsonRpcMessage::Notification(notification) => {
                let call = notification.notification;
                let subscription = call.params.as_ref().and_then(|p| {
                    let [id] = p.meta_members([keys::SUBSCRIPTION_ID])?;
                    serde_json::from_str::<RequestId>(id?.get()).ok()
                });
                let decoded = ServerNotification::decode(&call.method, call.params.as_ref());
                if let (Some(id), Ok(notification)) = (&subscription, &decoded) {
                    let sink = self.subscriptions.lock().get(id).cloned();
                    if let Some(sink) = sink {
                        let _ = sink.send(notification.clone());
                        return;
                    }
                }
                if let (Some(id), Ok(notification)) = (related, &decoded)
                    && !matches!(notification, ServerNotification::Progress(_))
                {
                    let sink = self.notes.lock().get(id).cloned();
                    if let Some(sink) = sink {
                        if sink.try_send(notification.clone()).is_err() {
                            tracing::debug!("dropped a notification: its receiver is full or gone");
                        }
                        return;
                    }
                }
                match decoded {
                    Ok(ServerNotification::Progress(progress)) => {
                        let sink = self.progress.lock().get(&progress.progress_token).cloned();
                        if let Some(sink) = sink {
                            sink.send(progress.clone());
                        }
                        let _ = self
                            .notifications
                            .send(ServerNotification::Progress(progress));
                    }
                    Ok(notification) => {
                        let _ = self.notifications.send(notification);
                    }
                    Err(error) => tracing::debug!(%error, "ignored a notification"),
                }
            }
            JsonRpcMessage::Request(request) => {
                let id = request.id;
                let call = request.request;
                let peer = self.clone();
                let handlers = self.handlers.clone();
                let asker = self.asker(related);
                crate::rt::spawn(async move {
                    let answer = match ServerRequest::decode(&call.method, call.params.as_ref()) {
                        Ok(request) => {
                            // What the request's own sink takes: an input request.
                            let routed = match asker {
                                Some(sink) => InputRequest::try_from(request).map(|i| (sink, i)),
                                None => Err(request),
                            };
                            match routed {
                                Ok((sink, input)) => {
                                    super::options::ask(&sink, input).await.and_then(|answer| {
                                        render::to_value(&answer, peer.version())
                                            .map_err(|e| ErrorObject::internal_error(e.to_string()))
                                    })
                                }
                                Err(request) => handlers.answer(request, peer.version()).await,
                            }
                        }
                        Err(error) => Err(ErrorObject::from(error)),
                    };
                    let message = match answer {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                    };
                    let _ = peer.send(&message);
                });
            }
            _ => tracing::debug!("ignored a message of an unknown kind"),
        }
    }

    /// The connection ended: every request still waiting fails.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.pending.lock().clear();
        self.progress.lock().clear();
        self.subscriptions.lock().clear();
        self.askers.lock().clear();
        self.notes.lock().clear();
    }
}

/// A request the caller may stop waiting for: unless [settled](Self::settled), dropping it
/// forgets the request and tells the server (`notifications/cancelled`; over HTTP on
/// 2026-07-28 the transport closes the request's stream instead).
pub(crate) struct Outstanding {
    peer: Arc<Peer>,
    id: Option<RequestId>,
}

impl Outstanding {
    /// Request `id`, just sent.
    pub(crate) fn new(peer: Arc<Peer>, id: RequestId) -> Self {
        Outstanding { peer, id: Some(id) }
    }

    /// The request got its answer: nothing to cancel.
    pub(crate) fn settled(&mut self) {
        self.id = None;
    }
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        self.peer.unroute_subscription(&id);
        self.peer.unwatch(&id);
        self.peer.stop_asking(&id);
        self.peer.stop_noting(&id);
        if self.peer.forget(&id) {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the client stopped waiting"}});
            // Dropped inside the request's span: the cancellation goes in the request's trace.
            #[cfg(feature = "otel")]
            let cancel = {
                let mut cancel = cancel;
                crate::telemetry::inject(&tracing::Span::current(), &mut cancel["params"]);
                cancel
            };
            let _ = self.peer.send(&cancel);
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<String>,
) {
    while let Some(line) = lines.recv().await {
        let written = async {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await
        };
        if let Err(error) = written.await {
            tracing::debug!(%error, "the server's input closed");
            return;
        }
    }
    let _ = writer.shutdown().await;
}

/// What the reader of a connection does once its peer is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterClose {
    /// Stops reading (the other end is the caller's to close).
    Stop,
    /// Reads and drops everything up to the end of the stream (a child's stdout: the child is
    /// ended, so the end comes).
    Drain,
}

async fn read_messages<R: AsyncRead + Unpin>(
    reader: R,
    peer: std::sync::Weak<Peer>,
    after: AfterClose,
) {
    let mut lines = BufReader::new(reader).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Some(peer) = peer.upgrade() else {
            if after == AfterClose::Drain {
                // Bytes, not lines: what nobody reads is not gathered into memory.
                let _ = tokio::io::copy(&mut lines.into_inner(), &mut tokio::io::sink()).await;
            }
            return;
        };
        peer.deliver(&line, None);
    }
    if let Some(peer) = peer.upgrade() {
        peer.close();
    }
}
