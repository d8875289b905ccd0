//! The parameters of an annotated function: arguments, the whole input, or values the server
//! extracts from the request context.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, FnArg, GenericArgument, Ident, LitStr, Pat, PathArguments, Signature, Type,
};

use crate::options::{Options, doc_text, title_and_description};

/// What one parameter is.
pub(crate) enum Param {
    /// Built by the server through `FromRequestContext` (`RequestContext`, `State<T>`,
    /// `McpServer`, or `#[ctx]`); `state` is `T` of a `State<T>`.
    Extracted {
        ty: Box<Type>,
        state: Option<Box<Type>>,
    },
    /// The whole input object (`Json<T>`).
    WholeInput { ty: Box<Type> },
    /// One argument.
    Argument(Box<Argument>),
}

/// An argument parameter.
pub(crate) struct Argument {
    /// The binding in the function.
    pub ident: Ident,
    /// The name on the wire.
    pub name: String,
    /// The declared type.
    pub ty: Type,
    /// The doc comments.
    pub docs: Vec<Attribute>,
    /// `#[arg(description = ...)]`, else the doc text.
    pub description: Option<String>,
    /// `#[arg(title = ...)]`.
    pub title: Option<LitStr>,
    /// `#[arg(default)]` (`Some(None)`) or `#[arg(default = expr)]`.
    pub default: Option<Option<Expr>>,
    /// `#[arg(minimum = ..)]` and `#[arg(maximum = ..)]`.
    pub range: (Option<Expr>, Option<Expr>),
    /// `#[arg(min_length = ..)]` and `#[arg(max_length = ..)]`.
    pub length: (Option<Expr>, Option<Expr>),
    /// `#[arg(complete = path)]`.
    pub complete: Option<Expr>,
    pub span: Span,
}

/// The argument options each attribute allows.
pub(crate) const TOOL_ARG_OPTIONS: &[&str] = &[
    "rename",
    "description",
    "default",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
];
pub(crate) const PROMPT_ARG_OPTIONS: &[&str] = &["rename", "description", "title", "complete"];
pub(crate) const RESOURCE_ARG_OPTIONS: &[&str] = &["rename", "complete"];

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

/// `T` of `Wrapper<T>` when the type's last path segment is `wrapper`.
pub(crate) fn generic_of(ty: &Type, wrapper: &str) -> Option<Type> {
    let segment = last_segment(ty)?;
    if segment.ident != wrapper {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        }),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == name)
}

/// Refuses `State<Mutex<T>>` and the like: `State<T>` hands each call its own clone of `T`, so
/// a lock (which cannot be cloned, and whose clone would share nothing) must sit behind an
/// `Arc`. The compiler alone would only say that the lock is not `Clone`.
fn check_state_type(state: &Type) -> syn::Result<()> {
    let Some(segment) = last_segment(state) else {
        return Ok(());
    };
    let lock = segment.ident.to_string();
    if !["Mutex", "RwLock", "RefCell", "Cell"].contains(&lock.as_str()) {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        state,
        format!(
            "`State<{lock}<_>>` cannot work: the server hands each call its own clone of the \
             state, and a `{lock}` is not `Clone` (a clone would share nothing anyway). Register \
             the state behind an `Arc` (`.state(Arc::new({lock}::new(value)))`) and take \
             `State<Arc<{lock}<_>>>`"
        ),
    ))
}

/// Checks that an argument's type is one the server can build: from JSON for a tool, from text
/// for a prompt or a resource template.
fn check_argument_type(ty: &Type, macro_name: &str) -> syn::Result<()> {
    let problem = match ty {
        Type::Reference(_) => {
            Some("a reference; take an owned value (`String` rather than `&str`)")
        }
        Type::ImplTrait(_) => Some("`impl Trait`; take a concrete type"),
        Type::TraitObject(_) => Some("a trait object; take a concrete type"),
        Type::Ptr(_) => Some("a raw pointer"),
        Type::BareFn(_) => Some("a function pointer"),
        Type::Infer(_) | Type::Never(_) | Type::Macro(_) => Some("not a concrete type"),
        _ => None,
    };
    let why = match macro_name {
        "mcp_tool" => {
            "Arguments are deserialized from JSON, so their types must implement `Deserialize` and `JsonSchema`"
        }
        _ => "Arguments are parsed from text, so their types must implement `FromStr`",
    };
    match problem {
        Some(problem) => Err(syn::Error::new_spanned(
            ty,
            format!("unsupported parameter type: {problem}. {why}"),
        )),
        None => Ok(()),
    }
}

/// Classifies the parameters of `sig` and strips their `#[arg]`, `#[ctx]` and doc attributes
/// (which Rust does not accept on parameters).
pub(crate) fn classify(
    sig: &mut Signature,
    macro_name: &str,
    allowed: &[&str],
) -> syn::Result<Vec<Param>> {
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format!("#[{macro_name}] functions cannot be generic"),
        ));
    }
    let mut params = Vec::new();
    let mut names: Vec<(String, Span)> = Vec::new();
    for input in sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                return Err(syn::Error::new_spanned(
                    receiver,
                    format!("#[{macro_name}] goes on free functions, not methods"),
                ));
            }
            FnArg::Typed(typed) => typed,
        };
        let attrs = std::mem::take(&mut typed.attrs);
        let (ours, kept): (Vec<_>, Vec<_>) = attrs.into_iter().partition(|a| {
            a.path().is_ident("arg") || a.path().is_ident("ctx") || a.path().is_ident("doc")
        });
        typed.attrs = kept;
        let ty = (*typed.ty).clone();
        let marked_ctx = ours.iter().any(|a| a.path().is_ident("ctx"));
        if marked_ctx
            || is_named(&ty, "RequestContext")
            || is_named(&ty, "State")
            || is_named(&ty, "McpServer")
        {
            if let Some(arg) = ours.iter().find(|a| a.path().is_ident("arg")) {
                return Err(syn::Error::new_spanned(
                    arg,
                    "#[arg] describes an argument of the client's; this parameter is filled in \
                     by the server (an extractor), so it takes no #[arg]",
                ));
            }
            let state = if is_named(&ty, "State") {
                let state = generic_of(&ty, "State");
                if let Some(state) = &state {
                    check_state_type(state)?;
                }
                state.map(Box::new)
            } else {
                None
            };
            params.push(Param::Extracted {
                ty: Box::new(ty),
                state,
            });
            continue;
        }
        if is_named(&ty, "Json") {
            params.push(Param::WholeInput { ty: Box::new(ty) });
            continue;
        }
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.subpat.is_none() => pat.ident.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "an argument parameter must be a plain name (patterns are allowed only for `Json<T>`, `State<T>` and `#[ctx]` parameters)",
                ));
            }
        };
        check_argument_type(&ty, macro_name)?;
        let options = Options::from_attrs(&ours, "arg")?;
        options.check("arg", allowed)?;
        let name = options.string("rename")?.map_or_else(
            || ident.to_string().trim_start_matches("r#").to_owned(),
            |s| s.value(),
        );
        if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
            let mut error = syn::Error::new(
                typed.pat.span(),
                format!("duplicate argument name `{name}`"),
            );
            error.combine(syn::Error::new(
                *first,
                format!("`{name}` is first used here"),
            ));
            return Err(error);
        }
        names.push((name.clone(), typed.pat.span()));
        let docs: Vec<Attribute> = ours
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .cloned()
            .collect();
        let description = match options.string("description")? {
            Some(d) => Some(d.value()),
            None => doc_text(&docs),
        };
        let default = if options.has("default") {
            Some(options.expr("default").ok().flatten())
        } else {
            None
        };
        params.push(Param::Argument(Box::new(Argument {
            ident,
            name,
            ty,
            docs,
            description,
            title: options.string("title")?,
            default,
            range: (options.expr("minimum")?, options.expr("maximum")?),
            length: (options.expr("min_length")?, options.expr("max_length")?),
            complete: options.expr("complete")?,
            span: typed.pat.span(),
        })));
    }
    Ok(params)
}

/// The statement that builds an extracted parameter, returning `on_error` (an expression of the
/// `ErrorObject` named `error`) when it fails.
pub(crate) fn extract(
    index: usize,
    ty: &Type,
    ctx: &Ident,
    on_error: &TokenStream,
) -> (Ident, TokenStream) {
    let var = Ident::new(&format!("__extracted_{index}"), Span::call_site());
    let stmt = quote! {
        let #var: #ty = match <#ty as ::mcp_runtime::__private::FromRequestContext>::from_context(&#ctx) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(error) => return #on_error,
        };
    };
    (var, stmt)
}

/// `.requires_state::<T>()` for every `State<T>` parameter.
pub(crate) fn state_requirements(params: &[Param]) -> TokenStream {
    let states = params.iter().filter_map(|p| match p {
        Param::Extracted { state: Some(t), .. } => Some(t),
        _ => None,
    });
    quote! { #( .requires_state::<#states>() )* }
}

/// The title and description of an argument for clients.
pub(crate) fn argument_texts(argument: &Argument) -> (Option<String>, Option<String>) {
    let title = argument.title.as_ref().map(LitStr::value);
    match (&title, &argument.description) {
        (Some(_), description) => (title, description.clone()),
        (None, description) => title_and_description(description.clone()),
    }
}
