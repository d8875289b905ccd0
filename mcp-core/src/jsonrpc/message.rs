//! The JSON-RPC 2.0 messages: requests, notifications, results and errors.
//!
//! Each envelope is generic over its payload. The defaults hold untyped JSON (what arrives before
//! the method is known); the typed protocol enums of [`crate::messages`] slot in for what is sent,
//! e.g. `JsonRpcResponse<ServerResult>` or `JsonRpcNotification<ServerNotification>`.

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::id::RequestId;
use super::params::Params;
use crate::error::ErrorObject;
use crate::render;
use crate::version::ProtocolVersion;

/// The value of the `jsonrpc` member of every message.
pub const JSONRPC_VERSION: &str = "2.0";

/// A method name with its params as received: the body of a request or notification before
/// dispatch decodes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RawCall {
    /// The method, e.g. `"tools/call"`.
    pub method: String,
    /// The params, if any (MCP params are always objects), as JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Params>,
}

impl RawCall {
    /// A call of `method` with `params`.
    pub fn new(method: impl Into<String>, params: Option<Params>) -> Self {
        RawCall {
            method: method.into(),
            params,
        }
    }
}

/// A request: a call that expects a response with the same id.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "jsonrpc", rename = "2.0")]
#[non_exhaustive]
pub struct JsonRpcRequest<R = RawCall> {
    /// The id the response will carry.
    pub id: RequestId,
    /// The method and params.
    #[serde(flatten)]
    pub request: R,
}

impl<R> JsonRpcRequest<R> {
    /// The request `request` with id `id`.
    pub fn new(id: impl Into<RequestId>, request: R) -> Self {
        JsonRpcRequest {
            id: id.into(),
            request,
        }
    }
}

/// A notification: a call without an id, which gets no response.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "jsonrpc", rename = "2.0")]
#[non_exhaustive]
pub struct JsonRpcNotification<N = RawCall> {
    /// The method and params.
    #[serde(flatten)]
    pub notification: N,
}

impl<N> JsonRpcNotification<N> {
    /// The notification `notification`.
    pub fn new(notification: N) -> Self {
        JsonRpcNotification { notification }
    }
}

/// A successful response.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "jsonrpc", rename = "2.0")]
#[non_exhaustive]
pub struct JsonRpcResponse<T = Value> {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: T,
}

impl<T> JsonRpcResponse<T> {
    /// The response to request `id` with `result`.
    pub fn new(id: RequestId, result: T) -> Self {
        JsonRpcResponse { id, result }
    }
}

/// An error response.
///
/// `id` is `None` when the id of the offending request could not be determined: unparseable text,
/// or a message whose id is itself invalid. How an unknown id goes on the wire depends on the
/// rendering target ([`crate::render`]):
///
/// - up to `2025-06-18` it is `"id": null`, as JSON-RPC 2.0 requires. Those revisions' schemas
///   (`JSONRPCError`) require an `id` that is a string or an integer, so they reject both `null` and
///   a missing id; the schema cannot be satisfied here, and JSON-RPC 2.0 wins;
/// - from `2025-11-25` on the id is left out: the schemas (`JSONRPCErrorResponse`) make `id`
///   optional but a string or an integer when present, so `null` would be invalid.
///
/// Parsing ([`crate::jsonrpc::parse`]) accepts both forms.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcErrorResponse {
    /// The id of the request this answers, if known.
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

impl Serialize for JsonRpcErrorResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "jsonrpc", rename = "2.0")]
        struct Wire<'a> {
            /// `Some(None)` renders `"id": null`; `None` leaves the member out.
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<Option<&'a RequestId>>,
            error: &'a ErrorObject,
        }
        let id = match &self.id {
            Some(id) => Some(Some(id)),
            None if render::target() < ProtocolVersion::V2025_11_25 => Some(None),
            None => None,
        };
        Wire {
            id,
            error: &self.error,
        }
        .serialize(serializer)
    }
}

impl JsonRpcErrorResponse {
    /// The error response to request `id`.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        JsonRpcErrorResponse { id, error }
    }
}

/// Any single JSON-RPC message, with untyped payloads.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum JsonRpcMessage {
    /// A request.
    Request(JsonRpcRequest),
    /// A notification.
    Notification(JsonRpcNotification),
    /// A successful response.
    Response(JsonRpcResponse),
    /// An error response.
    Error(JsonRpcErrorResponse),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorObject;
    use serde_json::json;

    #[test]
    fn envelopes_carry_jsonrpc_2_0() {
        let req = JsonRpcRequest::new(0, RawCall::new("ping", None));
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({"jsonrpc": "2.0", "id": 0, "method": "ping"})
        );
        let note = JsonRpcNotification::new(RawCall::new(
            "notifications/progress",
            Some(json!({"progressToken": "t", "progress": 1}).into()),
        ));
        assert_eq!(
            serde_json::to_value(&note).unwrap(),
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": "t", "progress": 1}})
        );
        let res = JsonRpcResponse::new(RequestId::from("a"), json!({}));
        assert_eq!(
            serde_json::to_value(&res).unwrap(),
            json!({"jsonrpc": "2.0", "id": "a", "result": {}})
        );
    }

    #[test]
    fn an_unknown_id_is_null_before_2025_11_25_and_left_out_after() {
        let err = JsonRpcErrorResponse::new(None, ErrorObject::parse_error("bad"));
        for version in ProtocolVersion::ALL {
            let expected = if version < ProtocolVersion::V2025_11_25 {
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#
            } else {
                r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#
            };
            assert_eq!(
                render::to_string(&err, version).unwrap(),
                expected,
                "{version}"
            );
        }
        let known = JsonRpcErrorResponse::new(Some(0.into()), ErrorObject::parse_error("bad"));
        for version in ProtocolVersion::ALL {
            assert_eq!(
                render::to_string(&known, version).unwrap(),
                r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32700,"message":"bad"}}"#
            );
        }
    }
}
