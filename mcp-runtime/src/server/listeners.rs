//! The open `subscriptions/listen` streams (2026-07-28): each carries the change notifications
//! its request asked for, and the server supports, stamped with the stream's subscription id.
//!
//! A listen request stays in flight for as long as its stream: it opens with
//! `notifications/subscriptions/acknowledged` (the filter the stream got), carries the matching
//! `notifications/{tools,prompts,resources}/list_changed` and `notifications/resources/updated`
//! for the URIs it listed (the `notifications/tasks` for the tasks it listed come from the task
//! store, [`tasks::follow`](super::tasks::follow)), and ends when the client closes the stream
//! (HTTP) or cancels the request (stdio), or with a final result when the server shuts down.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::meta::NotificationMeta;
use mcp_runtime_core::subscriptions::SubscriptionFilter;
use parking_lot::Mutex;

use crate::connection::{Outbound, SharedSink};

/// One open stream.
struct Listener {
    key: u64,
    subscription: RequestId,
    filter: SubscriptionFilter,
    sink: SharedSink,
}

impl Listener {
    /// Whether the stream asked for `notification`.
    fn wants(&self, notification: &ServerNotification) -> bool {
        let filter = &self.filter;
        match notification {
            ServerNotification::ToolListChanged(_) => filter.tools_list_changed == Some(true),
            ServerNotification::PromptListChanged(_) => filter.prompts_list_changed == Some(true),
            ServerNotification::ResourceListChanged(_) => {
                filter.resources_list_changed == Some(true)
            }
            ServerNotification::ResourceUpdated(params) => filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.contains(&params.uri)),
            _ => false,
        }
    }
}

/// The open streams of a server.
#[derive(Default)]
pub(crate) struct Listeners {
    next_key: AtomicU64,
    open: Mutex<Vec<Listener>>,
}

/// Keeps a stream registered; dropping it closes the stream.
pub(crate) struct Listening<'a> {
    listeners: &'a Listeners,
    key: u64,
}

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        self.listeners.open.lock().retain(|l| l.key != self.key);
    }
}

impl Listeners {
    /// Registers the stream of the listen request `subscription`, which gets what `filter`
    /// selects through `sink`, until the returned guard is dropped.
    pub(crate) fn open(
        &self,
        subscription: RequestId,
        filter: SubscriptionFilter,
        sink: SharedSink,
    ) -> Listening<'_> {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        self.open.lock().push(Listener {
            key,
            subscription,
            filter,
            sink,
        });
        Listening {
            listeners: self,
            key,
        }
    }

    /// Sends `notification` to every stream that asked for it, stamped with the stream's
    /// subscription id; returns how many it reached.
    pub(crate) fn deliver(&self, notification: &ServerNotification) -> usize {
        self.open
            .lock()
            .iter()
            .filter(|listener| listener.wants(notification))
            .filter(|listener| {
                let stamped = stamp(notification.clone(), &listener.subscription);
                listener.sink.send(Outbound::Stateless(stamped)).is_ok()
            })
            .count()
    }
}

/// `notification` with `_meta.subscriptionId` set to `subscription`.
pub(super) fn stamp(
    mut notification: ServerNotification,
    subscription: &RequestId,
) -> ServerNotification {
    let meta = match &mut notification {
        ServerNotification::ToolListChanged(params)
        | ServerNotification::PromptListChanged(params)
        | ServerNotification::ResourceListChanged(params) => &mut params.meta,
        ServerNotification::ResourceUpdated(params) => &mut params.meta,
        ServerNotification::TaskState(params) => &mut params.meta,
        _ => return notification,
    };
    meta.get_or_insert_with(NotificationMeta::default)
        .subscription_id = Some(subscription.clone());
    notification
}
