//! How a client or server describes itself, and icons.

use serde::{Deserialize, Serialize};

use crate::render::skip;

/// The name and version of an MCP implementation (`serverInfo`, `clientInfo`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// The programmatic name.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// The version.
    pub version: String,
    /// What it does, in a sentence (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub description: Option<String>,
    /// Icons for a user interface (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub icons: Option<Vec<Icon>>,
    /// Its home page (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

/// An icon a client may show for a server, tool, prompt or resource (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The image's MIME type, when `src` does not make it plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes the image is good for, e.g. `["48x48"]` or `["any"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }
}

/// The background an icon is designed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}
