//! Reading request bodies within the memory budget's share for them.
//!
//! A body is read into a buffer that grows as its bytes arrive (doubling, up to the body limit);
//! each byte of the buffer's capacity takes a permit of the share, held until the body is parsed
//! and dropped. When the share is spent, a body that needs more waits up to [`MEMORY_WAIT`], and
//! meanwhile the read that has received nothing for the longest (at least [`STALLED`]) is ended
//! to make room (`408`): a client that sends part of a large body and stops cannot lock out the
//! clients that send theirs whole. When no read has stalled, the waiting body gets `503` with
//! `Retry-After`.
//!
//! Only reads that wait on the network are tracked: a body that arrives in one piece, as most do,
//! is read without touching the shared list.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::rt::Instant;
use axum::body::Body;
use futures_util::{FutureExt, StreamExt};
use parking_lot::Mutex;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a body waits for memory before it is refused.
pub(crate) const MEMORY_WAIT: Duration = Duration::from_secs(1);

/// How long a read must have received nothing to be ended when another body needs its memory.
pub(crate) const STALLED: Duration = Duration::from_millis(500);

/// How often a body waiting for memory looks again for a stalled read to end.
const LOOK_AGAIN: Duration = Duration::from_millis(100);

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// It exceeds the body limit.
    TooLarge,
    /// The connection failed before its end.
    Broken,
    /// The bodies being read hold the share, and none stalled or gave any back in time.
    NoMemory,
    /// Its bytes stopped coming while another body needed the memory it held.
    Stalled,
}

/// The bodies being read, and the share of the memory budget they draw from.
pub(crate) struct Bodies {
    memory: Arc<Semaphore>,
    share: usize,
    reads: Mutex<HashMap<u64, Reading>>,
    next: AtomicU64,
}

/// A read that waits on the network.
struct Reading {
    last_byte: Instant,
    /// The bytes its buffer holds.
    holds: usize,
    stop: Arc<Notify>,
}

/// Keeps a read listed until it ends.
struct Listed<'a> {
    bodies: &'a Bodies,
    id: u64,
    stop: Arc<Notify>,
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.bodies.reads.lock().remove(&self.id);
    }
}

impl Bodies {
    /// Bodies drawing from a share of `share` bytes.
    pub(crate) fn new(share: usize) -> Self {
        let share = share.min(Semaphore::MAX_PERMITS);
        Bodies {
            memory: Arc::new(Semaphore::new(share)),
            share,
            reads: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
        }
    }

    /// The bytes the bodies being read hold.
    pub(crate) fn in_use(&self) -> usize {
        self.share - self.memory.available_permits()
    }

    /// Reads `body`, of at most `limit` bytes: the bytes, and the permits they hold.
    pub(crate) async fn read(
        &self,
        body: Body,
        limit: usize,
    ) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), BodyError> {
        let mut chunks = body.into_data_stream();
        let mut bytes = Vec::new();
        let mut held: Option<OwnedSemaphorePermit> = None;
        let mut listed: Option<Listed<'_>> = None;
        loop {
            let next = match chunks.next().now_or_never() {
                Some(next) => next,
                None => {
                    let listed = listed.get_or_insert_with(|| self.list(bytes.capacity()));
                    tokio::select! {
                        next = chunks.next() => next,
                        () = listed.stop.notified() => return Err(BodyError::Stalled),
                    }
                }
            };
            let Some(chunk) = next else { break };
            let chunk = chunk.map_err(|_| BodyError::Broken)?;
            let needed = bytes.len() + chunk.len();
            if needed > limit {
                return Err(BodyError::TooLarge);
            }
            if needed > bytes.capacity() {
                // Grown as a vector grows (doubling, within the limit), and paid for in full.
                let grown = needed.max(bytes.capacity() * 2).min(limit);
                let permit = self
                    .take(grown - bytes.capacity(), listed.as_ref().map(|l| l.id))
                    .await?;
                match &mut held {
                    Some(held) => held.merge(permit),
                    None => held = Some(permit),
                }
                bytes.reserve_exact(grown - bytes.len());
            }
            bytes.extend_from_slice(&chunk);
            if let Some(listed) = &listed
                && let Some(reading) = self.reads.lock().get_mut(&listed.id)
            {
                reading.last_byte = Instant::now();
                reading.holds = bytes.capacity();
            }
        }
        Ok((bytes, held))
    }

    /// Lists a read that holds `holds` bytes and now waits on the network.
    fn list(&self, holds: usize) -> Listed<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let stop = Arc::new(Notify::new());
        self.reads.lock().insert(
            id,
            Reading {
                last_byte: Instant::now(),
                holds,
                stop: stop.clone(),
            },
        );
        Listed {
            bodies: self,
            id,
            stop,
        }
    }

    /// Takes `bytes` permits for the read `me`, ending stalled reads to make room, within
    /// [`MEMORY_WAIT`].
    async fn take(&self, bytes: usize, me: Option<u64>) -> Result<OwnedSemaphorePermit, BodyError> {
        // The limit fits the share (see `HttpTransport::new`), so a buffer always can.
        let bytes = u32::try_from(bytes).map_err(|_| BodyError::TooLarge)?;
        let deadline = Instant::now() + MEMORY_WAIT;
        loop {
            if let Ok(permit) = self.memory.clone().try_acquire_many_owned(bytes) {
                return Ok(permit);
            }
            self.stop_stalled(me);
            let wait = LOOK_AGAIN.min(deadline.saturating_duration_since(Instant::now()));
            match crate::rt::timeout(wait, self.memory.clone().acquire_many_owned(bytes)).await {
                Ok(permit) => return permit.map_err(|_| BodyError::Broken),
                Err(_) if Instant::now() >= deadline => return Err(BodyError::NoMemory),
                Err(_) => {}
            }
        }
    }

    /// Ends the read (other than `me`) that holds memory and has received nothing for the
    /// longest, when that is at least [`STALLED`].
    fn stop_stalled(&self, me: Option<u64>) {
        let mut reads = self.reads.lock();
        let now = Instant::now();
        let stalled = reads
            .iter()
            .filter(|(id, reading)| Some(**id) != me && reading.holds > 0)
            .map(|(id, reading)| (*id, now - reading.last_byte))
            .filter(|(_, idle)| *idle >= STALLED)
            .max_by_key(|(_, idle)| *idle);
        if let Some((id, _)) = stalled
            && let Some(reading) = reads.remove(&id)
        {
            tracing::info!(
                bytes = reading.holds,
                "ended a request body that stalled, to make room for another"
            );
            reading.stop.notify_one();
        }
    }
}
