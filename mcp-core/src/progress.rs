//! Progress of a long request (`notifications/progress`).

use serde::{Deserialize, Serialize};

use crate::jsonrpc::ProgressToken;
use crate::meta::NotificationMeta;
use crate::render::skip;

/// The params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// How far along it is; grows with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is happening (2025-03-26).
    #[serde(default, skip_serializing_if = "skip::since_2025_03_26")]
    pub message: Option<String>,
    /// Metadata (2025-11-25).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub meta: Option<NotificationMeta>,
}

impl ProgressNotificationParams {
    /// Progress `progress` of `total` for the request that sent `progress_token`.
    pub fn new(progress_token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        ProgressNotificationParams {
            progress_token,
            progress,
            total,
            message: None,
            meta: None,
        }
    }
}
