//! What every result shares: `resultType` and `_meta`, the empty result, caching hints, and the
//! shape of a page of a `*/list` result.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::meta::ResultMeta;
use crate::params::Cursor;
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

/// How long a result may be reused, and by whom (2026-07-28, SEP-2549): what `ttlMs` and
/// `cacheScope` say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh (`ttlMs`); zero (the default) means it must not be reused.
    pub ttl: Duration,
    /// Who may reuse it (`cacheScope`); private (the default) keeps it to the same authorization
    /// context.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Fresh for `ttl`, within the same authorization context.
    pub fn private(ttl: Duration) -> Self {
        CacheHint {
            ttl,
            scope: CacheScope::Private,
        }
    }

    /// Fresh for `ttl`, for any client and intermediary.
    pub fn public(ttl: Duration) -> Self {
        CacheHint {
            ttl,
            scope: CacheScope::Public,
        }
    }

    /// `ttlMs`, saturated to what the wire carries.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

/// A result that carries a caching hint (2026-07-28): `server/discover`, the `*/list` results and
/// `resources/read`.
pub trait Cacheable {
    /// Sets `ttlMs` and `cacheScope` from `hint`.
    fn set_cache_hint(&mut self, hint: CacheHint);
}

macro_rules! cacheable {
    ($($result:ty),* $(,)?) => {$(
        impl $crate::result::Cacheable for $result {
            fn set_cache_hint(&mut self, hint: $crate::result::CacheHint) {
                (self.ttl_ms, self.cache_scope) = (hint.ttl_ms(), hint.scope);
            }
        }
    )*};
}

cacheable!(
    crate::lifecycle::DiscoverResult,
    crate::resources::ReadResourceResult,
);

/// One page of a `*/list` result: the items, and where the next page starts.
pub trait Paginated: Cacheable {
    /// What the list holds.
    type Item;
    /// The list's name: the method is `{LIST}/list`, as in `tools` or `resources/templates`.
    const LIST: &'static str;
    /// The page holding `items`, followed by the page at `next_cursor` if there is one.
    fn page(items: Vec<Self::Item>, next_cursor: Option<Cursor>) -> Self;
}

/// Declares the result of a `*/list` request: one page of items, the cursor of the next page, the
/// caching hint (2026-07-28), `_meta` and `resultType`; with `new`, [`Paginated`] and
/// [`Cacheable`]. Written out rather than `#[serde(flatten)]`ed from a shared struct, which would
/// make every list parse through serde's buffering of unknown fields.
macro_rules! paginated_result {
    (
        $(#[$attr:meta])*
        $name:ident, $list:literal, $items:ident: $item:ty, $what:literal
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            #[doc = concat!("One page of ", $what, ".")]
            pub $items: Vec<$item>,
            /// Where the next page starts; absent on the last page.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<$crate::params::Cursor>,
            /// How long the client may cache this page, in milliseconds (2026-07-28).
            #[serde(default, skip_serializing_if = "crate::render::skip::before_2026_07_28")]
            pub ttl_ms: u64,
            /// Who may reuse the cached page (2026-07-28).
            #[serde(default, skip_serializing_if = "crate::render::skip::before_2026_07_28")]
            pub cache_scope: $crate::result::CacheScope,
            /// Metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$crate::meta::ResultMeta>,
            /// Always complete (2026-07-28).
            #[serde(default, skip_serializing_if = "crate::render::skip::before_2026_07_28")]
            pub result_type: $crate::result::ResultType,
        }

        impl $name {
            #[doc = concat!("A page holding `", stringify!($items), "`.")]
            pub fn new($items: Vec<$item>) -> Self {
                $name {
                    $items,
                    next_cursor: None,
                    ttl_ms: 0,
                    cache_scope: $crate::result::CacheScope::default(),
                    meta: None,
                    result_type: $crate::result::ResultType::Complete,
                }
            }
        }

        $crate::result::cacheable!($name);

        impl $crate::result::Paginated for $name {
            type Item = $item;
            const LIST: &'static str = $list;

            fn page(items: Vec<$item>, next_cursor: Option<$crate::params::Cursor>) -> Self {
                let mut page = $name::new(items);
                page.next_cursor = next_cursor;
                page
            }
        }
    };
}

pub(crate) use {cacheable, paginated_result};

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
