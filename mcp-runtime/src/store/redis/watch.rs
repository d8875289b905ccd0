//! Hearing of changes to tasks kept in Redis, on any instance.
//!
//! A store that changes a task publishes its id on one channel; each process runs one
//! subscription to it ([`Watcher`]) and wakes the waiters of that id. Pub/sub delivers at most
//! once and not while the subscription reconnects, so waiters also look again on their own every
//! [`RECHECK`], and all of them are woken after a reconnection: a missed message delays a waiter,
//! it never strands one.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How often a waiter looks again without having heard anything.
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

/// How long the subscription waits before connecting again after Redis went away.
const RECONNECT_DELAY: Duration = Duration::from_millis(500);

/// The waiters of each task id, and the subscription that wakes them.
pub(crate) struct Watcher {
    waiters: Arc<Waiters>,
    stop: CancellationToken,
}

type Waiters = Mutex<HashMap<String, (Arc<Notify>, usize)>>;

impl Watcher {
    /// Subscribes to `channel` of the Redis of `client`, in a task of its own that ends when the
    /// watcher is dropped.
    pub(crate) fn start(client: redis::Client, channel: String) -> Watcher {
        let waiters = Arc::new(Waiters::default());
        let stop = CancellationToken::new();
        tokio::spawn(subscribe(
            client,
            channel,
            Arc::downgrade(&waiters),
            stop.clone(),
        ));
        Watcher { waiters, stop }
    }

    /// Starts waiting for news of the task `id`; the wait ends when the guard is dropped.
    pub(crate) fn watch(&self, id: &str) -> Watch {
        let notify = {
            let mut waiters = self.waiters.lock();
            let entry = waiters
                .entry(id.to_owned())
                .or_insert_with(|| (Arc::new(Notify::new()), 0));
            entry.1 += 1;
            entry.0.clone()
        };
        Watch {
            waiters: self.waiters.clone(),
            id: id.to_owned(),
            notify,
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// One waiter's interest in a task.
pub(crate) struct Watch {
    waiters: Arc<Waiters>,
    id: String,
    /// Woken when the task may have changed.
    pub(crate) notify: Arc<Notify>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut waiters = self.waiters.lock();
        if let Some(entry) = waiters.get_mut(&self.id) {
            entry.1 -= 1;
            if entry.1 == 0 {
                waiters.remove(&self.id);
            }
        }
    }
}

/// Wakes the waiters of the ids published on `channel`, reconnecting whenever the subscription
/// breaks, until `stop` fires or the waiters are gone.
async fn subscribe(
    client: redis::Client,
    channel: String,
    waiters: Weak<Waiters>,
    stop: CancellationToken,
) {
    loop {
        let listened = stop
            .run_until_cancelled(listen(&client, &channel, &waiters))
            .await;
        let Some(result) = listened else { return };
        if let Err(error) = result {
            tracing::warn!(
                "lost the subscription to task changes in Redis ({error}); reconnecting"
            );
        }
        // Whatever was published meanwhile was missed: every waiter looks again.
        let Some(waiters) = waiters.upgrade() else {
            return;
        };
        for (notify, _) in waiters.lock().values() {
            notify.notify_waiters();
        }
        drop(waiters);
        if stop
            .run_until_cancelled(tokio::time::sleep(RECONNECT_DELAY))
            .await
            .is_none()
        {
            return;
        }
    }
}

/// One subscription: wakes the waiters of each id heard until the connection ends.
async fn listen(
    client: &redis::Client,
    channel: &str,
    waiters: &Weak<Waiters>,
) -> Result<(), redis::RedisError> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    let mut messages = pubsub.on_message();
    while let Some(message) = messages.next().await {
        let Some(waiters) = waiters.upgrade() else {
            return Ok(());
        };
        let Ok(id) = message.get_payload::<String>() else {
            continue;
        };
        if let Some((notify, _)) = waiters.lock().get(&id) {
            notify.notify_waiters();
        }
    }
    Err(redis::RedisError::from((
        redis::ErrorKind::Io,
        "the subscription's connection closed",
    )))
}
