//! Reading wire text into JSON-RPC messages.
//!
//! [`parse`] recognises everything JSON-RPC 2.0 defines: a single message, a batch (an array of
//! messages, which only the 2025-03-26 revision allows; whether to accept it is the caller's call),
//! text that is not JSON (`-32700`), and JSON that is not a valid message (`-32600`). An invalid
//! message keeps its id when the id itself is valid, so that the error response can echo it;
//! otherwise the response has no id (`null` or left out, depending on the revision: see
//! [`JsonRpcErrorResponse`]). An incoming error response may likewise carry a `null` id or none.
//!
//! ```
//! use mcp_runtime_core::jsonrpc::{parse, Incoming, JsonRpcMessage};
//!
//! let Ok(Incoming::Message(JsonRpcMessage::Request(req))) =
//!     parse(br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
//! else { panic!() };
//! assert_eq!(req.request.method, "ping");
//!
//! let err = parse(b"{not json").unwrap_err();
//! assert_eq!(err.to_response().error.code.0, -32700);
//! ```

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::id::RequestId;
use super::message::{
    JSONRPC_VERSION, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    JsonRpcResponse, RawCall,
};
use super::params::Params;
use crate::error::{ErrorCode, ErrorObject};

/// What one piece of wire text holds.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Incoming {
    /// A single message.
    Message(JsonRpcMessage),
    /// A non-empty batch; each entry is a message or the reason it is not one.
    Batch(Vec<Result<JsonRpcMessage, EnvelopeError>>),
}

/// Text that is not a JSON-RPC message.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The text is not JSON (`-32700`).
    #[error("Parse error: {0}")]
    Parse(String),
    /// The JSON is not a valid JSON-RPC message (`-32600`).
    #[error("Invalid request: {reason}")]
    InvalidRequest {
        /// The message's id, when it had a valid one.
        id: Option<RequestId>,
        /// What is wrong with it.
        reason: String,
    },
}

impl EnvelopeError {
    fn invalid(id: Option<RequestId>, reason: impl Into<String>) -> Self {
        EnvelopeError::InvalidRequest {
            id,
            reason: reason.into(),
        }
    }

    /// The id of the offending message, when it could be determined.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            EnvelopeError::Parse(_) => None,
            EnvelopeError::InvalidRequest { id, .. } => id.as_ref(),
        }
    }

    /// The error response that answers this error.
    pub fn to_response(&self) -> JsonRpcErrorResponse {
        JsonRpcErrorResponse::new(self.id().cloned(), ErrorObject::from(self))
    }
}

impl From<&EnvelopeError> for ErrorObject {
    fn from(err: &EnvelopeError) -> Self {
        let code = match err {
            EnvelopeError::Parse(_) => ErrorCode::PARSE_ERROR,
            EnvelopeError::InvalidRequest { .. } => ErrorCode::INVALID_REQUEST,
        };
        ErrorObject::new(code, err.to_string())
    }
}

impl From<EnvelopeError> for ErrorObject {
    fn from(err: EnvelopeError) -> Self {
        ErrorObject::from(&err)
    }
}

/// Reads wire text: one message or a batch.
///
/// Fails with [`EnvelopeError::Parse`] when the text is not JSON, and with
/// [`EnvelopeError::InvalidRequest`] when it is a single invalid message or an empty batch. An
/// invalid entry of a batch does not fail the batch; it becomes an `Err` entry.
pub fn parse(text: &[u8]) -> Result<Incoming, EnvelopeError> {
    // A single object is read in one pass, straight into its members; what that pass declines
    // (a batch, a non-object, duplicate members, invalid JSON) is read as a JSON value first, so
    // that every error is told the same way.
    if text.trim_ascii_start().first() == Some(&b'{')
        && let Ok(members) = serde_json::from_slice::<Members>(text)
    {
        if let Some(message) = members.usual() {
            return Ok(Incoming::Message(message));
        }
        let envelope = members
            .into_envelope()
            .map_err(|e| EnvelopeError::Parse(e.to_string()))?;
        return classify(envelope).map(Incoming::Message);
    }
    let value: Value =
        serde_json::from_slice(text).map_err(|e| EnvelopeError::Parse(e.to_string()))?;
    match value {
        Value::Array(entries) if entries.is_empty() => {
            Err(EnvelopeError::invalid(None, "empty batch"))
        }
        Value::Array(entries) => Ok(Incoming::Batch(
            entries.into_iter().map(message_from_value).collect(),
        )),
        other => message_from_value(other).map(Incoming::Message),
    }
}

/// The members of a message object that JSON-RPC gives a meaning, as their JSON text borrowed
/// from the input (others are ignored); each is `None` when absent and `Some` when there, `null`
/// included. This is the one pass over a single message: a request or notification of the usual
/// shape is built from it directly, anything else is read as an [`Envelope`] and classified.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is there, `null` included.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

impl Members<'_> {
    /// The request or notification these members make when they have the usual shape: version
    /// `"2.0"` as written, a string method, a valid id or none, and neither `result` nor `error`.
    fn usual(&self) -> Option<JsonRpcMessage> {
        if self.jsonrpc?.get() != r#""2.0""# || self.result.is_some() || self.error.is_some() {
            return None;
        }
        let method: String = serde_json::from_str(self.method?.get()).ok()?;
        let id = match self.id {
            Some(id) => Some(serde_json::from_str::<RequestId>(id.get()).ok()?),
            None => None,
        };
        let call = RawCall::new(
            method,
            self.params().map(ToOwned::to_owned).map(Params::from_raw),
        );
        Some(match id {
            Some(id) => JsonRpcMessage::Request(JsonRpcRequest::new(id, call)),
            None => JsonRpcMessage::Notification(JsonRpcNotification::new(call)),
        })
    }

    /// The params: absent and `null` mean none.
    fn params(&self) -> Option<&RawValue> {
        self.params.filter(|params| params.get() != "null")
    }

    /// The members read as JSON values, to be classified.
    fn into_envelope(self) -> Result<Envelope, serde_json::Error> {
        let value = |member: Option<&RawValue>| {
            member
                .map(|raw| serde_json::from_str::<Value>(raw.get()))
                .transpose()
        };
        Ok(Envelope {
            jsonrpc: value(self.jsonrpc)?,
            id: value(self.id)?,
            method: value(self.method)?,
            params: self.params.map(ToOwned::to_owned),
            result: value(self.result)?,
            error: value(self.error)?,
        })
    }
}

/// The members of a message object that JSON-RPC gives a meaning, as JSON values: each is
/// `None` when absent and `Some(Value::Null)` when `null`, but `params`, which is kept as text
/// until the method's decoder reads it, and is `None` when absent or `null`.
struct Envelope {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Box<RawValue>>,
    result: Option<Value>,
    error: Option<Value>,
}

/// Classifies one JSON value as a JSON-RPC message.
pub fn message_from_value(value: Value) -> Result<JsonRpcMessage, EnvelopeError> {
    let Value::Object(mut object) = value else {
        return Err(EnvelopeError::invalid(
            None,
            "a message must be a JSON object",
        ));
    };
    classify(Envelope {
        jsonrpc: object.remove("jsonrpc"),
        id: object.remove("id"),
        method: object.remove("method"),
        params: object
            .remove("params")
            .map(|params| serde_json::value::to_raw_value(&params))
            .transpose()
            .map_err(|e| EnvelopeError::Parse(e.to_string()))?,
        result: object.remove("result"),
        error: object.remove("error"),
    })
}

/// Classifies the members of a message object.
fn classify(envelope: Envelope) -> Result<JsonRpcMessage, EnvelopeError> {
    let Envelope {
        jsonrpc,
        id: raw_id,
        method,
        params,
        result,
        error,
    } = envelope;
    // JSON-RPC 2.0 answers a message whose id could not be determined with `"id": null`; only an
    // error response may carry it (a client must be able to read a server's parse-error reply).
    let null_id_allowed = error.is_some() && method.is_none() && result.is_none();
    let id = match raw_id {
        None => Ok(None),
        Some(Value::Null) if null_id_allowed => Ok(None),
        Some(raw) => serde_json::from_value::<RequestId>(raw)
            .map(Some)
            .map_err(|_| "the id must be a string or an integer from -2^63 to 2^63-1"),
    };
    let valid_id = id.clone().ok().flatten();
    let invalid = |reason: &str| EnvelopeError::invalid(valid_id.clone(), reason);

    if jsonrpc.as_ref().and_then(Value::as_str) != Some(JSONRPC_VERSION) {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let id = id.map_err(invalid)?;

    if let Some(method) = method {
        let Value::String(method) = method else {
            return Err(invalid("`method` must be a string"));
        };
        // Absent and `null` params mean none. Params of any other type are left for the method's
        // decoder to refuse, so that every wrong type (a string, a number, an array) gets the same
        // invalid-params error (`-32602`).
        let params = params
            .map(Params::from_raw)
            .filter(|params| !params.is_null());
        let call = RawCall::new(method, params);
        return Ok(match id {
            Some(id) => JsonRpcMessage::Request(JsonRpcRequest::new(id, call)),
            None => JsonRpcMessage::Notification(JsonRpcNotification::new(call)),
        });
    }
    if let Some(result) = result {
        let id = id.ok_or_else(|| invalid("a response needs an id"))?;
        if error.is_some() {
            return Err(invalid(
                "a response has either `result` or `error`, not both",
            ));
        }
        return Ok(JsonRpcMessage::Response(JsonRpcResponse::new(id, result)));
    }
    if let Some(error) = error {
        let error: ErrorObject = serde_json::from_value(error)
            .map_err(|e| invalid(&format!("malformed `error`: {e}")))?;
        return Ok(JsonRpcMessage::Error(JsonRpcErrorResponse::new(id, error)));
    }
    Err(invalid("a message needs `method`, `result` or `error`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn single(text: &str) -> Result<JsonRpcMessage, EnvelopeError> {
        parse(text.as_bytes()).map(|incoming| match incoming {
            Incoming::Message(m) => m,
            Incoming::Batch(_) => panic!("not a batch"),
        })
    }

    fn invalid(id: Option<RequestId>, reason: &str) -> EnvelopeError {
        EnvelopeError::InvalidRequest {
            id,
            reason: reason.into(),
        }
    }

    #[test]
    fn unusual_spellings_read_as_the_usual_ones() {
        let usual = single(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
        assert!(matches!(usual, Ok(JsonRpcMessage::Request(_))));
        for text in [
            r#"{"jsonrpc":"2\u002e0","id":"a","method":"ping"}"#,
            r#"{ "method" : "p\u0069ng" , "id" : "a" , "jsonrpc" : "2.0" , "params" : null }"#,
            r#"{"jsonrpc":"2.0","id":"b","id":"a","method":"ping","extra":[1,{"x":2}]}"#,
        ] {
            assert_eq!(single(text), usual, "{text}");
        }
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Err(invalid(
                None,
                "the id must be a string or an integer from -2^63 to 2^63-1"
            ))
        );
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#),
            single(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        );
    }

    #[test]
    fn classifies_the_four_kinds() {
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{"cursor":"c"}}"#),
            Ok(JsonRpcMessage::Request(JsonRpcRequest::new(
                0,
                RawCall::new("tools/list", Some(json!({"cursor": "c"}).into()))
            )))
        );
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":null}"#),
            Ok(JsonRpcMessage::Notification(JsonRpcNotification::new(
                RawCall::new("notifications/initialized", None)
            )))
        );
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":"r1","result":{"ok":true}}"#),
            Ok(JsonRpcMessage::Response(JsonRpcResponse::new(
                "r1".into(),
                json!({"ok": true})
            )))
        );
        // An error response to a message whose id was unknown: `null` (JSON-RPC 2.0, MCP up to
        // 2025-06-18) or no id at all (MCP from 2025-11-25 on).
        for text in [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}"#,
        ] {
            assert_eq!(
                single(text),
                Ok(JsonRpcMessage::Error(JsonRpcErrorResponse::new(
                    None,
                    ErrorObject::new(ErrorCode::PARSE_ERROR, "x")
                ))),
                "{text}"
            );
        }
        // Only error responses may have a null id.
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).unwrap_err(),
            invalid(
                None,
                "the id must be a string or an integer from -2^63 to 2^63-1"
            )
        );
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#).unwrap_err(),
            invalid(
                None,
                "the id must be a string or an integer from -2^63 to 2^63-1"
            )
        );
        assert_eq!(
            single(
                r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"nope","data":[1]}}"#
            ),
            Ok(JsonRpcMessage::Error(JsonRpcErrorResponse::new(
                Some(4.into()),
                ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "nope").with_data(json!([1]))
            )))
        );
    }

    #[test]
    fn parse_errors_have_no_id() {
        for text in ["", "{", "nul", "{\"jsonrpc\":\"2.0\",}", "\u{7f}"] {
            let err = parse(text.as_bytes()).unwrap_err();
            assert!(matches!(err, EnvelopeError::Parse(_)), "{text:?}: {err:?}");
            let response = err.to_response();
            assert_eq!(response.id, None);
            assert_eq!(response.error.code, ErrorCode::PARSE_ERROR);
        }
    }

    #[test]
    fn invalid_messages_echo_a_valid_id() {
        let cases = [
            (r#"1"#, invalid(None, "a message must be a JSON object")),
            (r#""x""#, invalid(None, "a message must be a JSON object")),
            (
                r#"{"id":1,"method":"ping"}"#,
                invalid(Some(1.into()), "`jsonrpc` must be \"2.0\""),
            ),
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                invalid(Some(1.into()), "`jsonrpc` must be \"2.0\""),
            ),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":7}"#,
                invalid(Some(2.into()), "`method` must be a string"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                invalid(
                    None,
                    "the id must be a string or an integer from -2^63 to 2^63-1",
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                invalid(
                    None,
                    "the id must be a string or an integer from -2^63 to 2^63-1",
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","result":{}}"#,
                invalid(None, "a response needs an id"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}"#,
                invalid(
                    Some(3.into()),
                    "a response has either `result` or `error`, not both",
                ),
            ),
            (
                r#"{"jsonrpc":"2.0","id":3}"#,
                invalid(
                    Some(3.into()),
                    "a message needs `method`, `result` or `error`",
                ),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(single(text).unwrap_err(), expected, "{text}");
        }
        let err = single(r#"{"jsonrpc":"2.0","id":0,"error":{"code":"x"}}"#).unwrap_err();
        assert_eq!(err.id(), Some(&RequestId::Number(0)));
        let response = serde_json::to_value(err.to_response()).unwrap();
        assert_eq!(response["id"], 0);
        assert_eq!(response["error"]["code"], -32600);
    }

    #[test]
    fn a_repeated_member_counts_once_the_last_time() {
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":1,"id":"two","method":"ping","params":null}"#).unwrap(),
            JsonRpcMessage::Request(JsonRpcRequest::new("two", RawCall::new("ping", None)))
        );
    }

    #[test]
    fn batches() {
        assert_eq!(parse(b"[]").unwrap_err(), invalid(None, "empty batch"));
        let Incoming::Batch(entries) = parse(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},2,{"jsonrpc":"2.0","method":"n"}]"#,
        )
        .unwrap() else {
            panic!("expected a batch")
        };
        assert_eq!(entries.len(), 3);
        assert!(matches!(entries[0], Ok(JsonRpcMessage::Request(_))));
        assert_eq!(
            entries[1],
            Err(invalid(None, "a message must be a JSON object"))
        );
        assert!(matches!(entries[2], Ok(JsonRpcMessage::Notification(_))));
    }

    #[test]
    fn deep_nesting_is_a_parse_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(matches!(
            parse(deep.as_bytes()),
            Err(EnvelopeError::Parse(_))
        ));
    }
}
