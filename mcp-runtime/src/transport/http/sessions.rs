//! Sessions of a stateful Streamable HTTP server.
//!
//! `initialize` mints a session with an id from the operating system's secure random source; the
//! client sends it in `Mcp-Session-Id` on every later request. Each session owns its
//! [`ConnectionState`] and its streams, so nothing leaks between sessions. A session ends on
//! `DELETE`, after it was idle for the configured time (a client connected to its standalone
//! GET stream keeps it active), or when the server is dropped.
//!
//! At the session cap, a new `initialize` ends the session idle the longest among those with no
//! request in flight and no client on their standalone stream, so that one client opening
//! sessions cannot lock everyone else out; only when every session is busy is it refused (503).
//! With a cap per client, a client at its cap makes room among its own sessions the same way,
//! and is refused (429) when all of them are busy.

use crate::rt::Instant;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_runtime_core::messages::ServerNotification;
use parking_lot::{Mutex, RwLock};
use tokio::sync::mpsc;

use super::streams::{StreamEntry, Streams};
use crate::auth::Principal;
use crate::connection::RequestBudget;
use crate::connection::{enqueue, try_enqueue};
use crate::random::random_id;
use crate::server::{
    ConnectionState, McpServer, MessageSink, Outbound, PeerGone, SendFuture, SharedSink,
};
use crate::store::SessionRecord;

/// How many resumable POST streams a session keeps (the oldest are forgotten first).
const STREAMS_PER_SESSION: usize = 256;

/// One session.
pub(crate) struct Session {
    pub(crate) id: String,
    /// Who the access token that opened the session speaks for (its issuer, subject and
    /// client); only a token of the same principal may use it.
    pub(crate) principal: Option<Principal>,
    /// The client that opened it, for the cap per client.
    client: Option<ClientKey>,
    pub(crate) connection: Arc<ConnectionState>,
    /// The stream of the standalone GET, which carries the session's unsolicited messages.
    pub(crate) standalone: Arc<StreamEntry>,
    streams: Mutex<VecDeque<String>>,
    last_active: Mutex<Instant>,
    /// When this instance opened it (or took it over from another).
    opened: Instant,
}

impl Session {
    fn touch(&self) {
        *self.last_active.lock() = Instant::now();
    }

    /// How long the session has been idle: since its last request, unless its client is
    /// connected to its standalone stream, which keeps it active.
    fn idle_for(&self) -> Duration {
        if self.standalone.is_attached() {
            self.touch();
            return Duration::ZERO;
        }
        self.last_active.lock().elapsed()
    }

    /// Whether the session may be ended to make room: no request in flight, no client on its
    /// standalone stream.
    fn is_evictable(&self) -> bool {
        self.connection.requests_in_flight() == 0 && !self.standalone.is_attached()
    }

    /// Records a POST stream of this session, for resumption; returns the ids of streams it no
    /// longer keeps.
    pub(crate) fn remember_stream(&self, id: &str) -> Vec<String> {
        let mut streams = self.streams.lock();
        streams.push_back(id.to_owned());
        let excess = streams.len().saturating_sub(STREAMS_PER_SESSION);
        streams.drain(..excess).collect()
    }

    /// Whether `stream` is one of this session's streams.
    pub(crate) fn owns_stream(&self, stream: &str) -> bool {
        self.standalone.id() == stream || self.streams.lock().iter().any(|s| s == stream)
    }

    fn stream_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.streams.lock().iter().cloned().collect();
        ids.push(self.standalone.id().to_owned());
        ids
    }
}

/// Writes the unsolicited messages of a session to its standalone stream, rendered for the
/// session's revision, until the session's connection is gone. When other instances serve the
/// session too, each of them hears the server's broadcasts: only the one whose response carries
/// the stream writes them, so that the client gets each once.
async fn pump_unsolicited(
    mut messages: mpsc::Receiver<Box<Outbound>>,
    connection: Weak<ConnectionState>,
    stream: Arc<StreamEntry>,
    shared: bool,
) {
    while let Some(message) = messages.recv().await {
        if shared && is_broadcast(&message) && !stream.is_attached() {
            continue;
        }
        let Some(connection) = connection.upgrade() else {
            break;
        };
        let text = message.render(connection.version());
        drop(connection);
        match text {
            Ok(text) => stream.push(Arc::from(text)).await,
            Err(error) => tracing::warn!("dropped a message the session cannot carry: {error}"),
        }
    }
}

/// The sink of a session's unsolicited messages. They wait boxed: a channel allocates room for
/// a block of messages at once, which for every one of many sessions would add up.
struct SessionSink(mpsc::Sender<Box<Outbound>>);

impl MessageSink for SessionSink {
    fn send(&self, message: Outbound) -> Result<(), PeerGone> {
        try_enqueue(&self.0, Box::new(message))
    }

    fn send_when_ready(&self, message: Outbound) -> SendFuture<'_> {
        enqueue(&self.0, Box::new(message))
    }
}

/// Whether the server sends `message` to every session (or every subscriber) rather than to
/// this one.
fn is_broadcast(message: &Outbound) -> bool {
    matches!(
        message,
        Outbound::Notification(
            ServerNotification::ToolListChanged(_)
                | ServerNotification::PromptListChanged(_)
                | ServerNotification::ResourceListChanged(_)
                | ServerNotification::ResourceUpdated(_)
        )
    )
}

/// Who a session's client is, for the cap per client: the caller its access token speaks for,
/// or else the address it connects from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    /// The caller an access token speaks for.
    Principal(Principal),
    /// The address of a client without a token.
    Address(IpAddr),
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TooManySessions {
    /// The server's cap is reached, and every session is busy.
    InAll,
    /// The client's cap is reached, and every one of its sessions is busy.
    ForClient(usize),
}

/// The tunables of the sessions.
pub(crate) struct SessionLimits {
    pub(crate) idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    /// The most sessions of one client.
    pub(crate) per_client: Option<usize>,
    /// How many unsolicited messages wait for the standalone stream, at most.
    pub(crate) buffer: usize,
    /// Whether other instances serve the sessions too.
    pub(crate) shared: bool,
    /// The share of the memory budget that the sessions' requests in flight draw from.
    pub(crate) requests: Arc<RequestBudget>,
}

/// The live sessions, by id, and how many each client has (so that opening a session costs the
/// same with a hundred thousand open as with one).
#[derive(Default)]
struct Live {
    by_id: HashMap<String, Arc<Session>>,
    per_client: HashMap<ClientKey, usize>,
}

impl Live {
    fn insert(&mut self, session: Arc<Session>) {
        if let Some(client) = &session.client {
            *self.per_client.entry(client.clone()).or_default() += 1;
        }
        if let Some(replaced) = self.by_id.insert(session.id.clone(), session) {
            self.forget_client(&replaced);
        }
    }

    fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let session = self.by_id.remove(id)?;
        self.forget_client(&session);
        Some(session)
    }

    fn forget_client(&mut self, session: &Session) {
        let Some(client) = &session.client else {
            return;
        };
        if let Some(count) = self.per_client.get_mut(client) {
            *count -= 1;
            if *count == 0 {
                self.per_client.remove(client);
            }
        }
    }
}

/// The live sessions.
pub(crate) struct Sessions {
    map: RwLock<Live>,
    limits: SessionLimits,
    /// When the idle sessions were last swept.
    swept: Mutex<Instant>,
}

impl Sessions {
    pub(crate) fn new(limits: SessionLimits) -> Self {
        Sessions {
            map: RwLock::new(Live::default()),
            limits,
            swept: Mutex::new(Instant::now()),
        }
    }

    /// How often the idle sessions are swept: every half idle timeout, at most every minute.
    pub(crate) fn sweep_period(&self) -> Duration {
        (self.limits.idle_timeout / 2).clamp(Duration::from_millis(10), Duration::from_secs(60))
    }

    /// The share of the memory budget that the sessions' requests in flight draw from.
    pub(crate) fn requests(&self) -> &Arc<RequestBudget> {
        &self.limits.requests
    }

    /// How many sessions are live.
    pub(crate) fn len(&self) -> usize {
        self.map.read().by_id.len()
    }

    /// The ids of the live sessions.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.map.read().by_id.keys().cloned().collect()
    }

    /// Opens a session for `server`, for the caller `principal` speaks for, whose client is
    /// `client`.
    pub(crate) async fn create(
        &self,
        server: &McpServer,
        streams: &Streams,
        principal: Option<Principal>,
        client: Option<ClientKey>,
    ) -> Result<Arc<Session>, TooManySessions> {
        // The sweeper task does this every period; a transport without one (made outside a
        // runtime) sweeps here, as often.
        let due = self.swept.lock().elapsed() >= self.sweep_period();
        if due {
            self.expire(streams).await;
        }
        if let (Some(max), Some(client)) = (self.limits.per_client, &client)
            && self.count_of(client) >= max
            && !self.make_room(streams, Some(client)).await
        {
            return Err(TooManySessions::ForClient(max));
        }
        if self.len() >= self.limits.max_sessions && !self.make_room(streams, None).await {
            return Err(TooManySessions::InAll);
        }
        Ok(self.open(server, streams, random_id::<16>(), principal, client))
    }

    /// How many sessions `client` has.
    fn count_of(&self, client: &ClientKey) -> usize {
        self.map.read().per_client.get(client).copied().unwrap_or(0)
    }

    /// A copy, on this instance, of the session `id` that another instance opened (see
    /// [`shared`](super::shared)), as `record` holds it. At the cap it ends the session idle the
    /// longest here, if one may be ended; the copy is made either way, since the session exists.
    pub(crate) async fn adopt(
        &self,
        server: &McpServer,
        streams: &Streams,
        id: &str,
        record: SessionRecord,
    ) -> Arc<Session> {
        if self.len() >= self.limits.max_sessions {
            self.make_room(streams, None).await;
        }
        let session = self.open(
            server,
            streams,
            id.to_owned(),
            record.principal.clone(),
            None,
        );
        record.restore_into(&session.connection);
        session
    }

    /// Ends the session idle the longest among those that may be ended (of `client`'s, when
    /// given); false when none may.
    async fn make_room(&self, streams: &Streams, client: Option<&ClientKey>) -> bool {
        let Some(idlest) = self.idlest_evictable(client) else {
            return false;
        };
        match client {
            Some(_) => tracing::info!(
                "ended a client's session idle the longest to make room for its new one (the cap \
                 per client is {})",
                self.limits.per_client.unwrap_or_default()
            ),
            None => tracing::info!(
                "ended the session idle the longest to make room for a new one (the cap is {})",
                self.limits.max_sessions
            ),
        }
        self.end(&idlest, streams).await;
        true
    }

    /// Opens the session `id` (shared with the other instances when they serve sessions too).
    fn open(
        &self,
        server: &McpServer,
        streams: &Streams,
        id: String,
        principal: Option<Principal>,
        client: Option<ClientKey>,
    ) -> Arc<Session> {
        let shared = self.limits.shared;
        let (tx, rx) = mpsc::channel(self.limits.buffer);
        let sink: SharedSink = Arc::new(SessionSink(tx));
        let connection = ConnectionState::persistent(Some(sink));
        connection.weigh_requests_in(self.limits.requests.clone());
        if shared {
            connection.share();
        }
        server.register_connection(&connection);
        let standalone = streams.open_standalone(&id);
        crate::rt::spawn(pump_unsolicited(
            rx,
            Arc::downgrade(&connection),
            standalone.clone(),
            shared,
        ));
        let session = Arc::new(Session {
            id,
            principal,
            client,
            connection,
            standalone,
            streams: Mutex::new(VecDeque::new()),
            last_active: Mutex::new(Instant::now()),
            opened: Instant::now(),
        });
        self.map.write().insert(session.clone());
        session
    }

    /// The id of the session idle the longest among those that may be ended to make room (of
    /// `client`'s, when given).
    fn idlest_evictable(&self, client: Option<&ClientKey>) -> Option<String> {
        self.map
            .read()
            .by_id
            .values()
            .filter(|session| client.is_none_or(|client| session.client.as_ref() == Some(client)))
            .filter(|session| session.is_evictable())
            .max_by_key(|session| session.idle_for())
            .map(|session| session.id.clone())
    }

    /// This instance's copy of the session `id`, however long it was idle here (the store says
    /// whether the session lives), marked active.
    pub(crate) fn get_copy(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.map.read().by_id.get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// The live session `id`, marked active.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.map.read().by_id.get(id).cloned()?;
        if session.idle_for() > self.limits.idle_timeout {
            return None;
        }
        session.touch();
        Some(session)
    }

    /// Ends the session `id`: its requests in flight are cancelled and its streams forgotten.
    pub(crate) async fn end(&self, id: &str, streams: &Streams) -> bool {
        let removed = self.map.write().remove(id);
        match removed {
            Some(session) => {
                close(&session, streams).await;
                true
            }
            None => false,
        }
    }

    /// Ends the sessions idle for longer than the timeout. They are looked for under the read
    /// lock (requests go on meanwhile), and removed under the write lock if still idle.
    pub(crate) async fn expire(&self, streams: &Streams) {
        *self.swept.lock() = Instant::now();
        let idle = |s: &Session| s.idle_for() > self.limits.idle_timeout;
        let ids: Vec<String> = {
            let map = self.map.read();
            map.by_id
                .values()
                .filter(|s| idle(s))
                .map(|s| s.id.clone())
                .collect()
        };
        if ids.is_empty() {
            return;
        }
        let expired: Vec<Arc<Session>> = {
            let mut map = self.map.write();
            let mut expired = Vec::new();
            for id in &ids {
                if map.by_id.get(id.as_str()).is_some_and(|s| idle(s)) {
                    expired.extend(map.remove(id));
                }
            }
            expired
        };
        for session in expired {
            tracing::debug!(session = %session.id, "a session expired");
            close(&session, streams).await;
        }
    }
}

async fn close(session: &Session, streams: &Streams) {
    session.connection.close();
    crate::spans::session_ended(
        crate::spans::Side::Server,
        session.opened,
        Some(session.connection.version()),
        "tcp",
    );
    streams.close(&session.stream_ids()).await;
}
