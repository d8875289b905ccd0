//! `#[mcp_prompt]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::options::{Options, doc_text};
use crate::params::{self, PROMPT_ARG_OPTIONS, Param, generic_of};
use crate::shared::{call_user_fn, icons, submit};

const OPTIONS: &[&str] = &["name", "title", "description", "icon", "icons"];

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let options = Options::parse(attr)?;
    options.check("mcp_prompt", OPTIONS)?;
    let mut function: ItemFn = syn::parse2(item)?;
    let params = params::classify(&mut function.sig, "mcp_prompt", PROMPT_ARG_OPTIONS)?;
    let fn_ident = function.sig.ident.clone();
    let name = options.string("name")?.map_or_else(
        || fn_ident.to_string().trim_start_matches("r#").to_owned(),
        |s| s.value(),
    );
    let description = match options.string("description")? {
        Some(d) => Some(d.value()),
        None => doc_text(&function.attrs),
    };

    let ctx = format_ident!("__ctx");
    let args = format_ident!("__args");
    let on_error = quote! { ::core::result::Result::Err(error) };
    let mut statements = Vec::new();
    let mut call_args = Vec::new();
    let mut settings = Vec::new();
    for (index, param) in params.iter().enumerate() {
        match param {
            Param::Extracted { ty, .. } => {
                let (var, stmt) = params::extract(index, ty, &ctx, &on_error);
                statements.push(stmt);
                call_args.push(quote! { #var });
            }
            Param::WholeInput { ty } => {
                return Err(syn::Error::new_spanned(
                    ty,
                    "prompt arguments are strings: a prompt takes one parameter per argument, not `Json<T>`",
                ));
            }
            Param::Argument(argument) => {
                let var = &argument.ident;
                let ty = &argument.ty;
                let wire = &argument.name;
                // Spanned at the type, so that a type that does not parse from text is reported
                // at the parameter.
                let (parse, required) = match generic_of(ty, "Option") {
                    Some(inner) => (
                        quote_spanned! { inner.span() => ::mcp_runtime::__private::parse_argument::<#inner> },
                        false,
                    ),
                    None => (
                        quote_spanned! { ty.span() => ::mcp_runtime::__private::require_argument::<#ty> },
                        true,
                    ),
                };
                statements.push(quote! {
                    let #var: #ty = match #parse(&#args, #wire) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
                    };
                });
                call_args.push(quote! { #var });
                let (title, description) = params::argument_texts(argument);
                let title = title
                    .map(|t| quote! { argument.title = ::core::option::Option::Some(#t.into()); });
                let description = description.map(
                    |d| quote! { argument.description = ::core::option::Option::Some(#d.into()); },
                );
                settings.push(quote! {
                    .argument({
                        let mut argument = ::mcp_runtime::__private::mcp_core::prompts::PromptArgument::new(#wire);
                        #title
                        #description
                        argument.required = ::core::option::Option::Some(#required);
                        argument
                    })
                });
                if let Some(complete) = &argument.complete {
                    settings.push(quote! { .complete_argument(#wire, ::mcp_runtime::__private::completer(#complete)) });
                }
            }
        }
    }
    if let Some(description) = description {
        settings.push(quote! { .description(#description) });
    }
    if let Some(title) = options.string("title")? {
        settings.push(quote! { .title(#title) });
    }
    if let Some(icons) = icons(&options)? {
        settings.push(quote! { .icons(#icons) });
    }
    let states = params::state_requirements(&params);
    let call = call_user_fn(&function, &call_args);
    let definition_fn = format_ident!("__mcp_prompt_definition_{}", fn_ident);
    let registration = submit(quote! { PromptEntry }, &name, &definition_fn);
    Ok(quote! {
        #function

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::all)]
        fn #definition_fn() -> ::mcp_runtime::__private::PromptDefinition {
            ::mcp_runtime::__private::PromptDefinition::new(
                #name,
                |#args: ::mcp_runtime::__private::PromptArguments, #ctx: ::mcp_runtime::__private::RequestContext| async move {
                    ::mcp_runtime::__private::PromptOutcome(async move {
                        #(#statements)*
                        ::mcp_runtime::__private::IntoPromptResult::into_prompt_result(#call)
                    }.await)
                },
            )
            #(#settings)*
            #states
        }

        #registration
    })
}
