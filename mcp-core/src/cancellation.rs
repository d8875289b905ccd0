//! Cancelling a request in flight (`notifications/cancelled`).

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::meta::NotificationMeta;
use crate::render::skip;

/// The params of `notifications/cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The request to cancel (required except for 2025-11-25 task cancellation, which uses
    /// `tasks/cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata (2025-11-25).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub meta: Option<NotificationMeta>,
}

impl CancelledNotificationParams {
    /// Cancel `request_id`.
    pub fn new(request_id: RequestId) -> Self {
        CancelledNotificationParams {
            request_id: Some(request_id),
            reason: None,
            meta: None,
        }
    }
}
