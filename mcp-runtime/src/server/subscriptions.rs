//! Subscriptions: `resources/subscribe` and `resources/unsubscribe` (handshake era, on a
//! connection that keeps state), and `subscriptions/listen` (2026-07-28, a stream of the changes a
//! client asked for).
//!
//! A listen stream hears list changes and resource updates from the server's broadcasts
//! ([`Listeners`](super::listeners::Listeners)). The tasks it names it follows in the task store
//! itself ([`tasks::follow`]): it waits for each to move past the state it last told and tells
//! the new one, until the task ends. A task that nobody listens to or waits for costs no
//! announcement, and a stream hears its tasks whichever instance of a deployment runs them.

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::ServerNotification;
use mcp_runtime_core::resources::SubscribeRequestParams;
use mcp_runtime_core::result::EmptyResult;
use mcp_runtime_core::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult,
};

use super::request::Target;
use super::{McpServer, tasks};
use crate::connection::Outbound;
use crate::handler::RequestContext;

/// Checks that subscriptions are on and can be kept.
fn available(server: &McpServer, ctx: &RequestContext, method: &str) -> Result<(), ErrorObject> {
    if !server.inner.options.subscriptions {
        return Err(ErrorObject::method_not_found(method));
    }
    if !ctx.connection().is_persistent() {
        return Err(needs_session(method));
    }
    Ok(())
}

/// The error for `method`, which keeps state for the client, on a request without a session.
pub(super) fn needs_session(method: &str) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "{method} needs a session, and this request has none: the server was built \
         `.stateless()` (sessions are the default over HTTP; stdio always has one)"
    ))
}

/// `resources/subscribe`: updates of the resource at the URI go to this connection.
pub(super) fn subscribe(
    server: &McpServer,
    target: &Target,
    params: &SubscribeRequestParams,
    ctx: &RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    available(server, ctx, "resources/subscribe")?;
    if target.is_none() {
        return Err(ErrorObject::resource_not_found(
            &params.uri,
            ctx.protocol_version(),
        ));
    }
    ctx.connection().subscribe(&params.uri);
    Ok(EmptyResult::default())
}

/// `resources/unsubscribe`.
pub(super) fn unsubscribe(
    server: &McpServer,
    params: &SubscribeRequestParams,
    ctx: &RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    available(server, ctx, "resources/unsubscribe")?;
    ctx.connection().unsubscribe(&params.uri);
    Ok(EmptyResult::default())
}

/// `subscriptions/listen`: acknowledges what the stream will carry (what it asked for and
/// the server announces; of the tasks it names, those of the caller), then carries it until the client closes the stream or cancels the
/// request, or the server shuts down (which ends the stream with a result).
pub(super) async fn listen(
    server: &McpServer,
    params: SubscriptionsListenRequestParams,
    ctx: &RequestContext,
) -> Result<SubscriptionsListenResult, ErrorObject> {
    let Some(sink) = ctx.sink() else {
        return Err(ErrorObject::invalid_request(
            "subscriptions/listen needs a transport that streams the response",
        ));
    };
    let options = &server.inner.options;
    let asked = params.notifications;
    let offered =
        |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
    let mut accepted = SubscriptionFilter::default();
    accepted.tools_list_changed = offered(asked.tools_list_changed, options.tools_list_changed);
    accepted.prompts_list_changed =
        offered(asked.prompts_list_changed, options.prompts_list_changed);
    accepted.resources_list_changed =
        offered(asked.resources_list_changed, options.resources_list_changed);
    accepted.resource_subscriptions = asked
        .resource_subscriptions
        .filter(|_| options.subscriptions);
    let followed = match asked.task_ids.filter(|ids| !ids.is_empty()) {
        Some(ids) => Some(tasks::listenable(server, ctx, ids).await?),
        None => None,
    };
    accepted.task_ids = followed
        .as_ref()
        .map(|records| records.iter().map(|r| r.task.task_id.clone()).collect());
    let subscription = ctx.request_id().clone();
    let acknowledged =
        SubscriptionsAcknowledgedNotificationParams::new(accepted.clone(), subscription.clone());
    if sink
        .send_when_ready(Outbound::Stateless(
            ServerNotification::SubscriptionsAcknowledged(acknowledged),
        ))
        .await
        .is_err()
    {
        return Err(ErrorObject::internal_error("the client is gone"));
    }
    let _listening = server
        .inner
        .listeners
        .open(subscription.clone(), accepted, sink.clone());
    let following = tasks::follow(server, followed.unwrap_or_default(), &subscription, sink);
    tokio::select! {
        () = ctx.cancelled() => {}
        () = server.inner.shutdown.cancelled() => {}
        () = following => {}
    }
    Ok(SubscriptionsListenResult::new(subscription))
}
