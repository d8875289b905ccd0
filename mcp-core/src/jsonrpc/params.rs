//! The params of a received call, kept as the JSON text they arrived as.
//!
//! What a call's params mean depends on its method, so parsing leaves them as text
//! ([`Params`]): they are decoded once, straight into the method's typed params, and the few
//! members a transport checks before that (`_meta`, `name`, `arguments`) are read without
//! building the rest ([`Params::members`]).
//!
//! ```
//! use mcp_runtime_core::jsonrpc::Params;
//! use serde_json::json;
//!
//! let params = Params::from_value(&json!({"name": "add", "arguments": {"a": 1}}));
//! let [name, missing] = params.members(["name", "cursor"]).unwrap();
//! assert_eq!(name.map(|n| n.get()), Some(r#""add""#));
//! assert!(missing.is_none());
//! assert_eq!(params.to_value(), json!({"name": "add", "arguments": {"a": 1}}));
//! ```

use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The params of a request or notification as received: one JSON value's text (MCP params are
/// objects; another type is refused by the method's decoder).
#[derive(Clone)]
pub struct Params(Box<RawValue>);

impl Params {
    /// The params that `value` serializes to.
    pub fn from_value(value: &Value) -> Self {
        // A `Value` always serializes: its map keys are strings.
        Params(serde_json::value::to_raw_value(value).expect("a JSON value serializes"))
    }

    /// The params whose JSON text is `raw`.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        Params(raw)
    }

    /// The JSON text, without surrounding whitespace.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Whether the params are a JSON object.
    pub fn is_object(&self) -> bool {
        self.get().starts_with('{')
    }

    /// Whether the params are `null`.
    pub fn is_null(&self) -> bool {
        self.get() == "null"
    }

    /// The params as a JSON value.
    pub fn to_value(&self) -> Value {
        // The text was read as (or written from) one JSON value, so it reads back as one.
        serde_json::from_str(self.get()).unwrap_or(Value::Null)
    }

    /// Deserializes the params as `T`, describing a failure with the path of the offending field
    /// (e.g. `arguments.a: invalid type: string "x", expected i64`).
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, String> {
        // Straight from the text when it fits; the path is tracked only to describe a failure,
        // and from the value, so that messages do not depend on where in the text it was. Text
        // that does not even read as a value (nested deeper than the parser goes) is described by
        // the parser's own error.
        serde_json::from_str(self.get()).or_else(|error| {
            match serde_json::from_str::<Value>(self.get()) {
                Ok(value) => crate::de::from_value(value),
                Err(_) => Err(error.to_string()),
            }
        })
    }

    /// The member `key` of the params object decoded as `T`; `None` when it is absent or not a
    /// `T`, or when the params are not an object.
    pub fn member<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let [member] = self.members([key])?;
        serde_json::from_str(member?.get()).ok()
    }

    /// The members named `keys` of the params object, each as JSON text, without decoding the
    /// others; a repeated member counts its last time. `None` when the params are not an object.
    pub fn members<const N: usize>(&self, keys: [&str; N]) -> Option<[Option<&RawValue>; N]> {
        members(&self.0, keys)
    }

    /// The members named `keys` of the params' `_meta` object, as [`members`](Self::members)
    /// reads them; `None` when there is no `_meta` object. Params whose text names no `_meta`
    /// and has no escape that could spell one are not read at all.
    pub fn meta_members<const N: usize>(&self, keys: [&str; N]) -> Option<[Option<&RawValue>; N]> {
        let text = self.get();
        if !text.contains("_meta") && !text.contains("\\u") {
            return None;
        }
        let [meta] = self.members(["_meta"])?;
        members(meta?, keys)
    }
}

/// The members named `keys` of the JSON object `raw` (see [`Params::members`]).
pub fn members<'a, const N: usize>(
    raw: &'a RawValue,
    keys: [&str; N],
) -> Option<[Option<&'a RawValue>; N]> {
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    deserializer.deserialize_map(Members(keys)).ok()
}

/// Reads the members named by its keys of a JSON object, skipping the others.
struct Members<'k, const N: usize>([&'k str; N]);

impl<'de, const N: usize> Visitor<'de> for Members<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(index) = map.next_key_seed(KeyIndex(&self.0))? {
            match index {
                Some(index) => found[index] = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// Reads a member's name as its position among the wanted keys, if it is one.
struct KeyIndex<'a, 'k, const N: usize>(&'a [&'k str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for KeyIndex<'_, '_, N> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for KeyIndex<'_, '_, N> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|key| *key == name))
    }
}

impl From<Value> for Params {
    fn from(value: Value) -> Self {
        Params::from_value(&value)
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Params are equal when they hold the same JSON, however it is spaced or its members ordered.
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get() || self.to_value() == other.to_value()
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(text: &str) -> Params {
        Params::from_raw(serde_json::from_str(text).unwrap())
    }

    #[test]
    fn params_nested_too_deep_are_reported_as_such() {
        let depth = 200;
        let text = format!(
            r#"{{"name": "t", "arguments": {{"a": {}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        // Read as raw text (the parser skips what it does not decode) ...
        let parsed = match crate::jsonrpc::parse(
            format!(r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {text}}}"#)
                .as_bytes(),
        ) {
            Ok(crate::jsonrpc::Incoming::Message(crate::jsonrpc::JsonRpcMessage::Request(r))) => {
                r.request.params.unwrap()
            }
            other => panic!("{other:?}"),
        };
        // ... and decoding says why it fails, rather than that it found `null`.
        let error = parsed
            .decode::<crate::tools::CallToolRequestParams>()
            .unwrap_err();
        assert_eq!(error, "recursion limit exceeded at line 1 column 159");
    }

    #[test]
    fn members_are_read_by_name_and_the_last_of_a_repeated_one_counts() {
        let p = params(r#"{"b": [1, {"x": 2}], "a": "one", "c": null, "a": "two"}"#);
        let [a, c, d] = p.members(["a", "c", "d"]).unwrap();
        assert_eq!(a.unwrap().get(), r#""two""#);
        assert_eq!(c.unwrap().get(), "null");
        assert!(d.is_none());
        let escaped = params(r#"{"n\u0061me": 1}"#);
        assert_eq!(escaped.members(["name"]).unwrap()[0].unwrap().get(), "1");
        assert_eq!(p.member::<String>("a").as_deref(), Some("two"));
        assert_eq!(p.member::<String>("b"), None);
        assert_eq!(
            p.member::<Vec<serde_json::Value>>("b").map(|b| b.len()),
            Some(2)
        );
    }

    #[test]
    fn meta_members_are_read_from_meta_however_it_is_spelled() {
        let p = params(r#"{"name": "t", "_meta": {"k": 1, "other": [2]}}"#);
        assert_eq!(p.meta_members(["k", "x"]).unwrap()[0].unwrap().get(), "1");
        assert!(p.meta_members(["k", "x"]).unwrap()[1].is_none());
        let escaped = params(r#"{"\u005fmeta": {"k": "v"}}"#);
        assert_eq!(
            escaped.meta_members(["k"]).unwrap()[0].unwrap().get(),
            r#""v""#
        );
        assert!(
            params(r#"{"name": "t", "meta": {"k": 1}}"#)
                .meta_members(["k"])
                .is_none()
        );
        assert!(params(r#"{"_meta": 3}"#).meta_members(["k"]).is_none());
    }

    #[test]
    fn members_of_a_non_object_are_none() {
        for text in ["[1]", "\"s\"", "3", "null", "true"] {
            assert!(params(text).members(["a"]).is_none(), "{text}");
        }
    }

    #[test]
    fn kinds_and_equality() {
        assert!(params(r#"{"a":1}"#).is_object());
        assert!(!params("[1]").is_object());
        assert!(params("null").is_null());
        assert_eq!(params(r#"{"a": 1, "b": 2}"#), params(r#"{"b":2,"a":1}"#));
        assert_ne!(params(r#"{"a": 1}"#), params(r#"{"a": 2}"#));
        assert_eq!(format!("{:?}", params(r#"{"a": 1}"#)), r#"{"a": 1}"#);
    }

    #[test]
    fn decoding_fails_with_the_path_of_the_field() {
        #[derive(Debug, serde::Deserialize)]
        struct Add {
            a: i64,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Call {
            arguments: Add,
        }
        let p = params(r#"{"arguments": {"a": "x"}}"#);
        assert_eq!(
            p.decode::<Call>().unwrap_err(),
            r#"arguments.a: invalid type: string "x", expected i64"#
        );
        let ok = params(r#"{"arguments": {"a": 7}}"#)
            .decode::<Call>()
            .unwrap();
        assert_eq!(ok.arguments.a, 7);
    }
}
