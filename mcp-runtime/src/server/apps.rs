//! What [`build`](super::McpServerBuilder::build) checks of MCP Apps before a host finds it: every
//! tool's interface is a `ui://` resource the server has, served as `text/html;profile=mcp-app`;
//! some caller may call every such tool; every origin an interface's sandbox allows is an origin.
//! Tools and resources added at run time ([`McpServer::add_tool`](super::McpServer::add_tool),
//! [`add_resource`](super::McpServer::add_resource)) are checked alone: a tool may come before
//! its page.

use mcp_runtime_core::apps::{BadOrigin, MIME_TYPE, check_origin, is_ui_uri};

use super::registry::Registry;
use crate::resource::ResourceDefinition;
use crate::tool::ToolDefinition;

/// Something about a tool's or a resource's interface (MCP Apps) that hosts would trip on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// A tool's interface is not a `ui://` URI.
    #[error(
        "tool `{tool}` names `{uri}` as its interface, which is not a ui:// URI: an app's page is a resource at ui://..., as `ui = \"ui://notes/board\"`"
    )]
    NotUiUri {
        /// The tool.
        tool: String,
        /// The URI it names.
        uri: String,
    },
    /// A tool names an interface the server does not serve.
    #[error(
        "tool `{tool}` names the interface `{uri}`, and the server has no resource at that URI: add the page, as `#[mcp_resource(uri = \"{uri}\", app)]` or `ResourceDefinition::app(\"{uri}\", name, html)`, or fix the URI"
    )]
    MissingInterface {
        /// The tool.
        tool: String,
        /// The URI it names.
        uri: String,
    },
    /// A tool's interface is served with another MIME type than an app's.
    #[error(
        "tool `{tool}` names `{uri}` as its interface, which is served as {mime_type}; hosts render only text/html;profile=mcp-app: declare the page with `app` (`#[mcp_resource(uri = \"{uri}\", app)]`, or `ResourceDefinition::app`)"
    )]
    NotAnApp {
        /// The tool.
        tool: String,
        /// The URI it names.
        uri: String,
        /// The MIME type the resource declares, or `no MIME type`.
        mime_type: String,
    },
    /// A tool's visibility lists nobody.
    #[error(
        "tool `{tool}` may be called by nobody: its visibility is empty; list `model`, `app` or both, or leave it out for both"
    )]
    Unreachable {
        /// The tool.
        tool: String,
    },
    /// A page is served as an app's at a URI that is not `ui://`.
    #[error(
        "resource `{uri}` is served as an app's page (text/html;profile=mcp-app), which hosts look for only at ui:// URIs: give it a ui://... URI"
    )]
    AppNotAtUiUri {
        /// The resource's URI.
        uri: String,
    },
    /// A page's content security policy lists something that is not an origin.
    #[error("resource `{uri}` allows in _meta.ui.csp.{list}: {error}")]
    BadOrigin {
        /// The resource's URI.
        uri: String,
        /// The list (`connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`).
        list: &'static str,
        /// What is wrong with the entry.
        error: BadOrigin,
    },
}

/// Checks the interfaces of `registry`'s tools and resources, when the server is built.
pub(super) fn check(registry: &Registry) -> Result<(), AppError> {
    for resource in registry.resources.snapshot() {
        check_resource(&resource.definition)?;
    }
    for tool in registry.tools.snapshot() {
        check_tool(registry, &tool.definition, Page::Required)?;
    }
    Ok(())
}

/// Checks a resource's interface: a page served as an app's is at a `ui://` URI, and its
/// sandbox lists origins.
pub(super) fn check_resource(definition: &ResourceDefinition) -> Result<(), AppError> {
    let resource = definition.resource();
    if resource.mime_type.as_deref() == Some(MIME_TYPE) && !is_ui_uri(&resource.uri) {
        return Err(AppError::AppNotAtUiUri {
            uri: resource.uri.clone(),
        });
    }
    let csp = resource.ui().and_then(|ui| ui.csp);
    for (list, origin) in csp.iter().flat_map(|csp| csp.origins()) {
        check_origin(origin).map_err(|error| AppError::BadOrigin {
            uri: resource.uri.clone(),
            list,
            error,
        })?;
    }
    Ok(())
}

/// Whether a tool's page must be served already.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Page {
    /// When the server is built.
    Required,
    /// For a tool added at run time, which may come before its page.
    MayFollow,
}

/// Checks a tool's interface: someone may call the tool, it names a `ui://` page, and when
/// `registry` has that page, it is served as an app's (as `page` says, it may have to).
pub(super) fn check_tool(
    registry: &Registry,
    definition: &ToolDefinition,
    page: Page,
) -> Result<(), AppError> {
    let Some(ui) = definition.tool_ui() else {
        return Ok(());
    };
    let tool = definition.name().to_owned();
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(AppError::Unreachable { tool });
    }
    let Some(uri) = ui.resource_uri else {
        return Ok(());
    };
    if !is_ui_uri(&uri) {
        return Err(AppError::NotUiUri { tool, uri });
    }
    match registry.resources.get(&uri) {
        Some(resource) => {
            let mime_type = &resource.definition.resource().mime_type;
            if mime_type.as_deref() != Some(MIME_TYPE) {
                let mime_type = mime_type.as_deref().unwrap_or("no MIME type").to_owned();
                return Err(AppError::NotAnApp {
                    tool,
                    uri,
                    mime_type,
                });
            }
        }
        // A template may serve the page (`ui://charts/{kind}`); its reader sets the MIME type.
        None if page == Page::Required
            && !(registry.templates).any(|t| t.definition.matcher.matches(&uri).is_some()) =>
        {
            return Err(AppError::MissingInterface { tool, uri });
        }
        None => {}
    }
    Ok(())
}
