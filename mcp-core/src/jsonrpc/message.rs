//! The JSON-RPC 2.0 messages: requests, notifications, results and errors.
//!
//! Each envelope is generic over its payload. The defaults hold untyped JSON (what arrives before
//! the method is known); the typed protocol enums of [`crate::messages`] slot in for what is sent,
//! e.g. `JsonRpcResponse<ServerResult>` or `JsonRpcNotification<ServerNotification>`.

use serde::Serialize;
use serde_json::Value;

use super::id::RequestId;
use crate::error::ErrorObject;

/// The value of the `jsonrpc` member of every message.
pub const JSONRPC_VERSION: &str = "2.0";

/// A method name with untyped params: the body of a request or notification before dispatch.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RawCall {
    /// The method, e.g. `"tools/call"`.
    pub method: String,
    /// The params, if any (MCP params are always objects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl RawCall {
    /// A call of `method` with `params`.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
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
/// `id` is `None` (serialized as `null`, as JSON-RPC 2.0 requires) when the id of the offending
/// request could not be determined: unparseable text, or a message whose id is itself invalid.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "jsonrpc", rename = "2.0")]
#[non_exhaustive]
pub struct JsonRpcErrorResponse {
    /// The id of the request this answers, if known.
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
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
            Some(json!({"progressToken": "t", "progress": 1})),
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
        let err = JsonRpcErrorResponse::new(None, ErrorObject::parse_error("bad"));
        assert_eq!(
            serde_json::to_string(&err).unwrap(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#
        );
    }
}
