//! Where SSE events are kept so that a client can resume a stream after `Last-Event-ID`.
//!
//! Every event the server writes on a Streamable HTTP stream is appended here with its stream and
//! sequence number; a client whose connection dropped asks for the events after the last one it
//! saw. [`InMemoryEventStore`] (the default) keeps a bounded number of events in this process; a
//! deployment that spreads one session over several processes implements [`EventStore`] on a
//! shared store.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use parking_lot::Mutex;

/// A boxed future returned by [`EventStore`] methods.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Storage of SSE events for resumption.
pub trait EventStore: Send + Sync + 'static {
    /// Keeps `data`, the event numbered `seq` of `stream`.
    fn append<'a>(&'a self, stream: &'a str, seq: u64, data: Arc<str>) -> StoreFuture<'a, ()>;

    /// The events of `stream` numbered above `seq`, in order (those still kept).
    fn after<'a>(&'a self, stream: &'a str, seq: u64) -> StoreFuture<'a, Vec<(u64, Arc<str>)>>;

    /// Forgets `stream`.
    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()>;
}

/// An [`EventStore`] in memory, keeping at most a fixed number of events (the oldest go first).
pub struct InMemoryEventStore {
    capacity: usize,
    inner: Mutex<Stored>,
}

#[derive(Default)]
struct Stored {
    streams: HashMap<String, VecDeque<(u64, Arc<str>)>>,
    order: VecDeque<String>,
    count: usize,
}

impl InMemoryEventStore {
    /// A store keeping at most `capacity` events.
    pub fn new(capacity: usize) -> Self {
        InMemoryEventStore {
            capacity,
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
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        InMemoryEventStore::new(10_000)
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(&'a self, stream: &'a str, seq: u64, data: Arc<str>) -> StoreFuture<'a, ()> {
        let mut guard = self.inner.lock();
        let stored = &mut *guard;
        stored
            .streams
            .entry(stream.to_owned())
            .or_default()
            .push_back((seq, data));
        stored.order.push_back(stream.to_owned());
        stored.count += 1;
        while stored.count > self.capacity {
            let Some(oldest) = stored.order.pop_front() else {
                break;
            };
            if let Some(events) = stored.streams.get_mut(&oldest) {
                if events.pop_front().is_some() {
                    stored.count -= 1;
                }
                if events.is_empty() {
                    stored.streams.remove(&oldest);
                }
            }
        }
        Box::pin(std::future::ready(()))
    }

    fn after<'a>(&'a self, stream: &'a str, seq: u64) -> StoreFuture<'a, Vec<(u64, Arc<str>)>> {
        let events = self
            .inner
            .lock()
            .streams
            .get(stream)
            .map(|events| events.iter().filter(|(s, _)| *s > seq).cloned().collect())
            .unwrap_or_default();
        Box::pin(std::future::ready(events))
    }

    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        let mut stored = self.inner.lock();
        if let Some(events) = stored.streams.remove(stream) {
            stored.count -= events.len();
            stored.order.retain(|s| s != stream);
        }
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_are_replayed_after_a_sequence_number_and_bounded() {
        let store = InMemoryEventStore::new(3);
        for seq in 1..=2 {
            store.append("a", seq, format!("a{seq}").into()).await;
        }
        store.append("b", 1, "b1".into()).await;
        assert_eq!(store.after("a", 1).await, vec![(2, Arc::from("a2"))]);
        store.append("b", 2, "b2".into()).await;
        // The oldest event (a1) made room.
        assert_eq!(store.len(), 3);
        assert_eq!(store.after("a", 0).await, vec![(2, Arc::from("a2"))]);
        store.remove("b").await;
        assert_eq!(store.len(), 1);
        assert!(store.after("b", 0).await.is_empty());
    }
}
