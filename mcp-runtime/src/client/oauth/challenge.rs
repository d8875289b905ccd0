//! The `WWW-Authenticate` challenges of a protected server (RFC 9110 §11.6.1, RFC 6750 §3,
//! RFC 9449 §7.1): which scheme, and the parameters the client acts on.

use std::collections::HashMap;

/// One challenge: `Bearer realm="mcp", scope="a b", resource_metadata="https://..."`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The scheme, lower-cased (`bearer`, `dpop`).
    pub(crate) scheme: String,
    /// The parameters, by lower-cased name, unquoted.
    params: HashMap<String, String>,
}

impl Challenge {
    /// The parameter `name` (lower case).
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }

    /// The URL of the protected resource metadata (RFC 9728 §5.1).
    pub(crate) fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// The scopes the server asks for, as it wrote them (space-separated).
    pub(crate) fn scope(&self) -> Option<&str> {
        self.param("scope").filter(|s| !s.trim().is_empty())
    }

    /// The error code (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`).
    pub(crate) fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// The challenges of every `WWW-Authenticate` value in `values`, the `Bearer` and `DPoP` ones
/// first (the ones the client can answer), in their order.
pub(crate) fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Challenge> {
    let mut challenges: Vec<Challenge> = values.into_iter().flat_map(parse_one).collect();
    challenges.sort_by_key(|c| !matches!(c.scheme.as_str(), "bearer" | "dpop"));
    challenges
}

/// The challenges of one header value.
fn parse_one(value: &str) -> Vec<Challenge> {
    let mut challenges = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ', '\t']);
        let end = rest.find([' ', '\t', ',']).unwrap_or(rest.len());
        let scheme = &rest[..end];
        if scheme.is_empty() {
            break;
        }
        rest = &rest[end..];
        let mut challenge = Challenge {
            scheme: scheme.to_ascii_lowercase(),
            params: HashMap::new(),
        };
        // Parameters until the next scheme: a token not followed by `=`.
        loop {
            let trimmed = rest.trim_start_matches([',', ' ', '\t']);
            let name_end = trimmed
                .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
                .unwrap_or(trimmed.len());
            let after_name = trimmed[name_end..].trim_start();
            if name_end == 0 || !after_name.starts_with('=') {
                // The next challenge's scheme, or the end.
                rest = trimmed;
                break;
            }
            let name = trimmed[..name_end].to_ascii_lowercase();
            let value_text = after_name[1..].trim_start();
            let (value, remaining) = if let Some(quoted) = value_text.strip_prefix('"') {
                unquote(quoted)
            } else {
                let end = value_text
                    .find(|c: char| c == ',' || c.is_whitespace())
                    .unwrap_or(value_text.len());
                (value_text[..end].to_owned(), &value_text[end..])
            };
            challenge.params.entry(name).or_insert(value);
            rest = remaining;
        }
        challenges.push(challenge);
    }
    challenges
}

/// The content of a quoted string whose opening quote is gone, and what follows its closing
/// quote.
fn unquote(text: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &text[index + 1..]),
            c => value.push(c),
        }
    }
    (value, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bearer_parameters() {
        let challenges = parse([
            r#"Bearer error="insufficient_scope", scope="mcp:write mcp:read", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", error_description="a \"quoted\" word""#,
        ]);
        assert_eq!(challenges.len(), 1);
        let c = &challenges[0];
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.error(), Some("insufficient_scope"));
        assert_eq!(c.scope(), Some("mcp:write mcp:read"));
        assert_eq!(
            c.resource_metadata(),
            Some("http://localhost:1/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.param("error_description"), Some("a \"quoted\" word"));
    }

    #[test]
    fn reads_several_challenges_and_puts_the_usable_first() {
        let challenges = parse([
            r#"Basic realm="x", DPoP error="use_dpop_nonce", algs="ES256""#,
            "Bearer",
        ]);
        let schemes: Vec<_> = challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["dpop", "bearer", "basic"]);
        assert_eq!(challenges[0].error(), Some("use_dpop_nonce"));
        assert_eq!(challenges[0].param("algs"), Some("ES256"));
        assert_eq!(challenges[2].param("realm"), Some("x"));
        assert_eq!(challenges[1].scope(), None);
    }

    #[test]
    fn survives_garbage() {
        for value in [
            "",
            ",,,",
            "=",
            "Bearer =",
            "Bearer a=\"unterminated",
            "Bearer ,scope",
        ] {
            let _ = parse([value]);
        }
        assert_eq!(
            parse(["Bearer a=\"unterminated"])[0].param("a"),
            Some("unterminated")
        );
        assert_eq!(parse(["Bearer scope=x"])[0].scope(), Some("x"));
    }
}
