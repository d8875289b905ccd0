//! Waiters by key (a task id, a session), woken when another instance says the thing behind the
//! key may have changed. A wake-up says "look again", never what changed: a waiter reads the
//! store after it, so a spurious one costs a read and a missed one only delays.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::Notify;

/// Each key's wake-up, and how many wait for it.
type Waiters = Mutex<HashMap<String, (Arc<Notify>, usize)>>;

/// The waiters of each key.
#[derive(Clone, Default)]
pub(crate) struct Wakes {
    waiters: Arc<Waiters>,
}

impl Wakes {
    /// Starts waiting for news of `key`; the interest ends when the guard is dropped.
    pub(crate) fn watch(&self, key: &str) -> Watch {
        let notify = {
            let mut waiters = self.waiters.lock();
            let entry = waiters
                .entry(key.to_owned())
                .or_insert_with(|| (Arc::new(Notify::new()), 0));
            entry.1 += 1;
            entry.0.clone()
        };
        Watch {
            wakes: self.clone(),
            key: key.to_owned(),
            notify,
        }
    }

    /// Wakes the waiters of `key`.
    pub(crate) fn wake(&self, key: &str) {
        if let Some((notify, _)) = self.waiters.lock().get(key) {
            notify.notify_waiters();
        }
    }

    /// Wakes every waiter (what was said meanwhile may have been missed).
    #[cfg(feature = "redis")]
    pub(crate) fn wake_all(&self) {
        for (notify, _) in self.waiters.lock().values() {
            notify.notify_waiters();
        }
    }
}

/// One waiter's interest in a key.
pub(crate) struct Watch {
    wakes: Wakes,
    key: String,
    /// Woken when the thing behind the key may have changed.
    pub(crate) notify: Arc<Notify>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut waiters = self.wakes.waiters.lock();
        if let Some(entry) = waiters.get_mut(&self.key) {
            entry.1 -= 1;
            if entry.1 == 0 {
                waiters.remove(&self.key);
            }
        }
    }
}
