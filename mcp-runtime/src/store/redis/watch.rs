//! Hearing what other instances publish in Redis: a subscription that reconnects by itself, and
//! on it the waiters of task changes.
//!
//! A store that changes a task a waiter marked watched publishes its id on one channel; each
//! process runs one subscription to it ([`Watcher`]) and wakes the waiters of that id. Pub/sub delivers at most
//! once and not while the subscription reconnects, so waiters also look again on their own every
//! [`RECHECK`], and all of them are woken after a reconnection: a missed message delays a waiter,
//! it never strands one.

use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::store::{Wakes, Watch};

/// How often a waiter looks again without having heard anything.
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

/// How long a subscription waits before connecting again after Redis went away.
const RECONNECT_DELAY: Duration = Duration::from_millis(500);

/// What a subscription hears.
pub(crate) enum Heard {
    /// A message's payload.
    Message(String),
    /// The subscription was lost and is back: what was published meanwhile was missed.
    Resubscribed,
}

/// Subscribes to `channel` of the Redis of `client`, in a task of its own, and hands what it
/// hears to `hear` until `stop` fires or `hear` returns false.
pub(crate) fn subscribe(
    client: redis::Client,
    channel: String,
    stop: CancellationToken,
    mut hear: impl FnMut(Heard) -> bool + Send + 'static,
) {
    tokio::spawn(async move {
        loop {
            let listened = stop
                .run_until_cancelled(listen(&client, &channel, &mut hear))
                .await;
            match listened {
                None | Some(Ok(())) => return,
                Some(Err(error)) => {
                    tracing::warn!(
                        "lost the subscription to {channel} in Redis ({error}); reconnecting"
                    );
                }
            }
            if stop
                .run_until_cancelled(tokio::time::sleep(RECONNECT_DELAY))
                .await
                .is_none()
                || !hear(Heard::Resubscribed)
            {
                return;
            }
        }
    });
}

/// One subscription: hands over what it hears until the connection ends (an error) or `hear`
/// wants no more (`Ok`).
async fn listen(
    client: &redis::Client,
    channel: &str,
    hear: &mut (impl FnMut(Heard) -> bool + Send),
) -> Result<(), redis::RedisError> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    let mut messages = pubsub.on_message();
    while let Some(message) = messages.next().await {
        let Ok(payload) = message.get_payload::<String>() else {
            continue;
        };
        if !hear(Heard::Message(payload)) {
            return Ok(());
        }
    }
    Err(redis::RedisError::from((
        redis::ErrorKind::Io,
        "the subscription's connection closed",
    )))
}

/// The waiters of each task id, and the subscription that wakes them.
pub(crate) struct Watcher {
    wakes: Wakes,
    stop: CancellationToken,
}

impl Watcher {
    /// Wakes the waiters of each task id published on `channel`, until dropped.
    pub(crate) fn start(client: redis::Client, channel: String) -> Watcher {
        let wakes = Wakes::default();
        let stop = CancellationToken::new();
        let heard_by = wakes.clone();
        subscribe(client, channel, stop.clone(), move |heard| {
            match heard {
                Heard::Message(id) => heard_by.wake(&id),
                // Whatever was published meanwhile was missed: every waiter looks again.
                Heard::Resubscribed => heard_by.wake_all(),
            }
            true
        });
        Watcher { wakes, stop }
    }

    /// Starts waiting for news of the task `id`; the wait ends when the guard is dropped.
    pub(crate) fn watch(&self, id: &str) -> Watch {
        self.wakes.watch(id)
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
