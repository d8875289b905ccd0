//! What each side supports: `ClientCapabilities` and `ServerCapabilities`.
//!
//! In the handshake era they are exchanged once, in `initialize`; in 2026-07-28 the client declares
//! its capabilities on every request (`_meta["io.modelcontextprotocol/clientCapabilities"]`) and the
//! server publishes its own in `server/discover`. A capability is present when its object is
//! present; an empty object (`{}`) means "supported, no settings".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::error::{ErrorCode, ErrorObject};
use crate::render::{self, skip};
use crate::version::ProtocolVersion;

/// Settings objects keyed by name (`experimental` and `extensions`).
pub type CapabilityMap = BTreeMap<String, JsonObject>;

/// What a client supports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "render::json_object"
    )]
    pub experimental: Option<CapabilityMap>,
    /// The client can list roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from an LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can ask its user for input (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub elicitation: Option<ElicitationCapability>,
    /// The client can run requests as tasks (2025-11-25 only; an extension from 2026-07-28 on).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub tasks: Option<ClientTasksCapability>,
    /// Extensions the client supports, with their settings. Defined by 2026-07-28; sent on the
    /// 2025 revisions too, whose capabilities are an open set, because hosts declare extensions
    /// such as MCP Apps (`io.modelcontextprotocol/ui`) there as the official SDKs do.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "render::json_object"
    )]
    pub extensions: Option<CapabilityMap>,
}

impl ClientCapabilities {
    /// The capabilities named in `names`, a comma-separated list of `sampling`, `sampling.tools`,
    /// `roots`, `elicitation` or `elicitation.form` (form mode), and `elicitation.url`: what a tool
    /// declares it needs (`#[mcp_tool(requires = "...")]`), and what a
    /// [`MissingClientCapability`] error tells the client to declare. Unknown names are ignored.
    pub fn named(names: &str) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        for name in names.split(',').map(str::trim) {
            match name {
                "sampling" => {
                    capabilities
                        .sampling
                        .get_or_insert_with(SamplingCapability::default);
                }
                "sampling.tools" => {
                    let sampling = capabilities
                        .sampling
                        .get_or_insert_with(SamplingCapability::default);
                    sampling.tools = Some(JsonObject::new());
                }
                "roots" => capabilities.roots = Some(RootsCapability::default()),
                "elicitation" | "elicitation.form" => {
                    let elicitation = capabilities
                        .elicitation
                        .get_or_insert_with(ElicitationCapability::default);
                    elicitation.form = Some(JsonObject::new());
                }
                "elicitation.url" => {
                    let elicitation = capabilities
                        .elicitation
                        .get_or_insert_with(ElicitationCapability::default);
                    elicitation.url = Some(JsonObject::new());
                }
                _ => {}
            }
        }
        capabilities
    }

    /// The first of these capabilities (the ones a server needs) that `declared` (the client's)
    /// lacks, by the name [`named`](Self::named) reads: `sampling`, `sampling.tools`, `roots`,
    /// `elicitation.form` or `elicitation.url`.
    pub fn first_missing(&self, declared: &ClientCapabilities) -> Option<&'static str> {
        let checks = [
            (
                self.sampling.is_some(),
                declared.supports_sampling(),
                "sampling",
            ),
            (
                self.supports_sampling_tools(),
                declared.supports_sampling_tools(),
                "sampling.tools",
            ),
            (self.roots.is_some(), declared.supports_roots(), "roots"),
            (
                self.supports_elicitation_form(),
                declared.supports_elicitation_form(),
                "elicitation.form",
            ),
            (
                self.supports_elicitation_url(),
                declared.supports_elicitation_url(),
                "elicitation.url",
            ),
        ];
        checks
            .into_iter()
            .find(|(needed, present, _)| *needed && !*present)
            .map(|(_, _, name)| name)
    }

    /// Whether the client lists roots.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client samples.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether the client samples with `tools` and `toolChoice` (2025-11-25).
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether the client answers form-mode elicitation. An `elicitation` object that names no mode
    /// means form mode only.
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client answers URL-mode elicitation (2025-11-25).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Whether the client declared the extension `id`.
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
}

/// A request needs client capabilities it did not declare (`-32021`,
/// `MissingRequiredClientCapabilityError`, 2026-07-28).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("Missing required client capability")]
pub struct MissingClientCapability {
    /// The capabilities the request needs.
    pub required: ClientCapabilities,
}

impl From<MissingClientCapability> for ErrorObject {
    fn from(err: MissingClientCapability) -> Self {
        let required = render::to_value(&err.required, ProtocolVersion::V2026_07_28)
            .unwrap_or_else(|_| serde_json::json!({}));
        ErrorObject::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            err.to_string(),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }
}

/// The client's `roots` capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootsCapability {
    /// The client sends `notifications/roots/list_changed` (removed in 2026-07-28).
    #[serde(default, skip_serializing_if = "skip::until_2025_11_25")]
    pub list_changed: Option<bool>,
}

/// The client's `sampling` capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingCapability {
    /// The client honours `includeContext` other than `"none"` (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_11_25",
        serialize_with = "render::json_object"
    )]
    pub context: Option<JsonObject>,
    /// The client samples with `tools` and `toolChoice` (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_11_25",
        serialize_with = "render::json_object"
    )]
    pub tools: Option<JsonObject>,
}

/// The client's `elicitation` capability. With neither mode named, it means form mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_11_25",
        serialize_with = "render::json_object"
    )]
    pub form: Option<JsonObject>,
    /// URL mode (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_11_25",
        serialize_with = "render::json_object"
    )]
    pub url: Option<JsonObject>,
}

/// The client's `tasks` capability (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientTasksCapability {
    /// The client answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The client answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// The server requests the client may run as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
}

/// The server-to-client requests a client can run as tasks (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientTaskRequests {
    /// Sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTaskRequests>,
    /// Elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTaskRequests>,
}

/// `tasks.requests.sampling` (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTaskRequests {
    /// `sampling/createMessage` can run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
}

/// `tasks.requests.elicitation` (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationTaskRequests {
    /// `elicitation/create` can run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
}

/// What a server supports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "render::json_object"
    )]
    pub experimental: Option<CapabilityMap>,
    /// The server sends log messages.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "render::json_object"
    )]
    pub logging: Option<JsonObject>,
    /// The server completes arguments (2025-03-26).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_03_26",
        serialize_with = "render::json_object"
    )]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// The server runs requests as tasks (2025-11-25 only; an extension from 2026-07-28 on).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub tasks: Option<ServerTasksCapability>,
    /// Extensions the server supports, with their settings (2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2026_07_28",
        serialize_with = "render::json_object"
    )]
    pub extensions: Option<CapabilityMap>,
}

/// The server's `prompts` capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// The server announces changes to its prompt list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's `resources` capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Clients can subscribe to changes of single resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server announces changes to its resource list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's `tools` capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// The server announces changes to its tool list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's `tasks` capability (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerTasksCapability {
    /// The server answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The server answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// The client requests the server may run as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
}

/// The client-to-server requests a server can run as tasks (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerTaskRequests {
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolTaskRequests>,
}

/// `tasks.requests.tools` (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolTaskRequests {
    /// `tools/call` can run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn client(wire: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(wire).unwrap()
    }

    #[test]
    fn capabilities_are_named_and_the_first_missing_one_is_found() {
        let named = |names: &str| serde_json::to_value(ClientCapabilities::named(names)).unwrap();
        assert_eq!(named("sampling"), json!({"sampling": {}}));
        assert_eq!(named("sampling.tools"), json!({"sampling": {"tools": {}}}));
        assert_eq!(named("roots"), json!({"roots": {}}));
        assert_eq!(named("elicitation"), json!({"elicitation": {"form": {}}}));
        assert_eq!(
            named(" elicitation.form , elicitation.url, unknown"),
            json!({"elicitation": {"form": {}, "url": {}}})
        );
        let required = ClientCapabilities::named("roots, sampling.tools, elicitation.url");
        assert_eq!(required.first_missing(&client(json!({}))), Some("sampling"));
        assert_eq!(
            required.first_missing(&client(json!({"sampling": {}}))),
            Some("sampling.tools")
        );
        assert_eq!(
            required.first_missing(&client(json!({"sampling": {"tools": {}}}))),
            Some("roots")
        );
        assert_eq!(
            required.first_missing(&client(
                json!({"sampling": {"tools": {}}, "roots": {}, "elicitation": {}})
            )),
            Some("elicitation.url")
        );
        assert_eq!(
            required.first_missing(&client(
                json!({"sampling": {"tools": {}}, "roots": {}, "elicitation": {"url": {}}})
            )),
            None
        );
    }

    #[test]
    fn elicitation_modes() {
        let none = client(json!({}));
        assert!(!none.supports_elicitation_form() && !none.supports_elicitation_url());
        let bare = client(json!({"elicitation": {}}));
        assert!(bare.supports_elicitation_form() && !bare.supports_elicitation_url());
        let url = client(json!({"elicitation": {"url": {}}}));
        assert!(!url.supports_elicitation_form() && url.supports_elicitation_url());
        let both = client(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(both.supports_elicitation_form() && both.supports_elicitation_url());
    }

    #[test]
    fn sampling_and_extensions() {
        let caps = client(json!({
            "sampling": {"tools": {}},
            "roots": {"listChanged": true},
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}},
            "somethingNew": {"x": 1}
        }));
        assert!(caps.supports_sampling() && caps.supports_sampling_tools());
        assert!(caps.supports_roots());
        assert!(caps.supports_extension("io.modelcontextprotocol/ui"));
        assert!(!caps.supports_extension("io.modelcontextprotocol/tasks"));
    }

    #[test]
    fn missing_capability_error() {
        let err = ErrorObject::from(MissingClientCapability {
            required: client(json!({"elicitation": {"form": {}}})),
        });
        assert_eq!(err.code.0, -32021);
        assert_eq!(
            err.data,
            Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
        );
    }

    #[test]
    fn json_objects_of_2026_admit_no_floats_or_nulls() {
        let v2026 = ProtocolVersion::V2026_07_28;
        let caps = client(json!({"experimental": {"com.example/x": {"ratio": 0.5}}}));
        assert_eq!(
            render::to_value(&caps, v2026).unwrap_err().to_string(),
            "`com.example/x.ratio` (a float or null, which `JSONValue` does not admit) cannot be \
             rendered for protocol revision 2026-07-28"
        );
        // Older revisions take any JSON.
        assert_eq!(
            render::to_value(&caps, ProtocolVersion::V2025_11_25).unwrap(),
            json!({"experimental": {"com.example/x": {"ratio": 0.5}}})
        );
        let caps = client(json!({"extensions": {"io.example/y": {"list": [1, null]}}}));
        assert_eq!(
            render::to_value(&caps, v2026).unwrap_err().to_string(),
            "`io.example/y.list[1]` (a float or null, which `JSONValue` does not admit) cannot be \
             rendered for protocol revision 2026-07-28"
        );
        let server: ServerCapabilities =
            serde_json::from_value(json!({"logging": {"level": null}})).unwrap();
        assert_eq!(
            render::to_value(&server, v2026).unwrap_err().to_string(),
            "`level` (a float or null, which `JSONValue` does not admit) cannot be rendered for \
             protocol revision 2026-07-28"
        );
        let fine = client(
            json!({"extensions": {"io.example/y": {"n": -3, "s": "x", "b": true,
                                                                  "a": [{"k": 1}]}}}),
        );
        assert_eq!(
            render::to_value(&fine, v2026).unwrap(),
            json!({"extensions": {"io.example/y": {"n": -3, "s": "x", "b": true, "a": [{"k": 1}]}}})
        );
    }
}
