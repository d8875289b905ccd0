//! `#[mcp_prompt]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::params::{self, PROMPT_ARG_OPTIONS, Param, generic_of};
use crate::shared::Annotated;

const OPTIONS: &[&str] = &["name", "title", "description", "icon", "icons"];

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let annotated = Annotated::parse(attr, item, "mcp_prompt", OPTIONS, PROMPT_ARG_OPTIONS)?;
    let (params, name) = (&annotated.params, &annotated.name);

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
    settings.extend(annotated.common_settings()?);
    let states = params::state_requirements(params);
    let call = annotated.call(&call_args);
    let body = quote! {
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
    };
    Ok(annotated.expansion("prompt", quote! { PromptDefinition }, body))
}
