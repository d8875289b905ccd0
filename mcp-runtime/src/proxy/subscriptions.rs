//! Resource subscriptions through the proxy: the first downstream subscriber of a resource
//! subscribes upstream (`resources/subscribe`, or a listen stream on 2026-07-28), the last one
//! to go unsubscribes; the upstream's updates reach the subscribers (see `follow`).

use std::sync::Arc;

use mcp_runtime_core::messages::ClientRequest;
use mcp_runtime_core::subscriptions::SubscriptionFilter;
use mcp_runtime_core::{Era, ErrorObject};

use super::follow::listen;
use super::{Shared, forward};
use crate::client::ClientError;
use crate::resource::uri_template::UriTemplate;
use crate::server::middleware::McpRequest;

impl Shared {
    /// Subscribes upstream for the first downstream subscription to a resource, and
    /// unsubscribes after the last one.
    pub(super) async fn follow_subscription(
        self: &Arc<Self>,
        request: &McpRequest,
    ) -> Result<(), ErrorObject> {
        match request.params() {
            ClientRequest::Subscribe(params) => {
                if let Some(uri) = self.upstream_resource(&params.uri) {
                    self.add_subscriber(&uri, "resources/subscribe").await?;
                }
            }
            // A listen stream's end is not seen here: the upstream stays subscribed to what
            // one asked for.
            ClientRequest::SubscriptionsListen(params) => {
                let uris = params.notifications.resource_subscriptions.iter().flatten();
                for uri in uris.filter_map(|uri| self.upstream_resource(uri)) {
                    self.add_subscriber(&uri, "subscriptions/listen").await?;
                }
            }
            ClientRequest::Unsubscribe(params) => {
                let Some(uri) = self.upstream_resource(&params.uri) else {
                    return Ok(());
                };
                let last = {
                    let mut counts = self.subscriptions.lock();
                    match counts.get_mut(&uri) {
                        Some((count, _)) if *count > 1 => {
                            *count -= 1;
                            None
                        }
                        Some(_) => counts.remove(&uri),
                        None => None,
                    }
                };
                match last {
                    Some((_, Some(listening))) => listening.abort(),
                    Some((_, None)) => {
                        if let Err(error) = self.client.unsubscribe(&uri).await {
                            tracing::warn!(%uri, %error, "unsubscribing upstream failed");
                        }
                    }
                    None => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The upstream's URI of the resource `uri` here, when it is one of the upstream's (listed,
    /// or matching one of its templates).
    fn upstream_resource(&self, uri: &str) -> Option<String> {
        let upstream = self.namespace().upstream_uri(uri)?;
        let offered = self.offered.lock();
        let listed = offered.resources.iter().any(|r| r.uri == upstream);
        let matched = || {
            offered.templates.iter().any(|t| {
                UriTemplate::parse(&t.uri_template).is_ok_and(|t| t.matches(&upstream).is_some())
            })
        };
        (listed || matched()).then_some(upstream)
    }

    /// Counts a downstream subscriber of `uri` (asked for by `method`); the first subscribes
    /// upstream.
    async fn add_subscriber(self: &Arc<Self>, uri: &str, method: &str) -> Result<(), ErrorObject> {
        let first = {
            let mut counts = self.subscriptions.lock();
            let (count, _) = counts.entry(uri.to_owned()).or_default();
            *count += 1;
            *count == 1
        };
        if first && let Err(error) = self.subscribe_upstream(uri).await {
            self.subscriptions.lock().remove(uri);
            return Err(forward::upstream_error(method, error));
        }
        Ok(())
    }

    /// Subscribes upstream to `uri`: `resources/subscribe`, or on 2026-07-28 a listen stream
    /// for it, followed until the last downstream subscription goes.
    async fn subscribe_upstream(self: &Arc<Self>, uri: &str) -> Result<(), ClientError> {
        if self.client.protocol_version().era() != Era::Stateless {
            return self.client.subscribe(uri).await;
        }
        let mut filter = SubscriptionFilter::default();
        filter.resource_subscriptions = Some(vec![uri.to_owned()]);
        let subscription = self.client.listen(filter).await?;
        let listening = tokio::spawn(listen(Arc::downgrade(self), subscription));
        if let Some((_, handle)) = self.subscriptions.lock().get_mut(uri) {
            *handle = Some(listening.abort_handle());
        }
        Ok(())
    }
}
