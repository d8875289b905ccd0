//! `resources/list`, `resources/templates/list` and `resources/read`.

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult,
};
use mcp_runtime_core::result::Cacheable;

use super::McpServer;
use super::caching::CachedList;
use super::list::{Listing, list};
use super::registry::{RegisteredResource, RegisteredTemplate};
use super::request::{Listed, Lists, Target, TargetKind};
use crate::handler::RequestContext;
use crate::handler::resource::{default_mime_type, default_ui};

/// `resources/list`: one page of the direct resources.
pub(super) fn list_resources(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
    lists: Lists<'_>,
) -> Result<ServerResult, ErrorObject> {
    let keep = |r: &RegisteredResource| !lists.hide(Listed::Resource(&r.definition.resource));
    let listing = Listing::new(server, ctx, keep, 0);
    let catalog = &server.inner.registry.resources;
    list::<ListResourcesResult, _, _>(
        server,
        ctx,
        catalog,
        listing,
        params,
        CachedList::Resources,
        |r| r.definition.resource.clone(),
    )
}

/// `resources/templates/list`: one page of the resource templates.
pub(super) fn list_templates(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
    lists: Lists<'_>,
) -> Result<ServerResult, ErrorObject> {
    let keep = |t: &RegisteredTemplate| !lists.hide(Listed::Template(&t.definition.template));
    let listing = Listing::new(server, ctx, keep, 0);
    list::<ListResourceTemplatesResult, _, _>(
        server,
        ctx,
        &server.inner.registry.templates,
        listing,
        params,
        CachedList::ResourceTemplates,
        |t| t.definition.template.clone(),
    )
}

/// `resources/read`: the resource at the URI, or the first template that matches it.
pub(super) async fn read(
    target: Target,
    params: ReadResourceRequestParams,
    ctx: &RequestContext,
) -> Result<ReadResourceResult, ErrorObject> {
    let uri = params.uri;
    let version = ctx.protocol_version();
    let (read, mime_type, hint, listed) = match target.kind {
        TargetKind::Resource(resource) => {
            let mime = resource.definition.resource.mime_type.clone();
            let hint = resource.definition.cache;
            let read = (resource.definition.reader)(ctx.clone());
            (read, mime, hint, Some(resource))
        }
        TargetKind::Template(template, Some(captured)) => {
            let mime = template.definition.template.mime_type.clone();
            let hint = template.definition.cache;
            (
                (template.definition.reader)(uri.clone(), captured, ctx.clone()),
                mime,
                hint,
                None,
            )
        }
        _ => return Err(ErrorObject::resource_not_found(&uri, version)),
    };
    // A panic is the dispatcher's to catch, like one in any handler.
    let mut contents = read
        .await
        .map_err(|error| error.to_error_object(&uri, version))?;
    default_mime_type(&mut contents, mime_type.as_deref());
    // An interface's `_meta.ui`, when the listed resource has one, goes on its contents.
    let listed_ui = (listed.as_ref())
        .and_then(|resource| resource.definition.resource.meta.as_ref())
        .and_then(|meta| meta.get(mcp_runtime_core::apps::META_KEY));
    default_ui(&mut contents, listed_ui);
    let mut result = ReadResourceResult::new(contents);
    result.set_cache_hint(hint);
    Ok(result)
}
