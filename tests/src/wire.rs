//! Checks of what a server sends against the official schemas: responses to the client's
//! requests, and the server's own requests and notifications.

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};

use crate::spec_schema;

/// The schema definition of the result of `method`.
fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => "Result",
        _ => return None,
    })
}

/// The schema definition of a message the server sends on its own.
fn outbound_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/message" => "LoggingMessageNotification",
        "notifications/progress" => "ProgressNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "notifications/elicitation/complete" => "ElicitationCompleteNotification",
        "sampling/createMessage" => "CreateMessageRequest",
        "elicitation/create" => "ElicitRequest",
        "roots/list" => "ListRootsRequest",
        "ping" => "PingRequest",
        _ => return None,
    })
}

/// Checks a response of the server to a request of `method` against the schema of `version`:
/// the envelope, and the result's own definition.
pub fn check_response(version: ProtocolVersion, message: &Value, method: &str) {
    let schema = spec_schema(version);
    if message.get("error").is_some() {
        let envelope = if schema.has("JSONRPCErrorResponse") {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        schema
            .check(envelope, message)
            .unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let envelope = if schema.has("JSONRPCResultResponse") {
        "JSONRPCResultResponse"
    } else {
        "JSONRPCResponse"
    };
    schema
        .check(envelope, message)
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(definition) = result_definition(method) {
        schema
            .check(definition, &message["result"])
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Checks a request or notification the server sent on its own (of `method`) against the schema
/// of `version`: the envelope, and the message's own definition.
pub fn check_server_message(version: ProtocolVersion, message: &Value, method: &str) {
    let schema = spec_schema(version);
    let envelope = if message.get("id").is_some() {
        "JSONRPCRequest"
    } else {
        "JSONRPCNotification"
    };
    schema
        .check(envelope, message)
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(definition) = outbound_definition(method).filter(|d| schema.has(d)) {
        let instance = if schema.is_envelope(definition) {
            message.clone()
        } else {
            let mut instance = json!({"method": message["method"]});
            if let Some(params) = message.get("params") {
                instance["params"] = params.clone();
            }
            instance
        };
        schema
            .check(definition, &instance)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
