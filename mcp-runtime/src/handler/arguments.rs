//! Arguments that travel as text: prompt arguments and URI template variables.
//!
//! A `#[mcp_prompt]` or `#[mcp_resource]` function may take typed parameters. Each is parsed from
//! its text with [`FromStr`]; a value that does not parse is reported with the type expected and
//! the parser's own words, which [`prompt`](super::prompt) and [`resource`](super::resource) turn
//! into their errors.

use std::fmt;
use std::str::FromStr;

/// A type a prompt argument or a URI template variable may have: one parsed from text with
/// [`FromStr`], whose parse error can be shown to the client.
///
/// Implemented for every such type; `#[mcp_prompt]` and `#[mcp_resource]` name it at each
/// parameter, so that a type that cannot be parsed is reported there.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a prompt argument or a URI variable",
    label = "prompt arguments and URI template variables are text: this type must implement `FromStr`",
    note = "implement `std::str::FromStr` for the type (with an error type that implements `Display`), or take a `String` and parse it in the function"
)]
pub trait FromArgumentText: FromStr<Err: fmt::Display> {}

impl<T: FromStr<Err: fmt::Display>> FromArgumentText for T {}

/// Parses `raw` as `T`: absent gives `None`; a value that does not parse gives what went wrong,
/// as "expected u32, got \"x\" (invalid digit found in string)".
pub(crate) fn parse_text<T: FromArgumentText>(raw: Option<&str>) -> Result<Option<T>, String> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    raw.parse::<T>()
        .map(Some)
        .map_err(|e| format!("expected {}, got {raw:?} ({e})", short_type_name::<T>()))
}

/// `alloc::string::String` → `String`, `core::option::Option<i64>` → `Option<i64>`.
pub(crate) fn short_type_name<T>() -> String {
    let mut short = String::new();
    let mut path = String::new();
    let flush = |path: &mut String, short: &mut String| {
        short.push_str(path.rsplit("::").next().unwrap_or_default());
        path.clear();
    };
    for c in std::any::type_name::<T>().chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            flush(&mut path, &mut short);
            short.push(c);
        }
    }
    flush(&mut path, &mut short);
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_type_names() {
        assert_eq!(short_type_name::<String>(), "String");
        assert_eq!(short_type_name::<Option<String>>(), "Option<String>");
        assert_eq!(short_type_name::<f64>(), "f64");
    }

    #[test]
    fn text_parses_or_says_what_was_expected() {
        assert_eq!(parse_text::<u32>(Some("3")), Ok(Some(3)));
        assert_eq!(parse_text::<u32>(None), Ok(None));
        assert_eq!(
            parse_text::<u32>(Some("x")),
            Err("expected u32, got \"x\" (invalid digit found in string)".to_owned())
        );
    }
}
