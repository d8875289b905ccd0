//! Deserialization helpers that keep the path of the offending field.
//!
//! Parsing reports a failure with the path of the field at fault, e.g.
//! `messages[0].content: missing field `text``, by deserializing through `serde_path_to_error`.
//! That tracking stops where a `Deserialize` impl buffers its input as a [`Value`] to choose a variant
//! by tag or shape: the variant is deserialized from the buffer by a fresh deserializer. Such impls
//! call [`nested`], which tracks the path inside the buffer and puts it in front of the message;
//! [`describe`] then joins the outer path and the inner one into one path.

use serde::de::{DeserializeOwned, Error};
use serde_json::Value;

/// Deserializes `value` as `T`, describing a failure with the path of the offending field (see
/// [`describe`]).
pub(crate) fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    // Tracking the path costs on every field, so it is done only to describe a failure.
    match T::deserialize(&value) {
        Ok(decoded) => Ok(decoded),
        Err(_) => serde_path_to_error::deserialize(value).map_err(describe),
    }
}

/// Deserializes `value` as `T` inside a `Deserialize` impl, describing a failure with the path of
/// the offending field relative to `value` (see [`describe`]).
pub(crate) fn nested<T: DeserializeOwned, E: Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|err| E::custom(describe(err)))
}

/// Like [`nested`], for a value found under `key` of the object being deserialized.
pub(crate) fn nested_in<T: DeserializeOwned, E: Error>(key: &str, value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|err| E::custom(join(key, &describe(err))))
}

/// Describes a failure as `path: message`, or just `message` at the root; a message that itself
/// starts with a path (from [`nested`]) continues the outer path.
pub(crate) fn describe(err: serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = err.path().to_string();
    let message = err.into_inner().to_string();
    if path == "." {
        message
    } else {
        join(&path, &message)
    }
}

/// `path: message`, merging a path at the start of `message` into `path`.
///
/// A message starts with a path when the text before its first `": "` has no whitespace: serde's
/// own messages start with words ("missing field", "invalid type"), and so do this crate's.
fn join(path: &str, message: &str) -> String {
    match message.split_once(": ") {
        Some((inner, rest)) if !inner.is_empty() && !inner.contains(char::is_whitespace) => {
            let separator = if inner.starts_with('[') { "" } else { "." };
            format!("{path}{separator}{inner}: {rest}")
        }
        _ => format!("{path}: {message}"),
    }
}

/// Implements `Deserialize` for an enum of newtype variants chosen by a `"type"` tag, as
/// `#[serde(tag = "type")]` would, but deserializing the chosen variant with [`nested`] so that
/// failures inside it keep their path. The tag stays in the object the variant reads (the variants'
/// types ignore unknown fields).
macro_rules! deserialize_by_type {
    ($enum:ident { $($tag:literal => $variant:ident,)* }) => {
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                const TAGS: &[&str] = &[$($tag),*];
                let value = serde_json::Value::deserialize(deserializer)?;
                let Some(tag) = value.get("type") else {
                    return Err(D::Error::missing_field("type"));
                };
                let tag: String = $crate::de::nested_in("type", tag.clone())?;
                match tag.as_str() {
                    $($tag => $crate::de::nested(value).map($enum::$variant),)*
                    other => Err(D::Error::unknown_variant(other, TAGS)),
                }
            }
        }
    };
}
pub(crate) use deserialize_by_type;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_joined() {
        assert_eq!(
            join("messages[0].content", "missing field `text`"),
            "messages[0].content: missing field `text`"
        );
        assert_eq!(
            join("inputResponses.k", "roots[0]: missing field `uri`"),
            "inputResponses.k.roots[0]: missing field `uri`"
        );
        assert_eq!(
            join("content", "[1]: missing field `type`"),
            "content[1]: missing field `type`"
        );
        assert_eq!(
            join("level", "unknown variant `loud`: expected one of `info`"),
            "level: unknown variant `loud`: expected one of `info`"
        );
    }
}
