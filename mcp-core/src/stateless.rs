//! The per-request rules of the 2026-07-28 revision, whatever the transport.
//!
//! That revision has no handshake and no session: each request carries what a session would
//! have settled, in its `_meta` ([`StatelessMeta`]): its protocol version and the client's
//! capabilities. A server checks that the request names a version it speaks, and that the method
//! is one of that revision's client requests ([`check_version_and_method`], from the revisions
//! [`ClientRequest::revisions_of`] gives).

use crate::jsonrpc::{Params, members};
use crate::messages::ClientRequest;
use crate::meta::keys::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use crate::{ErrorObject, ProtocolVersion, SupportedVersions};
use serde_json::value::RawValue;

/// The members of a request's `_meta` that mark a 2026-07-28 request and describe it: its
/// protocol version and the client's capabilities, as JSON text.
pub struct StatelessMeta<'a>(Option<[Option<&'a RawValue>; 2]>);

impl<'a> StatelessMeta<'a> {
    /// Reads them from `params`.
    pub fn of(params: Option<&'a Params>) -> Self {
        StatelessMeta(params.and_then(|p| p.meta_members([PROTOCOL_VERSION, CLIENT_CAPABILITIES])))
    }

    /// Reads them from the `_meta` member of a request's params, when the caller found it.
    pub fn in_member(meta: Option<&'a RawValue>) -> Self {
        StatelessMeta(meta.and_then(|meta| members(meta, [PROTOCOL_VERSION, CLIENT_CAPABILITIES])))
    }

    /// Whether they mark a 2026-07-28 request (`_meta` names a protocol version).
    pub fn is_stateless(&self) -> bool {
        self.0.is_some_and(|[version, _]| version.is_some())
    }

    /// The protocol version a 2026-07-28 request names; `-32602` when `_meta`, the version or
    /// the client capabilities are missing.
    pub fn requested_version(&self) -> Result<String, ErrorObject> {
        let Some([version, capabilities]) = self.0 else {
            return Err(ErrorObject::invalid_params(
                "Invalid params: a 2026-07-28 request needs _meta",
            ));
        };
        for (key, member) in [
            (PROTOCOL_VERSION, version),
            (CLIENT_CAPABILITIES, capabilities),
        ] {
            if member.is_none() {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: _meta lacks {key}"
                )));
            }
        }
        version
            .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
            .ok_or_else(|| {
                ErrorObject::invalid_params(format!(
                    "Invalid params: _meta {PROTOCOL_VERSION} is not a string"
                ))
            })
    }
}

/// Checks that the server speaks `requested` (`-32022`, listing every version the server
/// speaks, as `server/discover` does, so that a client of an older revision learns it can fall
/// back to the handshake) and that the revision has `method` (`-32601`).
pub fn check_version_and_method(
    requested: &str,
    method: &str,
    supported: SupportedVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let version = supported.check_stateless(requested)?;
    let defined = ClientRequest::revisions_of(method).is_some_and(|r| r.contains(&version));
    if !defined {
        return Err(ErrorObject::method_not_found(method));
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{Incoming, JsonRpcMessage, parse};

    /// The params of a request, as received (escapes kept).
    fn params(text: &str) -> Params {
        let wire =
            format!(r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {text}}}"#);
        match parse(wire.as_bytes()) {
            Ok(Incoming::Message(JsonRpcMessage::Request(request))) => {
                request.request.params.expect("params")
            }
            other => panic!("{other:?}"),
        }
    }

    fn is_stateless(text: &str) -> bool {
        StatelessMeta::of(Some(&params(text))).is_stateless()
    }

    fn requested_version(text: &str) -> Result<String, String> {
        StatelessMeta::of(Some(&params(text)))
            .requested_version()
            .map_err(|e| e.message)
    }

    #[test]
    fn a_version_in_meta_marks_a_stateless_request_however_the_key_is_spelled() {
        let stateless = r#"{"name": "t", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}}}"#;
        assert!(is_stateless(stateless));
        assert_eq!(requested_version(stateless).unwrap(), "2026-07-28");
        assert!(is_stateless(
            r#"{"\u005fmeta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}"#
        ));
        assert!(!is_stateless(r#"{"name": "t", "arguments": {"meta": 1}}"#));
        assert!(!is_stateless(r#"{"_meta": {"progressToken": 1}}"#));
        assert!(!is_stateless("[1]"));
        assert!(!StatelessMeta::of(None).is_stateless());
    }

    #[test]
    fn what_a_stateless_request_lacks_is_named() {
        assert_eq!(
            requested_version(r#"{"name": "t"}"#).unwrap_err(),
            "Invalid params: a 2026-07-28 request needs _meta"
        );
        assert_eq!(
            requested_version(
                r#"{"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}"#
            )
            .unwrap_err(),
            "Invalid params: _meta lacks io.modelcontextprotocol/clientCapabilities"
        );
        assert_eq!(
            requested_version(
                r#"{"_meta": {"io.modelcontextprotocol/protocolVersion": 7,
                              "io.modelcontextprotocol/clientCapabilities": {}}}"#
            )
            .unwrap_err(),
            "Invalid params: _meta io.modelcontextprotocol/protocolVersion is not a string"
        );
    }

    #[test]
    fn the_methods_of_2026_07_28_are_those_its_schema_defines() {
        let all = SupportedVersions::ALL;
        let methods = [
            "initialize",
            "ping",
            "server/discover",
            "tools/list",
            "tools/call",
            "prompts/list",
            "prompts/get",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
            "logging/setLevel",
            "completion/complete",
            "subscriptions/listen",
            "tasks/get",
            "tasks/update",
            "tasks/cancel",
            "tasks/result",
            "tasks/list",
            "no/such/method",
        ];
        let accepted: Vec<&str> = methods
            .into_iter()
            .filter(|method| check_version_and_method("2026-07-28", method, all).is_ok())
            .collect();
        assert_eq!(
            accepted,
            [
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
                "tasks/get",
                "tasks/update",
                "tasks/cancel",
            ]
        );
        let refused = check_version_and_method("2026-07-28", "ping", all).unwrap_err();
        assert_eq!(
            (refused.code.0, refused.message.as_str()),
            (-32601, "Method not found: ping")
        );
    }
}
