//! [`SessionStore`] in Redis: any instance serves any session.
//!
//! A session is a hash `PREFIX:session:ID` (its principal, as its canonical text
//! [`Principal::key`](crate::auth::Principal::key), its handshake, `initialized`, log level and
//! when its expiry is next renewed) and a set `PREFIX:session-subs:ID` (its subscriptions). The
//! instances exchange [`SessionMessage`]s as JSON on the channel `PREFIX:sessions`.
//!
//! # Every request loads its session, mostly without asking Redis
//!
//! A load reads both keys through Redis's client-side caching: the connection tracks them
//! (RESP3, `CLIENT TRACKING`, opt-in per command), so a session read once is answered from this
//! instance's memory until Redis says that a key changed (any write, an expiry, a deletion, by
//! any instance, invalidates every copy). Redis sends that invalidation before it answers the
//! write, so this instance's own writes are never read stale; a write of another instance is
//! seen as soon as its invalidation arrives, which is before that instance's client can have had
//! its answer and sent a next request, unless this instance is slower to read a message already
//! on its connection than that client is to make a round trip.
//!
//! Restarting the idle time on every load would be a write per request (and would invalidate
//! every cached copy). Instead, the expiry is renewed at most every quarter of the idle timeout:
//! each renewal sets both keys to expire after `idle × 1¼` and notes in the hash when the next
//! one is due, and the first load after that renews. A session therefore lives at least `idle`
//! after its last request, and at most `idle × 1¼`.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::ProtocolVersion;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::watch::{Heard, subscribe};
use super::{Lua, Shared, epoch_millis, ttl_millis, unavailable};
use crate::connection::SessionChange;
use crate::store::{SessionMessage, SessionRecord, SessionStore, SessionStoreError, StoreFuture};

/// How many messages wait for the transport to take them, at most; more are dropped (with a
/// warning), as pub/sub would drop them for a slow subscriber.
const MESSAGE_QUEUE: usize = 4096;

/// A [`SessionStore`] in Redis (see [`RedisStore`](super::RedisStore)).
pub struct RedisSessionStore {
    shared: Arc<Shared>,
    renew: Lua,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.shared.options.prefix)
            .finish_non_exhaustive()
    }
}

fn failed(what: &str) -> impl FnOnce(redis::RedisError) -> SessionStoreError + '_ {
    move |error| SessionStoreError(unavailable(what, &error))
}

/// The fields of a session's hash that a load reads.
const FIELDS: [&str; 5] = [
    "principal",
    "handshake",
    "initialized",
    "log_level",
    RENEW_AT,
];

/// The field of a session's hash that says when its expiry is next renewed (milliseconds since
/// the Unix epoch).
const RENEW_AT: &str = "renew_at";

/// What loading a session reads: the hash's [`FIELDS`] and the subscriptions.
type Loaded = (
    (
        Option<String>,
        Option<String>,
        Option<u8>,
        Option<String>,
        Option<i64>,
    ),
    Vec<String>,
);

/// Renews a session's expiry, if it still exists (a session ended meanwhile stays ended):
/// `KEYS` are its hash and its subscriptions, `ARGV` the field [`RENEW_AT`], when the next
/// renewal is due and the expiry in milliseconds.
const RENEW: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
";

/// How long after a renewal the next one is due: a quarter of the idle timeout.
fn renewal_period(idle: Duration) -> Duration {
    idle / 4
}

/// What the keys of a session are set to expire after at each renewal: the idle timeout and
/// the renewal period, so that a session lives at least `idle` after its last load.
fn renewed_ttl(idle: Duration) -> i64 {
    ttl_millis(idle + renewal_period(idle))
}

/// When the renewal after one made now is due, in milliseconds since the Unix epoch.
fn next_renewal(idle: Duration) -> i64 {
    epoch_millis(std::time::SystemTime::now() + renewal_period(idle))
}

/// A read that the connection answers from its client-side cache while Redis has not said that
/// the key changed.
fn cached() -> redis::CommandCacheConfig {
    redis::CommandCacheConfig::new()
}

impl RedisSessionStore {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        RedisSessionStore {
            shared,
            renew: Lua::new(RENEW),
        }
    }

    fn keys(&self, id: &str) -> (String, String) {
        (
            self.shared.key_of("session", id),
            self.shared.key_of("session-subs", id),
        )
    }

    async fn keep(
        &self,
        id: &str,
        record: &SessionRecord,
        idle: Duration,
    ) -> Result<(), SessionStoreError> {
        let (hash, subs) = self.keys(id);
        let handshake =
            mcp_runtime_core::render::to_string(&record.handshake, ProtocolVersion::LATEST)
                .map_err(|e| SessionStoreError(format!("a session could not be encoded: {e}")))?;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .del(&hash)
            .del(&subs)
            .hset(&hash, "handshake", handshake)
            .hset(&hash, "initialized", u8::from(record.initialized));
        if let Some(principal) = &record.principal {
            pipe.hset(&hash, "principal", principal.key());
        }
        if let Some(level) = record.log_level {
            pipe.hset(&hash, "log_level", level_name(level));
        }
        if !record.subscriptions.is_empty() {
            pipe.sadd(&subs, record.subscriptions.iter().collect::<Vec<_>>());
            pipe.pexpire(&subs, renewed_ttl(idle));
        }
        pipe.hset(&hash, RENEW_AT, next_renewal(idle))
            .pexpire(&hash, renewed_ttl(idle));
        let mut connection = self.shared.connection.clone();
        pipe.query_async::<()>(&mut connection)
            .await
            .map_err(failed("keep a session"))
    }

    async fn read(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        let (hash, subs) = self.keys(id);
        let mut connection = self.shared.connection.clone();
        let ((principal, handshake, initialized, level, renew_at), subscriptions): Loaded =
            redis::pipe()
                .cmd("HMGET")
                .arg(&hash)
                .arg(&FIELDS)
                .set_cache_config(cached())
                .smembers(&subs)
                .set_cache_config(cached())
                .query_async(&mut connection)
                .await
                .map_err(failed("read a session"))?;
        let Some(handshake) = handshake else {
            return Ok(None);
        };
        if renew_at.is_none_or(|at| epoch_millis(std::time::SystemTime::now()) >= at) {
            let mut call = self.renew.call(2);
            call.arg(&hash)
                .arg(&subs)
                .arg(RENEW_AT)
                .arg(next_renewal(idle))
                .arg(renewed_ttl(idle));
            let renewed: i64 = self
                .renew
                .run(&call, &mut connection)
                .await
                .map_err(failed("renew a session"))?;
            if renewed == 0 {
                return Ok(None);
            }
        }
        let principal = match principal.map(|key| serde_json::from_str(&key)).transpose() {
            Ok(principal) => principal,
            Err(_) => {
                // A session kept by an earlier version of the SDK, which bound it to the bare
                // subject: it is over, and its client starts a new one.
                tracing::debug!(
                    session = id,
                    "a session kept in an earlier format has ended"
                );
                return Ok(None);
            }
        };
        let unreadable = |e: serde_json::Error| {
            SessionStoreError(format!("a session kept in Redis could not be read: {e}"))
        };
        let mut record = SessionRecord::new(
            principal,
            serde_json::from_str(&handshake).map_err(unreadable)?,
        );
        record.initialized = initialized == Some(1);
        record.log_level = match level {
            Some(level) => Some(serde_json::from_value(level.into()).map_err(unreadable)?),
            None => None,
        };
        record.subscriptions = subscriptions.into_iter().collect();
        Ok(Some(record))
    }

    async fn apply(&self, id: &str, changes: &[SessionChange]) -> Result<(), SessionStoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let (hash, subs) = self.keys(id);
        let mut connection = self.shared.connection.clone();
        // A session that ended meanwhile stays ended: changes apply only while its hash exists.
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&hash)
            .query_async(&mut connection)
            .await
            .map_err(failed("change a session"))?;
        if ttl < 0 {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for change in changes {
            match change {
                SessionChange::Initialized => {
                    pipe.hset(&hash, "initialized", 1);
                }
                SessionChange::LogLevel(level) => {
                    pipe.hset(&hash, "log_level", level_name(*level));
                }
                SessionChange::Subscribed(uri) => {
                    pipe.sadd(&subs, uri);
                }
                SessionChange::Unsubscribed(uri) => {
                    pipe.srem(&subs, uri);
                }
            }
        }
        pipe.pexpire(&subs, ttl);
        pipe.query_async::<()>(&mut connection)
            .await
            .map_err(failed("change a session"))
    }

    async fn forget(&self, id: &str) -> Result<bool, SessionStoreError> {
        let (hash, subs) = self.keys(id);
        let mut connection = self.shared.connection.clone();
        let (removed, _): (i64, i64) = redis::pipe()
            .del(&hash)
            .del(&subs)
            .query_async(&mut connection)
            .await
            .map_err(failed("end a session"))?;
        Ok(removed > 0)
    }

    async fn send(&self, message: SessionMessage) -> Result<(), SessionStoreError> {
        let payload = serde_json::to_string(&message)
            .map_err(|e| SessionStoreError(format!("a message could not be encoded: {e}")))?;
        let mut connection = self.shared.connection.clone();
        redis::cmd("PUBLISH")
            .arg(self.shared.key("sessions"))
            .arg(payload)
            .query_async::<i64>(&mut connection)
            .await
            .map(drop)
            .map_err(failed("tell the other instances"))
    }
}

/// The log level as the protocol names it.
fn level_name(level: mcp_runtime_core::logging::LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        idle: Duration,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(self.keep(id, record, idle))
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> StoreFuture<'a, Result<Option<SessionRecord>, SessionStoreError>> {
        Box::pin(self.read(id, idle))
    }

    fn change<'a>(
        &'a self,
        id: &'a str,
        changes: &'a [SessionChange],
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(self.apply(id, changes))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(self.forget(id))
    }

    fn publish(&self, message: SessionMessage) -> StoreFuture<'_, Result<(), SessionStoreError>> {
        Box::pin(self.send(message))
    }

    fn messages(&self) -> mpsc::Receiver<SessionMessage> {
        let (tx, rx) = mpsc::channel(MESSAGE_QUEUE);
        let stop = CancellationToken::new();
        {
            // The subscription ends once the receiver is gone.
            let (tx, stop) = (tx.clone(), stop.clone());
            tokio::spawn(async move {
                tx.closed().await;
                stop.cancel();
            });
        }
        let channel = self.shared.key("sessions");
        subscribe(self.shared.client.clone(), channel, stop, move |heard| {
            let Heard::Message(payload) = heard else {
                return !tx.is_closed();
            };
            match serde_json::from_str::<SessionMessage>(&payload) {
                Ok(message) => match tx.try_send(message) {
                    Ok(()) => true,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        tracing::warn!(
                            "dropped a message of another instance: the transport is {MESSAGE_QUEUE} behind"
                        );
                        true
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => false,
                },
                Err(error) => {
                    tracing::warn!(%error, "ignored an unreadable message on the sessions channel");
                    true
                }
            }
        });
        rx
    }
}
