//! The attribute macros of the MCP SDK: `#[mcp_tool]`, `#[mcp_prompt]`, `#[mcp_resource]`,
//! `#[derive(Elicit)]` and `include_skills!`.
//!
//! Use them through `mcp_runtime`, which re-exports them; its modules `tool`, `prompt`,
//! `resource` and `elicit` and the guide (`docs/src`: "Tools", "Prompts and resources",
//! "Elicitation, sampling and roots", "What is checked, and when") have compiled examples. The
//! generated code names only `::mcp_runtime::__private` paths, so a user's crate needs no other
//! dependency for it. The macros stay thin: they read the function's signature and options,
//! check what can be checked at compile time (with errors that point at the parameter and say
//! what to change), and hand a definition to the runtime, which does the work.

#![warn(missing_docs)]

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

/// Makes an async (or plain) function a tool, registered for `McpServer::from_registry` and
/// `from_module`.
///
/// ```ignore
/// /// Add two integers.                     <- the tool's description
/// #[mcp_tool(read_only, idempotent)]
/// async fn add(
///     /// The first addend.                 <- the property's description
///     a: i64,
///     #[arg(default = 0, minimum = 0)]
///     b: i64,
/// ) -> i64 {
///     a + b
/// }
/// ```
///
/// Each parameter is an argument (a property of the input schema, deserialized from JSON) unless
/// it is `RequestContext`, `State<T>`, `McpServer`, `Json<T>` (the whole input as one type), or
/// marked `#[ctx]` (any `FromRequestContext` type). The result is anything `IntoToolResult`:
/// text, numbers, `Json<T>` (structured content, with `T`'s schema as the `outputSchema`),
/// content blocks, or `Result<T, E>` with `E: Display` (an `isError` result).
///
/// Options: `name`, `title`, `description`; the annotations `read_only`, `destructive`,
/// `idempotent`, `open_world` (flags, or `= bool`); `icon`/`icons`, `meta`; `input_schema` and
/// `output_schema` (a `json!` value replacing the derived one); `requires = "elicitation" |
/// "sampling" | "roots" | ...` (client capabilities the tool needs); `scopes = "a b"` (OAuth
/// scopes a caller's token needs); `task = "optional" | "required"` and `task_start`;
/// `ui = "ui://..."` (the tool's interface, MCP Apps) and `visibility = "app" | "model app"`.
/// `#[arg(...)]` on a parameter: `rename`, `description`, `default` / `default = expr`,
/// `minimum`, `maximum`, `min_length`, `max_length`.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(tool::expand(attr.into(), item.into()))
}

/// Makes a function a prompt: its parameters are the prompt's arguments (strings, or any
/// `FromStr` type; `Option<T>` for an optional one), its result the messages.
///
/// ```ignore
/// /// Review a piece of code.
/// #[mcp_prompt(title = "Code review")]
/// async fn review(code: String, #[arg(complete = languages)] language: Option<String>) -> String {
///     format!("Review this {} code:\n{code}", language.unwrap_or_default())
/// }
/// ```
///
/// Options: `name`, `title`, `description`, `icon`/`icons`, `scopes`. `#[arg(...)]`:
/// `rename`, `description`, `title`, `complete = function` (completions of the argument).
/// Extracted parameters are as for `mcp_tool`.
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(prompt::expand(attr.into(), item.into()))
}

/// Makes a function the reader of a resource, or of a resource template when its `uri` has
/// variables (RFC 6570: `notes://{id}`, `search://items{?q,limit}`), each bound to the
/// parameter of that name.
///
/// ```ignore
/// /// One note, as Markdown.
/// #[mcp_resource(uri = "notes://{id}", mime_type = "text/markdown")]
/// async fn note(id: u32, State(notebook): State<Notebook>) -> Result<String, ResourceError> {
///     notebook.markdown(id)
/// }
/// ```
///
/// Options: `uri` (required), `name`, `title`, `description`, `mime_type`, `size`,
/// `annotations`, `icon`/`icons`, `cache`, `scopes`, and `app` for an app's interface (MCP
/// Apps: a `ui://` page served as `text/html;profile=mcp-app`), or `app = sandbox` with a
/// function `fn sandbox() -> ResourceUi` saying how the host should sandbox it (content security
/// policy, permissions, border). `#[arg(...)]`: `rename`,
/// `complete = function`. A variable with no parameter, or a parameter with no variable, is a
/// compile error.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(resource::expand(attr.into(), item.into()))
}

/// Embeds a skills folder in the binary: `include_skills!("../skills")`, the path relative to
/// the calling file as with `include_str!`, gives the `EmbeddedSkills` that
/// `McpServerBuilder::skills` serves. See `mcp_runtime::handler::skill`.
#[proc_macro]
pub fn include_skills(input: TokenStream) -> TokenStream {
    finish(skills::expand(input.into()))
}

/// Makes a flat struct an elicitation form (`RequestContext::elicit` asks the user to fill it
/// in), or a unit enum a set of choices. Fields are strings, numbers, booleans, `Elicit` enums,
/// `Vec` of those enums (multiple choice), or `Option`s of them; anything else is a compile
/// error that says what the protocol allows.
///
/// ```ignore
/// #[derive(Elicit)]
/// struct Confirm {
///     /// Delete the note for good?
///     #[elicit(title = "Delete")]
///     confirm: bool,
/// }
/// ```
///
/// `#[elicit(...)]` on a field: `rename`, `title`, `description`, `default`; on a variant:
/// `rename`, `title`.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    finish(elicit::expand(input.into()))
}
