//! [`EventStore`] in Redis: a client resumes a stream after `Last-Event-ID` on any instance.
//!
//! A stream's events are a sorted set `PREFIX:events:STREAM` (score: the sequence number,
//! member: `SEQ:DATA`). Each session has a list of its events in the order they came
//! (`events-of:SESSION`) and the bytes they hold (`event-bytes:SESSION`); a stream names its
//! session (`event-session:STREAM`). Appending is one Lua script: it keeps the event, then drops
//! the session's oldest events while the session holds more than its share
//! ([`RedisOptions::max_session_event_bytes`](super::RedisOptions)), and renews the TTL of
//! every key it wrote ([`RedisOptions::event_ttl`](super::RedisOptions)), so that what a crashed
//! instance left behind goes away by itself. The script has returned, so the event is in
//! Redis, before the transport writes it to the client.

use std::sync::Arc;

use super::{Lua, Shared, ttl_millis, unavailable};
use crate::store::{EventStore, StoreFuture};

/// What an event costs beyond its stream's id and its data, as the in-memory store counts.
const EVENT_OVERHEAD: usize = 64;

/// Keeps an event within its session's share.
/// KEYS: events:STREAM, events-of:SESSION, event-bytes:SESSION, event-session:STREAM,
/// event-seq:STREAM.
/// ARGV: seq (`next`: the next one, counted in event-seq), data, cost, session share, TTL (ms),
/// session, the least an event costs.
/// Returns the event's number, or -1 (larger than the share: not kept).
const APPEND: &str = r"
local cost = tonumber(ARGV[3])
local share = tonumber(ARGV[4])
if cost > share then return -1 end
local seq = ARGV[1]
if seq == 'next' then
  seq = tostring(redis.call('INCR', KEYS[5]))
  redis.call('PEXPIRE', KEYS[5], ARGV[5])
end
redis.call('ZADD', KEYS[1], seq, seq .. ':' .. ARGV[2])
redis.call('RPUSH', KEYS[2], seq .. ' ' .. cost .. ' ' .. KEYS[1])
redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[5])
local bytes = redis.call('INCRBY', KEYS[3], cost)
while bytes > share do
  local oldest = redis.call('LPOP', KEYS[2])
  if not oldest then break end
  local seq, size, key = string.match(oldest, '^(%d+) (%d+) (.+)$')
  if redis.call('ZREMRANGEBYSCORE', key, seq, seq) > 0 then
    bytes = redis.call('DECRBY', KEYS[3], size)
  end
end
-- The list keeps entries of removed streams until they come up; when it holds twice as many as
-- the share has room for, it keeps only those whose event is still there.
if redis.call('LLEN', KEYS[2]) > 2 * math.floor(share / tonumber(ARGV[7])) then
  local entries = redis.call('LRANGE', KEYS[2], 0, -1)
  redis.call('DEL', KEYS[2])
  for _, entry in ipairs(entries) do
    local seq, size, key = string.match(entry, '^(%d+) (%d+) (.+)$')
    if redis.call('ZCOUNT', key, seq, seq) > 0 then redis.call('RPUSH', KEYS[2], entry) end
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return tonumber(seq)
";

/// Forgets a stream, and what its events counted against its session.
/// KEYS: events:STREAM, event-session:STREAM, event-seq:STREAM.
/// ARGV: prefix, overhead, the stream id's length.
const REMOVE: &str = r"
local session = redis.call('GET', KEYS[2])
if session then
  local freed = 0
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local seq = string.match(member, '^(%d+):')
    freed = freed + #member - #seq - 1 + tonumber(ARGV[3]) + tonumber(ARGV[2])
  end
  local bytes_key = ARGV[1] .. ':event-bytes:' .. session
  if freed > 0 and redis.call('EXISTS', bytes_key) == 1 then
    redis.call('DECRBY', bytes_key, freed)
  end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
";

/// An [`EventStore`] in Redis (see [`RedisStore`](super::RedisStore)).
pub struct RedisEventStore {
    shared: Arc<Shared>,
    append: Lua,
    remove: Lua,
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("prefix", &self.shared.options.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisEventStore {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        RedisEventStore {
            shared,
            append: Lua::new(APPEND),
            remove: Lua::new(REMOVE),
        }
    }

    /// Keeps `data` as event `seq` of `stream` (`None`: the next number); the number it got.
    async fn keep(&self, session: &str, stream: &str, seq: Option<u64>, data: &str) -> Option<u64> {
        let shared = &self.shared;
        let cost = stream.len() + data.len() + EVENT_OVERHEAD;
        let ttl = ttl_millis(shared.options.event_ttl);
        let mut connection = shared.connection.clone();
        let number = seq.map_or_else(|| "next".to_owned(), |seq| seq.to_string());
        let mut call = self.append.call(5);
        call.arg(shared.key_of("events", stream))
            .arg(shared.key_of("events-of", session))
            .arg(shared.key_of("event-bytes", session))
            .arg(shared.key_of("event-session", stream))
            .arg(shared.key_of("event-seq", stream))
            .arg(number)
            .arg(data)
            .arg(cost)
            .arg(shared.options.max_session_event_bytes)
            .arg(ttl)
            .arg(session)
            .arg(EVENT_OVERHEAD);
        let kept: Result<i64, _> = self.append.run(&call, &mut connection).await;
        match kept {
            Ok(seq) if seq >= 0 => Some(seq.unsigned_abs()),
            Ok(_) => {
                tracing::debug!(stream, ?seq, "an event larger than a session's share");
                None
            }
            Err(error) => {
                tracing::warn!(
                    stream,
                    ?seq,
                    "{}; the event goes out without an id, so that no client resumes after it",
                    unavailable("keep an event", &error)
                );
                None
            }
        }
    }

    /// A value of `stream` read with `command` (`None` when Redis could not answer).
    async fn read_value<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Option<T> {
        let mut connection = self.shared.connection.clone();
        match command.query_async(&mut connection).await {
            Ok(value) => Some(value),
            Err(error) => {
                tracing::warn!("{}", unavailable("read a stream", &error));
                None
            }
        }
    }

    async fn read_after(&self, stream: &str, seq: u64) -> Vec<(u64, Arc<str>)> {
        let mut connection = self.shared.connection.clone();
        let members: Result<Vec<String>, _> = redis::cmd("ZRANGEBYSCORE")
            .arg(self.shared.key_of("events", stream))
            .arg(format!("({seq}"))
            .arg("+inf")
            .query_async(&mut connection)
            .await;
        match members {
            Ok(members) => members
                .iter()
                .filter_map(|member| {
                    let (seq, data) = member.split_once(':')?;
                    Some((seq.parse().ok()?, Arc::from(data)))
                })
                .collect(),
            Err(error) => {
                tracing::warn!(stream, "{}", unavailable("read a stream's events", &error));
                Vec::new()
            }
        }
    }

    async fn forget(&self, stream: &str) {
        let shared = &self.shared;
        let mut connection = shared.connection.clone();
        let mut call = self.remove.call(3);
        call.arg(shared.key_of("events", stream))
            .arg(shared.key_of("event-session", stream))
            .arg(shared.key_of("event-seq", stream))
            .arg(&shared.options.prefix)
            .arg(EVENT_OVERHEAD)
            .arg(stream.len());
        let removed: Result<i64, _> = self.remove.run(&call, &mut connection).await;
        if let Err(error) = removed {
            tracing::debug!(stream, "{}", unavailable("forget a stream", &error));
        }
    }
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        seq: u64,
        data: Arc<str>,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move { self.keep(session, stream, Some(seq), &data).await.is_some() })
    }

    fn append_next<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: Arc<str>,
    ) -> StoreFuture<'a, Option<u64>> {
        Box::pin(async move { self.keep(session, stream, None, &data).await })
    }

    fn latest<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, u64> {
        let mut command = redis::cmd("GET");
        command.arg(self.shared.key_of("event-seq", stream));
        Box::pin(async move {
            self.read_value::<Option<u64>>(command)
                .await
                .flatten()
                .unwrap_or(0)
        })
    }

    fn session_of<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, Option<String>> {
        let mut command = redis::cmd("GET");
        command.arg(self.shared.key_of("event-session", stream));
        Box::pin(async move { self.read_value::<Option<String>>(command).await.flatten() })
    }

    fn after<'a>(&'a self, stream: &'a str, seq: u64) -> StoreFuture<'a, Vec<(u64, Arc<str>)>> {
        Box::pin(self.read_after(stream, seq))
    }

    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.forget(stream))
    }
}
