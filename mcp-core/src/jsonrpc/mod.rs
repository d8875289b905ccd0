//! JSON-RPC 2.0, the framing every MCP message travels in.
//!
//! - [`RequestId`]: string or integer ids (`0` included).
//! - [`JsonRpcRequest`], [`JsonRpcNotification`], [`JsonRpcResponse`], [`JsonRpcErrorResponse`] and
//!   [`JsonRpcMessage`]: the envelopes.
//! - [`Params`]: a call's params as received, decoded once its method is known.
//! - [`parse`]: wire text to messages, batches, parse errors (`-32700`) and invalid requests
//!   (`-32600`).

mod id;
mod message;
mod params;
mod parse;

pub use id::{ProgressToken, RequestId};
pub use message::{
    JSONRPC_VERSION, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    JsonRpcResponse, RawCall,
};
pub use params::{Params, members};
pub use parse::{EnvelopeError, Incoming, message_from_value, parse};
