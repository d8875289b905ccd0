//! Cancelling a request in flight (`notifications/cancelled`).

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::meta::NotificationMeta;
use crate::render::{required, skip};

/// The params of `notifications/cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The request to cancel.
    ///
    /// Every revision but 2025-11-25 requires it (2025-11-25 made it optional because tasks are
    /// cancelled with `tasks/cancel` instead), so it stays an `Option` to parse that revision, and
    /// rendering without it fails for every other revision.
    #[serde(
        default,
        skip_serializing_if = "skip::absent_in_2025_11_25",
        serialize_with = "required::request_id"
    )]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::render::to_value;
    use serde_json::json;

    #[test]
    fn request_id_is_required_except_in_2025_11_25() {
        let mut params = CancelledNotificationParams::new(RequestId::Number(3));
        params.request_id = None;
        params.reason = Some("moot".into());
        for version in ProtocolVersion::ALL {
            let rendered = to_value(&params, version);
            if version == ProtocolVersion::V2025_11_25 {
                assert_eq!(rendered.unwrap(), json!({"reason": "moot"}));
            } else {
                assert_eq!(
                    rendered.unwrap_err().to_string(),
                    format!(
                        "missing field `requestId`, which protocol revision {version} requires"
                    )
                );
            }
        }
        let full = CancelledNotificationParams::new(RequestId::Number(3));
        for version in ProtocolVersion::ALL {
            assert_eq!(to_value(&full, version).unwrap(), json!({"requestId": 3}));
        }
    }
}
