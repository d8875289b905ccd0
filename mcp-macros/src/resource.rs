//! `#[mcp_resource]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::LitStr;

use crate::params::{self, RESOURCE_ARG_OPTIONS};
use crate::shared::{Annotated, Bound, text_parser};

const OPTIONS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime_type",
    "size",
    "annotations",
    "icon",
    "icons",
    "cache",
    "scopes",
    "layer",
    "app",
];

/// The error for a `Json<T>` parameter.
const WHOLE_INPUT: &str = "a resource reader takes template variables, not `Json<T>`";

/// A variable of a URI template.
#[derive(Debug, PartialEq)]
struct TemplateVariable {
    name: String,
    /// In a query expression (`{?q}` or `{&q}`), which a URI may leave out.
    query: bool,
}

/// The variables of an RFC 6570 template, in order (`{a}`, `{+b}`, `{c*}`, `{?d,e}`). The runtime
/// parses the template fully when the server is built; this only needs the names and whether
/// they are query variables.
fn template_variables(template: &str) -> Vec<TemplateVariable> {
    let mut variables = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(length) = rest[start..].find('}') else {
            break;
        };
        let expression = &rest[start + 1..start + length];
        let query = expression.starts_with(['?', '&']);
        let expression = expression.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in expression.split(',') {
            let name = name.trim_end_matches('*');
            let name = name.split(':').next().unwrap_or(name);
            if !name.is_empty() {
                variables.push(TemplateVariable {
                    name: name.to_owned(),
                    query,
                });
            }
        }
        rest = &rest[start + length + 1..];
    }
    variables
}

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let annotated = Annotated::parse(attr, item, "mcp_resource", OPTIONS, RESOURCE_ARG_OPTIONS)?;
    let (options, params, name) = (&annotated.options, &annotated.params, &annotated.name);
    let fn_ident = &annotated.function.sig.ident;
    let uri: LitStr = options.string("uri")?.ok_or_else(|| {
        syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[mcp_resource] needs a URI: #[mcp_resource(uri = \"...\")]",
        )
    })?;
    let variables = template_variables(&uri.value());
    let is_template = uri.value().contains('{');

    let captured = format_ident!("__captured");
    let on_error = quote! {
        ::core::result::Result::Err(::mcp_runtime::__private::ResourceError::from(error))
    };
    let mut settings = Vec::new();
    let mut bound = Vec::new();
    let bindings = annotated.bind_text_arguments(&on_error, WHOLE_INPUT, |argument| {
        let wire = &argument.name;
        let Some(variable) = variables.iter().find(|v| v.name == *wire) else {
            let message = if is_template {
                format!(
                    "parameter `{wire}` is not a variable of the URI template `{}`",
                    uri.value()
                )
            } else {
                format!(
                    "parameter `{wire}` has nothing to bind to: the URI `{}` is not a template (a template has `{{variables}}`)",
                    uri.value()
                )
            };
            return Err(syn::Error::new(argument.span, message));
        };
        bound.push(wire.clone());
        let ty = &argument.ty;
        let (parse, required) = text_parser(ty, "parse_variable", "require_variable");
        if required && variable.query {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "`{wire}` is a query variable of `{}`: a URI may leave it out, so its parameter must be an `Option<_>` (`Option<{}>`)",
                    uri.value(),
                    quote!(#ty).to_string().replace(' ', "")
                ),
            ));
        }
        if let Some(complete) = &argument.complete {
            settings.push(quote! { .complete_variable(#wire, ::mcp_runtime::__private::completer(#complete)) });
        }
        Ok(Bound::parsed(argument, &parse, &captured))
    })?;
    let (ctx, statements, call) = (&bindings.ctx, &bindings.statements, &bindings.call);
    if let Some(unbound) = variables
        .iter()
        .map(|v| &v.name)
        .find(|v| !bound.contains(v))
    {
        return Err(syn::Error::new_spanned(
            &uri,
            format!(
                "template variable `{{{unbound}}}` has no matching parameter in `{fn_ident}` (add a parameter named `{unbound}`, or rename one with #[arg(rename = \"{unbound}\")])"
            ),
        ));
    }

    settings.extend(annotated.common_settings()?);
    if let Some(mime_type) = options.string("mime_type")? {
        settings.push(quote! { .mime_type(#mime_type) });
    }
    settings.extend(app_settings(options, &uri, is_template)?);
    if let Some(annotations) = options.expr("annotations")? {
        settings.push(quote! { .annotations(#annotations) });
    }
    if let Some(cache) = options.expr("cache")? {
        settings.push(quote! { .cache(#cache) });
    }
    if let Some(size) = options.expr("size")? {
        if is_template {
            return Err(syn::Error::new_spanned(
                size,
                "`size` applies to a single resource, not to a template",
            ));
        }
        settings.push(quote! { .size(#size) });
    }
    let states = params::state_requirements(params);
    let read = quote! {
        #(#statements)*
        ::mcp_runtime::__private::IntoResourceContents::into_contents(#call, &__uri)
    };
    let body = if is_template {
        quote! {
            ::mcp_runtime::__private::ResourceKind::Template(
                ::mcp_runtime::__private::ResourceTemplateDefinition::new(
                    #uri,
                    #name,
                    |__uri: ::std::string::String, #captured: ::mcp_runtime::__private::UriMatch, #ctx: ::mcp_runtime::__private::RequestContext| async move {
                        #read
                    },
                )
                .map(|definition| definition #(#settings)* #states)
                .map_err(|error| error.to_string()),
            )
        }
    } else {
        quote! {
            ::mcp_runtime::__private::ResourceKind::Direct(
                ::mcp_runtime::__private::ResourceDefinition::new(
                    #uri,
                    #name,
                    |#ctx: ::mcp_runtime::__private::RequestContext| async move {
                        let __uri: &str = #uri;
                        #read
                    },
                )
                #(#settings)*
                #states
            )
        }
    };
    Ok(annotated.expansion("resource", quote! { ResourceKind }, body))
}

/// `app` (an app's interface, MCP Apps: served as `text/html;profile=mcp-app`) or
/// `app = sandbox`, a function returning the `ResourceUi` that says how to sandbox it.
fn app_settings(
    options: &crate::options::Options,
    uri: &LitStr,
    is_template: bool,
) -> syn::Result<Option<TokenStream>> {
    if !options.has("app") {
        return Ok(None);
    }
    let fail = |message: &str| Err(syn::Error::new(uri.span(), message));
    if is_template {
        return fail("an app's interface is one page at a `ui://` URI, not a template");
    }
    if !crate::shared::is_ui_uri(&uri.value()) {
        return fail("an app's interface is a `ui://` resource: `uri = \"ui://notes/board\"`");
    }
    if options.has("mime_type") {
        return fail(
            "`app` sets the MIME type (`text/html;profile=mcp-app`): leave out `mime_type`",
        );
    }
    let apps = quote! { ::mcp_runtime::__private::mcp_runtime_core::apps };
    let ui = match options.flag("app") {
        Ok(Some(true)) => quote! {},
        Ok(_) => return Ok(None),
        Err(_) => {
            let sandbox = options.expr("app")?;
            quote! { .ui(#sandbox()) }
        }
    };
    Ok(Some(quote! { .mime_type(#apps::MIME_TYPE) #ui }))
}

#[cfg(test)]
mod tests {
    use super::{TemplateVariable, template_variables};

    fn variables(template: &str) -> Vec<(String, bool)> {
        template_variables(template)
            .into_iter()
            .map(|TemplateVariable { name, query }| (name, query))
            .collect()
    }

    #[test]
    fn variables_of_templates() {
        let path = || vec![("path".to_owned(), false)];
        assert_eq!(
            variables("notes://{day}/summary"),
            [("day".to_owned(), false)]
        );
        assert_eq!(variables("file:///{+path}"), path());
        assert_eq!(variables("file:///{path*}"), path());
        assert_eq!(
            variables("search://items{?q,limit}{&page}"),
            [
                ("q".to_owned(), true),
                ("limit".to_owned(), true),
                ("page".to_owned(), true)
            ]
        );
        assert!(variables("file:///readme").is_empty());
    }
}
