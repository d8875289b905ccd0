//! The stores in Redis, for several instances of one server behind a load balancer.
//!
//! [`RedisStore::connect`] opens one connection manager (the `redis` crate's: it reconnects by
//! itself after Redis went away, and the requests that failed meanwhile get an error) and hands
//! out the stores that share it:
//!
//! - [`RedisStore::task_store`]: tasks, created on one instance and polled, answered and
//!   cancelled on any other; waiters hear of changes through Redis pub/sub.
//! - [`RedisStore::event_store`]: the SSE events kept for `Last-Event-ID`, bounded in bytes per
//!   session and kept for a TTL, so that a client resumes a stream on any instance.
//! - [`RedisStore::session_store`]: Streamable HTTP sessions, which any instance serves, and the
//!   messages the instances exchange about them (pub/sub).
//!
//! Every key starts with the store's prefix (`mcp` unless [`RedisOptions::prefix`] says
//! otherwise), so that several deployments can share one Redis. The stores run Lua scripts that
//! touch keys they compute, so they need a single Redis (a primary, with replicas or Sentinel
//! as you like), not Redis Cluster.
//!
//! `rediss://` URLs connect over TLS (rustls, with the system's root certificates); a password
//! in the URL (`redis://:secret@host`) is used and never shown: errors name the URL without it.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::store::RedisStoreError> {
//! use mcp_runtime::server::TaskOptions;
//! use mcp_runtime::store::RedisStore;
//!
//! let redis = RedisStore::connect("redis://127.0.0.1:6379/").await?;
//! let tasks = TaskOptions::new().store(redis.task_store());
//! # let _ = tasks;
//! # Ok(())
//! # }
//! ```

mod event;
mod session;
mod task;
mod watch;

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio_util::sync::CancellationToken;

pub use event::RedisEventStore;
pub use session::RedisSessionStore;
pub use task::RedisTaskStore;
use watch::Watcher;

/// How the Redis stores behave; [`RedisOptions::new`] gives the defaults.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RedisOptions {
    /// What every key starts with (default `mcp`); deployments that share a Redis use distinct
    /// prefixes.
    pub prefix: String,
    /// How long an attempt to connect may take (default 5 s).
    pub connect_timeout: Duration,
    /// How long Redis may take to answer a command before the request that needed it fails
    /// (default 5 s).
    pub response_timeout: Duration,
    /// How long the events of a stream are kept after the last one was written (default 1 hour).
    pub event_ttl: Duration,
    /// The most bytes of events one session keeps (default 4 MiB): past it, its oldest events
    /// go; an event larger than this is not kept.
    pub max_session_event_bytes: usize,
    /// The certificate authority (PEM) that a `rediss://` server's certificate must chain to,
    /// instead of the system's roots: for a Redis whose certificate a private CA signed.
    pub tls_root_certificate: Option<Vec<u8>>,
}

impl RedisOptions {
    /// The defaults.
    pub fn new() -> Self {
        RedisOptions {
            prefix: "mcp".into(),
            connect_timeout: Duration::from_secs(5),
            response_timeout: Duration::from_secs(5),
            event_ttl: Duration::from_secs(3600),
            max_session_event_bytes: 4 * 1024 * 1024,
            tls_root_certificate: None,
        }
    }

    /// Sets [`prefix`](Self::prefix).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`response_timeout`](Self::response_timeout).
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// Sets [`event_ttl`](Self::event_ttl).
    pub fn event_ttl(mut self, ttl: Duration) -> Self {
        self.event_ttl = ttl;
        self
    }

    /// Sets [`tls_root_certificate`](Self::tls_root_certificate): `pem` holds the certificate
    /// of the authority that signed the Redis server's.
    pub fn tls_root_certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.tls_root_certificate = Some(pem.into());
        self
    }

    /// Sets [`max_session_event_bytes`](Self::max_session_event_bytes).
    pub fn max_session_event_bytes(mut self, bytes: usize) -> Self {
        self.max_session_event_bytes = bytes;
        self
    }
}

impl Default for RedisOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// Why [`RedisStore::connect`] failed. The URL it names has no password.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisStoreError {
    /// The URL is not a Redis URL.
    #[error(
        "{url} is not a Redis URL ({detail}); write redis://[:password@]host[:port][/db] or rediss:// for TLS"
    )]
    InvalidUrl {
        /// The URL, without its password.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Redis could not be reached, or refused the connection.
    #[error(
        "could not connect to Redis at {url}: {detail}; check that Redis runs there and that the URL's password and database are right"
    )]
    Unreachable {
        /// The URL, without its password.
        url: String,
        /// What went wrong.
        detail: String,
    },
}

/// A connection to Redis, and the stores that share it. Cloning it is cheap and shares the
/// connection.
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Shared>,
}

/// What the stores of one [`RedisStore`] share.
pub(crate) struct Shared {
    /// For the subscriptions, which need connections of their own.
    pub(crate) client: redis::Client,
    pub(crate) connection: ConnectionManager,
    pub(crate) options: RedisOptions,
    /// Hears of changes to tasks (pub/sub), for [`TaskStore::changed`](crate::store::TaskStore).
    pub(crate) watcher: Watcher,
    /// Stops the connection's health check.
    health: CancellationToken,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.health.cancel();
    }
}

/// How often an idle connection is checked, so that a Redis that went away and came back is
/// reconnected to before a request needs it.
const HEALTH_CHECK: Duration = Duration::from_secs(1);

/// Pings Redis every [`HEALTH_CHECK`] until `stop` fires: a broken connection fails the ping,
/// which makes the connection manager reconnect.
async fn check_health(mut connection: ConnectionManager, stop: CancellationToken) {
    loop {
        if stop
            .run_until_cancelled(tokio::time::sleep(HEALTH_CHECK))
            .await
            .is_none()
        {
            return;
        }
        let ping = redis::cmd("PING");
        let answer = ping.query_async::<String>(&mut connection);
        if let Some(Err(error)) = stop.run_until_cancelled(answer).await {
            tracing::debug!("Redis did not answer a ping: {error}");
        }
    }
}

impl Shared {
    /// `prefix:name`.
    pub(crate) fn key(&self, name: &str) -> String {
        [self.options.prefix.as_str(), ":", name].concat()
    }

    /// The key of `kind` for `id`: `PREFIX:KIND:ID`, written at once (keys are made on every
    /// request, and `format!` costs several times a copy).
    pub(crate) fn key_of(&self, kind: &str, id: &str) -> String {
        [self.options.prefix.as_str(), ":", kind, ":", id].concat()
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.inner.options.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` with the default [`RedisOptions`].
    pub async fn connect(url: &str) -> Result<RedisStore, RedisStoreError> {
        Self::connect_with(url, RedisOptions::new()).await
    }

    /// Connects to the Redis at `url` with `options`. Fails at once, naming the URL (without its
    /// password), when Redis cannot be reached.
    pub async fn connect_with(
        url: &str,
        options: RedisOptions,
    ) -> Result<RedisStore, RedisStoreError> {
        let shown = redacted(url);
        let client = match &options.tls_root_certificate {
            None => redis::Client::open(url),
            Some(root) => redis::Client::build_with_tls(
                url,
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(root.clone()),
                },
            ),
        }
        .map_err(|e| RedisStoreError::InvalidUrl {
            url: shown.clone(),
            detail: e.to_string(),
        })?;
        let unreachable = |e: redis::RedisError| RedisStoreError::Unreachable {
            url: shown.clone(),
            detail: e.to_string(),
        };
        let connection = match connect(&client, &options, true).await {
            Ok(connection) => connection,
            // A Redis older than 6 speaks no RESP3, so keeps no client-side cache: sessions are
            // then read from it on every request.
            Err(error) if matches!(error.kind(), redis::ErrorKind::Server(_)) => {
                tracing::info!(
                    "Redis at {shown} does not speak RESP3 ({error}): sessions are read from it on every request"
                );
                connect(&client, &options, false)
                    .await
                    .map_err(unreachable)?
            }
            Err(error) => return Err(unreachable(error)),
        };
        let watcher = Watcher::start(client.clone(), format!("{}:task-changed", options.prefix));
        let health = CancellationToken::new();
        tokio::spawn(check_health(connection.clone(), health.clone()));
        Ok(RedisStore {
            inner: Arc::new(Shared {
                client,
                connection,
                options,
                watcher,
                health,
            }),
        })
    }

    /// The store of tasks, for [`TaskOptions::store`](crate::server::TaskOptions::store).
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.inner.clone())
    }

    /// The store of sessions, for
    /// [`HttpOptions::session_store`](crate::transport::http::HttpOptions::session_store).
    pub fn session_store(&self) -> Arc<RedisSessionStore> {
        Arc::new(RedisSessionStore::new(self.inner.clone()))
    }

    /// The store of SSE events, for
    /// [`HttpOptions::event_store`](crate::transport::http::HttpOptions).
    pub fn event_store(&self) -> Arc<RedisEventStore> {
        Arc::new(RedisEventStore::new(self.inner.clone()))
    }
}

/// The data connection of the stores: with `cached`, in RESP3 with Redis's client-side caching
/// (tracking, opt-in per command), which the session loads use (see
/// [`RedisSessionStore`](session::RedisSessionStore)).
///
/// It is tried once: at start an error now beats a retry loop, and while Redis is away each
/// command that needs it tries to reconnect and fails fast, so that the requests meanwhile get an
/// error and the first one after Redis is back succeeds. After a reconnection the cache starts
/// empty (the invalidations of the time between were lost with the old connection).
async fn connect(
    client: &redis::Client,
    options: &RedisOptions,
    cached: bool,
) -> Result<ConnectionManager, redis::RedisError> {
    let mut config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(options.connect_timeout))
        .set_response_timeout(Some(options.response_timeout))
        .set_number_of_retries(0);
    let mut client = client.clone();
    if cached {
        let info = client.get_connection_info().clone();
        let settings = info
            .redis_settings()
            .clone()
            .set_protocol(redis::ProtocolVersion::RESP3);
        client = redis::Client::open(info.set_redis_settings(settings))?;
        config = config.set_cache_config(
            redis::caching::CacheConfig::new()
                .set_mode(redis::caching::CacheMode::OptIn)
                .set_size(CACHED_KEYS),
        );
    }
    let mut connection = ConnectionManager::new_with_config(client, config).await?;
    let _: String = redis::cmd("PING").query_async(&mut connection).await?;
    Ok(connection)
}

/// How many keys the client-side cache holds at most (two per session): past it, the least
/// recently used go, and their sessions are read from Redis again.
const CACHED_KEYS: std::num::NonZeroUsize = std::num::NonZeroUsize::new(20_000).unwrap();

/// `url` without the password (or user and password) it may carry.
pub(crate) fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// A Lua script of a store, run with `EVALSHA` and loaded again when Redis forgot it (after a
/// restart, say). A call is one command built in place: the `redis` crate's `ScriptInvocation`
/// keeps each key and argument apart, then copies them again into the command.
pub(crate) struct Lua(redis::Script);

impl Lua {
    pub(crate) fn new(code: &str) -> Self {
        Lua(redis::Script::new(code))
    }

    /// A call of the script with `keys` keys: they follow (`Cmd::arg`), then its arguments.
    pub(crate) fn call(&self, keys: usize) -> redis::Cmd {
        let mut call = redis::cmd("EVALSHA");
        call.arg(self.0.get_hash()).arg(keys);
        call
    }

    /// Runs `call`, made by [`Lua::call`], on `connection`.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        call: &redis::Cmd,
        connection: &mut ConnectionManager,
    ) -> redis::RedisResult<T> {
        match call.query_async(connection).await {
            Err(error)
                if error.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) =>
            {
                self.0.load_async(connection).await?;
                call.query_async(connection).await
            }
            result => result,
        }
    }
}

/// A Redis error as the stores report it: what failed, and why.
pub(crate) fn unavailable(what: &str, error: &redis::RedisError) -> String {
    format!("Redis could not {what}: {error}")
}

/// `duration` as a Redis expiry in milliseconds: at least 1 (0 would be refused), at most what
/// Redis counts.
pub(crate) fn ttl_millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis())
        .unwrap_or(i64::MAX)
        .max(1)
}

/// Milliseconds since the Unix epoch of `at`, within what Redis accepts as an expiry.
pub(crate) fn epoch_millis(at: std::time::SystemTime) -> i64 {
    /// 9999-12-31: far enough to be "never", near enough for Redis's `PEXPIREAT`.
    const LATEST: i64 = 253_402_300_799_999;
    at.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(LATEST))
        .min(LATEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(
            redacted("redis://:s3cret@cache.internal:6380/2"),
            "redis://***@cache.internal:6380/2"
        );
        assert_eq!(redacted("rediss://user:p@ss@host/0"), "rediss://***@host/0");
        assert_eq!(
            redacted("redis://127.0.0.1:6379/"),
            "redis://127.0.0.1:6379/"
        );
        assert_eq!(redacted("not a url"), "not a url");
    }

    #[test]
    fn expiries_stay_within_what_redis_accepts() {
        let far = std::time::UNIX_EPOCH + Duration::from_secs(i64::MAX as u64 / 2);
        assert_eq!(epoch_millis(far), 253_402_300_799_999);
        let at = std::time::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(epoch_millis(at), 1_700_000_000_123);
        assert_eq!(ttl_millis(Duration::ZERO), 1);
        assert_eq!(ttl_millis(Duration::from_secs(3600)), 3_600_000);
        assert_eq!(ttl_millis(Duration::MAX), i64::MAX);
    }
}
