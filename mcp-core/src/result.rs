//! What every result shares: `resultType` and `_meta`, the empty result, and caching hints.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::meta::ResultMeta;
use crate::render::skip;

/// What kind of result a response carries (2026-07-28 `resultType`).
///
/// Servers of 2026-07-28 must send it; a result without it (from an older server) is
/// [`ResultType::Complete`]. It is left out when rendering for older revisions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultType {
    /// The request is done and the result holds its outcome (`"complete"`).
    #[default]
    Complete,
    /// The server needs more input before it can finish; the result is an
    /// [`InputRequiredResult`](crate::input::InputRequiredResult) (`"input_required"`).
    InputRequired,
    /// A type defined by an extension.
    Other(String),
}

impl ResultType {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Other(other) => other,
        }
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for ResultType {
    fn from(name: &str) -> Self {
        match name {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            other => ResultType::Other(other.to_owned()),
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(ResultType::from(
            String::deserialize(deserializer)?.as_str(),
        ))
    }
}

/// Who may reuse a cached result (2026-07-28 `cacheScope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Only within the same authorization context (the safe default).
    #[default]
    Private,
    /// Any client or intermediary, across authorization contexts.
    Public,
}

/// A result with nothing in it (the answer to `ping`, `logging/setLevel`, subscriptions, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmptyResult {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Always complete (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::render::to_value;
    use serde_json::json;

    #[test]
    fn result_type_names() {
        for (name, ty) in [
            ("complete", ResultType::Complete),
            ("input_required", ResultType::InputRequired),
            (
                "x.example/pending",
                ResultType::Other("x.example/pending".into()),
            ),
        ] {
            assert_eq!(serde_json::to_value(&ty).unwrap(), json!(name));
            assert_eq!(
                serde_json::from_value::<ResultType>(json!(name)).unwrap(),
                ty
            );
        }
    }

    #[test]
    fn empty_result_per_version() {
        let empty = EmptyResult::default();
        assert_eq!(
            to_value(&empty, ProtocolVersion::V2025_11_25).unwrap(),
            json!({})
        );
        assert_eq!(
            to_value(&empty, ProtocolVersion::V2026_07_28).unwrap(),
            json!({"resultType": "complete"})
        );
        let parsed: EmptyResult = serde_json::from_value(json!({})).unwrap();
        assert_eq!(parsed.result_type, ResultType::Complete);
    }
}
