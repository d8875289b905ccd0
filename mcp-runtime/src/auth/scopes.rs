//! OAuth scopes: lists of them as declared, and what a token lacks of what a call needs.

use super::AccessToken;

/// The scopes of `scopes`, each split at spaces (so that `"a b"` and `["a", "b"]` declare the
/// same), without duplicates, in the order given.
pub(crate) fn scope_list<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut list: Vec<String> = Vec::new();
    for scope in scopes {
        for word in scope.into().split_whitespace() {
            if !list.iter().any(|s| s == word) {
                list.push(word.to_owned());
            }
        }
    }
    list
}

/// Whether `token` was granted every scope of `needed`.
pub(crate) fn grants_all<'a>(
    token: &AccessToken,
    needed: impl IntoIterator<Item = &'a String>,
) -> bool {
    needed.into_iter().all(|scope| token.has_scope(scope))
}

/// `scopes` as the value of a `scope` parameter: separated by spaces.
pub(crate) fn joined(scopes: &[String]) -> String {
    scopes.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_split_at_spaces_and_deduplicated() {
        assert_eq!(
            scope_list(["notes:read notes:write", "notes:read", "  admin "]),
            ["notes:read", "notes:write", "admin"]
        );
        assert!(scope_list(Vec::<String>::new()).is_empty());
    }

    #[test]
    fn a_token_grants_a_list_when_it_has_every_scope() {
        let token = AccessToken::new().with_scopes(["a", "b"]);
        assert!(grants_all(&token, &scope_list(["a b"])));
        assert!(grants_all(&token, &Vec::new()));
        assert!(!grants_all(&token, &scope_list(["a c"])));
    }
}
