//! Pages of `*/list` results, with opaque cursors: one helper for every list.
//!
//! A cursor encodes the list it pages (`tools`, `prompts`, ...) and the position of the next page.
//! Clients must treat it as opaque; one that does not decode, that belongs to another list, or
//! that points past the end of the list (which shrank meanwhile) is refused with invalid params
//! (`-32602`), as the spec asks.
//!
//! A list that every client sees alike (no middleware layer, no per-token hiding) is rendered
//! once per revision and page, and the text kept until an entry is added or removed: most
//! `*/list` requests are then answered with a copy of it.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime_core::messages::ServerResult;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::render::Rendered;
use mcp_runtime_core::result::Paginated;
use mcp_runtime_core::{ErrorObject, ProtocolVersion};
use parking_lot::RwLock;

use super::McpServer;
use super::authorization::{Scoped, visible};
use super::caching::CachedList;
use super::dispatch::name_server;
use super::registry::Catalog;
use crate::handler::RequestContext;

/// Which entries of a catalog a request lists: those `keep` takes. `view` tells apart the
/// filters that differ by client (a tool list with or without the tools only apps call); `shared`
/// says whether every client with the same `view` gets the same list, so that its pages may be
/// rendered once: false where a middleware layer runs (it may hide entries, or see the result)
/// or where the caller's token decides what it sees.
pub(super) struct Listing<F> {
    pub(super) keep: F,
    pub(super) view: u8,
    pub(super) shared: bool,
}

impl<F> Listing<F> {
    /// The entries `keep` takes, for a request of `ctx` on `server`.
    pub(super) fn new(server: &McpServer, ctx: &RequestContext, keep: F, view: u8) -> Self {
        let per_caller = server.inner.options.hide_unauthorized && ctx.access_token().is_some();
        Listing {
            keep,
            view,
            shared: server.inner.layers.is_none() && !per_caller,
        }
    }
}

/// The page of the list `R` that `params` asks for: the entries of `catalog` that `listing` takes
/// and the caller may see, in order, cut to the server's page size and described by `describe`,
/// with the caching hint the server sets for `cached`. A shared listing's page is rendered once
/// per revision and kept until the catalog changes (`tools/list` of a hundred tools then costs
/// what copying its text does).
pub(super) fn list<R, E, F>(
    server: &McpServer,
    ctx: &RequestContext,
    catalog: &Catalog<E>,
    listing: Listing<F>,
    params: &PaginatedRequestParams,
    cached: CachedList,
    describe: impl Fn(&E) -> R::Item,
) -> Result<ServerResult, ErrorObject>
where
    R: Paginated + Into<ServerResult>,
    E: Scoped,
    F: Fn(&E) -> bool,
{
    let version = ctx.protocol_version();
    let key = match (listing.shared, params.cursor.as_deref()) {
        (false, _) => None,
        (true, None) => Some(PageKey::new(version, 0, listing.view)),
        (true, Some(cursor)) => {
            decode(R::LIST, cursor).map(|start| PageKey::new(version, start, listing.view))
        }
    };
    let (pages, generation) = catalog.pages();
    if let Some(page) = key.and_then(|key| pages.get(key, generation)) {
        return Ok(ServerResult::Rendered(page));
    }
    let (mut entries, generation) = catalog.snapshot_at();
    entries.retain(|entry| (listing.keep)(&**entry) && visible(server, ctx, &**entry));
    let options = &server.inner.options;
    let (entries, next) = page(
        R::LIST,
        entries,
        params.cursor.as_deref(),
        options.page_size,
    )?;
    let mut result = R::page(entries.iter().map(|e| describe(e)).collect(), next);
    result.set_cache_hint(options.cache_hint(cached));
    let mut result = result.into();
    let Some(key) = key else {
        return Ok(result);
    };
    name_server(server, ctx.era(), &mut result);
    // A page the revision cannot carry is answered typed: its rendering fails again, saying why.
    match Rendered::new(&result, version) {
        Ok(page) => {
            pages.put(key, generation, page.clone());
            Ok(ServerResult::Rendered(page))
        }
        Err(_) => Ok(result),
    }
}

/// Where a rendered page sits: the revision, its first entry, and the view of the list.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PageKey {
    version: ProtocolVersion,
    start: usize,
    view: u8,
}

impl PageKey {
    fn new(version: ProtocolVersion, start: usize, view: u8) -> Self {
        PageKey {
            version,
            start,
            view,
        }
    }
}

/// The pages of one list rendered so far, each with the count of the list's changes it was made
/// at ([`Catalog`] keeps that count): a page made before the last change is not used, and is
/// replaced when rendered again. At most one page per revision, page start and view.
#[derive(Default)]
pub(crate) struct RenderedPages {
    pages: RwLock<HashMap<PageKey, (u64, Rendered), foldhash::fast::RandomState>>,
}

impl RenderedPages {
    fn get(&self, key: PageKey, generation: u64) -> Option<Rendered> {
        match self.pages.read().get(&key) {
            Some((made_at, page)) if *made_at == generation => Some(page.clone()),
            _ => None,
        }
    }

    fn put(&self, key: PageKey, generation: u64, page: Rendered) {
        let mut pages = self.pages.write();
        // Of two renderings of the same page, the one of the later list stays.
        if pages
            .get(&key)
            .is_none_or(|(made_at, _)| *made_at <= generation)
        {
            pages.insert(key, (generation, page));
        }
    }
}

const PREFIX: &str = "mcp-page:";

/// The cursor for the page of the list `kind` starting at `offset`.
fn encode(kind: &str, offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{kind}:{offset}"))
}

/// The offset a cursor of the list `kind` points at.
fn decode(kind: &str, cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let offset = text
        .strip_prefix(PREFIX)?
        .strip_prefix(kind)?
        .strip_prefix(':')?;
    // Only the digits `encode` writes: `usize::from_str` would also take a sign.
    if offset.is_empty() || !offset.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    offset.parse().ok()
}

/// The page of the list `kind` (`items`) that `cursor` asks for (the first when `None`), at most
/// `page_size` long (everything when `page_size` is 0), and the cursor of the next page if there
/// is one.
pub(super) fn page<T>(
    kind: &str,
    items: Vec<T>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let start = decode(kind, cursor).ok_or_else(|| {
                ErrorObject::invalid_params(format!("Invalid cursor for {kind}/list: {cursor:?}"))
            })?;
            if start >= items.len() {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid cursor for {kind}/list: {cursor:?} points past the end of the list"
                )));
            }
            start
        }
    };
    if page_size == 0 {
        return Ok((items.into_iter().skip(start).collect(), None));
    }
    let end = start.saturating_add(page_size);
    let next = (end < items.len()).then(|| encode(kind, end));
    Ok((
        items.into_iter().skip(start).take(page_size).collect(),
        next,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_the_list() {
        let items: Vec<u32> = (0..5).collect();
        let (first, next) = page("tools", items.clone(), None, 2).unwrap();
        assert_eq!(first, [0, 1]);
        assert_eq!(next.as_deref(), Some(encode("tools", 2).as_str()));
        let (second, next) = page("tools", items.clone(), next.as_deref(), 2).unwrap();
        assert_eq!(second, [2, 3]);
        let (third, next) = page("tools", items.clone(), next.as_deref(), 2).unwrap();
        assert_eq!((third, next), (vec![4], None));
        let (all, none) = page("tools", items, None, 0).unwrap();
        assert_eq!((all.len(), none), (5, None));
    }

    #[test]
    fn bad_cursors_are_invalid_params() {
        for bad in [
            "",
            "x",
            "!!!",
            &URL_SAFE_NO_PAD.encode("other:3"),
            &URL_SAFE_NO_PAD.encode("mcp-page:tools:-1"),
            &URL_SAFE_NO_PAD.encode("mcp-page:tools:+1"),
            &URL_SAFE_NO_PAD.encode("mcp-page:tools:"),
            &URL_SAFE_NO_PAD.encode("mcp-page:1"),
            &encode("prompts", 1),
            // Past the end: the list shrank.
            &encode("tools", 3),
            &encode("tools", 9),
        ] {
            let err = page("tools", vec![1, 2, 3], Some(bad), 1).unwrap_err();
            assert_eq!(err.code.0, -32602, "{bad}");
        }
        assert_eq!(
            page("tools", vec![1], Some(&encode("prompts", 0)), 1)
                .unwrap_err()
                .message,
            format!("Invalid cursor for tools/list: {:?}", encode("prompts", 0))
        );
    }
}
