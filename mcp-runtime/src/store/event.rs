//! Where SSE events are kept so that a client can resume a stream after `Last-Event-ID`.
//!
//! Every event the server writes on a resumable Streamable HTTP stream (one of a session) is
//! appended here with its session, stream and sequence number; a client whose connection dropped
//! asks for the events after the last one it saw. Streams that cannot be resumed (those of
//! stateless requests) store nothing.
//!
//! [`InMemoryEventStore`] (the default) keeps events in this process, bounded in bytes both in
//! all and per session, so that one session cannot push out another's resumption data. A
//! deployment that spreads one session over several processes implements [`EventStore`] on a
//! shared store.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use parking_lot::Mutex;

/// A boxed future returned by [`EventStore`] methods.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Storage of SSE events for resumption.
pub trait EventStore: Send + Sync + 'static {
    /// Keeps `data`, the event numbered `seq` of `stream`, a stream of `session`; whether it
    /// was kept. The transport numbers (gives an SSE id to) only the events that were kept, so
    /// that an event a client saw with an id can be replayed to it.
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        seq: u64,
        data: Arc<str>,
    ) -> StoreFuture<'a, bool>;

    /// The events of `stream` numbered above `seq`, in order (those still kept).
    fn after<'a>(&'a self, stream: &'a str, seq: u64) -> StoreFuture<'a, Vec<(u64, Arc<str>)>>;

    /// Forgets `stream`.
    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()>;

    /// Keeps `data` as the next event of `stream`, a stream of `session` that several processes
    /// write to, numbered by the store; the number, or `None` when the event was not kept. A
    /// store that only one process uses need not number events (the default keeps nothing):
    /// the HTTP transport asks for this only when the instances share sessions.
    fn append_next<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: Arc<str>,
    ) -> StoreFuture<'a, Option<u64>> {
        let _ = (session, stream, data);
        Box::pin(std::future::ready(None))
    }

    /// The number of the last event [`append_next`](Self::append_next) kept in `stream` (0
    /// before the first).
    fn latest<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, u64> {
        let _ = stream;
        Box::pin(std::future::ready(0))
    }

    /// The session whose events of `stream` the store keeps, if it keeps any: so that a
    /// process that did not write a stream can tell whose it is.
    fn session_of<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = stream;
        Box::pin(std::future::ready(None))
    }
}

/// What an event costs the store beyond its data: its stream's id, sequence number and place in
/// the queues.
const EVENT_OVERHEAD: usize = 64;

/// An [`EventStore`] in memory, bounded in bytes: in all, and per session. When a session goes
/// over its share its own oldest events go; when the store goes over its total, the oldest
/// events of the session holding the most go. An event larger than a session's share is not
/// kept.
pub struct InMemoryEventStore {
    max_bytes: usize,
    max_session_bytes: usize,
    inner: Mutex<Stored>,
}

#[derive(Default)]
struct Stored {
    sessions: HashMap<Arc<str>, Partition>,
    /// The sessions by the bytes they hold, to find the largest.
    by_size: BTreeSet<(usize, Arc<str>)>,
    /// The session of each stream with kept events, and how many it has.
    streams: HashMap<Arc<str>, (Arc<str>, usize)>,
    bytes: usize,
    count: usize,
}

/// One session's events, oldest first.
#[derive(Default)]
struct Partition {
    events: VecDeque<(Arc<str>, u64, Arc<str>)>,
    bytes: usize,
}

fn cost(stream: &str, data: &str) -> usize {
    stream.len() + data.len() + EVENT_OVERHEAD
}

impl Stored {
    /// Changes the bytes `session` holds, keeping the index by size.
    fn resize(&mut self, session: &Arc<str>, from: usize, to: usize) {
        self.by_size.remove(&(from, session.clone()));
        if to > 0 {
            self.by_size.insert((to, session.clone()));
        }
    }

    /// Drops the oldest event of `session`.
    fn pop_oldest(&mut self, session: &Arc<str>) {
        let Some(partition) = self.sessions.get_mut(session) else {
            return;
        };
        let before = (partition.bytes, partition.events.len());
        let Some((stream, _, data)) = partition.events.pop_front() else {
            return;
        };
        partition.bytes -= cost(&stream, &data);
        if let Some((_, count)) = self.streams.get_mut(&stream) {
            *count -= 1;
            if *count == 0 {
                self.streams.remove(&stream);
            }
        }
        self.shrunk(session, before);
    }

    /// Accounts for events `session` lost: it held `before` (bytes, events), its partition now
    /// holds what it holds (and goes when empty).
    fn shrunk(&mut self, session: &Arc<str>, before: (usize, usize)) {
        let Some(partition) = self.sessions.get(session) else {
            return;
        };
        let after = (partition.bytes, partition.events.len());
        if after.1 == 0 {
            self.sessions.remove(session);
        }
        self.bytes -= before.0 - after.0;
        self.count -= before.1 - after.1;
        self.resize(session, before.0, after.0);
    }
}

impl InMemoryEventStore {
    /// How many bytes of events the default store keeps per session: 4 MiB.
    pub const SESSION_BYTES: usize = 4 * 1024 * 1024;

    /// A store keeping at most `max_bytes` of events in all, and `max_session_bytes` per session.
    pub fn new(max_bytes: usize, max_session_bytes: usize) -> Self {
        InMemoryEventStore {
            max_bytes,
            max_session_bytes: max_session_bytes.min(max_bytes),
            inner: Mutex::new(Stored::default()),
        }
    }

    /// How many events are kept.
    pub fn len(&self) -> usize {
        self.inner.lock().count
    }

    /// Whether no event is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many bytes the kept events count for (their data, their stream ids, and a fixed cost
    /// each).
    pub fn bytes(&self) -> usize {
        self.inner.lock().bytes
    }
}

impl Default for InMemoryEventStore {
    /// The share of the default [`MemoryBudget`](crate::memory::MemoryBudget), 16 MiB in all, and
    /// [`SESSION_BYTES`](Self::SESSION_BYTES) per session.
    fn default() -> Self {
        let budget = crate::memory::MemoryBudget::default();
        InMemoryEventStore::new(budget.event_store(), Self::SESSION_BYTES)
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        seq: u64,
        data: Arc<str>,
    ) -> StoreFuture<'a, bool> {
        let size = cost(stream, &data);
        if size > self.max_session_bytes {
            tracing::debug!(
                stream,
                bytes = data.len(),
                "an event too large to keep for resumption"
            );
            return Box::pin(std::future::ready(false));
        }
        let mut guard = self.inner.lock();
        let stored = &mut *guard;
        let session: Arc<str> = match stored.sessions.get_key_value(session) {
            Some((key, _)) => key.clone(),
            None => Arc::from(session),
        };
        let stream: Arc<str> = match stored.streams.get_key_value(stream) {
            Some((key, _)) => key.clone(),
            None => Arc::from(stream),
        };
        stored
            .streams
            .entry(stream.clone())
            .or_insert_with(|| (session.clone(), 0))
            .1 += 1;
        let partition = stored.sessions.entry(session.clone()).or_default();
        let before = partition.bytes;
        partition.events.push_back((stream, seq, data));
        partition.bytes += size;
        let after = partition.bytes;
        stored.bytes += size;
        stored.count += 1;
        stored.resize(&session, before, after);
        while stored
            .sessions
            .get(&session)
            .is_some_and(|p| p.bytes > self.max_session_bytes)
        {
            stored.pop_oldest(&session);
        }
        while stored.bytes > self.max_bytes {
            let Some((_, largest)) = stored.by_size.last().cloned() else {
                break;
            };
            stored.pop_oldest(&largest);
        }
        Box::pin(std::future::ready(true))
    }

    fn after<'a>(&'a self, stream: &'a str, seq: u64) -> StoreFuture<'a, Vec<(u64, Arc<str>)>> {
        let stored = self.inner.lock();
        let events = stored
            .streams
            .get(stream)
            .and_then(|(session, _)| stored.sessions.get(session))
            .map(|partition| {
                partition
                    .events
                    .iter()
                    .filter(|(s, n, _)| &**s == stream && *n > seq)
                    .map(|(_, n, data)| (*n, data.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Box::pin(std::future::ready(events))
    }

    fn session_of<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, Option<String>> {
        let session = self
            .inner
            .lock()
            .streams
            .get(stream)
            .map(|(session, _)| session.to_string());
        Box::pin(std::future::ready(session))
    }

    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        let mut guard = self.inner.lock();
        let stored = &mut *guard;
        if let Some((session, _)) = stored.streams.remove(stream)
            && let Some(partition) = stored.sessions.get_mut(&session)
        {
            let before = (partition.bytes, partition.events.len());
            let mut freed = 0;
            partition.events.retain(|(s, _, data)| {
                let other = &**s != stream;
                if !other {
                    freed += cost(s, data);
                }
                other
            });
            partition.bytes -= freed;
            stored.shrunk(&session, before);
        }
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(n: usize) -> Arc<str> {
        Arc::from("x".repeat(n))
    }

    #[tokio::test]
    async fn events_are_replayed_after_a_sequence_number() {
        let store = InMemoryEventStore::default();
        for seq in 1..=3 {
            store.append("s", "a", seq, format!("a{seq}").into()).await;
        }
        store.append("s", "b", 1, "b1".into()).await;
        assert_eq!(
            store.after("a", 1).await,
            vec![(2, Arc::from("a2")), (3, Arc::from("a3"))]
        );
        assert_eq!(store.len(), 4);
        assert_eq!(store.session_of("a").await.as_deref(), Some("s"));
        store.remove("a").await;
        assert_eq!(store.session_of("a").await, None);
        assert_eq!(store.len(), 1);
        assert_eq!(store.bytes(), cost("b", "b1"));
        assert!(store.after("a", 0).await.is_empty());
        assert_eq!(store.after("b", 0).await, vec![(1, Arc::from("b1"))]);
    }

    #[tokio::test]
    async fn a_session_over_its_share_loses_its_own_oldest_events() {
        // Each event costs 1 + 100 + 64 = 165 bytes; a session keeps 3 of them.
        let store = InMemoryEventStore::new(10_000, 3 * 165);
        for seq in 1..=5 {
            store.append("s", "a", seq, event(100)).await;
        }
        let kept: Vec<u64> = store.after("a", 0).await.iter().map(|e| e.0).collect();
        assert_eq!(kept, [3, 4, 5]);
        assert_eq!(store.bytes(), 3 * 165);
        // Larger than a session's share: not kept at all.
        store.append("s", "a", 6, event(1000)).await;
        assert_eq!(store.len(), 3);
    }

    #[tokio::test]
    async fn a_full_store_takes_from_the_session_holding_the_most() {
        // Room for 6 events in all, 4 per session.
        let store = InMemoryEventStore::new(6 * 165, 4 * 165);
        store.append("quiet", "q", 1, event(100)).await;
        store.append("quiet", "q", 2, event(100)).await;
        for seq in 1..=10 {
            store.append("loud", "l", seq, event(100)).await;
        }
        let quiet: Vec<u64> = store.after("q", 0).await.iter().map(|e| e.0).collect();
        let loud: Vec<u64> = store.after("l", 0).await.iter().map(|e| e.0).collect();
        assert_eq!(quiet, [1, 2]);
        assert_eq!(loud, [7, 8, 9, 10]);
        // A third session fills the store: the loudest pays.
        for seq in 1..=2 {
            store.append("third", "t", seq, event(100)).await;
        }
        let loud: Vec<u64> = store.after("l", 0).await.iter().map(|e| e.0).collect();
        assert_eq!(loud, [9, 10]);
        assert_eq!(store.after("q", 0).await.len(), 2);
        assert_eq!(store.len(), 6);
        assert_eq!(store.bytes(), 6 * 165);
    }
}
