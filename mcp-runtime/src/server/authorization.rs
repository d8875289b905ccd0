//! Authorization in the server: what each request needs of the caller's access token.
//!
//! On a server whose HTTP transport verifies bearer tokens, every request arrives with the
//! caller's [`AccessToken`] ([`Envelope::authorized`](super::Envelope::authorized)). Before any
//! handler runs, admission checks that the token was granted the scopes the request's target
//! declares (`#[mcp_tool(scopes = "notes:write")]`, `.scopes([...])` on a definition):
//!
//! | request | target whose scopes it needs |
//! |---|---|
//! | `tools/call` | the tool |
//! | `prompts/get` | the prompt |
//! | `resources/read`, `resources/subscribe`, `resources/unsubscribe` | the resource at the URI, else the first template matching it |
//! | `completion/complete` | the prompt, or the resource template, it completes for |
//!
//! A request that lacks some is refused as a whole
//! ([`Admission::insufficient_scope`](super::Admission::insufficient_scope)), and the
//! transport answers `403` with an `insufficient_scope` challenge naming every scope the request
//! needs, so that the client can ask for them all at once (step-up authorization). With
//! [`McpServerBuilder::hide_unauthorized`](super::McpServerBuilder::hide_unauthorized), the
//! lists leave out what the token may not use. Without a token (stdio, in process, HTTP without
//! authorization) nothing is checked here.

use mcp_core::jsonrpc::{Incoming, JsonRpcMessage, JsonRpcRequest, Params};

use super::McpServer;
use super::registry::{RegisteredPrompt, RegisteredResource, RegisteredTemplate, RegisteredTool};
#[cfg(feature = "http")]
use crate::auth::scope_list;
use crate::auth::{AccessToken, grants_all};
use crate::handler::RequestContext;

/// What declares the scopes a use of it needs.
pub(super) trait Scoped {
    /// The scopes.
    fn scopes(&self) -> &[String];
}

/// Why a message was refused: the scopes its requests need, and what they are (for the error
/// message).
pub(super) struct Denied {
    pub(super) scopes: Vec<String>,
    pub(super) targets: Vec<String>,
}

/// The refusal of `incoming` when `token` lacks a scope one of its requests needs; `None` when the
/// token grants them all. The scopes named are those of every request that lacks some, in order.
pub(super) fn check(
    server: &McpServer,
    incoming: &Incoming,
    token: &AccessToken,
) -> Option<Denied> {
    let mut denied: Option<Denied> = None;
    let mut deny = |request: &JsonRpcRequest| {
        let call = &request.request;
        let Some((scopes, target)) = needs(server, &call.method, call.params.as_ref()) else {
            return;
        };
        if grants_all(token, &scopes) {
            return;
        }
        let all = denied.get_or_insert_with(|| Denied {
            scopes: Vec::new(),
            targets: Vec::new(),
        });
        all.targets.push(target);
        for scope in scopes {
            if !all.scopes.contains(&scope) {
                all.scopes.push(scope);
            }
        }
    };
    match incoming {
        Incoming::Message(JsonRpcMessage::Request(request)) => deny(request),
        Incoming::Batch(entries) => entries.iter().for_each(|entry| {
            if let Ok(JsonRpcMessage::Request(request)) = entry {
                deny(request);
            }
        }),
        _ => {}
    }
    denied
}

/// The scopes a request of `method` with `params` needs, and its target in words; `None` when
/// its target declares none (or it has no target, or names one that does not exist: that is the
/// handler's to report).
fn needs(
    server: &McpServer,
    method: &str,
    params: Option<&Params>,
) -> Option<(Vec<String>, String)> {
    let registry = &server.inner.registry;
    let params = params?;
    let (scopes, target) = match method {
        "tools/call" => {
            let name: String = params.member("name")?;
            let tool = registry.tools.get(&name)?;
            (tool.scopes().to_vec(), format!("calling tool `{name}`"))
        }
        "prompts/get" => {
            let name: String = params.member("name")?;
            let prompt = registry.prompts.get(&name)?;
            (prompt.scopes().to_vec(), format!("getting prompt `{name}`"))
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let uri: String = params.member("uri")?;
            let scopes = scopes_of(server, &uri)?;
            (scopes, format!("{method} of `{uri}`"))
        }
        "completion/complete" => {
            let reference: serde_json::Value = params.member("ref")?;
            let text = |key: &str| reference.get(key)?.as_str().map(str::to_owned);
            match text("type")?.as_str() {
                "ref/prompt" => {
                    let name = text("name")?;
                    let prompt = registry.prompts.get(&name)?;
                    (
                        prompt.scopes().to_vec(),
                        format!("completing prompt `{name}`"),
                    )
                }
                "ref/resource" => {
                    let uri = text("uri")?;
                    let template = registry.templates.get(&uri)?;
                    (
                        template.scopes().to_vec(),
                        format!("completing template `{uri}`"),
                    )
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    (!scopes.is_empty()).then_some((scopes, target))
}

/// Every scope the server's tools, prompts, resources and templates declare, in that order,
/// without duplicates: what its protected resource metadata lists by default.
#[cfg(feature = "http")]
pub(crate) fn declared_scopes(server: &McpServer) -> Vec<String> {
    let registry = &server.inner.registry;
    let mut all: Vec<String> = Vec::new();
    let mut add = |scopes: &[String]| all.extend(scopes.iter().cloned());
    registry
        .tools
        .snapshot()
        .iter()
        .for_each(|t| add(t.scopes()));
    registry
        .prompts
        .snapshot()
        .iter()
        .for_each(|p| add(p.scopes()));
    registry
        .resources
        .snapshot()
        .iter()
        .for_each(|r| add(r.scopes()));
    registry
        .templates
        .snapshot()
        .iter()
        .for_each(|t| add(t.scopes()));
    scope_list(all)
}

/// Whether `item` shows in the lists `ctx`'s request gets: always, unless the server hides what
/// the caller's token may not use and this token lacks a scope `item` needs.
pub(super) fn visible(server: &McpServer, ctx: &RequestContext, item: &impl Scoped) -> bool {
    match ctx.access_token() {
        Some(token) if server.inner.options.hide_unauthorized => grants_all(token, item.scopes()),
        _ => true,
    }
}

impl<T: Scoped> Scoped for std::sync::Arc<T> {
    fn scopes(&self) -> &[String] {
        T::scopes(self)
    }
}

impl Scoped for RegisteredTool {
    fn scopes(&self) -> &[String] {
        &self.definition.scopes
    }
}

impl Scoped for RegisteredPrompt {
    fn scopes(&self) -> &[String] {
        &self.definition.scopes
    }
}

impl Scoped for RegisteredResource {
    fn scopes(&self) -> &[String] {
        &self.definition.scopes
    }
}

impl Scoped for RegisteredTemplate {
    fn scopes(&self) -> &[String] {
        &self.definition.scopes
    }
}

/// The scopes reading `uri` needs: those of the resource at the URI, else of the first template
/// that matches it (the one `resources/read` reads); `None` when nothing answers for it.
fn scopes_of(server: &McpServer, uri: &str) -> Option<Vec<String>> {
    let registry = &server.inner.registry;
    if let Some(resource) = registry.resources.get(uri) {
        return Some(resource.definition.scopes.clone());
    }
    registry.templates.snapshot().into_iter().find_map(|t| {
        t.definition
            .matcher
            .matches(uri)
            .map(|_| t.definition.scopes.clone())
    })
}
