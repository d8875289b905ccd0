//! Content blocks: what tool results, prompt messages and sampling messages are made of.
//!
//! Revisions differ in which blocks they know. When a block is rendered for a revision that does
//! not know it, it is turned into one that revision accepts:
//! - `audio` (2025-03-26) becomes, for 2024-11-05, an embedded resource whose blob is the audio and
//!   whose URI is the equivalent `data:` URI;
//! - `resource_link` (2025-06-18) becomes, for older revisions, a text block naming the resource and
//!   its URI.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize, Serializer};

use crate::JsonObject;
use crate::de;
use crate::render::{self, skip};
use crate::resources::{BlobResourceContents, Resource, ResourceContents, TextResourceContents};
use crate::version::ProtocolVersion;

/// Who a message or a piece of content is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user (or the client on the user's behalf).
    User,
    /// The model.
    Assistant,
}

/// Hints to the client about how to use a piece of content or a resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who it is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important it is, from 0 (optional) to 1 (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When it last changed, as an ISO 8601 timestamp (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub last_modified: Option<String>,
}

/// Text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl TextContent {
    /// The text `text`.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// An image, base64-encoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// The base64-encoded image.
    pub data: String,
    /// Its MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl ImageContent {
    /// An image of type `mime_type` from base64 `data`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
}

/// Audio, base64-encoded (2025-03-26).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// The base64-encoded audio.
    pub data: String,
    /// Its MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl AudioContent {
    /// Audio of type `mime_type` from base64 `data`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// The form 2024-11-05 accepts: an embedded resource holding the audio as a blob.
    fn as_embedded_resource(&self) -> EmbeddedResource {
        let mut blob = BlobResourceContents::new(
            format!("data:{};base64,{}", self.mime_type, self.data),
            self.data.clone(),
        );
        blob.mime_type = Some(self.mime_type.clone());
        EmbeddedResource {
            resource: ResourceContents::Blob(blob),
            annotations: self.annotations.clone(),
            meta: self.meta.clone(),
        }
    }
}

/// The contents of a resource, embedded in a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl EmbeddedResource {
    /// The embedded `resource`.
    pub fn new(resource: ResourceContents) -> Self {
        EmbeddedResource {
            resource,
            annotations: None,
            meta: None,
        }
    }
}

/// One block of content, told apart by its `type`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"` (2025-03-26).
    Audio(AudioContent),
    /// `"resource_link"`: a pointer to a resource the client may read (2025-06-18).
    ResourceLink(Resource),
    /// `"resource"`: a resource's contents, embedded.
    EmbeddedResource(EmbeddedResource),
}

de::deserialize_by_type!(ContentBlock {
    "text" => Text,
    "image" => Image,
    "audio" => Audio,
    "resource_link" => ResourceLink,
    "resource" => EmbeddedResource,
});

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 `data`.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// An image block from raw `bytes` (encoded here).
    pub fn image_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        ContentBlock::image(BASE64.encode(bytes), mime_type)
    }

    /// An audio block from raw `bytes` (encoded here).
    pub fn audio_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        ContentBlock::audio(BASE64.encode(bytes), mime_type)
    }

    /// An embedded resource holding binary `bytes` (encoded here).
    pub fn embedded_blob(
        uri: impl Into<String>,
        bytes: impl AsRef<[u8]>,
        mime_type: impl Into<String>,
    ) -> Self {
        let mut blob = BlobResourceContents::new(uri, BASE64.encode(bytes));
        blob.mime_type = Some(mime_type.into());
        ContentBlock::EmbeddedResource(EmbeddedResource::new(ResourceContents::Blob(blob)))
    }

    /// A link to `resource`.
    pub fn resource_link(resource: Resource) -> Self {
        ContentBlock::ResourceLink(resource)
    }

    /// An embedded resource holding text.
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ContentBlock::EmbeddedResource(EmbeddedResource::new(ResourceContents::Text(
            TextResourceContents::new(uri, text),
        )))
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        ContentBlock::text(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        ContentBlock::text(text)
    }
}

/// The text block that stands in for a resource link in revisions before 2025-06-18.
fn resource_link_as_text(link: &Resource) -> TextContent {
    let label = link.title.as_deref().unwrap_or(&link.name);
    let mut text = format!("{label} <{}>", link.uri);
    if let Some(description) = &link.description {
        text.push_str(": ");
        text.push_str(description);
    }
    TextContent {
        text,
        annotations: link.annotations.clone(),
        meta: link.meta.clone(),
    }
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentRef<'a> {
    Text(&'a TextContent),
    Image(&'a ImageContent),
    Audio(&'a AudioContent),
    ResourceLink(&'a Resource),
    #[serde(rename = "resource")]
    EmbeddedResource(&'a EmbeddedResource),
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let target = render::target();
        match self {
            ContentBlock::Text(t) => ContentRef::Text(t).serialize(serializer),
            ContentBlock::Image(i) => ContentRef::Image(i).serialize(serializer),
            ContentBlock::Audio(a) if target < ProtocolVersion::V2025_03_26 => {
                ContentRef::EmbeddedResource(&a.as_embedded_resource()).serialize(serializer)
            }
            ContentBlock::Audio(a) => ContentRef::Audio(a).serialize(serializer),
            ContentBlock::ResourceLink(r) if target < ProtocolVersion::V2025_06_18 => {
                ContentRef::Text(&resource_link_as_text(r)).serialize(serializer)
            }
            ContentBlock::ResourceLink(r) => ContentRef::ResourceLink(r).serialize(serializer),
            ContentBlock::EmbeddedResource(e) => {
                ContentRef::EmbeddedResource(e).serialize(serializer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_value;
    use serde_json::json;

    #[test]
    fn blocks_round_trip() {
        for wire in [
            json!({"type": "text", "text": "hi"}),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png",
                   "annotations": {"audience": ["user"], "priority": 0.5}}),
            json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}),
            json!({"type": "resource", "resource": {"uri": "file:///a.txt", "text": "x"}}),
            json!({"type": "resource", "resource": {"uri": "file:///b", "blob": "AA==",
                   "mimeType": "application/octet-stream"}}),
        ] {
            let block: ContentBlock = serde_json::from_value(wire.clone()).unwrap();
            assert_eq!(serde_json::to_value(&block).unwrap(), wire);
        }
    }

    #[test]
    fn byte_helpers_encode() {
        assert_eq!(
            serde_json::to_value(ContentBlock::image_bytes([0xff, 0x00], "image/png")).unwrap(),
            json!({"type": "image", "data": "/wA=", "mimeType": "image/png"})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::audio_bytes(b"RIFF", "audio/wav")).unwrap(),
            json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::embedded_blob(
                "file:///a.bin",
                [1, 2, 3],
                "application/octet-stream"
            ))
            .unwrap(),
            json!({"type": "resource", "resource": {"uri": "file:///a.bin",
                   "mimeType": "application/octet-stream", "blob": "AQID"}})
        );
    }

    #[test]
    fn audio_becomes_an_embedded_blob_for_2024_11_05() {
        let block = ContentBlock::audio("UklGRg==", "audio/wav");
        assert_eq!(
            to_value(&block, ProtocolVersion::V2024_11_05).unwrap(),
            json!({"type": "resource", "resource": {
                "uri": "data:audio/wav;base64,UklGRg==",
                "mimeType": "audio/wav",
                "blob": "UklGRg=="
            }})
        );
        assert_eq!(
            to_value(&block, ProtocolVersion::V2025_03_26).unwrap()["type"],
            "audio"
        );
    }

    #[test]
    fn resource_link_becomes_text_before_2025_06_18() {
        let mut link = Resource::new("file:///notes.md", "notes.md");
        link.description = Some("Today's notes".into());
        let block = ContentBlock::resource_link(link);
        for old in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26] {
            assert_eq!(
                to_value(&block, old).unwrap(),
                json!({"type": "text", "text": "notes.md <file:///notes.md>: Today's notes"})
            );
        }
        assert_eq!(
            to_value(&block, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "resource_link", "uri": "file:///notes.md", "name": "notes.md",
                   "description": "Today's notes"})
        );
    }

    #[test]
    fn annotations_drop_last_modified_before_2025_06_18() {
        let mut text = TextContent::new("x");
        text.annotations = Some(Annotations {
            audience: Some(vec![Role::Assistant]),
            priority: Some(1.0),
            last_modified: Some("2025-01-12T15:00:58Z".into()),
        });
        text.meta = Some(JsonObject::from_iter([("k".into(), json!(1))]));
        let block = ContentBlock::Text(text);
        assert_eq!(
            to_value(&block, ProtocolVersion::V2025_03_26).unwrap(),
            json!({"type": "text", "text": "x",
                   "annotations": {"audience": ["assistant"], "priority": 1.0}})
        );
        assert_eq!(
            to_value(&block, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "text", "text": "x", "_meta": {"k": 1},
                   "annotations": {"audience": ["assistant"], "priority": 1.0,
                                   "lastModified": "2025-01-12T15:00:58Z"}})
        );
    }
}
