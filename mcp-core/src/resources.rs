//! Resources: listing, templates, reading, and subscriptions to changes.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::JsonObject;
use crate::content::Annotations;
use crate::de;
use crate::implementation::Icon;
use crate::input::InputResponses;
use crate::meta::{NotificationMeta, RequestMeta, ResultMeta};
use crate::render::skip;
use crate::result::{CacheScope, ResultType};

/// A resource the server can read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// What it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Its size in bytes (before base64 encoding), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons for a user interface (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl Resource {
    /// The resource `name` at `uri`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            size: None,
            icons: None,
            meta: None,
        }
    }
}

/// A family of resources whose URIs follow an RFC 6570 template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template, e.g. `file:///{path}`.
    pub uri_template: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// What the resources hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, if they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for a user interface (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl ResourceTemplate {
    /// The template `name` for URIs matching `uri_template`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

/// The contents of a resource: text or binary.
///
/// Contents with a `text` are text, else contents with a `blob` are binary (the order the untagged
/// form tried them in); a value with neither is reported as missing `text`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ResourceContents {
    /// Text.
    Text(TextResourceContents),
    /// Binary data, base64-encoded.
    Blob(BlobResourceContents),
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.get("text").is_none() && value.get("blob").is_some() {
            de::nested(value).map(ResourceContents::Blob)
        } else {
            de::nested(value).map(ResourceContents::Text)
        }
    }
}

impl ResourceContents {
    /// The URI of the resource these contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }

    /// Sets the URI of the resource these contents belong to.
    pub fn set_uri(&mut self, uri: impl Into<String>) {
        match self {
            ResourceContents::Text(t) => t.uri = uri.into(),
            ResourceContents::Blob(b) => b.uri = uri.into(),
        }
    }

    /// The text, when these contents are text.
    ///
    /// ```
    /// use mcp_runtime_core::resources::{ResourceContents, TextResourceContents};
    ///
    /// let contents = ResourceContents::Text(TextResourceContents::new("notes://1", "# Shopping"));
    /// assert_eq!(contents.as_text(), Some("# Shopping"));
    /// ```
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ResourceContents::Text(t) => Some(&t.text),
            ResourceContents::Blob(_) => None,
        }
    }
}

/// The text contents of a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl TextResourceContents {
    /// The text `text` of the resource at `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        TextResourceContents {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        }
    }
}

/// The binary contents of a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The data, base64-encoded.
    pub blob: String,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl BlobResourceContents {
    /// The base64 `blob` of the resource at `uri`.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        BlobResourceContents {
            uri: uri.into(),
            mime_type: None,
            blob: blob.into(),
            meta: None,
        }
    }
}

crate::result::paginated_result! {
    /// The result of `resources/list`.
    ListResourcesResult, "resources", resources: Resource, "resources"
}

crate::result::paginated_result! {
    /// The result of `resources/templates/list`.
    ListResourceTemplatesResult, "resources/templates", resource_templates: ResourceTemplate, "templates"
}

/// The params of `resources/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceRequestParams {
    /// The resource to read.
    pub uri: String,
    /// Answers to the input requests of an earlier round (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub input_responses: Option<InputResponses>,
    /// The state the server handed out with its input requests (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl ReadResourceRequestParams {
    /// Read `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceRequestParams {
            uri: uri.into(),
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }
}

/// The result of `resources/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents: one entry, or several for a resource with parts.
    pub contents: Vec<ResourceContents>,
    /// How long the client may cache this result, in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub ttl_ms: u64,
    /// Who may reuse the cached result (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub cache_scope: CacheScope,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Always complete (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl ReadResourceResult {
    /// A result holding `contents`.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            ttl_ms: 0,
            cache_scope: CacheScope::default(),
            meta: None,
            result_type: ResultType::Complete,
        }
    }
}

/// The params of `resources/subscribe` and `resources/unsubscribe` (handshake era).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscribeRequestParams {
    /// The resource whose changes to follow (or stop following).
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// The params of `resources/unsubscribe`: the same as those of `resources/subscribe`.
pub type UnsubscribeRequestParams = SubscribeRequestParams;

impl SubscribeRequestParams {
    /// The params for `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        SubscribeRequestParams {
            uri: uri.into(),
            meta: None,
        }
    }
}

/// The params of `notifications/resources/updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceUpdatedNotificationParams {
    /// The resource that changed (possibly a sub-resource of the one subscribed to).
    pub uri: String,
    /// Metadata (2025-11-25).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub meta: Option<NotificationMeta>,
}

impl ResourceUpdatedNotificationParams {
    /// The notification that `uri` changed.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUpdatedNotificationParams {
            uri: uri.into(),
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Result<ResourceContents, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn contents_are_told_apart_by_shape() {
        assert!(matches!(
            parse(json!({"uri": "a", "text": "t"})),
            Ok(ResourceContents::Text(ref t)) if t.text == "t"
        ));
        assert!(matches!(
            parse(json!({"uri": "a", "blob": "AA=="})),
            Ok(ResourceContents::Blob(ref b)) if b.blob == "AA=="
        ));
        // Text wins when both are present, as it did when the enum was untagged.
        assert!(matches!(
            parse(json!({"uri": "a", "text": "t", "blob": "AA=="})),
            Ok(ResourceContents::Text(_))
        ));
        assert_eq!(
            parse(json!({"uri": "a"})).unwrap_err(),
            "missing field `text`"
        );
        assert_eq!(
            parse(json!({"blob": "AA=="})).unwrap_err(),
            "missing field `uri`"
        );
    }
}
