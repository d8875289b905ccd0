//! `subscriptions/listen` (2026-07-28): one long-lived request whose response stream carries the
//! change notifications the client asked for.

use serde::{Deserialize, Serialize};

use crate::meta::{NotificationMeta, RequestMeta, ResultMeta};
use crate::render::skip;
use crate::result::ResultType;

/// Which notifications a listen stream should carry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// The params of `subscriptions/listen`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    pub notifications: SubscriptionFilter,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl SubscriptionsListenRequestParams {
    /// Listen for `notifications`.
    pub fn new(notifications: SubscriptionFilter) -> Self {
        SubscriptionsListenRequestParams {
            notifications,
            meta: None,
        }
    }
}

/// The result that ends a listen stream gracefully (for example when the server shuts down).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// Metadata; `subscriptionId` names the stream that ends.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta,
    /// Complete.
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl SubscriptionsListenResult {
    /// The result ending the stream opened by request `subscription_id`.
    pub fn new(subscription_id: crate::jsonrpc::RequestId) -> Self {
        SubscriptionsListenResult {
            meta: ResultMeta {
                subscription_id: Some(subscription_id),
                ..ResultMeta::default()
            },
            result_type: ResultType::Complete,
        }
    }
}

/// The params of `notifications/subscriptions/acknowledged`: the first message of a listen stream,
/// saying which of the requested notifications the server will send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The notifications the stream will carry.
    pub notifications: SubscriptionFilter,
    /// Metadata; `subscriptionId` names the stream.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// The acknowledgement of `notifications` on the stream `subscription_id`.
    pub fn new(
        notifications: SubscriptionFilter,
        subscription_id: crate::jsonrpc::RequestId,
    ) -> Self {
        SubscriptionsAcknowledgedNotificationParams {
            notifications,
            meta: Some(NotificationMeta::for_subscription(subscription_id)),
        }
    }
}
