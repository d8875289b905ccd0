//! The JSON-RPC parser on any bytes, and the typed decoding of every request and notification it
//! reads, as the server does with what a peer sends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime_core::jsonrpc::{Incoming, JsonRpcMessage, parse};
use mcp_runtime_core::messages::{ClientNotification, ClientRequest};

fn decode(message: &JsonRpcMessage) {
    match message {
        JsonRpcMessage::Request(request) => {
            let call = &request.request;
            let _ = ClientRequest::decode(&call.method, call.params.as_ref());
        }
        JsonRpcMessage::Notification(notification) => {
            let call = &notification.notification;
            let _ = ClientNotification::decode(&call.method, call.params.as_ref());
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    match parse(data) {
        Ok(Incoming::Message(message)) => decode(&message),
        Ok(Incoming::Batch(entries)) => entries.iter().flatten().for_each(decode),
        _ => {}
    }
});
