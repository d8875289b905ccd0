//! Pages of `*/list` results, with opaque cursors: one helper for every list.
//!
//! A cursor encodes the list it pages (`tools`, `prompts`, ...) and the position of the next page.
//! Clients must treat it as opaque; one that does not decode, that belongs to another list, or
//! that points past the end of the list (which shrank meanwhile) is refused with invalid params
//! (`-32602`), as the spec asks.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_core::ErrorObject;
use mcp_core::params::PaginatedRequestParams;
use mcp_core::result::Paginated;

use super::McpServer;
use super::authorization::{Scoped, visible};
use super::caching::CachedList;
use crate::handler::RequestContext;

/// The page of the list `R` that `params` asks for: `entries` (the whole list, in order, less
/// what the caller may not see), cut to the server's page size and described by `describe`,
/// with the caching hint the server sets for `cached`.
pub(super) fn list<R: Paginated, E: Scoped>(
    server: &McpServer,
    ctx: &RequestContext,
    mut entries: Vec<E>,
    params: &PaginatedRequestParams,
    cached: CachedList,
    describe: impl Fn(&E) -> R::Item,
) -> Result<R, ErrorObject> {
    entries.retain(|entry| visible(server, ctx, entry));
    let options = &server.inner.options;
    let (entries, next) = page(
        R::LIST,
        entries,
        params.cursor.as_deref(),
        options.page_size,
    )?;
    let mut result = R::page(entries.iter().map(describe).collect(), next);
    result.set_cache_hint(options.cache_hint(cached));
    Ok(result)
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
