//! What the attribute macros share: reading the annotated function, and the shape of what they
//! generate (the function, a hidden function building its definition, and its registration).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, ItemFn};

use crate::options::{Options, doc_text};
use crate::params::{self, Param};

/// An annotated function, read the way every attribute macro reads it: the attribute's options
/// (checked against those the macro knows), the function, its parameters, and the name and
/// description of what it defines.
pub(crate) struct Annotated {
    pub(crate) options: Options,
    pub(crate) function: ItemFn,
    pub(crate) params: Vec<Param>,
    /// The `name` option, or the function's name.
    pub(crate) name: String,
    /// The `description` option, or the function's doc comment.
    pub(crate) description: Option<String>,
}

impl Annotated {
    /// Reads `#[attribute(attr)] item`: `known` are the attribute's options, `arg_options` those
    /// of `#[arg(...)]` on its parameters.
    pub(crate) fn parse(
        attr: TokenStream,
        item: TokenStream,
        attribute: &str,
        known: &[&str],
        arg_options: &[&str],
    ) -> syn::Result<Self> {
        let options = Options::parse(attr)?;
        options.check(attribute, known)?;
        let mut function: ItemFn = syn::parse2(item)?;
        let params = params::classify(&mut function.sig, attribute, arg_options)?;
        let name = options.string("name")?.map_or_else(
            || {
                function
                    .sig
                    .ident
                    .to_string()
                    .trim_start_matches("r#")
                    .to_owned()
            },
            |s| s.value(),
        );
        let description = match options.string("description")? {
            Some(d) => Some(d.value()),
            None => doc_text(&function.attrs),
        };
        Ok(Annotated {
            options,
            function,
            params,
            name,
            description,
        })
    }

    /// The builder calls every definition gets from its options: its description, title and
    /// icons.
    pub(crate) fn common_settings(&self) -> syn::Result<Vec<TokenStream>> {
        let mut settings = Vec::new();
        if let Some(description) = &self.description {
            settings.push(quote! { .description(#description) });
        }
        if let Some(title) = self.options.string("title")? {
            settings.push(quote! { .title(#title) });
        }
        if let Some(icons) = icons(&self.options)? {
            settings.push(quote! { .icons(#icons) });
        }
        Ok(settings)
    }

    /// The expansion: the function as written, the hidden function that builds its definition
    /// (`body`, of type `returns`), and the registration of that function as a `kind` (`tool`,
    /// `prompt` or `resource`).
    pub(crate) fn expansion(
        &self,
        kind: &str,
        returns: TokenStream,
        body: TokenStream,
    ) -> TokenStream {
        let function = &self.function;
        let definition_fn = format_ident!("__mcp_{kind}_definition_{}", function.sig.ident);
        let mut entry = kind.to_owned();
        entry[..1].make_ascii_uppercase();
        let entry = format_ident!("{entry}Entry");
        let registration = submit(quote! { #entry }, &self.name, &definition_fn);
        quote! {
            #function

            #[doc(hidden)]
            #[allow(non_snake_case, non_camel_case_types, clippy::all)]
            fn #definition_fn() -> ::mcp_runtime::__private::#returns {
                #body
            }

            #registration
        }
    }

    /// The call of the function with `args`, awaited when it is async.
    pub(crate) fn call(&self, args: &[TokenStream]) -> TokenStream {
        let ident = &self.function.sig.ident;
        if self.function.sig.asyncness.is_some() {
            quote! { #ident(#(#args),*).await }
        } else {
            quote! { #ident(#(#args),*) }
        }
    }
}

/// The icons given with `icon = "src"` or `icons = expr`.
fn icons(options: &Options) -> syn::Result<Option<TokenStream>> {
    if let Some(src) = options.string("icon")? {
        return Ok(Some(quote! {
            ::std::vec![::mcp_runtime::__private::mcp_core::implementation::Icon::new(#src)]
        }));
    }
    Ok(options.expr("icons")?.map(|icons| quote! { #icons }))
}

/// The `inventory::submit!` of a registry entry.
fn submit(entry: TokenStream, name: &str, definition: &Ident) -> TokenStream {
    quote! {
        ::mcp_runtime::__private::inventory::submit! {
            ::mcp_runtime::__private::#entry {
                module_path: ::core::module_path!(),
                location: (::core::file!(), ::core::line!()),
                name: #name,
                definition: #definition,
            }
        }
    }
}
