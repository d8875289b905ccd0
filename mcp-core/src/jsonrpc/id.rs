//! Request ids.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The id of a JSON-RPC request: a string or an integer.
///
/// Every integer is a valid id, `0` included; fractional numbers, `null`, booleans and structured
/// values are not (MCP requires ids to be strings or integers and never `null`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

/// The token a requester attaches to ask for `notifications/progress`: a string or an integer, like
/// a [`RequestId`].
pub type ProgressToken = RequestId;

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }

            fn visit_i64<E: de::Error>(self, n: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(n))
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<RequestId, E> {
                i64::try_from(n)
                    .map(RequestId::Number)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(s.to_owned()))
            }

            fn visit_string<E: de::Error>(self, s: String) -> Result<RequestId, E> {
                Ok(RequestId::String(s))
            }
        }

        deserializer.deserialize_any(IdVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_strings_or_integers() {
        for (wire, id) in [
            (json!(0), RequestId::Number(0)),
            (json!(-7), RequestId::Number(-7)),
            (json!(i64::MAX), RequestId::Number(i64::MAX)),
            (json!(""), RequestId::String(String::new())),
            (json!("abc"), RequestId::String("abc".into())),
        ] {
            assert_eq!(
                serde_json::from_value::<RequestId>(wire.clone()).unwrap(),
                id
            );
            assert_eq!(serde_json::to_value(&id).unwrap(), wire);
        }
        for bad in [
            json!(null),
            json!(1.5),
            json!(true),
            json!([1]),
            json!({}),
            json!(u64::MAX),
        ] {
            assert!(serde_json::from_value::<RequestId>(bad).is_err());
        }
    }

    #[test]
    fn display() {
        assert_eq!(RequestId::from(3).to_string(), "3");
        assert_eq!(RequestId::from("x").to_string(), "\"x\"");
    }
}
