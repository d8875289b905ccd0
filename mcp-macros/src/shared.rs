//! What the attribute macros share: reading the annotated function, binding its parameters for
//! the call, and the shape of what they generate (the function, a hidden function building its
//! definition, and its registration).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Type};

use crate::options::{Options, doc_text};
use crate::params::{self, Argument, Param, generic_of};

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

    /// The builder calls every definition gets from its options: its description, title, icons
    /// and the OAuth scopes a call needs (`scopes = "notes:read notes:write"`).
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
        if let Some(scopes) = self.options.string("scopes")? {
            let list: Vec<String> = scopes
                .value()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            if list.is_empty() {
                return Err(syn::Error::new(
                    scopes.span(),
                    "`scopes` names the OAuth scopes a call needs, separated by spaces: `scopes = \"notes:write\"`",
                ));
            }
            settings.push(quote! { .scopes([#(#list),*]) });
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
        let layers = self
            .layers(kind)
            .unwrap_or_else(|error| error.to_compile_error());
        quote! {
            #function

            #[doc(hidden)]
            #[allow(non_snake_case, non_camel_case_types, clippy::all)]
            fn #definition_fn() -> ::mcp_runtime::__private::#returns {
                #body
            }

            #registration
            #layers
        }
    }

    /// The registration of the item's own layers (`layer = Timeout::new(...)`, or an array of
    /// layers, the first outermost), if it has any.
    fn layers(&self, kind: &str) -> syn::Result<TokenStream> {
        let Some(expr) = self.options.expr("layer")? else {
            return Ok(TokenStream::new());
        };
        let layers: Vec<&syn::Expr> = match &expr {
            syn::Expr::Array(array) => array.elems.iter().rev().collect(),
            one => vec![one],
        };
        let layers_fn = format_ident!("__mcp_{kind}_layers_{}", self.function.sig.ident);
        let name = &self.name;
        Ok(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, clippy::all)]
            fn #layers_fn() -> ::std::vec::Vec<::mcp_runtime::__private::BoxedLayer> {
                ::std::vec![#(::mcp_runtime::__private::boxed_layer(#layers)),*]
            }

            ::mcp_runtime::__private::inventory::submit! {
                ::mcp_runtime::__private::LayerEntry {
                    module_path: ::core::module_path!(),
                    kind: #kind,
                    name: #name,
                    layers: #layers_fn,
                }
            }
        })
    }

    /// The call of the function with its parameters bound in order: an extracted one from the
    /// request context (returning `on_error`, an expression of the `ErrorObject` named `error`,
    /// when that fails), any other by `bind`.
    pub(crate) fn bind<'a>(
        &'a self,
        on_error: &TokenStream,
        mut bind: impl FnMut(Input<'a>) -> syn::Result<Bound>,
    ) -> syn::Result<Bindings> {
        let ctx = format_ident!("__ctx");
        let mut statements = Vec::new();
        let mut args = Vec::new();
        for (index, param) in self.params.iter().enumerate() {
            let bound = match param {
                Param::Extracted { ty, .. } => {
                    let (var, statement) = params::extract(index, ty, &ctx, on_error);
                    Bound {
                        statement: Some(statement),
                        arg: quote! { #var },
                    }
                }
                Param::WholeInput { ty } => bind(Input::Whole(ty))?,
                Param::Argument(argument) => bind(Input::Argument(argument))?,
            };
            statements.extend(bound.statement);
            args.push(bound.arg);
        }
        let call = self.call(&args);
        Ok(Bindings {
            ctx,
            statements,
            call,
        })
    }

    /// [`bind`](Self::bind) for a function whose arguments come one by one as text (a prompt's
    /// arguments, a resource's template variables): a `Json<T>` parameter is refused with
    /// `whole_input`.
    pub(crate) fn bind_text_arguments<'a>(
        &'a self,
        on_error: &TokenStream,
        whole_input: &str,
        mut bind: impl FnMut(&'a Argument) -> syn::Result<Bound>,
    ) -> syn::Result<Bindings> {
        self.bind(on_error, |input| match input {
            Input::Whole(ty) => Err(syn::Error::new_spanned(ty, whole_input)),
            Input::Argument(argument) => bind(argument),
        })
    }

    /// The call of the function with `args`, awaited when it is async.
    fn call(&self, args: &[TokenStream]) -> TokenStream {
        let ident = &self.function.sig.ident;
        if self.function.sig.asyncness.is_some() {
            quote! { #ident(#(#args),*).await }
        } else {
            quote! { #ident(#(#args),*) }
        }
    }
}

/// A parameter that the macro binds from the request itself: any but those the server extracts.
pub(crate) enum Input<'a> {
    /// The whole input object (`Json<T>`).
    Whole(&'a Type),
    /// One argument.
    Argument(&'a Argument),
}

/// How a parameter is passed to the function: `arg`, after `statement` when it needs one.
pub(crate) struct Bound {
    statement: Option<TokenStream>,
    arg: TokenStream,
}

impl Bound {
    /// `arg`, passed as it is.
    pub(crate) fn passed(arg: TokenStream) -> Self {
        Bound {
            statement: None,
            arg,
        }
    }

    /// An argument parsed from the text in `source` by `parse` (see [`text_parser`]), its
    /// error returned as it is.
    pub(crate) fn parsed(argument: &Argument, parse: &TokenStream, source: &Ident) -> Self {
        let (var, ty, wire) = (&argument.ident, &argument.ty, &argument.name);
        Bound {
            statement: Some(quote! {
                let #var: #ty = match #parse(&#source, #wire) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
                };
            }),
            arg: quote! { #var },
        }
    }
}

/// The call of the annotated function in the closure of its definition, its parameters bound.
pub(crate) struct Bindings {
    /// The request context that the closure takes.
    pub(crate) ctx: Ident,
    /// The statements that bind the parameters, in their order.
    pub(crate) statements: Vec<TokenStream>,
    /// The call, awaited when the function is async.
    pub(crate) call: TokenStream,
}

/// The function that parses an argument of type `ty` from text: `optional::<T>` for an
/// `Option<T>`, else `required::<ty>`, which fails when the argument is missing; and whether it
/// is the latter. Spanned at the type, so that a type that does not parse from text is reported
/// at the parameter.
pub(crate) fn text_parser(ty: &Type, optional: &str, required: &str) -> (TokenStream, bool) {
    match generic_of(ty, "Option") {
        Some(inner) => {
            let optional = Ident::new(optional, inner.span());
            (
                quote_spanned! { inner.span() => ::mcp_runtime::__private::#optional::<#inner> },
                false,
            )
        }
        None => {
            let required = Ident::new(required, ty.span());
            (
                quote_spanned! { ty.span() => ::mcp_runtime::__private::#required::<#ty> },
                true,
            )
        }
    }
}

/// The icons given with `icon = "src"` or `icons = expr`.
fn icons(options: &Options) -> syn::Result<Option<TokenStream>> {
    if let Some(src) = options.string("icon")? {
        return Ok(Some(quote! {
            ::std::vec![::mcp_runtime::__private::mcp_runtime_core::implementation::Icon::new(#src)]
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

/// Whether `uri` names an MCP Apps page: `ui://` and something after it.
pub(crate) fn is_ui_uri(uri: &str) -> bool {
    uri.strip_prefix("ui://")
        .is_some_and(|rest| !rest.is_empty())
}
