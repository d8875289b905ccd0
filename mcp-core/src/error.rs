//! JSON-RPC error codes and the error object every failure is turned into: the crate's root
//! re-exports every item and documents them ("Errors").

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::version::ProtocolVersion;

/// A JSON-RPC error code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: the text is not valid JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// `-32600`: the JSON is not a valid JSON-RPC request.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// `-32601`: the method does not exist or is not available (on Streamable HTTP in 2026-07-28 this
    /// comes with status 404).
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// `-32602`: invalid method parameters (also "resource not found" from 2026-07-28 on).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// `-32603`: an internal error of the receiver.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// `-32002`: resource not found, up to 2025-11-25 (see
    /// [`ProtocolVersion::resource_not_found_code`]).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// `-32042`: the request needs a URL-mode elicitation first (2025-11-25 only).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// `-32020`: HTTP headers disagree with the body, or a required header is missing (2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// `-32021`: the request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// `-32022`: the request's protocol version is not served (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The conventional name of a code this crate knows, e.g. `"Invalid params"`.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::PARSE_ERROR => "Parse error",
            ErrorCode::INVALID_REQUEST => "Invalid request",
            ErrorCode::METHOD_NOT_FOUND => "Method not found",
            ErrorCode::INVALID_PARAMS => "Invalid params",
            ErrorCode::INTERNAL_ERROR => "Internal error",
            ErrorCode::RESOURCE_NOT_FOUND => "Resource not found",
            ErrorCode::URL_ELICITATION_REQUIRED => "URL elicitation required",
            ErrorCode::HEADER_MISMATCH => "Header mismatch",
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => "Missing required client capability",
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => "Unsupported protocol version",
            _ => return None,
        })
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
#[non_exhaustive]
pub struct ErrorObject {
    /// What kind of error it is.
    pub code: ErrorCode,
    /// A short description, one sentence.
    pub message: String,
    /// More about the error, as the sender defines it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with `code` and `message` and no data.
    ///
    /// ```
    /// use mcp_runtime_core::{ErrorCode, ErrorObject};
    /// use serde_json::json;
    ///
    /// let busy = ErrorObject::new(ErrorCode(-32000), "too many requests: retry in a second")
    ///     .with_data(json!({"retryAfterMs": 1000}));
    /// assert_eq!(
    ///     serde_json::to_value(&busy).unwrap(),
    ///     json!({"code": -32000, "message": "too many requests: retry in a second",
    ///            "data": {"retryAfterMs": 1000}})
    /// );
    /// // The constructors of the standard codes:
    /// assert_eq!(ErrorObject::parse_error("not JSON").code, ErrorCode::PARSE_ERROR); // -32700
    /// assert_eq!(ErrorObject::invalid_request("no method").code.0, -32600);
    /// assert_eq!(ErrorObject::method_not_found("tools/run").message, "Method not found: tools/run");
    /// assert_eq!(ErrorObject::invalid_params("`limit` must be positive").code.0, -32602);
    /// assert_eq!(ErrorObject::internal_error("the database is down").code.0, -32603);
    /// ```
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` attached.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` with `message`.
    pub fn parse_error(message: impl Into<String>) -> Self {
        ErrorObject::new(ErrorCode::PARSE_ERROR, message)
    }

    /// `-32600` with `message`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        ErrorObject::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// `-32601` for `method`.
    pub fn method_not_found(method: &str) -> Self {
        ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602` with `message`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorObject::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32603` with `message`.
    pub fn internal_error(message: impl Into<String>) -> Self {
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// "Resource not found" for `uri`, with the code `version` uses (`-32002`, or `-32602` from
    /// 2026-07-28 on) and the URI in `data` (see [`ResourceNotFound`]).
    ///
    /// ```
    /// use mcp_runtime_core::{ErrorObject, ProtocolVersion};
    ///
    /// let old = ErrorObject::resource_not_found("notes://7", ProtocolVersion::V2025_11_25);
    /// let new = ErrorObject::resource_not_found("notes://7", ProtocolVersion::V2026_07_28);
    /// assert_eq!((old.code.0, new.code.0), (-32002, -32602));
    /// assert_eq!(new.message, "Resource not found: notes://7");
    /// ```
    pub fn resource_not_found(uri: &str, version: ProtocolVersion) -> Self {
        ResourceNotFound::new(uri, version).into()
    }

    /// `-32020`: an HTTP header disagrees with the body, or a required one is missing (see
    /// [`HeaderMismatch`]).
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        HeaderMismatch(message.into()).into()
    }
}

/// A request named a resource the server does not have.
///
/// Its code depends on the revision of the request: `-32002` up to 2025-11-25, `-32602` from
/// 2026-07-28 on ([`ProtocolVersion::resource_not_found_code`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Resource not found: {uri}")]
#[non_exhaustive]
pub struct ResourceNotFound {
    /// The URI asked for.
    pub uri: String,
    /// The revision of the request, which decides the error code.
    pub version: ProtocolVersion,
}

impl ResourceNotFound {
    /// `uri` was not found, asked for in a request of `version`.
    pub fn new(uri: impl Into<String>, version: ProtocolVersion) -> Self {
        ResourceNotFound {
            uri: uri.into(),
            version,
        }
    }
}

impl From<ResourceNotFound> for ErrorObject {
    fn from(err: ResourceNotFound) -> Self {
        ErrorObject::new(err.version.resource_not_found_code(), err.to_string())
            .with_data(serde_json::json!({ "uri": err.uri }))
    }
}

/// An HTTP header disagrees with the body, or a required one is missing (`-32020`, 2026-07-28).
///
/// The message says which header; it becomes the error object's message as it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HeaderMismatch(pub String);

impl From<HeaderMismatch> for ErrorObject {
    fn from(err: HeaderMismatch) -> Self {
        ErrorObject::new(ErrorCode::HEADER_MISMATCH, err.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_object_wire_form() {
        let err = ErrorObject::method_not_found("foo/bar");
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"code": -32601, "message": "Method not found: foo/bar"})
        );
        assert_eq!(err.to_string(), "Method not found: foo/bar (-32601)");
        assert_eq!(format!("{:?}", err.code), "-32601 (Method not found)");
        assert_eq!(format!("{:?}", ErrorCode(-1)), "-1");
    }

    #[test]
    fn resource_not_found_follows_the_version() {
        let old = ErrorObject::resource_not_found("file:///a", ProtocolVersion::V2025_06_18);
        assert_eq!(old.code, ErrorCode::RESOURCE_NOT_FOUND);
        let new = ErrorObject::resource_not_found("file:///a", ProtocolVersion::V2026_07_28);
        assert_eq!(new.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(new.data, Some(serde_json::json!({"uri": "file:///a"})));
        assert_eq!(new.message, "Resource not found: file:///a");
        assert_eq!(
            ErrorObject::from(ResourceNotFound::new(
                "file:///a",
                ProtocolVersion::V2026_07_28
            )),
            new
        );
    }

    #[test]
    fn header_mismatch_is_a_typed_error() {
        let err = HeaderMismatch("Mcp-Method does not match the body's method".into());
        assert_eq!(
            err.to_string(),
            "Mcp-Method does not match the body's method"
        );
        let obj = ErrorObject::from(err);
        assert_eq!(
            serde_json::to_value(&obj).unwrap(),
            serde_json::json!({"code": -32020, "message": "Mcp-Method does not match the body's method"})
        );
        assert_eq!(
            ErrorObject::header_mismatch("Mcp-Method does not match the body's method"),
            obj
        );
    }
}
