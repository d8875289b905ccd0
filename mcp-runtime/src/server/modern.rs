//! The per-request rules of 2026-07-28, whatever the transport: a request of that revision
//! carries its protocol version and the client's capabilities in `_meta`, names a version the
//! server speaks, and calls a method the revision has.

use mcp_core::meta::keys::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use mcp_core::{ErrorObject, ProtocolVersion, SupportedVersions};
use serde_json::Value;

/// The requests a 2026-07-28 client may send (the `ClientRequest` union of its schema).
/// `initialize`, `ping`, `logging/setLevel` and `resources/(un)subscribe` are gone.
const METHODS: [&str; 10] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "subscriptions/listen",
];

/// Whether the params of a request mark it as a 2026-07-28 one (their `_meta` names a protocol
/// version).
pub(crate) fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .is_some_and(|meta| meta.get(PROTOCOL_VERSION).is_some())
}

/// The protocol version a 2026-07-28 request names in its `_meta`; `-32602` when `_meta`, the
/// version or the client capabilities are missing.
pub(crate) fn requested_version(params: Option<&Value>) -> Result<&str, ErrorObject> {
    let meta = params.and_then(|p| p.get("_meta"));
    let Some(meta) = meta.and_then(Value::as_object) else {
        return Err(ErrorObject::invalid_params(
            "Invalid params: a 2026-07-28 request needs _meta",
        ));
    };
    for key in [PROTOCOL_VERSION, CLIENT_CAPABILITIES] {
        if !meta.contains_key(key) {
            return Err(ErrorObject::invalid_params(format!(
                "Invalid params: _meta lacks {key}"
            )));
        }
    }
    meta[PROTOCOL_VERSION].as_str().ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "Invalid params: _meta {PROTOCOL_VERSION} is not a string"
        ))
    })
}

/// Checks that the server speaks `requested` (`-32022`, listing every version the server
/// speaks, as `server/discover` does, so that a client of an older revision learns it can fall
/// back to the handshake) and that the revision has `method` (`-32601`).
pub(crate) fn check_version_and_method(
    requested: &str,
    method: &str,
    supported: SupportedVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let version = supported.check_modern(requested)?;
    if !METHODS.contains(&method) {
        return Err(ErrorObject::method_not_found(method));
    }
    Ok(version)
}
