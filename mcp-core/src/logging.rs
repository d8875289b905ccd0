//! Log messages from server to client, and the level that filters them.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::meta::{NotificationMeta, RequestMeta};
use crate::render::skip;

/// The severity of a log message, as in RFC 5424 (syslog).
///
/// Ordered from least to most severe, so `level >= minimum` decides whether a message passes a
/// client's filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The params of `logging/setLevel` (handshake era).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to receive.
    pub level: LoggingLevel,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl SetLevelRequestParams {
    /// Ask for messages of `level` and above.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelRequestParams { level, meta: None }
    }
}

/// The params of `notifications/message`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// The severity.
    pub level: LoggingLevel,
    /// Which part of the server logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value, often a string.
    pub data: Value,
    /// Metadata (2025-11-25).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub meta: Option<NotificationMeta>,
}

impl LoggingMessageNotificationParams {
    /// A message of `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        LoggingMessageNotificationParams {
            level,
            logger: None,
            data: data.into(),
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_rfc_5424_order() {
        use LoggingLevel::*;
        let ordered = [
            Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency,
        ];
        assert!(ordered.windows(2).all(|w| w[0] < w[1]));
        let names: Vec<_> = ordered
            .iter()
            .map(|l| serde_json::to_value(l).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "debug",
                "info",
                "notice",
                "warning",
                "error",
                "critical",
                "alert",
                "emergency"
            ]
        );
        assert!(Error >= Warning && Info < Warning);
    }
}
