//! `#[mcp_prompt]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::params::{self, PROMPT_ARG_OPTIONS};
use crate::shared::{Annotated, Bound, text_parser};

const OPTIONS: &[&str] = &[
    "name",
    "title",
    "description",
    "icon",
    "icons",
    "scopes",
    "layer",
];

/// The error for a `Json<T>` parameter.
const WHOLE_INPUT: &str =
    "prompt arguments are strings: a prompt takes one parameter per argument, not `Json<T>`";

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let annotated = Annotated::parse(attr, item, "mcp_prompt", OPTIONS, PROMPT_ARG_OPTIONS)?;
    let (params, name) = (&annotated.params, &annotated.name);

    let args = format_ident!("__args");
    let on_error = quote! { ::core::result::Result::Err(error) };
    let mut settings = Vec::new();
    let bindings = annotated.bind_text_arguments(&on_error, WHOLE_INPUT, |argument| {
        let wire = &argument.name;
        let (parse, required) = text_parser(&argument.ty, "parse_argument", "require_argument");
        let (title, description) = params::argument_texts(argument);
        let title =
            title.map(|t| quote! { argument.title = ::core::option::Option::Some(#t.into()); });
        let description = description
            .map(|d| quote! { argument.description = ::core::option::Option::Some(#d.into()); });
        settings.push(quote! {
            .argument({
                let mut argument = ::mcp_runtime::__private::mcp_runtime_core::prompts::PromptArgument::new(#wire);
                #title
                #description
                argument.required = ::core::option::Option::Some(#required);
                argument
            })
        });
        if let Some(complete) = &argument.complete {
            settings.push(quote! { .complete_argument(#wire, ::mcp_runtime::__private::completer(#complete)) });
        }
        Ok(Bound::parsed(argument, &parse, &args))
    })?;
    let (ctx, statements, call) = (&bindings.ctx, &bindings.statements, &bindings.call);
    settings.extend(annotated.common_settings()?);
    let states = params::state_requirements(params);
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
