//! The queues between what the server sends and the HTTP response that carries it: what one
//! POST's handlers send before their stream takes it, and the events waiting for a response to
//! write them.
//!
//! A [`Queue`] is bounded twice: in items, per queue
//! ([`HttpOptions::stream_buffer`](super::HttpOptions::stream_buffer)), and in bytes, across the
//! server (the queued-events share of the [`MemoryBudget`](crate::memory::MemoryBudget)). A
//! queue with nothing in it may always take one item, over the share if need be, so that a
//! client that reads is never starved by those that do not. A writer that finds no room is told
//! ([`Refused::Full`]) and decides what to do: a session's stream drops its client, which resumes
//! from the event store; a stream that cannot be resumed makes its writer wait
//! ([`Queue::push`]) until its client has read.
//!
//! Unlike a channel's, a queue's writer can [`discard`](Queue::discard) what is queued: a client
//! dropped from a stream lets go of its memory at once, not when its connection closes (which,
//! for a client that reads nothing, is only after the write timeout).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::memory::{Charge, Pool};

/// What an item weighs in the budget, in bytes.
pub(crate) trait Weigh {
    /// The item's weight.
    fn weight(&self) -> usize;
}

/// Why an item was not queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No room: the queue holds as many items as it may, or the share is spent and the queue
    /// is not empty.
    Full,
    /// The queue was closed, or its reader is gone.
    Gone,
}

/// A bounded queue of `T` with one reader.
pub(crate) struct Queue<T> {
    state: Mutex<State<T>>,
    /// Wakes writers waiting for room, and those waiting for the reader to go.
    room: Notify,
    capacity: usize,
    pool: Arc<Pool>,
}

struct State<T> {
    items: VecDeque<(T, Charge)>,
    /// No more items come: the reader ends after those queued.
    closed: bool,
    /// The reader was dropped.
    reader_gone: bool,
    reader: Option<Waker>,
    /// How many writers wait for room.
    waiting: usize,
}

impl<T: Weigh> Queue<T> {
    /// A queue of at most `capacity` items (at least one), weighed against `pool`, and its reader.
    pub(crate) fn new(capacity: usize, pool: Arc<Pool>) -> (Arc<Self>, Reader<T>) {
        let queue = Arc::new(Queue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                closed: false,
                reader_gone: false,
                reader: None,
                waiting: 0,
            }),
            room: Notify::new(),
            capacity: capacity.max(1),
            pool,
        });
        (queue.clone(), Reader(queue))
    }

    /// Queues `item` if there is room.
    pub(crate) fn try_push(&self, item: T) -> Result<(), Refused> {
        let mut state = self.state.lock();
        let charge = self.admit(&state, item.weight())?;
        state.items.push_back((item, charge));
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
        Ok(())
    }

    /// Queues `item`, waiting while there is no room; fails only when the queue is gone.
    pub(crate) async fn push(&self, item: T) -> Result<(), Refused> {
        let weight = item.weight();
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            {
                let mut state = self.state.lock();
                match self.admit(&state, weight) {
                    Ok(charge) => {
                        state.items.push_back((item, charge));
                        if let Some(reader) = state.reader.take() {
                            reader.wake();
                        }
                        return Ok(());
                    }
                    Err(Refused::Gone) => return Err(Refused::Gone),
                    Err(Refused::Full) => state.waiting += 1,
                }
            }
            room.await;
            self.state.lock().waiting -= 1;
        }
    }

    /// The charge for an item of `weight`, when it may be queued now.
    fn admit(&self, state: &State<T>, weight: usize) -> Result<Charge, Refused> {
        if state.closed || state.reader_gone {
            return Err(Refused::Gone);
        }
        if state.items.len() >= self.capacity {
            return Err(Refused::Full);
        }
        match self.pool.try_charge(weight) {
            Some(charge) => Ok(charge),
            None if state.items.is_empty() => Ok(self.pool.charge(weight)),
            None => Err(Refused::Full),
        }
    }
}

impl<T> Queue<T> {
    /// Ends the queue: the reader gets what is queued, then the end.
    pub(crate) fn close(&self) {
        let mut state = self.state.lock();
        state.closed = true;
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
        drop(state);
        self.room.notify_waiters();
    }

    /// Ends the queue at once, dropping (and giving back the memory of) what is queued.
    pub(crate) fn discard(&self) {
        let dropped = {
            let mut state = self.state.lock();
            state.closed = true;
            if let Some(reader) = state.reader.take() {
                reader.wake();
            }
            std::mem::take(&mut state.items)
        };
        drop(dropped);
        self.room.notify_waiters();
    }

    /// Whether items may still be queued: not closed, and the reader is there.
    pub(crate) fn is_open(&self) -> bool {
        let state = self.state.lock();
        !state.closed && !state.reader_gone
    }

    /// Completes when the reader is gone.
    pub(crate) async fn reader_gone(&self) {
        loop {
            let gone = self.room.notified();
            tokio::pin!(gone);
            gone.as_mut().enable();
            if self.state.lock().reader_gone {
                return;
            }
            gone.await;
        }
    }
}

/// The reading end of a [`Queue`]. Dropping it drops what is still queued.
pub(crate) struct Reader<T>(Arc<Queue<T>>);

impl<T> Reader<T> {
    /// The next item; `None` once the queue is closed and empty.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = self.0.state.lock();
        match state.items.pop_front() {
            Some((item, _charge)) => {
                let wake_writers = state.waiting > 0;
                drop(state);
                if wake_writers {
                    self.0.room.notify_waiters();
                }
                Poll::Ready(Some(item))
            }
            None if state.closed => Poll::Ready(None),
            None => {
                state.reader = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// The next item, waiting for one; `None` once the queue is closed and empty.
    pub(crate) async fn next(&mut self) -> Option<T> {
        poll_fn(|cx| self.poll_next(cx)).await
    }

    /// The next item if one is queued.
    pub(crate) fn try_next(&mut self) -> Option<T> {
        let waker = Waker::noop();
        match self.poll_next(&mut Context::from_waker(waker)) {
            Poll::Ready(item) => item,
            Poll::Pending => {
                self.0.state.lock().reader = None;
                None
            }
        }
    }
}

impl<T> Drop for Reader<T> {
    fn drop(&mut self) {
        let dropped = {
            let mut state = self.0.state.lock();
            state.reader_gone = true;
            std::mem::take(&mut state.items)
        };
        drop(dropped);
        self.0.room.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Weigh for &'static str {
        fn weight(&self) -> usize {
            self.len()
        }
    }

    fn drain(reader: &mut Reader<&'static str>) -> Vec<&'static str> {
        std::iter::from_fn(|| reader.try_next()).collect()
    }

    #[test]
    fn bounded_in_items_and_in_the_shared_bytes() {
        let pool = Pool::new(10);
        let (queue, mut reader) = Queue::new(3, pool.clone());
        let (other, mut other_reader) = Queue::new(3, pool.clone());
        assert_eq!(queue.try_push("abcdef"), Ok(()));
        assert_eq!(queue.try_push("ghij"), Ok(()));
        // The share is spent: a queue that holds something gets no more...
        assert_eq!(queue.try_push("k"), Err(Refused::Full));
        // ... but an empty one may take one item, over the share.
        assert_eq!(other.try_push("xyz"), Ok(()));
        assert_eq!(other.try_push("w"), Err(Refused::Full));
        assert_eq!(pool.used(), 13);
        assert_eq!(drain(&mut reader), ["abcdef", "ghij"]);
        assert_eq!(pool.used(), 3);
        for item in ["a", "b", "c"] {
            assert_eq!(queue.try_push(item), Ok(()));
        }
        assert_eq!(queue.try_push("d"), Err(Refused::Full));
        // Discarding gives the memory back at once, and ends the queue.
        queue.discard();
        assert_eq!(pool.used(), 3);
        assert_eq!(queue.try_push("e"), Err(Refused::Gone));
        assert_eq!(drain(&mut reader), Vec::<&str>::new());
        // A reader that goes drops what it did not read.
        assert_eq!(other_reader.try_next(), Some("xyz"));
        other.try_push("q").unwrap();
        drop(other_reader);
        assert_eq!(pool.used(), 0);
        assert!(!other.is_open());
    }

    #[tokio::test]
    async fn a_writer_waits_for_room_and_a_closed_queue_ends_after_its_items() {
        let pool = Pool::new(1000);
        let (queue, mut reader) = Queue::new(1, pool);
        queue.push("one").await.unwrap();
        let writer = {
            let queue = queue.clone();
            tokio::spawn(async move {
                queue.push("two").await.unwrap();
                queue.close();
            })
        };
        assert_eq!(reader.next().await, Some("one"));
        assert_eq!(reader.next().await, Some("two"));
        assert_eq!(reader.next().await, None);
        writer.await.unwrap();
        assert_eq!(queue.push("three").await, Err(Refused::Gone));
    }

    #[tokio::test]
    async fn a_writer_waiting_for_room_learns_that_the_reader_went() {
        let (queue, reader) = Queue::new(1, Pool::new(1000));
        queue.push("one").await.unwrap();
        let writer = {
            let queue = queue.clone();
            tokio::spawn(async move { queue.push("two").await })
        };
        tokio::task::yield_now().await;
        drop(reader);
        assert_eq!(writer.await.unwrap(), Err(Refused::Gone));
        queue.reader_gone().await;
    }
}
