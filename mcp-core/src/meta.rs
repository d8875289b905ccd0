//! The `_meta` objects of requests, notifications and results.
//!
//! `_meta` is open: any key following the spec's naming rules may appear, and keys whose prefix has
//! `modelcontextprotocol` or `mcp` as its second label are reserved for the protocol. The keys the
//! protocol defines are typed fields here; every other key is kept in `extra`, so nothing a peer
//! sends is lost. Entities (tools, resources, content blocks, ...) carry a plain
//! [`JsonObject`](crate::JsonObject) as their `_meta`.

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::capabilities::ClientCapabilities;
use crate::implementation::Implementation;
use crate::jsonrpc::{ProgressToken, RequestId};
use crate::logging::LoggingLevel;
use crate::tasks::RelatedTaskMetadata;

/// The reserved `_meta` keys.
pub mod keys {
    /// Request: the token that asks for `notifications/progress`.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// Request (2026-07-28, required): the protocol revision of this request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request (2026-07-28, required): the client's capabilities for this request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request (2026-07-28): the client's self-description.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request (2026-07-28): the minimum level of log messages wanted for this request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Result (2026-07-28): the server's self-description.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification and listen result (2026-07-28): the id of the `subscriptions/listen` request
    /// whose stream carries the message.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// Any message (2025-11-25): the task a message belongs to.
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
}

/// The `_meta` of a request's params.
///
/// The client's capabilities and info are boxed: they are large and present only on modern
/// requests, and `_meta` travels inside every request's params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// Asks for `notifications/progress` about this request, tagged with this token.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// The protocol revision of this request (2026-07-28; its presence marks a modern request).
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<String>,
    /// The client's capabilities for this request (2026-07-28).
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<Box<ClientCapabilities>>,
    /// The client's self-description (2026-07-28).
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Box<Implementation>>,
    /// The minimum level of `notifications/message` wanted for this request; none without it
    /// (2026-07-28).
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// The task this request belongs to (2025-11-25 tasks).
    #[serde(
        rename = "io.modelcontextprotocol/related-task",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub related_task: Option<RelatedTaskMetadata>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl RequestMeta {
    /// Meta that only asks for progress with `token`.
    pub fn with_progress_token(token: impl Into<ProgressToken>) -> Self {
        RequestMeta {
            progress_token: Some(token.into()),
            ..RequestMeta::default()
        }
    }

    /// The meta of a modern (2026-07-28) request: `version` and `capabilities` as the two required
    /// keys.
    pub fn modern(version: impl Into<String>, capabilities: ClientCapabilities) -> Self {
        RequestMeta {
            protocol_version: Some(version.into()),
            client_capabilities: Some(Box::new(capabilities)),
            ..RequestMeta::default()
        }
    }

    /// Checks that the keys a modern request must carry are present, and returns the requested
    /// revision and the declared capabilities.
    pub fn require_modern(&self) -> Result<(&str, &ClientCapabilities), MissingMeta> {
        match (&self.protocol_version, &self.client_capabilities) {
            (Some(version), Some(capabilities)) => Ok((version, capabilities)),
            (version, capabilities) => Err(MissingMeta {
                keys: [
                    version.is_none().then_some(keys::PROTOCOL_VERSION),
                    capabilities.is_none().then_some(keys::CLIENT_CAPABILITIES),
                ]
                .into_iter()
                .flatten()
                .collect(),
            }),
        }
    }
}

/// A modern request lacks `_meta` keys it must carry (`-32602`; HTTP 400).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Missing required _meta field(s): {}", keys.join(", "))]
pub struct MissingMeta {
    /// The missing keys.
    pub keys: Vec<&'static str>,
}

impl From<MissingMeta> for crate::ErrorObject {
    fn from(err: MissingMeta) -> Self {
        crate::ErrorObject::invalid_params(err.to_string())
            .with_data(serde_json::json!({ "missing": err.keys }))
    }
}

/// The `_meta` of a notification's params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationMeta {
    /// The `subscriptions/listen` request whose stream carries this notification (2026-07-28).
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// The task this notification belongs to (2025-11-25 tasks).
    #[serde(
        rename = "io.modelcontextprotocol/related-task",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub related_task: Option<RelatedTaskMetadata>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl NotificationMeta {
    /// Meta that marks a notification as delivered on the listen stream `subscription_id`.
    pub fn for_subscription(subscription_id: RequestId) -> Self {
        NotificationMeta {
            subscription_id: Some(subscription_id),
            ..NotificationMeta::default()
        }
    }
}

/// The `_meta` of a result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResultMeta {
    /// The server's self-description (2026-07-28).
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Box<Implementation>>,
    /// The listen stream this result ends (2026-07-28, `subscriptions/listen` results only).
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// The task this result belongs to (2025-11-25 tasks).
    #[serde(
        rename = "io.modelcontextprotocol/related-task",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub related_task: Option<RelatedTaskMetadata>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResultMeta {
    /// Meta that names the server.
    pub fn with_server_info(server_info: Implementation) -> Self {
        ResultMeta {
            server_info: Some(Box::new(server_info)),
            ..ResultMeta::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_meta_keeps_known_and_unknown_keys() {
        let wire = json!({
            "progressToken": 0,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/logLevel": "warning",
            "traceparent": "00-abc-def-01",
        });
        let meta: RequestMeta = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(meta.progress_token, Some(RequestId::Number(0)));
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(meta.log_level, Some(LoggingLevel::Warning));
        assert_eq!(meta.extra.get("traceparent"), Some(&json!("00-abc-def-01")));
        assert_eq!(serde_json::to_value(&meta).unwrap(), wire);
        let (version, caps) = meta.require_modern().unwrap();
        assert_eq!(version, "2026-07-28");
        assert!(caps.elicitation.is_some());
    }

    #[test]
    fn missing_modern_keys_are_named() {
        let err = RequestMeta::default().require_modern().unwrap_err();
        assert_eq!(
            err.to_string(),
            "Missing required _meta field(s): io.modelcontextprotocol/protocolVersion, \
             io.modelcontextprotocol/clientCapabilities"
        );
        let obj = crate::ErrorObject::from(err);
        assert_eq!(obj.code.0, -32602);
        let partial = RequestMeta {
            protocol_version: Some("2026-07-28".into()),
            ..RequestMeta::default()
        };
        assert_eq!(
            partial.require_modern().unwrap_err().keys,
            vec![keys::CLIENT_CAPABILITIES]
        );
    }

    #[test]
    fn invalid_log_level_is_rejected() {
        let err = serde_json::from_value::<RequestMeta>(
            json!({"io.modelcontextprotocol/logLevel": "verbose"}),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("unknown variant `verbose`"),
            "{err}"
        );
    }
}
