//! The host side of MCP Apps (`io.modelcontextprotocol/ui`): a host that renders apps declares
//! so ([`McpClientBuilder::apps`]), gives its model only the tools meant for it
//! ([`McpClient::list_model_tools`]), reads a tool's interface with its sandbox
//! ([`McpClient::read_app`]), and forwards the calls the app makes only to the tools the app may
//! call ([`McpClient::call_tool_for_app`]).
//!
//! Rendering the page (an iframe on an origin of its own, the content security policy of
//! [`AppInterface::ui`], the `ui/*` messages between the page and the host) is the host's
//! browser side, which the official `@modelcontextprotocol/ext-apps` `AppBridge` implements.

use base64::Engine;
use mcp_runtime_core::apps::{MIME_TYPE, ResourceUi, UiCapability, is_ui_uri};
use mcp_runtime_core::resources::ResourceContents;
use mcp_runtime_core::tools::{CallToolResult, Tool};
use serde::Serialize;

use super::connect::McpClientBuilder;
use super::{ClientError, McpClient};

/// The method whose answers [`McpClient::read_app`] checks, named in its errors.
const READ: &str = "resources/read";

/// An app's interface, read: the HTML page a host renders in a sandboxed iframe.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AppInterface {
    /// Its `ui://` URI.
    pub uri: String,
    /// The page: a whole HTML document.
    pub html: String,
    /// How to sandbox it (the contents' `_meta.ui`, else the listed resource's); `None` when
    /// the server said nothing, which means the strictest policy.
    pub ui: Option<ResourceUi>,
}

impl McpClientBuilder {
    /// Declares that this client's host renders MCP Apps: the extension
    /// `io.modelcontextprotocol/ui` with the MIME type `text/html;profile=mcp-app`. Servers may
    /// then give tools interfaces, and may leave tools only an app calls out of plain answers.
    pub fn apps(self) -> Self {
        self.extension(
            mcp_runtime_core::apps::EXTENSION_ID,
            UiCapability::html().to_settings(),
        )
    }
}

impl McpClient {
    /// Every tool the model may call: those without an interface, and those whose visibility
    /// names the model. The extension asks hosts to leave the others, which only an app calls,
    /// out of the model's list.
    pub async fn list_model_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = self.list_all_tools().await?;
        tools.retain(Tool::is_for_model);
        Ok(tools)
    }

    /// Reads the interface at `uri` (a tool's [`ToolUi::resource_uri`](mcp_runtime_core::apps::ToolUi::resource_uri)): its HTML, text or
    /// base64, and how to sandbox it. Refused with [`ClientError::Protocol`] unless it is a
    /// `ui://` URI whose contents are `text/html;profile=mcp-app`.
    pub async fn read_app(&self, uri: &str) -> Result<AppInterface, ClientError> {
        let refuse = |detail: String| ClientError::Protocol {
            method: READ,
            detail,
        };
        if !is_ui_uri(uri) {
            return Err(refuse(format!(
                "{uri} is not an app's interface: those are ui:// resources"
            )));
        }
        let read = self.read_resource(uri).await?;
        let contents = read
            .contents
            .into_iter()
            .find(|c| c.uri() == uri)
            .ok_or_else(|| refuse(format!("the server sent no contents for {uri}")))?;
        let ui = contents.ui();
        let (mime_type, html) = match contents {
            ResourceContents::Text(text) => (text.mime_type, text.text),
            ResourceContents::Blob(blob) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&blob.blob)
                    .map_err(|e| refuse(format!("the blob of {uri} is not base64: {e}")))?;
                let html = String::from_utf8(bytes)
                    .map_err(|_| refuse(format!("the page {uri} is not UTF-8")))?;
                (blob.mime_type, html)
            }
            _ => {
                return Err(refuse(format!(
                    "the contents of {uri} are neither text nor a blob"
                )));
            }
        };
        if mime_type.as_deref() != Some(MIME_TYPE) {
            return Err(refuse(format!(
                "{uri} is served as {}, not as an app's page ({MIME_TYPE})",
                mime_type.as_deref().unwrap_or("no MIME type")
            )));
        }
        let ui = match ui {
            Some(ui) => Some(ui),
            None => self.listed_ui(uri).await?,
        };
        Ok(AppInterface {
            uri: uri.to_owned(),
            html,
            ui,
        })
    }

    /// The `_meta.ui` of the listed resource `uri`, for contents that carry none.
    async fn listed_ui(&self, uri: &str) -> Result<Option<ResourceUi>, ClientError> {
        let listed = self.list_all_resources().await?;
        Ok(listed
            .iter()
            .find(|r| r.uri == uri)
            .and_then(|resource| resource.ui()))
    }

    /// Calls tool `name` for an app, as a host forwards the `tools/call` its page sends: only a
    /// tool whose visibility names the app (or that has none) is called; any other is refused
    /// with [`ClientError::NotForApp`] before anything is sent. The tools are listed first when
    /// this client does not know `name` yet.
    pub async fn call_tool_for_app(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let for_app = match self.inner.tools.for_app(name) {
            Some(known) => Some(known),
            None => {
                self.list_all_tools().await?;
                self.inner.tools.for_app(name)
            }
        };
        if for_app != Some(true) {
            return Err(ClientError::NotForApp {
                name: name.to_owned(),
            });
        }
        self.call_tool(name, arguments).await
    }
}
