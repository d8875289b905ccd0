//! Params shared by several methods: a bare `_meta`, and pagination.

use serde::{Deserialize, Serialize};

use crate::meta::{NotificationMeta, RequestMeta};

/// An opaque pagination position handed out by the server in `nextCursor`.
pub type Cursor = String;

/// The params of a request that has nothing but `_meta` (`ping`, `server/discover`, `roots/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl RequestParams {
    /// Whether there is nothing in them (such params may be left out of a message).
    pub fn is_empty(&self) -> bool {
        self.meta.is_none()
    }

    /// Params with `meta`.
    pub fn with_meta(meta: RequestMeta) -> Self {
        RequestParams { meta: Some(meta) }
    }
}

/// The params of a notification that has nothing but `_meta` (`notifications/initialized`, the
/// `list_changed` notifications).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotificationParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

impl NotificationParams {
    /// Whether there is nothing in them (such params may be left out of a message).
    pub fn is_empty(&self) -> bool {
        self.meta.is_none()
    }

    /// Params with `meta`.
    pub fn with_meta(meta: NotificationMeta) -> Self {
        NotificationParams { meta: Some(meta) }
    }
}

/// The params of a `*/list` request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Where to continue: the `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl PaginatedRequestParams {
    /// Whether there is nothing in them (such params may be left out of a message).
    pub fn is_empty(&self) -> bool {
        self.cursor.is_none() && self.meta.is_none()
    }

    /// The params asking for the page after `cursor`.
    pub fn after(cursor: impl Into<Cursor>) -> Self {
        PaginatedRequestParams {
            cursor: Some(cursor.into()),
            meta: None,
        }
    }
}
