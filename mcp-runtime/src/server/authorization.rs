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

use mcp_runtime_core::messages::ClientRequest;

use super::McpServer;
use super::registry::{RegisteredPrompt, RegisteredResource, RegisteredTemplate, RegisteredTool};
use super::request::McpRequest;
#[cfg(feature = "http-handler")]
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

/// The refusal of `started` requests when `token` lacks a scope one of their targets needs;
/// `None` when the token grants them all. The scopes named are those of every request that lacks
/// some, in order.
pub(super) fn check<'a>(
    started: impl Iterator<Item = &'a McpRequest>,
    token: &AccessToken,
) -> Option<Denied> {
    let mut denied: Option<Denied> = None;
    for request in started {
        let Some((scopes, target)) = needs(request) else {
            continue;
        };
        if grants_all(token, scopes) {
            continue;
        }
        let all = denied.get_or_insert_with(|| Denied {
            scopes: Vec::new(),
            targets: Vec::new(),
        });
        all.targets.push(target);
        for scope in scopes {
            if !all.scopes.contains(scope) {
                all.scopes.push(scope.clone());
            }
        }
    }
    denied
}

/// The scopes `request` needs, and its target in words; `None` when its target declares none
/// (or it has no target).
fn needs(request: &McpRequest) -> Option<(&[String], String)> {
    let target = request.target();
    let scopes = target.scopes();
    if scopes.is_empty() {
        return None;
    }
    let name = target.name()?;
    let words = match request.params() {
        ClientRequest::CallTool(_) => format!("calling tool `{name}`"),
        ClientRequest::GetPrompt(_) => format!("getting prompt `{name}`"),
        ClientRequest::ReadResource(p) => format!("resources/read of `{}`", p.uri),
        ClientRequest::Subscribe(p) => format!("resources/subscribe of `{}`", p.uri),
        ClientRequest::Unsubscribe(p) => format!("resources/unsubscribe of `{}`", p.uri),
        // Completing for a direct resource needs nothing: it has nothing to complete.
        ClientRequest::Complete(_) if target.resource().is_some() => return None,
        ClientRequest::Complete(_) if target.prompt().is_some() => {
            format!("completing prompt `{name}`")
        }
        ClientRequest::Complete(_) => format!("completing template `{name}`"),
        _ => return None,
    };
    Some((scopes, words))
}

/// Every scope the server's tools, prompts, resources and templates declare, in that order,
/// without duplicates: what its protected resource metadata lists by default.
#[cfg(feature = "http-handler")]
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
