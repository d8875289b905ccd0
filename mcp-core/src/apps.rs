//! MCP Apps (the extension `io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26) as data:
//! a tool names an interface, a `ui://` resource of MIME type `text/html;profile=mcp-app`, that
//! the host renders in a sandboxed iframe beside the conversation.
//!
//! - A tool's `_meta.ui` is a [`ToolUi`]: the interface's URI and who may call the tool
//!   ([`Visibility`]). Hosts still read the deprecated flat key `_meta["ui/resourceUri"]`
//!   ([`LEGACY_RESOURCE_URI_KEY`]), which [`ToolUi::write_to`] writes too.
//! - A UI resource's `_meta.ui` (on the listed resource and on its read contents) is a
//!   [`ResourceUi`]: the origins its content security policy allows ([`Csp`]), the browser
//!   permissions it asks for ([`Permissions`]), a dedicated origin, and a border preference.
//! - A host that renders apps declares `capabilities.extensions["io.modelcontextprotocol/ui"]`
//!   with the MIME types it renders ([`UiCapability`]).
//!
//! ```
//! use mcp_runtime_core::apps::{ToolUi, Visibility};
//!
//! let ui = ToolUi::new("ui://notes/board").visibility([Visibility::App]);
//! let mut meta = serde_json::Map::new();
//! ui.write_to(&mut meta);
//! assert_eq!(
//!     serde_json::Value::Object(meta),
//!     serde_json::json!({
//!         "ui": {"resourceUri": "ui://notes/board", "visibility": ["app"]},
//!         "ui/resourceUri": "ui://notes/board",
//!     })
//! );
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonObject;
use crate::capabilities::ClientCapabilities;
use crate::resources::{Resource, ResourceContents};
use crate::tools::Tool;

/// The extension's identifier, the key of its capability in `extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML interface.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of UI resources.
pub const SCHEME: &str = "ui";

/// The `_meta` key of a tool's or a resource's UI metadata.
pub const META_KEY: &str = "ui";

/// The deprecated flat `_meta` key naming a tool's interface, which hosts still read.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// Who may call a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Visibility {
    /// The agent: the tool is in the model's list of tools.
    Model,
    /// The app, from the same server connection: its interface may call the tool.
    App,
}

/// A tool's `_meta.ui`: the interface that renders its results, and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUi {
    /// The `ui://` resource of the tool's interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; both the model and the app when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// The interface at `resource_uri`, for the model and the app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        ToolUi {
            resource_uri: Some(resource_uri.into()),
            visibility: None,
        }
    }

    /// Who may call the tool.
    #[must_use]
    pub fn visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// Whether `who` may call the tool (both may when no visibility is given).
    pub fn is_visible_to(&self, who: Visibility) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&who))
    }

    /// The UI metadata of a tool's `_meta`: its `ui` object, or else the deprecated flat key;
    /// `None` when neither is there, or `ui` is malformed.
    pub fn from_meta(meta: &JsonObject) -> Option<ToolUi> {
        match meta.get(META_KEY) {
            Some(ui) => serde_json::from_value(ui.clone()).ok(),
            None => meta
                .get(LEGACY_RESOURCE_URI_KEY)
                .and_then(Value::as_str)
                .map(ToolUi::new),
        }
    }

    /// Writes this into a tool's `_meta`: `ui`, and the deprecated flat key for hosts that
    /// still read it.
    pub fn write_to(&self, meta: &mut JsonObject) {
        if let Ok(ui) = serde_json::to_value(self) {
            meta.insert(META_KEY.into(), ui);
        }
        match &self.resource_uri {
            Some(uri) => meta.insert(LEGACY_RESOURCE_URI_KEY.into(), Value::String(uri.clone())),
            None => meta.remove(LEGACY_RESOURCE_URI_KEY),
        };
    }
}

/// The origins an app's content security policy allows, beyond its own document. Each list
/// empty or absent allows none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Csp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for scripts, styles, images, fonts and media; `https://*.example.com` allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins for nested iframes (`frame-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Allowed base URIs of the document (`base-uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

/// A list of origins, from any strings.
fn origin_list(origins: impl IntoIterator<Item = impl Into<String>>) -> Option<Vec<String>> {
    Some(origins.into_iter().map(Into::into).collect())
}

impl Csp {
    /// A policy that allows no origin beyond the document's own.
    pub fn new() -> Self {
        Csp::default()
    }

    /// Allows fetch, XHR and WebSocket connections to `origins` (`connectDomains`).
    #[must_use]
    pub fn connect(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.connect_domains = origin_list(origins);
        self
    }

    /// Allows scripts, styles, images, fonts and media from `origins` (`resourceDomains`).
    #[must_use]
    pub fn resources(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.resource_domains = origin_list(origins);
        self
    }

    /// Allows nested iframes from `origins` (`frameDomains`).
    #[must_use]
    pub fn frames(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.frame_domains = origin_list(origins);
        self
    }

    /// Allows `origins` as the document's base URI (`baseUriDomains`).
    #[must_use]
    pub fn base_uris(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.base_uri_domains = origin_list(origins);
        self
    }

    /// Every origin listed, with the name of its list (`connectDomains`, ...).
    pub fn origins(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ]
        .into_iter()
        .flat_map(|(name, list)| {
            list.iter()
                .flatten()
                .map(move |origin| (name, origin.as_str()))
        })
    }
}

/// A permission an app asks for carries no settings: present means asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Asked {}

/// The browser permissions an app asks for; hosts may grant them (the iframe's `allow`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Permissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Asked>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Asked>,
    /// The location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Asked>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Asked>,
}

impl Permissions {
    /// Asks for nothing.
    pub fn new() -> Self {
        Permissions::default()
    }

    /// Asks for the camera.
    #[must_use]
    pub fn camera(mut self) -> Self {
        self.camera = Some(Asked {});
        self
    }

    /// Asks for the microphone.
    #[must_use]
    pub fn microphone(mut self) -> Self {
        self.microphone = Some(Asked {});
        self
    }

    /// Asks for the location.
    #[must_use]
    pub fn geolocation(mut self) -> Self {
        self.geolocation = Some(Asked {});
        self
    }

    /// Asks to write to the clipboard.
    #[must_use]
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = Some(Asked {});
        self
    }
}

/// A UI resource's `_meta.ui`: how the host should sandbox and frame it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceUi {
    /// The origins its content security policy allows; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<Csp>,
    /// The browser permissions it asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated origin for its sandbox, in the form the host documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl ResourceUi {
    /// Nothing said: the host's defaults (no origin beyond the page's own, no permission).
    pub fn new() -> Self {
        ResourceUi::default()
    }

    /// The origins its content security policy allows.
    #[must_use]
    pub fn csp(mut self, csp: Csp) -> Self {
        self.csp = Some(csp);
        self
    }

    /// The browser permissions it asks for.
    #[must_use]
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.permissions = Some(permissions);
        self
    }

    /// A dedicated origin for its sandbox, in the form the host documents.
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around it.
    #[must_use]
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.prefers_border = Some(prefers);
        self
    }

    /// The UI metadata of a resource's `_meta`; `None` when absent or malformed.
    pub fn from_meta(meta: &JsonObject) -> Option<ResourceUi> {
        serde_json::from_value(meta.get(META_KEY)?.clone()).ok()
    }

    /// Writes this into a resource's `_meta` (as `ui`).
    pub fn write_to(&self, meta: &mut JsonObject) {
        if let Ok(ui) = serde_json::to_value(self) {
            meta.insert(META_KEY.into(), ui);
        }
    }
}

/// A host's `extensions["io.modelcontextprotocol/ui"]`: the interface types it renders.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UiCapability {
    /// The MIME types it renders (`text/html;profile=mcp-app`).
    #[serde(default)]
    pub mime_types: Vec<String>,
}

impl UiCapability {
    /// What a host that renders HTML apps declares.
    pub fn html() -> Self {
        UiCapability {
            mime_types: vec![MIME_TYPE.to_owned()],
        }
    }

    /// The capability `client` declared, if any.
    pub fn of(client: &ClientCapabilities) -> Option<UiCapability> {
        let settings = client.extensions.as_ref()?.get(EXTENSION_ID)?;
        serde_json::from_value(Value::Object(settings.clone())).ok()
    }

    /// Whether it renders HTML apps.
    pub fn renders_html(&self) -> bool {
        self.mime_types.iter().any(|m| m == MIME_TYPE)
    }

    /// The settings object to put under `extensions`.
    pub fn to_settings(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(Value::Object(settings)) => settings,
            _ => JsonObject::new(),
        }
    }
}

impl ClientCapabilities {
    /// Whether the client's host renders HTML apps (it declared the extension
    /// `io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`). A tool with an interface
    /// answers every client with meaningful text; this tells whether the interface will be
    /// seen too.
    pub fn renders_apps(&self) -> bool {
        // Read in place: a tool's handler or `tools/list` may ask on every request.
        let settings = self.extensions.as_ref().and_then(|e| e.get(EXTENSION_ID));
        let types = settings
            .and_then(|s| s.get("mimeTypes"))
            .and_then(Value::as_array);
        types.is_some_and(|types| types.iter().any(|t| t == MIME_TYPE))
    }
}

impl Tool {
    /// The tool's interface and who may call it (`_meta.ui`, or the deprecated flat key), if
    /// it has one.
    pub fn ui(&self) -> Option<ToolUi> {
        self.meta.as_ref().and_then(ToolUi::from_meta)
    }

    /// Whether the model may call the tool: it has no interface, or its visibility names the
    /// model. A host leaves the other tools out of the model's list.
    pub fn is_for_model(&self) -> bool {
        self.is_visible_to(Visibility::Model)
    }

    /// Whether an app may call the tool: it has no interface, or its visibility names the app.
    /// A host refuses an app's call of any other.
    pub fn is_for_app(&self) -> bool {
        self.is_visible_to(Visibility::App)
    }

    fn is_visible_to(&self, who: Visibility) -> bool {
        self.ui().is_none_or(|ui| ui.is_visible_to(who))
    }
}

impl Resource {
    /// How the host should sandbox the interface this resource is (`_meta.ui`), if said.
    pub fn ui(&self) -> Option<ResourceUi> {
        self.meta.as_ref().and_then(ResourceUi::from_meta)
    }

    /// Whether this resource is an app's interface: a `ui://` URI served as
    /// `text/html;profile=mcp-app`.
    pub fn is_app(&self) -> bool {
        is_ui_uri(&self.uri) && self.mime_type.as_deref() == Some(MIME_TYPE)
    }
}

impl ResourceContents {
    /// How the host should sandbox these contents, an app's interface (`_meta.ui`), if said.
    pub fn ui(&self) -> Option<ResourceUi> {
        let meta = match self {
            ResourceContents::Text(t) => t.meta.as_ref(),
            ResourceContents::Blob(b) => b.meta.as_ref(),
        };
        meta.and_then(ResourceUi::from_meta)
    }
}

/// Whether `uri` names a UI resource (`ui://...`).
pub fn is_ui_uri(uri: &str) -> bool {
    uri.strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_prefix("://"))
        .is_some_and(|rest| !rest.is_empty())
}

/// Why a CSP entry is not an origin.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{origin:?} is not an origin ({why}); write scheme://host[:port], as https://api.example.com or https://*.example.com"
)]
pub struct BadOrigin {
    /// The entry.
    pub origin: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Checks that `origin` is what a CSP source list takes for an origin: `scheme://host[:port]`,
/// the host possibly starting with `*.`, without a path, query or fragment.
pub fn check_origin(origin: &str) -> Result<(), BadOrigin> {
    let bad = |why| {
        Err(BadOrigin {
            origin: origin.to_owned(),
            why,
        })
    };
    let Some((scheme, rest)) = origin.split_once("://") else {
        return bad("no scheme");
    };
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return bad("a malformed scheme");
    }
    if rest.contains(['/', '?', '#']) {
        return bad("a path, query or fragment");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || rest.starts_with('[') => (host, Some(port)),
        _ => (rest, None),
    };
    if let Some(port) = port
        && (port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()) || port.len() > 5)
    {
        return bad("a malformed port");
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    if name.is_empty()
        || name.contains('*')
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '[' | ']' | ':'))
    {
        return bad("a malformed host");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tools_ui_round_trips_and_reads_the_legacy_key() {
        let ui = ToolUi::new("ui://notes/board").visibility([Visibility::Model, Visibility::App]);
        let mut meta = JsonObject::new();
        ui.write_to(&mut meta);
        assert_eq!(
            Value::Object(meta.clone()),
            json!({
                "ui": {"resourceUri": "ui://notes/board", "visibility": ["model", "app"]},
                "ui/resourceUri": "ui://notes/board",
            })
        );
        assert_eq!(ToolUi::from_meta(&meta), Some(ui));
        let legacy = json!({"ui/resourceUri": "ui://old/view"});
        assert_eq!(
            ToolUi::from_meta(legacy.as_object().unwrap()),
            Some(ToolUi::new("ui://old/view"))
        );
        assert_eq!(ToolUi::from_meta(&JsonObject::new()), None);
    }

    #[test]
    fn visibility_defaults_to_both() {
        let both = ToolUi::new("ui://a/b");
        assert!(both.is_visible_to(Visibility::Model) && both.is_visible_to(Visibility::App));
        let app_only = both.visibility([Visibility::App]);
        assert!(!app_only.is_visible_to(Visibility::Model));
        assert!(app_only.is_visible_to(Visibility::App));
    }

    #[test]
    fn a_resources_ui_round_trips_with_every_field() {
        let value = json!({
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "resourceDomains": ["https://*.cdn.example.com"],
                "frameDomains": ["https://www.youtube.com"],
                "baseUriDomains": ["https://cdn.example.com"],
            },
            "permissions": {"camera": {}, "clipboardWrite": {}},
            "domain": "a904794854a047f6.claudemcpcontent.com",
            "prefersBorder": true,
        });
        let ui: ResourceUi = serde_json::from_value(value.clone()).unwrap();
        let built = ResourceUi::new()
            .csp(
                Csp::new()
                    .connect(["https://api.example.com"])
                    .resources(["https://*.cdn.example.com"])
                    .frames(["https://www.youtube.com"])
                    .base_uris(["https://cdn.example.com"]),
            )
            .permissions(Permissions::new().camera().clipboard_write())
            .domain("a904794854a047f6.claudemcpcontent.com")
            .prefers_border(true);
        assert_eq!(built, ui);
        assert_eq!(ui.permissions.as_ref().unwrap().camera, Some(Asked {}));
        assert_eq!(ui.permissions.as_ref().unwrap().microphone, None);
        assert_eq!(serde_json::to_value(&ui).unwrap(), value);
        let origins: Vec<_> = ui.csp.as_ref().unwrap().origins().collect();
        assert_eq!(
            origins,
            [
                ("connectDomains", "https://api.example.com"),
                ("resourceDomains", "https://*.cdn.example.com"),
                ("frameDomains", "https://www.youtube.com"),
                ("baseUriDomains", "https://cdn.example.com"),
            ]
        );
    }

    #[test]
    fn the_hosts_capability_is_read_from_its_extensions() {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "extensions": {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}
        }))
        .unwrap();
        let ui = UiCapability::of(&caps).unwrap();
        assert!(ui.renders_html());
        assert_eq!(ui, UiCapability::html());
        assert_eq!(
            Value::Object(ui.to_settings()),
            json!({"mimeTypes": ["text/html;profile=mcp-app"]})
        );
        assert_eq!(UiCapability::of(&ClientCapabilities::default()), None);
    }

    #[test]
    fn ui_uris_and_origins_are_checked() {
        assert!(is_ui_uri("ui://notes/board"));
        assert!(!is_ui_uri("ui://") && !is_ui_uri("https://x") && !is_ui_uri("uix://a"));
        for good in [
            "https://api.example.com",
            "https://*.example.com",
            "wss://realtime.example.com:8443",
            "http://127.0.0.1:8000",
        ] {
            assert_eq!(check_origin(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("api.example.com", "no scheme"),
            ("https://api.example.com/v1", "a path, query or fragment"),
            ("https://api.example.com:80x", "a malformed port"),
            ("https://a.*.example.com", "a malformed host"),
            ("https://", "a malformed host"),
        ] {
            assert_eq!(check_origin(bad).unwrap_err().why, why, "{bad}");
        }
    }
}
