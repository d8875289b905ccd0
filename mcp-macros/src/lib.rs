//! The attribute macros of the MCP SDK: `#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`,
//! `#[derive(Elicit)]` and `include_skills!`.
//!
//! Use them through `mcp_runtime`, which re-exports them and documents them with examples. The
//! generated code names only `::mcp_runtime::__private` paths, so a user's crate needs no other
//! dependency for it.

mod elicit;
mod options;
mod params;
mod prompt;
mod resource;
mod shared;
mod skills;
mod tool;

use proc_macro::TokenStream;

fn finish(result: syn::Result<proc_macro2::TokenStream>) -> TokenStream {
    result.unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Makes a function a tool. See `mcp_runtime::tool` and the crate's README for the options.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(tool::expand(attr.into(), item.into()))
}

/// Makes a function a prompt. See `mcp_runtime::prompt`.
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(prompt::expand(attr.into(), item.into()))
}

/// Makes a function the reader of a resource or of a resource template. See
/// `mcp_runtime::resource`.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(resource::expand(attr.into(), item.into()))
}

/// Embeds a skills folder in the binary: `include_skills!("../skills")`, the path relative to
/// the calling file as with `include_str!`, gives the `EmbeddedSkills` that
/// `McpServerBuilder::skills` serves. See `mcp_runtime::server::skills`.
#[proc_macro]
pub fn include_skills(input: TokenStream) -> TokenStream {
    finish(skills::expand(input.into()))
}

/// Makes a flat struct an elicitation form, or a unit enum a set of choices. See
/// `mcp_runtime::elicit`.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    finish(elicit::expand(input.into()))
}
