//! The memory budget: one ceiling on what peers can make a server hold.
//!
//! Most of a server's memory is its own: its code, its registry, what handlers allocate. Some of
//! it is held because a peer makes the server hold it, and an attacker can do so on purpose:
//!
//! - the **request bodies** being read (a client can send a large body slowly);
//! - the **events queued** for a stream whose client does not read them (each event rendered,
//!   waiting for the client);
//! - the **event store** that keeps a session's events so that its streams can resume;
//! - the **requests in flight** of every session (a session's requests run on after its client
//!   disconnects, so a client can start many and leave), and above all those waiting for the
//!   answer to a request the server sent the client (elicitation, sampling, roots, ping), which
//!   a client can leave unanswered.
//!
//! A [`MemoryBudget`] bounds all four with one number, split into equal shares so that no one of
//! them can starve the others; each share is weighed in bytes. What happens when a share is full
//! is said where it is drawn from: a body waits a moment, while a body that stalled is ended to
//! make room, else gets `503` with `Retry-After`; a stream that is behind stops getting events (a session's is dropped and resumes from the
//! store, a request's stream makes its handler wait for its client); the store forgets the oldest
//! events of the session holding the most; a new request gets `503` with `Retry-After` (or a
//! `-32603` error that says to retry), and a request to a client is not sent (its handler gets
//! [`PeerRequestError::Busy`](crate::connection::PeerRequestError::Busy)).
//!
//! The HTTP transport takes the budget from
//! [`HttpOptions::memory_budget`](crate::transport::http::HttpOptions::memory_budget). Over stdio
//! one client is bounded by its own connection's limits.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many bytes peers can make the server hold, in all, and its shares.
///
/// | share | of the budget | 64 MiB budget (the default) |
/// |---|---|---|
/// | request bodies being read | 1/4 | 16 MiB |
/// | events queued for clients | 1/4 | 16 MiB |
/// | events kept for resumption (the in-memory event store) | 1/4 | 16 MiB |
/// | requests in flight in sessions | 1/4 | 16 MiB |
///
/// Bodies are weighed as the capacity of their buffers; queued events as their text and their
/// id, plus [`EVENT_OVERHEAD`] bytes; a request in flight as [`REQUEST_WEIGHT`] bytes, and
/// [`ANSWER_WAIT_WEIGHT`] more while it waits for a client's answer (with the default budget:
/// 4,096 requests in flight, or 682 waiting for answers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    total: usize,
}

/// The default budget: 64 MiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 64 * 1024 * 1024;

/// What a queued event weighs beyond its text and id: its place in the queue, its reference
/// count, its allocator's rounding.
pub const EVENT_OVERHEAD: usize = 96;

/// What a request in flight weighs: its context, its HTTP head, the tasks and futures that run
/// it (a handler that holds more holds it on its own account).
pub const REQUEST_WEIGHT: usize = 4 * 1024;

/// What a request weighs more while it waits for a client's answer to a request the server sent
/// (measured with `heaptrack`: a tool waiting for an elicitation's answer holds about 25 KB in
/// all, its response stream and its HTTP connection included; the request's text is weighed
/// where it is queued and kept).
pub const ANSWER_WAIT_WEIGHT: usize = 20 * 1024;

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::new(DEFAULT_MEMORY_BUDGET)
    }
}

impl MemoryBudget {
    /// A budget of `total` bytes.
    pub fn new(total: usize) -> Self {
        MemoryBudget { total }
    }

    /// The whole budget, in bytes.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The bytes the request bodies being read may hold (1/4).
    pub fn request_bodies(&self) -> usize {
        self.total / 4
    }

    /// The bytes the events queued for clients may hold (1/4).
    pub fn queued_events(&self) -> usize {
        self.total / 4
    }

    /// The bytes the in-memory event store may hold (1/4).
    pub fn event_store(&self) -> usize {
        self.total / 4
    }

    /// The bytes the requests in flight in sessions may hold (1/4).
    pub fn requests(&self) -> usize {
        self.total / 4
    }
}

/// What peers make a server hold now, in bytes, by share of its [`MemoryBudget`]
/// ([`HttpTransport::memory_use`](crate::transport::http::HttpTransport::memory_use)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryUse {
    /// The request bodies being read (the capacity of their buffers).
    pub request_bodies: usize,
    /// The events queued for clients.
    pub queued_events: usize,
    /// The events the default in-memory event store keeps (`None` with a store of your own).
    pub event_store: Option<usize>,
    /// The requests in flight in sessions, and the answers they wait for.
    pub requests: usize,
}

/// One share of the budget, drawn from by many holders at once.
#[derive(Debug)]
pub(crate) struct Pool {
    limit: usize,
    used: AtomicUsize,
}

impl Pool {
    /// A share of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Arc<Pool> {
        Arc::new(Pool {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// Takes `bytes` from the share if they fit in what is left, as a charge that gives them
    /// back when dropped.
    pub(crate) fn try_charge(self: &Arc<Self>, bytes: usize) -> Option<Charge> {
        self.try_take(bytes).then(|| Charge {
            pool: self.clone(),
            bytes,
        })
    }

    /// Takes `bytes` from the share if they fit in what is left; the taker gives them back
    /// ([`give_back`](Self::give_back)).
    pub(crate) fn try_take(&self, bytes: usize) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::AcqRel);
        if before.saturating_add(bytes) > self.limit {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// Gives back `bytes` that [`try_take`](Self::try_take) took.
    pub(crate) fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Whether `bytes` more would fit now.
    pub(crate) fn has_room_for(&self, bytes: usize) -> bool {
        self.used().saturating_add(bytes) <= self.limit
    }

    /// Takes `bytes` from the share whether they fit or not: the one event a stream with
    /// nothing queued may always take, so that a client that reads is never starved by those
    /// that do not. What a share can be over by is bounded by the number of such streams.
    pub(crate) fn charge(self: &Arc<Self>, bytes: usize) -> Charge {
        self.used.fetch_add(bytes, Ordering::AcqRel);
        Charge {
            pool: self.clone(),
            bytes,
        }
    }

    /// The bytes taken now.
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }
}

/// Bytes taken from a [`Pool`], given back when dropped.
#[derive(Debug)]
pub(crate) struct Charge {
    pool: Arc<Pool>,
    bytes: usize,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.pool.give_back(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_budget_and_its_shares() {
        let budget = MemoryBudget::default();
        const MIB: usize = 1024 * 1024;
        assert_eq!(
            [
                budget.total(),
                budget.request_bodies(),
                budget.queued_events(),
                budget.event_store(),
                budget.requests()
            ],
            [64 * MIB, 16 * MIB, 16 * MIB, 16 * MIB, 16 * MIB]
        );
    }

    #[test]
    fn a_pool_gives_what_fits_and_takes_it_back() {
        let pool = Pool::new(100);
        let first = pool.try_charge(60).unwrap();
        assert!(pool.try_charge(41).is_none());
        assert_eq!(pool.used(), 60);
        let second = pool.try_charge(40).unwrap();
        assert_eq!(pool.used(), 100);
        // The allowance goes over the limit, and is given back like the rest.
        let over = pool.charge(10);
        assert_eq!(pool.used(), 110);
        assert!(!pool.has_room_for(0));
        drop((first, over));
        assert_eq!(pool.used(), 40);
        drop(second);
        assert_eq!(pool.used(), 0);
    }
}
