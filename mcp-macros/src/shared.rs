//! Code generation shared by the attribute macros.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ItemFn};

use crate::options::Options;

/// The call of the annotated function with `args`, awaited when it is async.
pub(crate) fn call_user_fn(function: &ItemFn, args: &[TokenStream]) -> TokenStream {
    let ident = &function.sig.ident;
    if function.sig.asyncness.is_some() {
        quote! { #ident(#(#args),*).await }
    } else {
        quote! { #ident(#(#args),*) }
    }
}

/// The icons given with `icon = "src"` or `icons = expr`.
pub(crate) fn icons(options: &Options) -> syn::Result<Option<TokenStream>> {
    if let Some(src) = options.string("icon")? {
        return Ok(Some(quote! {
            ::std::vec![::mcp_runtime::__private::mcp_core::implementation::Icon::new(#src)]
        }));
    }
    Ok(options.expr("icons")?.map(|icons| quote! { #icons }))
}

/// The `inventory::submit!` of a registry entry.
pub(crate) fn submit(entry: TokenStream, name: &str, definition: &Ident) -> TokenStream {
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
