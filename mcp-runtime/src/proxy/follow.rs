//! Following the upstream: its list changes (listed again, and the mirror replaced), its
//! resource updates and its logs, from its notifications or, on 2026-07-28, its listen streams.

use std::sync::{Arc, Weak};

use mcp_runtime_core::messages::ServerNotification;
use tokio::sync::broadcast;

use super::{Shared, mirror};
use crate::client::{ClientError, Subscription};
use crate::server::ListKind;

impl Shared {
    /// Lists `kind` again and updates what the server offers.
    async fn relist(self: &Arc<Self>, kind: ListKind) -> Result<(), ClientError> {
        let client = &self.client;
        let mut offered = self.offered.lock().clone();
        match kind {
            ListKind::Tools => offered.tools = client.list_all_tools().await?,
            ListKind::Prompts => offered.prompts = client.list_all_prompts().await?,
            ListKind::Resources => {
                offered.resources = client.list_all_resources().await?;
                offered.templates = client.list_all_resource_templates().await?;
            }
        }
        let before = std::mem::replace(&mut *self.offered.lock(), offered.clone());
        let Some(server) = self.server() else {
            return Ok(());
        };
        server.change_list(kind, |registry| {
            let outcome = match kind {
                ListKind::Tools => mirror::replace_tools(self, registry, &before, &offered),
                ListKind::Prompts => mirror::replace_prompts(self, registry, &before, &offered),
                ListKind::Resources => mirror::replace_resources(self, registry, &before, &offered),
            };
            if let Err(error) = outcome {
                tracing::warn!(%error, "the upstream's new list could not be mirrored in full");
            }
        });
        Ok(())
    }
}

/// Follows the upstream's notifications while the proxy lives.
pub(super) async fn follow(
    shared: Weak<Shared>,
    mut notifications: broadcast::Receiver<ServerNotification>,
) {
    loop {
        let notification = match notifications.recv().await {
            Ok(notification) => notification,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "the proxy missed notifications of the upstream");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.take(notification).await;
    }
}

/// Follows a `subscriptions/listen` stream of a 2026-07-28 upstream while the proxy lives.
pub(super) async fn listen(shared: Weak<Shared>, mut subscription: Subscription) {
    while let Some(notification) = subscription.next().await {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.take(notification).await;
    }
}

impl Shared {
    /// The logger of an upstream's log message here: a mounted server's messages name it.
    pub(super) fn logger(&self, logger: Option<String>) -> Option<String> {
        let Some(prefix) = self.namespace().prefix() else {
            return logger;
        };
        Some(match logger {
            Some(logger) => format!("{prefix}/{logger}"),
            None => prefix.to_owned(),
        })
    }

    /// Passes on a notification of the upstream: list changes (after listing again), resource
    /// updates and logs.
    pub(super) async fn take(self: &Arc<Self>, notification: ServerNotification) {
        let kind = match notification {
            ServerNotification::ToolListChanged(_) => ListKind::Tools,
            ServerNotification::PromptListChanged(_) => ListKind::Prompts,
            ServerNotification::ResourceListChanged(_) => ListKind::Resources,
            ServerNotification::ResourceUpdated(params) => {
                if let Some(server) = self.server() {
                    server.notify_resource_updated(&self.namespace().uri(&params.uri));
                }
                return;
            }
            ServerNotification::ElicitationComplete(params) => {
                let connection = self
                    .url_elicitations
                    .lock()
                    .remove(&params.elicitation_id)
                    .and_then(|c| c.upgrade());
                if let (Some(server), Some(connection)) = (self.server(), connection) {
                    let complete = ServerNotification::ElicitationComplete(params);
                    server.notify_connection(&connection, complete);
                }
                return;
            }
            ServerNotification::LoggingMessage(mut params) => {
                if let Some(server) = self.server() {
                    params.logger = self.logger(params.logger.take());
                    server.log_to_sessions(params);
                }
                return;
            }
            _ => return,
        };
        if let Err(error) = self.relist(kind).await {
            tracing::warn!(%error, ?kind, "listing the upstream again failed");
        }
    }
}
