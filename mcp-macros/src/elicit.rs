//! `#[derive(Elicit)]`: elicitation forms from flat structs, and choices from unit enums.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::options::{Options, doc_text, title_and_description};

const FIELD_OPTIONS: &[&str] = &["rename", "title", "description", "default"];
const VARIANT_OPTIONS: &[&str] = &["rename", "title"];

pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Elicit)] does not support generic types",
        ));
    }
    match &input.data {
        Data::Struct(data) => form(&input, &data.fields),
        Data::Enum(data) => choices(&input, data),
        Data::Union(_) => Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(Elicit)] goes on structs and enums",
        )),
    }
}

fn optional_string(value: Option<String>) -> TokenStream {
    match value {
        Some(s) => quote! { ::core::option::Option::Some(#s) },
        None => quote! { ::core::option::Option::None },
    }
}

/// A struct: the form.
fn form(input: &DeriveInput, fields: &Fields) -> syn::Result<TokenStream> {
    let Fields::Named(fields) = fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "an elicitation form is a struct with named fields: each field is one question",
        ));
    };
    let ident = &input.ident;
    let mut properties = Vec::new();
    let mut decoders = Vec::new();
    for field in &fields.named {
        let options = Options::from_attrs(&field.attrs, "elicit")?;
        options.check("elicit", FIELD_OPTIONS)?;
        let Some(field_ident) = &field.ident else {
            continue;
        };
        let name = options.string("rename")?.map_or_else(
            || field_ident.to_string().trim_start_matches("r#").to_owned(),
            |s| s.value(),
        );
        let (doc_title, doc_description) = title_and_description(doc_text(&field.attrs));
        let title = optional_string(options.string("title")?.map(|s| s.value()).or(doc_title));
        let description = optional_string(
            options
                .string("description")?
                .map(|s| s.value())
                .or(doc_description),
        );
        let ty = &field.ty;
        // Spanned at the field's type, so that a type that cannot be a form field is reported
        // there.
        let field_trait =
            quote_spanned! { ty.span() => <#ty as ::mcp_runtime::__private::ElicitField> };
        let default_value = options.expr("default")?;
        let default = match &default_value {
            Some(expr) => quote! {{
                let default: #ty = #expr;
                #field_trait::to_value(&default)
            }},
            None => quote! { ::core::option::Option::None },
        };
        // A field with a default may be left out of the answer.
        let required = match &default_value {
            Some(_) => quote! { false },
            None => quote! { #field_trait::REQUIRED },
        };
        properties.push(quote! {
            (
                #name,
                ::mcp_runtime::__private::describe_property(#field_trait::schema(), #title, #description, #default),
                #required,
            )
        });
        // Through `field_trait` like the schema: a type that cannot be a field is reported once.
        let decode = quote! {
            ::mcp_runtime::__private::decode_field(content, #name, #field_trait::decode)?
        };
        decoders.push(match default_value {
            Some(expr) => quote! {
                #field_ident: match content.get(#name) {
                    ::core::option::Option::None => #expr,
                    ::core::option::Option::Some(_) => #decode,
                }
            },
            None => quote! { #field_ident: #decode },
        });
    }
    Ok(quote! {
        impl ::mcp_runtime::__private::Elicit for #ident {
            fn schema() -> ::mcp_runtime::__private::mcp_runtime_core::elicitation::ElicitationSchema {
                ::mcp_runtime::__private::form_schema(::std::vec![#(#properties),*])
            }

            fn from_content(
                content: &::mcp_runtime::__private::IndexMap<
                    ::std::string::String,
                    ::mcp_runtime::__private::mcp_runtime_core::elicitation::ElicitValue,
                >,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::core::result::Result::Ok(#ident { #(#decoders,)* })
            }
        }
    })
}

/// An enum of unit variants: a set of choices.
fn choices(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<TokenStream> {
    let ident = &input.ident;
    let mut options_list = Vec::new();
    let mut from_choice = Vec::new();
    let mut to_choice = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(
                &variant.fields,
                "choices of an elicitation form are unit variants: a variant cannot carry data",
            ));
        }
        let options = Options::from_attrs(&variant.attrs, "elicit")?;
        options.check("elicit", VARIANT_OPTIONS)?;
        let variant_ident = &variant.ident;
        let value = options
            .string("rename")?
            .map_or_else(|| variant_ident.to_string(), |s| s.value());
        let title = options
            .string("title")?
            .map(|s| s.value())
            .or_else(|| doc_text(&variant.attrs).map(|d| d.replace('\n', " ")));
        let title = optional_string(title);
        options_list.push(quote! { (#value, #title) });
        from_choice.push(quote! { #value => ::core::option::Option::Some(#ident::#variant_ident) });
        to_choice.push(quote! { #ident::#variant_ident => #value });
    }
    Ok(quote! {
        impl ::mcp_runtime::__private::ElicitEnum for #ident {
            fn options() -> ::std::vec::Vec<(&'static str, ::core::option::Option<&'static str>)> {
                ::std::vec![#(#options_list),*]
            }

            fn from_choice(value: &str) -> ::core::option::Option<Self> {
                match value {
                    #(#from_choice,)*
                    _ => ::core::option::Option::None,
                }
            }

            fn choice(&self) -> &'static str {
                match self {
                    #(#to_choice,)*
                }
            }
        }

        impl ::mcp_runtime::__private::ElicitField for #ident {
            fn schema() -> ::mcp_runtime::__private::mcp_runtime_core::elicitation::PrimitiveSchema {
                ::mcp_runtime::__private::enum_schema::<Self>()
            }

            fn decode(
                value: ::core::option::Option<&::mcp_runtime::__private::mcp_runtime_core::elicitation::ElicitValue>,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::mcp_runtime::__private::decode_enum(value)
            }

            fn to_value(&self) -> ::core::option::Option<::mcp_runtime::__private::mcp_runtime_core::elicitation::ElicitValue> {
                ::core::option::Option::Some(
                    ::mcp_runtime::__private::mcp_runtime_core::elicitation::ElicitValue::String(
                        ::mcp_runtime::__private::ElicitEnum::choice(self).into(),
                    ),
                )
            }
        }
    })
}
