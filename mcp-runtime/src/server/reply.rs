//! [`Reply`]: the answer to one request, rendered for the peer's revision.

use mcp_runtime_core::jsonrpc::{JsonRpcErrorResponse, JsonRpcResponse, RequestId};
use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::{ErrorObject, ProtocolVersion, render};
use serde::Serialize;

/// The answer to one request, with the revision to render it for.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The revision of the peer.
    pub version: ProtocolVersion,
    /// The response.
    pub message: ReplyMessage,
}

/// A response: a result or an error.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ReplyMessage {
    /// A result.
    Result(JsonRpcResponse<ServerResult>),
    /// An error.
    Error(JsonRpcErrorResponse),
}

impl Reply {
    pub(crate) fn result(version: ProtocolVersion, id: RequestId, result: ServerResult) -> Self {
        Reply {
            version,
            message: ReplyMessage::Result(JsonRpcResponse::new(id, result)),
        }
    }

    pub(crate) fn error(
        version: ProtocolVersion,
        id: Option<RequestId>,
        error: ErrorObject,
    ) -> Self {
        Reply {
            version,
            message: ReplyMessage::Error(JsonRpcErrorResponse::new(id, error)),
        }
    }

    /// The reply as one line of JSON, rendered for the peer's revision.
    ///
    /// A result the peer's revision cannot carry (see [`mcp_runtime_core::render`]) is replaced by an
    /// internal error (`-32603`) saying why, rather than sent invalid.
    pub fn render(&self) -> String {
        render::to_string(&self.message, self.version).unwrap_or_else(|error| {
            let id = match &self.message {
                ReplyMessage::Result(response) => Some(response.id.clone()),
                ReplyMessage::Error(response) => response.id.clone(),
            };
            let refusal = JsonRpcErrorResponse::new(
                id,
                ErrorObject::internal_error(format!("the result cannot be sent: {error}")),
            );
            render::to_string(&refusal, self.version).expect("error responses always render")
        })
    }

    /// The error, if the reply is one.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        match &self.message {
            ReplyMessage::Error(e) => Some(&e.error),
            ReplyMessage::Result(_) => None,
        }
    }
}

/// The text of a batch of replies.
pub(crate) fn render_batch(replies: &[Reply]) -> String {
    let parts: Vec<String> = replies.iter().map(Reply::render).collect();
    format!("[{}]", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime_core::capabilities::ServerCapabilities;
    use mcp_runtime_core::lifecycle::DiscoverResult;

    #[test]
    fn a_result_the_peer_cannot_carry_becomes_an_internal_error() {
        let capabilities: ServerCapabilities =
            serde_json::from_value(serde_json::json!({"logging": {"ratio": 0.5}})).unwrap();
        let discover = DiscoverResult::new(vec!["2026-07-28".into()], capabilities);
        let reply = Reply::result(
            ProtocolVersion::V2026_07_28,
            RequestId::Number(4),
            ServerResult::from(discover),
        );
        assert_eq!(
            reply.render(),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the result cannot be sent: `ratio` (a float or null, which `JSONValue` does not admit) cannot be rendered for protocol revision 2026-07-28"}}"#
        );
    }
}
