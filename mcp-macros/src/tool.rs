//! `#[mcp_tool]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ReturnType;
use syn::spanned::Spanned;

use crate::params::{self, Param, TOOL_ARG_OPTIONS};
use crate::shared::{Annotated, Bound, Input};

const OPTIONS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "icon",
    "icons",
    "meta",
    "input_schema",
    "output_schema",
    "requires",
    "scopes",
    "task",
    "task_start",
    "layer",
    "ui",
    "visibility",
];

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let annotated = Annotated::parse(attr, item, "mcp_tool", OPTIONS, TOOL_ARG_OPTIONS)?;
    let (options, function) = (&annotated.options, &annotated.function);
    let (params, name) = (&annotated.params, &annotated.name);

    let whole_inputs = params
        .iter()
        .filter(|p| matches!(p, Param::WholeInput { .. }))
        .count();
    let arguments = params
        .iter()
        .filter(|p| matches!(p, Param::Argument(_)))
        .count();
    if whole_inputs > 1 || (whole_inputs == 1 && arguments > 0) {
        return Err(syn::Error::new_spanned(
            &function.sig.inputs,
            "a `Json<T>` parameter is the whole input of the tool: it cannot be combined with other argument parameters",
        ));
    }

    let args = format_ident!("__args");
    let on_error = quote! { ::mcp_runtime::__private::extraction_failed(error) };
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut args_type = None;
    // The arguments struct is generic over the types of the arguments without a default, so
    // that its derives compile whatever those types are: a type that cannot be an argument is
    // reported once, at its parameter, by the `tool_argument` check.
    let mut generics = Vec::new();
    let mut generic_types = Vec::new();
    let mut checks = Vec::new();
    let bindings = annotated.bind(&on_error, |input| match input {
        Input::Whole(ty) => {
            checks.push(argument_check(ty));
            args_type = Some(quote! { #ty });
            Ok(Bound::passed(quote! { #args }))
        }
        Input::Argument(argument) => {
            let field = &argument.ident;
            let ty = &argument.ty;
            let docs = &argument.docs;
            let wire = &argument.name;
            let mut attrs = vec![quote! { #[serde(rename = #wire)] }];
            if let Some(description) = &argument.description {
                attrs.push(quote! { #[schemars(description = #description)] });
            }
            match &argument.default {
                Some(None) => attrs.push(quote! { #[serde(default)] }),
                Some(Some(expr)) => {
                    let default_fn = format_ident!("__default_{}", field);
                    let path = default_fn.to_string();
                    defaults.push(quote! { fn #default_fn() -> #ty { #expr } });
                    attrs.push(quote! { #[serde(default = #path)] });
                }
                None => {}
            }
            attrs.extend(bounds("range", &argument.range));
            attrs.extend(bounds("length", &argument.length));
            checks.push(argument_check(ty));
            // A defaulted field keeps its type: its default is built as that type.
            let field_ty = if argument.default.is_some() {
                quote! { #ty }
            } else {
                let generic = format_ident!("__T{}", generics.len());
                generics.push(generic.clone());
                generic_types.push(ty);
                quote! { #generic }
            };
            fields.push(quote! { #(#docs)* #(#attrs)* #field: #field_ty });
            Ok(Bound::passed(quote! { #args.#field }))
        }
    })?;
    let (ctx, extractions, call) = (&bindings.ctx, &bindings.statements, &bindings.call);
    let args_struct = if args_type.is_none() {
        args_type = Some(quote! { __Args<#(#generic_types),*> });
        quote! {
            #[derive(::mcp_runtime::__private::serde::Deserialize, ::mcp_runtime::__private::schemars::JsonSchema)]
            #[serde(crate = "::mcp_runtime::__private::serde")]
            #[schemars(crate = "::mcp_runtime::__private::schemars")]
            struct __Args<#(#generics),*> { #(#fields,)* }
            #(#defaults)*
        }
    } else {
        TokenStream::new()
    };
    let args_type = args_type.unwrap_or_default();

    // The output schema comes from the return type, unless it cannot be named.
    let return_type = match &function.sig.output {
        ReturnType::Default => Some(quote! { () }),
        ReturnType::Type(_, ty) if contains_impl_trait(ty) => None,
        ReturnType::Type(_, ty) => Some(quote! { #ty }),
    };

    let mut settings = annotated.common_settings()?;
    // Every hint written, `true` or `false`, is sent as written.
    for (option, setter) in [
        ("read_only", "read_only_hint"),
        ("destructive", "destructive"),
        ("idempotent", "idempotent_hint"),
        ("open_world", "open_world"),
    ] {
        if let Some(value) = options.flag(option)? {
            let setter = format_ident!("{setter}");
            settings.push(quote! { .#setter(#value) });
        }
    }
    if let Some(meta) = options.expr("meta")? {
        settings.push(quote! { .verbatim_meta(#meta) });
    }
    if let Some(schema) = options.expr("input_schema")? {
        settings.push(quote! { .verbatim_input_schema(#schema) });
    }
    match (options.expr("output_schema")?, return_type) {
        (Some(schema), _) => settings.push(quote! { .verbatim_output_schema(#schema) }),
        (None, Some(return_type)) => settings.push(quote! { .output_schema_of::<#return_type>() }),
        (None, None) => {}
    }
    if let Some(requires) = options.string("requires")? {
        check_capabilities(&requires)?;
        settings.push(quote! {
            .requires_capabilities(::mcp_runtime::__private::mcp_runtime_core::capabilities::ClientCapabilities::named(#requires))
        });
    }
    settings.extend(task_settings(options)?);
    settings.extend(ui_settings(options)?);
    let states = params::state_requirements(params);

    let body = quote! {
            #args_struct
            #(#checks)*
            #[allow(unused_imports)]
            use ::mcp_runtime::__private::{BuildInvalidTool as _, BuildTypedTool as _};
            (&&::mcp_runtime::__private::TypedTool::<#args_type>::new()).build(
                #name,
                |#args: #args_type, #ctx: ::mcp_runtime::__private::RequestContext| async move {
                    #(#extractions)*
                    ::mcp_runtime::__private::IntoToolResult::into_tool_result(#call)
                },
            )
            #(#settings)*
            #states
    };
    Ok(annotated.expansion("tool", quote! { ToolDefinition }, body))
}

/// The client capabilities `requires` may name (those `ClientCapabilities::named` reads).
const CAPABILITIES: &[&str] = &[
    "sampling",
    "sampling.tools",
    "roots",
    "elicitation",
    "elicitation.form",
    "elicitation.url",
];

/// Checks each name of `requires = "a, b"`, so that a typo is a compile error rather than a
/// capability silently never checked.
fn check_capabilities(requires: &syn::LitStr) -> syn::Result<()> {
    for name in requires.value().split(',').map(str::trim) {
        if !CAPABILITIES.contains(&name) {
            return Err(syn::Error::new(
                requires.span(),
                format!(
                    "unknown client capability `{name}` in `requires`: name one or more of {}, \
                     separated by commas",
                    CAPABILITIES
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `task = "optional" | "required"` and `task_start = "immediately" | "explicitly" | "<N>ms" |
/// "<N>s"`, checked here so that a typo is a compile error at the attribute.
fn task_settings(options: &crate::options::Options) -> syn::Result<Vec<TokenStream>> {
    let mut settings = Vec::new();
    let support = options.string("task")?;
    if let Some(support) = &support {
        let variant = match support.value().as_str() {
            "optional" => quote! { Optional },
            "required" => quote! { Required },
            other => {
                return Err(syn::Error::new(
                    support.span(),
                    format!(
                        "unknown task support `{other}`: write `task = \"optional\"` (calls may run as tasks) or `task = \"required\"` (they must)"
                    ),
                ));
            }
        };
        settings.push(quote! {
            .task(::mcp_runtime::__private::mcp_runtime_core::tools::TaskSupport::#variant)
        });
    }
    if let Some(start) = options.string("task_start")? {
        if support.is_none() {
            return Err(syn::Error::new(
                start.span(),
                "`task_start` says when a call becomes a task: declare `task = \"optional\"` or `task = \"required\"` too",
            ));
        }
        let text = start.value();
        let millis =
            |digits: &str, scale: u64| digits.trim().parse::<u64>().ok().map(|n| n * scale);
        let after = text
            .strip_suffix("ms")
            .and_then(|d| millis(d, 1))
            .or_else(|| text.strip_suffix('s').and_then(|d| millis(d, 1000)));
        let value = match (text.as_str(), after) {
            ("immediately", _) => quote! { ::mcp_runtime::__private::TaskStart::Immediately },
            ("explicitly", _) => quote! { ::mcp_runtime::__private::TaskStart::Explicitly },
            (_, Some(ms)) => quote! {
                ::mcp_runtime::__private::TaskStart::After(::std::time::Duration::from_millis(#ms))
            },
            _ => {
                return Err(syn::Error::new(
                    start.span(),
                    format!(
                        "unknown task start `{text}`: write \"immediately\", \"explicitly\" (when the handler calls `ctx.start_task()`), or a grace period such as \"500ms\" or \"2s\""
                    ),
                ));
            }
        };
        settings.push(quote! { .task_start(#value) });
    }
    Ok(settings)
}

/// The check, at the type's span, that a parameter's type can be a tool argument.
fn argument_check(ty: &syn::Type) -> TokenStream {
    quote_spanned! { ty.span() => ::mcp_runtime::__private::tool_argument::<#ty>(); }
}

/// `#[schemars(name(min = .., max = ..))]` with the bounds given, if any.
fn bounds(name: &str, bounds: &(Option<syn::Expr>, Option<syn::Expr>)) -> Option<TokenStream> {
    let name = format_ident!("{name}");
    let bounds = match bounds {
        (Some(min), Some(max)) => quote! { min = #min, max = #max },
        (Some(min), None) => quote! { min = #min },
        (None, Some(max)) => quote! { max = #max },
        (None, None) => return None,
    };
    Some(quote! { #[schemars(#name(#bounds))] })
}

/// Whether a type mentions `impl Trait` (its output schema cannot be named).
fn contains_impl_trait(ty: &syn::Type) -> bool {
    quote!(#ty)
        .into_iter()
        .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "impl"))
}

/// `ui = "ui://..."` (the tool's interface, MCP Apps) and `visibility = "model app" | "app"`
/// (who may call it: the model, the app, or both).
fn ui_settings(options: &crate::options::Options) -> syn::Result<Option<TokenStream>> {
    let ui = options.string("ui")?;
    let visibility = options.string("visibility")?;
    let Some(uri) = ui else {
        return match visibility {
            Some(visibility) => Err(syn::Error::new(
                visibility.span(),
                "`visibility` says who may call a tool that has an interface: name the interface with `ui = \"ui://...\"` too",
            )),
            None => Ok(None),
        };
    };
    if !crate::shared::is_ui_uri(&uri.value()) {
        return Err(syn::Error::new(
            uri.span(),
            "`ui` names the tool's interface, a `ui://` resource: `ui = \"ui://notes/board\"`",
        ));
    }
    let apps = quote! { ::mcp_runtime::__private::mcp_runtime_core::apps };
    let visibility = match visibility {
        None => quote! {},
        Some(visibility) => {
            let mut who = Vec::new();
            for word in visibility
                .value()
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|w| !w.is_empty())
            {
                match word {
                    "model" => who.push(quote! { #apps::Visibility::Model }),
                    "app" => who.push(quote! { #apps::Visibility::App }),
                    _ => {
                        return Err(syn::Error::new(
                            visibility.span(),
                            format!(
                                "`visibility` lists who may call the tool, `model`, `app` or both, not `{word}`: `visibility = \"app\"` for a tool only its interface calls"
                            ),
                        ));
                    }
                }
            }
            if who.is_empty() {
                return Err(syn::Error::new(
                    visibility.span(),
                    "`visibility` lists who may call the tool: `model`, `app`, or both",
                ));
            }
            quote! { .visibility([#(#who),*]) }
        }
    };
    Ok(Some(quote! { .ui(#apps::ToolUi::new(#uri) #visibility) }))
}
