//! The `key = value` and flag options of the attributes, and doc comments.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta, Token};

/// The options of one attribute, as written.
pub(crate) struct Options {
    entries: Vec<(String, Option<Expr>, Span)>,
}

impl Options {
    /// Parses `a, b = 1, c = "x"`.
    pub(crate) fn parse(tokens: proc_macro2::TokenStream) -> syn::Result<Self> {
        let metas =
            syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens)?;
        Self::from_metas(metas)
    }

    /// The options of `#[name(...)]` attributes among `attrs` (all of them, merged).
    pub(crate) fn from_attrs(attrs: &[Attribute], name: &str) -> syn::Result<Self> {
        let mut options = Options {
            entries: Vec::new(),
        };
        for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
            let metas = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
            options.entries.extend(Self::from_metas(metas)?.entries);
        }
        Ok(options)
    }

    fn from_metas(metas: Punctuated<Meta, Token![,]>) -> syn::Result<Self> {
        let mut entries = Vec::new();
        for meta in metas {
            match meta {
                Meta::Path(path) => {
                    let key = path_key(&path)?;
                    entries.push((key, None, path_span(&path)));
                }
                Meta::NameValue(nv) => {
                    let key = path_key(&nv.path)?;
                    entries.push((key, Some(nv.value), path_span(&nv.path)));
                }
                Meta::List(list) => {
                    return Err(syn::Error::new_spanned(
                        list,
                        "expected `key` or `key = value`",
                    ));
                }
            }
        }
        Ok(Options { entries })
    }

    /// Fails on any option not in `known`.
    pub(crate) fn check(&self, attribute: &str, known: &[&str]) -> syn::Result<()> {
        let mut seen = Vec::new();
        for (key, _, span) in &self.entries {
            if !known.contains(&key.as_str()) {
                return Err(syn::Error::new(
                    *span,
                    format!(
                        "unknown option `{key}` of #[{attribute}]; expected one of: {}",
                        known.join(", ")
                    ),
                ));
            }
            if seen.contains(key) {
                return Err(syn::Error::new(
                    *span,
                    format!("option `{key}` is given twice"),
                ));
            }
            seen.push(key.clone());
        }
        Ok(())
    }

    fn find(&self, key: &str) -> Option<&(String, Option<Expr>, Span)> {
        self.entries.iter().find(|(k, _, _)| k == key)
    }

    /// Whether the flag `key` is present (as `key` or `key = true`), and its value otherwise.
    pub(crate) fn flag(&self, key: &str) -> syn::Result<Option<bool>> {
        match self.find(key) {
            None => Ok(None),
            Some((_, None, _)) => Ok(Some(true)),
            Some((
                _,
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                })),
                _,
            )) => Ok(Some(b.value)),
            Some((_, Some(other), _)) => Err(syn::Error::new_spanned(
                other,
                format!("`{key}` takes `true` or `false`"),
            )),
        }
    }

    /// The string value of `key`.
    pub(crate) fn string(&self, key: &str) -> syn::Result<Option<LitStr>> {
        match self.find(key) {
            None => Ok(None),
            Some((
                _,
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                })),
                _,
            )) => Ok(Some(s.clone())),
            Some((_, _, span)) => Err(syn::Error::new(
                *span,
                format!("`{key}` takes a string literal"),
            )),
        }
    }

    /// The expression value of `key`.
    pub(crate) fn expr(&self, key: &str) -> syn::Result<Option<Expr>> {
        match self.find(key) {
            None => Ok(None),
            Some((_, Some(expr), _)) => Ok(Some(expr.clone())),
            Some((_, None, span)) => Err(syn::Error::new(
                *span,
                format!("`{key}` needs a value: `{key} = ...`"),
            )),
        }
    }

    /// Whether `key` is present, with or without a value.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.find(key).is_some()
    }
}

fn path_key(path: &syn::Path) -> syn::Result<String> {
    path.get_ident()
        .map(ToString::to_string)
        .ok_or_else(|| syn::Error::new_spanned(path, "expected a plain option name"))
}

fn path_span(path: &syn::Path) -> Span {
    path.segments
        .first()
        .map_or_else(Span::call_site, |s| s.ident.span())
}

/// The text of the doc comments among `attrs`, one line per `///` line, with the conventional
/// leading space removed and surrounding blank lines trimmed; `None` when there are none.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|chunk| chunk.split('\n').map(str::to_owned).collect::<Vec<_>>())
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// Splits a doc text into a title and a description the way schemars does: with several
/// paragraphs, the first is the title and the rest the description; with one, it is all
/// description.
pub(crate) fn title_and_description(doc: Option<String>) -> (Option<String>, Option<String>) {
    match doc {
        None => (None, None),
        Some(doc) => match doc.split_once("\n\n") {
            Some((title, rest)) => (Some(title.replace('\n', " ")), Some(rest.trim().to_owned())),
            None => (None, Some(doc)),
        },
    }
}
