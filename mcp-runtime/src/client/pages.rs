//! Following the cursors of a paginated list to its end.

use std::collections::HashSet;
use std::future::Future;

use super::ClientError;

/// Every item of the list `method`: `fetch` asks for the page at a cursor (`None` for the first)
/// and answers its items and the next cursor. A server that hands out a cursor it already gave
/// would make the loop endless, so that is refused with [`ClientError::Protocol`].
pub(crate) async fn collect_pages<T, F, Fut>(
    method: &'static str,
    mut fetch: F,
) -> Result<Vec<T>, ClientError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ClientError>>,
{
    let mut all = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    loop {
        let (items, next) = fetch(cursor).await?;
        all.extend(items);
        match next {
            None => return Ok(all),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(ClientError::Protocol {
                    method,
                    detail: format!("the server gave the cursor {next:?} twice"),
                });
            }
            Some(next) => cursor = Some(next),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn follows_cursors_to_the_last_page() {
        let pages = collect_pages("tools/list", |cursor| async move {
            Ok(match cursor.as_deref() {
                None => (vec![1, 2], Some("b".to_owned())),
                Some("b") => (vec![3], Some("c".to_owned())),
                Some("c") => (vec![4], None),
                Some(other) => panic!("unexpected cursor {other}"),
            })
        })
        .await
        .unwrap();
        assert_eq!(pages, vec![1, 2, 3, 4]);
    }

    #[tokio::test]
    async fn a_repeated_cursor_is_refused() {
        let error = collect_pages("prompts/list", |_| async move {
            Ok((vec![1], Some("again".to_owned())))
        })
        .await
        .unwrap_err();
        match error {
            ClientError::Protocol { method, detail } => {
                assert_eq!(method, "prompts/list");
                assert_eq!(detail, "the server gave the cursor \"again\" twice");
            }
            other => panic!("expected a protocol error, got {other:?}"),
        }
    }
}
