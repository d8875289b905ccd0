//! `resources/list`, `resources/templates/list` and `resources/read`.

use mcp_core::ErrorObject;
use mcp_core::params::PaginatedRequestParams;
use mcp_core::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult,
};
use mcp_core::result::Cacheable;

use super::McpServer;
use super::caching::CachedList;
use super::list::list;
use crate::handler::RequestContext;
use crate::handler::resource::default_mime_type;

/// `resources/list`: one page of the direct resources.
pub(super) fn list_resources(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
) -> Result<ListResourcesResult, ErrorObject> {
    let resources = server.inner.registry.resources.snapshot();
    list(server, ctx, resources, params, CachedList::Resources, |r| {
        r.definition.resource.clone()
    })
}

/// `resources/templates/list`: one page of the resource templates.
pub(super) fn list_templates(
    server: &McpServer,
    params: &PaginatedRequestParams,
    ctx: &RequestContext,
) -> Result<ListResourceTemplatesResult, ErrorObject> {
    let templates = server.inner.registry.templates.snapshot();
    list(
        server,
        ctx,
        templates,
        params,
        CachedList::ResourceTemplates,
        |t| t.definition.template.clone(),
    )
}

/// Whether a resource or a template answers for `uri`.
pub(super) fn resolves(server: &McpServer, uri: &str) -> bool {
    let registry = &server.inner.registry;
    registry.resources.get(uri).is_some()
        || registry
            .templates
            .any(|t| t.definition.matcher.matches(uri).is_some())
}

/// `resources/read`: the resource at the URI, or the first template that matches it.
pub(super) async fn read(
    server: &McpServer,
    params: ReadResourceRequestParams,
    ctx: &RequestContext,
) -> Result<ReadResourceResult, ErrorObject> {
    let uri = params.uri;
    let version = ctx.protocol_version();
    let registry = &server.inner.registry;
    let (read, mime_type, hint) = if let Some(resource) = registry.resources.get(&uri) {
        let mime = resource.definition.resource.mime_type.clone();
        let hint = resource.definition.cache;
        ((resource.definition.reader)(ctx.clone()), mime, hint)
    } else {
        let matched = registry.templates.snapshot().into_iter().find_map(|t| {
            t.definition
                .matcher
                .matches(&uri)
                .map(|captured| (t, captured))
        });
        let Some((template, captured)) = matched else {
            return Err(ErrorObject::resource_not_found(&uri, version));
        };
        let mime = template.definition.template.mime_type.clone();
        let hint = template.definition.cache;
        (
            (template.definition.reader)(uri.clone(), captured, ctx.clone()),
            mime,
            hint,
        )
    };
    // A panic is the dispatcher's to catch, like one in any handler.
    let mut contents = read
        .await
        .map_err(|error| error.to_error_object(&uri, version))?;
    default_mime_type(&mut contents, mime_type.as_deref());
    let mut result = ReadResourceResult::new(contents);
    result.set_cache_hint(hint);
    Ok(result)
}
