//! Pages of `*/list` results, with opaque cursors.
//!
//! A cursor encodes the position of the next page. Clients must treat it as opaque; one that does
//! not decode is refused with invalid params (`-32602`), as the spec asks.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_core::ErrorObject;

const PREFIX: &str = "mcp-page:";

/// The cursor for the page starting at `offset`.
fn encode(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{offset}"))
}

/// The offset a cursor points at.
fn decode(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix(PREFIX)?.parse().ok()
}

/// The page of `items` that `cursor` asks for (the first when `None`), at most `page_size` long
/// (everything when `page_size` is 0), and the cursor of the next page if there is one.
pub(crate) fn page<T>(
    items: Vec<T>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => decode(cursor)
            .ok_or_else(|| ErrorObject::invalid_params(format!("Invalid cursor: {cursor:?}")))?,
    };
    if page_size == 0 {
        return Ok((items.into_iter().skip(start).collect(), None));
    }
    let end = start.saturating_add(page_size);
    let next = (end < items.len()).then(|| encode(end));
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
        let (first, next) = page(items.clone(), None, 2).unwrap();
        assert_eq!(first, [0, 1]);
        let (second, next) = page(items.clone(), next.as_deref(), 2).unwrap();
        assert_eq!(second, [2, 3]);
        let (third, next) = page(items.clone(), next.as_deref(), 2).unwrap();
        assert_eq!((third, next), (vec![4], None));
        let (all, none) = page(items, None, 0).unwrap();
        assert_eq!((all.len(), none), (5, None));
    }

    #[test]
    fn bad_cursors_are_invalid_params() {
        for bad in [
            "",
            "x",
            "!!!",
            &URL_SAFE_NO_PAD.encode("other:3"),
            &URL_SAFE_NO_PAD.encode("mcp-page:-1"),
        ] {
            let err = page(vec![1], Some(bad), 1).unwrap_err();
            assert_eq!(err.code.0, -32602, "{bad}");
        }
        // A cursor past the end (the list shrank) gives an empty last page.
        assert_eq!(page(vec![1], Some(&encode(9)), 1).unwrap(), (vec![], None));
    }
}
