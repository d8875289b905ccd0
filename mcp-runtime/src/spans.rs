//! The `tracing` spans of MCP operations, named and attributed by the OpenTelemetry semantic
//! conventions for MCP (`docs/gen-ai/mcp.md` of the GenAI conventions): the server's span of each
//! request and notification it handles, the client span of each request the server sends its
//! client (elicitation, sampling, the roots) inside the call that needed it, the span of a
//! task's work, linked to the call that created the task, and the client's span of each request
//! an [`McpClient`](crate::client::McpClient) sends.
//!
//! A request's span covers its handler, whose own spans and events nest inside it; it is named
//! `{mcp.method.name} {target}` (`otel.name`, the field `tracing-opentelemetry` names an exported
//! span by), where the target is the tool's or prompt's name, and carries:
//!
//! | field | value |
//! |---|---|
//! | `mcp.method.name` | the method |
//! | `mcp.protocol.version` | the request's revision |
//! | `mcp.session.id` | the `Mcp-Session-Id` of an HTTP session |
//! | `jsonrpc.request.id` | the request's id |
//! | `gen_ai.tool.name`, `gen_ai.prompt.name` | the target of `tools/call`, `prompts/get` |
//! | `gen_ai.operation.name` | `execute_tool`, for `tools/call` |
//! | `mcp.resource.uri` | the URI of `resources/read`, `resources/subscribe`, `resources/unsubscribe` |
//! | `network.transport` | `tcp` over HTTP, else `pipe` |
//! | `error.type`, `rpc.response.status_code` | a failed request's JSON-RPC error code; `tool_error` for a tool's error result; `cancelled` for a request its client cancelled |
//! | `otel.kind`, `otel.status_code`, `otel.status_description` | `server`; `error` and the error's message when it failed |
//!
//! Without a subscriber that wants them, a span costs what `tracing` charges for a disabled
//! callsite: no field is computed.

use mcp_runtime_core::jsonrpc::RequestId;
use mcp_runtime_core::messages::{ClientRequest, ServerResult};
use mcp_runtime_core::{ErrorObject, ProtocolVersion};
use tracing::Span;
use tracing::field::Empty;

use http::HeaderMap;
use serde_json::Value;

/// The target of the spans: filter them with `mcp::server`.
const TARGET: &str = "mcp::server";

/// The span of one MCP request (`$method`, of `$version`), as its sender (`$kind` "client") or
/// its receiver ("server") sees it: every field the conventions give a request, those known
/// later left empty to record.
macro_rules! operation_span {
    ($target:expr, $name:literal, $kind:literal, $method:expr, $version:expr) => {
        tracing::info_span!(
            target: $target,
            $name,
            otel.name = $method,
            otel.kind = $kind,
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = $method,
            mcp.protocol.version = $version.as_str(),
            mcp.session.id = Empty,
            jsonrpc.request.id = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            gen_ai.operation.name = Empty,
            mcp.resource.uri = Empty,
            network.transport = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
        )
    };
}

/// The span of the request `id` with `method`, of `version`, that came in an HTTP request with
/// `http` headers (`None` on stdio and in process); not yet entered. Its target is recorded once
/// the params are decoded ([`record_target`]).
pub(crate) fn request(
    method: &str,
    id: &RequestId,
    version: ProtocolVersion,
    http: Option<&HeaderMap>,
) -> Span {
    let span = operation_span!(TARGET, "mcp.request", "server", method, version);
    if span.is_disabled() {
        return span;
    }
    record_id(&span, id);
    span.record(
        "network.transport",
        if http.is_some() { "tcp" } else { "pipe" },
    );
    if let Some(session) = http
        .and_then(|headers| headers.get(mcp_runtime_core::headers::SESSION_HEADER))
        .and_then(|v| v.to_str().ok())
    {
        span.record("mcp.session.id", session);
    }
    span
}

/// Records on `span` the target that `request` names: the tool, the prompt (also in the span's
/// name), or the resource's URI.
pub(crate) fn record_target(span: &Span, request: &ClientRequest) {
    if span.is_disabled() {
        return;
    }
    let name = match request {
        ClientRequest::CallTool(params) => {
            span.record("gen_ai.tool.name", params.name.as_str());
            span.record("gen_ai.operation.name", "execute_tool");
            &params.name
        }
        ClientRequest::GetPrompt(params) => {
            span.record("gen_ai.prompt.name", params.name.as_str());
            &params.name
        }
        ClientRequest::ReadResource(params) => return record_uri(span, &params.uri),
        ClientRequest::Subscribe(params) => return record_uri(span, &params.uri),
        ClientRequest::Unsubscribe(params) => return record_uri(span, &params.uri),
        _ => return,
    };
    span.record("otel.name", format!("{} {name}", request.method()));
}

fn record_uri(span: &Span, uri: &str) {
    span.record("mcp.resource.uri", uri);
}

/// Records on `span` how its request ended: a JSON-RPC error, or a tool's error result, sets
/// `error.type` and the span's status.
pub(crate) fn record_outcome(span: &Span, outcome: &Result<ServerResult, ErrorObject>) {
    if span.is_disabled() {
        return;
    }
    match outcome {
        Err(error) => record_error(span, error),
        Ok(ServerResult::CallTool(result)) if result.is_error() => record_tool_error(span),
        Ok(_) => {}
    }
}

/// Records on `span` that its `tools/call` answered with a tool's error result.
pub(crate) fn record_tool_error(span: &Span) {
    span.record("error.type", "tool_error");
    span.record("otel.status_code", "error");
}

/// The span of a notification with `method`, of `version`, to enter while it is handled.
pub(crate) fn notification(method: &str, version: ProtocolVersion) -> Span {
    tracing::info_span!(
        target: TARGET,
        "mcp.notification",
        otel.name = method,
        otel.kind = "server",
        mcp.method.name = method,
        mcp.protocol.version = version.as_str(),
    )
}

/// The client span of a request with `method`, of `version`, that the server sends its client;
/// its id is recorded once it has one ([`record_id`]).
pub(crate) fn server_request(method: &str, version: ProtocolVersion) -> Span {
    tracing::info_span!(
        target: TARGET,
        "mcp.server_request",
        otel.name = method,
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        mcp.protocol.version = version.as_str(),
        jsonrpc.request.id = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
    )
}

/// Records the id of `span`'s request.
pub(crate) fn record_id(span: &Span, id: &RequestId) {
    if !span.is_disabled() {
        span.record("jsonrpc.request.id", id.to_string());
    }
}

/// Records on `span` that its request failed without a JSON-RPC error: `kind` says how
/// (`timeout`, `cancelled`, ...), `description` in the user's words.
pub(crate) fn record_failure(span: &Span, kind: &str, description: impl std::fmt::Display) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
    span.record("otel.status_description", description.to_string().as_str());
}

/// Records on `span` that its request failed with `error`.
pub(crate) fn record_error(span: &Span, error: &ErrorObject) {
    if span.is_disabled() {
        return;
    }
    let code = error.code.0.to_string();
    span.record("error.type", code.as_str());
    span.record("rpc.response.status_code", code.as_str());
    span.record("otel.status_code", "error");
    span.record("otel.status_description", error.message.as_str());
}

/// The span of the work of task `id`, which goes on after the call that created it answered:
/// linked to the span of that call (the current one, `follows_from`), of which it is not a child
/// in `tracing`; exported (feature `otel`), it is the call's child.
pub(crate) fn task(id: &str) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        parent: None,
        "mcp.task",
        otel.name = "task",
        otel.kind = "internal",
        mcp.task.id = id,
    );
    span.follows_from(Span::current());
    // In `tracing` the task is not the call's child, which would keep the call's span open
    // until the task ends; exported, it is, so a backend shows the work in the call's trace.
    #[cfg(feature = "otel")]
    crate::telemetry::continue_from(&span, &Span::current());
    span
}

/// The client span of a request with `method` and `params` that a client sends, of `version`;
/// its id is recorded once it has one ([`record_id`]), its outcome when it ends. The
/// input-required rounds of a 2026-07-28 request are one span.
pub(crate) fn client_request(method: &str, params: &Value, version: ProtocolVersion) -> Span {
    let span = operation_span!(
        CLIENT_TARGET,
        "mcp.client_request",
        "client",
        method,
        version
    );
    if span.is_disabled() {
        return span;
    }
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    let name = match method {
        "tools/call" => text("name").inspect(|name| {
            span.record("gen_ai.tool.name", *name);
            span.record("gen_ai.operation.name", "execute_tool");
        }),
        "prompts/get" => text("name").inspect(|name| {
            span.record("gen_ai.prompt.name", *name);
        }),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            if let Some(uri) = text("uri") {
                record_uri(&span, uri);
            }
            None
        }
        _ => None,
    };
    if let Some(name) = name {
        span.record("otel.name", format!("{method} {name}"));
    }
    span
}

/// The target of the client's spans: filter them with `mcp::client`.
const CLIENT_TARGET: &str = "mcp::client";

/// Whose session ended.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    Server,
    Client,
}

/// Emits the event that a session of `side`, opened at `opened` and speaking `version` (`None`
/// for a connection of 2026-07-28 requests, each of which names its own) over `transport`
/// (`pipe` or `tcp`), ended: a `debug` event of target `mcp::session` with its
/// duration in seconds (`mcp.session.duration`), from which the `otel` feature records the
/// session metrics.
pub(crate) fn session_ended(
    side: Side,
    opened: crate::rt::Instant,
    version: Option<ProtocolVersion>,
    transport: &'static str,
) {
    let side = match side {
        Side::Server => "server",
        Side::Client => "client",
    };
    tracing::event!(
        target: "mcp::session",
        tracing::Level::DEBUG,
        mcp.session.side = side,
        mcp.session.duration = opened.elapsed().as_secs_f64(),
        mcp.protocol.version = version.map(ProtocolVersion::as_str),
        network.transport = transport,
        network.protocol.name = (transport == "tcp").then_some("http"),
        "the MCP session ended"
    );
}

/// The span of an HTTP request (`method` of `uri`) to the MCP endpoint (target `mcp::http`),
/// inside which the spans of the MCP messages it carries open: named by its method, with
/// `http.request.method`, `url.path`, and `http.response.status_code` once it is answered
/// ([`record_http_status`]).
#[cfg(feature = "http-handler")]
pub(crate) fn http_request(method: &http::Method, uri: &http::Uri) -> Span {
    let method = method.as_str();
    tracing::info_span!(
        target: "mcp::http",
        "http.request",
        otel.name = method,
        otel.kind = "server",
        http.request.method = method,
        url.path = uri.path(),
        http.response.status_code = Empty,
    )
}

/// Records the `status` of the response to the HTTP request of `span`.
#[cfg(feature = "http-handler")]
pub(crate) fn record_http_status(span: &Span, status: http::StatusCode) {
    if !span.is_disabled() {
        span.record("http.response.status_code", status.as_u16());
    }
}
