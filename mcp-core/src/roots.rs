//! Roots: the directories and files the client lets the server work in (`roots/list`).

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::render::skip;

/// A root the client exposes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (a `file://` URI in current revisions).
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl Root {
    /// The root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            name: None,
            meta: None,
        }
    }
}

/// The answer to `roots/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Metadata (removed in 2026-07-28, where the answer is an input response).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::until_2025_11_25"
    )]
    pub meta: Option<JsonObject>,
}

impl ListRootsResult {
    /// The answer listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult { roots, meta: None }
    }
}
