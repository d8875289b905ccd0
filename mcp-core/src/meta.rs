//! The `_meta` objects of requests, notifications and results.
//!
//! `_meta` is open: any key following the spec's naming rules may appear, and keys whose prefix has
//! `modelcontextprotocol` or `mcp` as its second label are reserved for the protocol. The keys the
//! protocol defines are typed fields here; every other key is kept in `extra`, so nothing a peer
//! sends is lost. Entities (tools, resources, content blocks, ...) carry a plain
//! [`crate::JsonObject`] as their `_meta`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

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
    /// Request and notification (SEP-414): the W3C Trace Context `traceparent` of the sender's
    /// span, unprefixed as OpenTelemetry's conventions for MCP have it.
    pub const TRACEPARENT: &str = "traceparent";
    /// Request and notification (SEP-414): the W3C Trace Context `tracestate`.
    pub const TRACESTATE: &str = "tracestate";
    /// Request and notification (SEP-414): the W3C Baggage.
    pub const BAGGAGE: &str = "baggage";
}

/// The W3C Trace Context and Baggage a request or notification carries in its `_meta`
/// (SEP-414): the values as sent, which an OpenTelemetry propagator reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TraceContext {
    /// `traceparent`: version, trace id, parent span id and flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// `tracestate`: vendor-specific trace data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracestate: Option<String>,
    /// `baggage`: the sender's baggage entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baggage: Option<String>,
}

impl TraceContext {
    /// Whether it carries nothing.
    pub fn is_empty(&self) -> bool {
        self.traceparent.is_none() && self.tracestate.is_none() && self.baggage.is_none()
    }

    /// The value of `key` (`traceparent`, `tracestate` or `baggage`), as a propagator asks.
    pub fn get(&self, key: &str) -> Option<&str> {
        match key {
            keys::TRACEPARENT => self.traceparent.as_deref(),
            keys::TRACESTATE => self.tracestate.as_deref(),
            keys::BAGGAGE => self.baggage.as_deref(),
            _ => None,
        }
    }

    /// Sets `key` to `value`, as a propagator injects; other keys are ignored.
    pub fn set(&mut self, key: &str, value: String) {
        match key {
            keys::TRACEPARENT => self.traceparent = Some(value),
            keys::TRACESTATE => self.tracestate = Some(value),
            keys::BAGGAGE => self.baggage = Some(value),
            _ => {}
        }
    }
}

/// Implements `Deserialize` for a `_meta` struct whose protocol keys are `Option` fields (or
/// the `Option` fields of a `boxed` group, created at its first key) and whose other keys go to
/// `extra`, reading the object in one pass (serde's `flatten` would first
/// copy every member into a buffer). As with a JSON object read as a value, the last of a
/// repeated key counts, and `null` leaves a protocol key unset.
macro_rules! deserialize_open_meta {
    (
        $meta:ident { $($field:ident: $key:path),* $(,)? }
        $(boxed $boxed:ident { $($sub:ident: $subkey:path),* $(,)? })?
    ) => {
        impl<'de> Deserialize<'de> for $meta {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct MetaVisitor;

                impl<'de> Visitor<'de> for MetaVisitor {
                    type Value = $meta;

                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a _meta object")
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$meta, A::Error> {
                        let mut meta = $meta::default();
                        while let Some(MemberName(name)) = map.next_key()? {
                            match name.as_ref() {
                                $($key => meta.$field = map.next_value()?,)*
                                $($($subkey => {
                                    meta.$boxed.get_or_insert_with(Default::default).$sub =
                                        map.next_value()?;
                                })*)?
                                _ => {
                                    meta.extra.insert(name.into_owned(), map.next_value()?);
                                }
                            }
                        }
                        Ok(meta)
                    }
                }

                deserializer.deserialize_map(MetaVisitor)
            }
        }
    };
}

/// A member name, borrowed from the input when it can be.
struct MemberName<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for MemberName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;

        impl<'de> Visitor<'de> for NameVisitor {
            type Value = MemberName<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                name: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Borrowed(name)))
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Owned(name.to_owned())))
            }

            fn visit_string<E: serde::de::Error>(self, name: String) -> Result<Self::Value, E> {
                Ok(MemberName(Cow::Owned(name)))
            }
        }

        deserializer.deserialize_str(NameVisitor)
    }
}

/// The `_meta` of a request's params.
///
/// The client's capabilities and info are boxed: they are large and present only on stateless
/// requests, and `_meta` travels inside every request's params.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// Asks for `notifications/progress` about this request, tagged with this token.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// The protocol revision of this request (2026-07-28; its presence marks a stateless request).
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
    /// The sender's trace context (SEP-414); boxed, since most requests carry none and `_meta`
    /// travels inside every request's params.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Box<TraceContext>>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JsonObject,
}

deserialize_open_meta!(RequestMeta {
    progress_token: keys::PROGRESS_TOKEN,
    protocol_version: keys::PROTOCOL_VERSION,
    client_capabilities: keys::CLIENT_CAPABILITIES,
    client_info: keys::CLIENT_INFO,
    log_level: keys::LOG_LEVEL,
    related_task: keys::RELATED_TASK,
} boxed trace {
    traceparent: keys::TRACEPARENT,
    tracestate: keys::TRACESTATE,
    baggage: keys::BAGGAGE,
});

impl RequestMeta {
    /// Meta that only asks for progress with `token`.
    pub fn with_progress_token(token: impl Into<ProgressToken>) -> Self {
        RequestMeta {
            progress_token: Some(token.into()),
            ..RequestMeta::default()
        }
    }

    /// The meta of a stateless (2026-07-28) request: `version` and `capabilities` as the two required
    /// keys.
    pub fn stateless(version: impl Into<String>, capabilities: ClientCapabilities) -> Self {
        RequestMeta {
            protocol_version: Some(version.into()),
            client_capabilities: Some(Box::new(capabilities)),
            ..RequestMeta::default()
        }
    }
}

/// The `_meta` of a notification's params.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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
    /// The sender's trace context (SEP-414); boxed, since most requests carry none and `_meta`
    /// travels inside every request's params.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Box<TraceContext>>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JsonObject,
}

deserialize_open_meta!(NotificationMeta {
    subscription_id: keys::SUBSCRIPTION_ID,
    related_task: keys::RELATED_TASK,
} boxed trace {
    traceparent: keys::TRACEPARENT,
    tracestate: keys::TRACESTATE,
    baggage: keys::BAGGAGE,
});

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
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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

deserialize_open_meta!(ResultMeta {
    server_info: keys::SERVER_INFO,
    subscription_id: keys::SUBSCRIPTION_ID,
    related_task: keys::RELATED_TASK,
});

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
        let trace = meta.trace.as_deref().unwrap();
        assert_eq!(trace.traceparent.as_deref(), Some("00-abc-def-01"));
        assert_eq!(meta.extra.get("traceparent"), None);
        assert_eq!(serde_json::to_value(&meta).unwrap(), wire);
        assert!(meta.client_capabilities.unwrap().elicitation.is_some());
    }

    #[test]
    fn the_trace_context_travels_unprefixed_in_requests_and_notifications() {
        let wire = json!({
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "tracestate": "rojo=00f067aa0ba902b7",
            "baggage": "userId=alice",
            "other": 1,
        });
        let request: RequestMeta = serde_json::from_value(wire.clone()).unwrap();
        let notification: NotificationMeta = serde_json::from_value(wire.clone()).unwrap();
        for (trace, extra) in [
            (request.trace.as_deref().unwrap(), &request.extra),
            (notification.trace.as_deref().unwrap(), &notification.extra),
        ] {
            assert_eq!(
                trace.get(keys::TRACEPARENT),
                Some("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
            );
            assert_eq!(trace.get(keys::TRACESTATE), Some("rojo=00f067aa0ba902b7"));
            assert_eq!(trace.get(keys::BAGGAGE), Some("userId=alice"));
            assert_eq!(extra.len(), 1);
        }
        assert_eq!(serde_json::to_value(&request).unwrap(), wire);
        assert_eq!(serde_json::to_value(&notification).unwrap(), wire);
        // A propagator writes the keys it knows, and only those.
        let mut trace = TraceContext::default();
        assert!(trace.is_empty());
        trace.set("traceparent", "00-a-b-01".into());
        trace.set("x-other", "ignored".into());
        assert_eq!(
            serde_json::to_value(&trace).unwrap(),
            json!({"traceparent": "00-a-b-01"})
        );
    }

    #[test]
    fn every_meta_reads_its_keys_in_one_pass() {
        let wire = json!({
            "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"},
            "io.modelcontextprotocol/subscriptionId": "listen-1",
            "io.modelcontextprotocol/related-task": {"taskId": "t1"},
            "vendor/x": [1, 2],
        });
        let result: ResultMeta = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(
            result.server_info.as_deref().map(|i| i.name.as_str()),
            Some("s")
        );
        assert_eq!(result.subscription_id, Some(RequestId::from("listen-1")));
        assert_eq!(
            result.related_task.as_ref().map(|t| t.task_id.as_str()),
            Some("t1")
        );
        assert_eq!(result.extra.len(), 1);
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);

        let text = r#"{"io.modelcontextprotocol/subscriptionId": 7, "k": null}"#;
        let notification: NotificationMeta = serde_json::from_str(text).unwrap();
        assert_eq!(notification.subscription_id, Some(RequestId::Number(7)));
        assert_eq!(notification.extra.get("k"), Some(&serde_json::Value::Null));

        // The last of a repeated key counts, null leaves a protocol key unset, and an escaped
        // name is the name it spells.
        let text = r#"{"progressToken": 1, "progressToken": "two",
                       "io.modelcontextprotocol/logLevel": null,
                       "io.modelcontextprotocol/protocol\u0056ersion": "2026-07-28"}"#;
        let request: RequestMeta = serde_json::from_str(text).unwrap();
        assert_eq!(request.progress_token, Some(RequestId::from("two")));
        assert_eq!(request.log_level, None);
        assert_eq!(request.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(request.extra.is_empty());

        // Every protocol key lands in its field, none in `extra`.
        let every = json!({
            "progressToken": 3,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "2"},
            "io.modelcontextprotocol/logLevel": "debug",
            "io.modelcontextprotocol/related-task": {"taskId": "t2"},
        });
        let request: RequestMeta = serde_json::from_value(every.clone()).unwrap();
        assert!(request.extra.is_empty());
        assert_eq!(request.progress_token, Some(RequestId::Number(3)));
        assert_eq!(request.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(request.client_capabilities.unwrap().roots.is_some());
        assert_eq!(request.client_info.map(|i| i.name), Some("c".to_owned()));
        assert_eq!(request.log_level, Some(LoggingLevel::Debug));
        assert_eq!(
            request.related_task.map(|t| t.task_id),
            Some("t2".to_owned())
        );
        let notification: NotificationMeta = serde_json::from_value(json!({
            "io.modelcontextprotocol/related-task": {"taskId": "t3"},
        }))
        .unwrap();
        assert!(notification.extra.is_empty());
        assert_eq!(
            notification.related_task.map(|t| t.task_id),
            Some("t3".to_owned())
        );

        let err = serde_json::from_str::<RequestMeta>(r#""not an object""#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: string \"not an object\", expected a _meta object at line 1 column 15"
        );
        let err = serde_json::from_str::<RequestMeta>(r#"{"progressToken": true}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: boolean `true`, expected a string or an integer at line 1 column 22"
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
