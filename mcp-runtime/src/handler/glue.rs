//! What the code that the attribute macros generate calls: `#[mcp_tool]`, `#[mcp_prompt]`,
//! `#[mcp_resource]` and `#[derive(Elicit)]`.
//!
//! Nothing here is for users: each item checks a parameter's type where the compiler can point at
//! it, parses an argument with an error that names it, or builds what a derive implements. The
//! crate re-exports them only under the hidden `mcp_runtime::__private`, whose paths the generated
//! code names, so that they can change without changing the public API. What the generated code
//! builds (a [`ToolDefinition`], a result through [`IntoToolResult`], an
//! [`Elicit`](super::elicit::Elicit) form) is public, in its own module.

use std::future::Future;

use indexmap::IndexMap;
use mcp_runtime_core::elicitation::{
    ElicitValue, ElicitationSchema, PrimitiveSchema, TitledSingleSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};
use mcp_runtime_core::prompts::GetPromptResult;
use mcp_runtime_core::tools::CallToolResult;
use mcp_runtime_core::{ErrorObject, JsonObject};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::RequestContext;
use super::arguments::{FromArgumentText, parse_text};
use super::elicit::{ElicitEnum, describe, parse_choice, titled};
use super::prompt::{IntoPromptResult, PromptArguments};
use super::resource::ResourceError;
use super::resource::uri_template::UriMatch;
use super::tool::{IntoToolResult, ToolDefinition};

/// A type a `#[mcp_tool]` argument may have: one the server describes with a JSON Schema and
/// builds from the call's JSON arguments, and that a handler may move across threads.
///
/// Implemented for every such type; `#[mcp_tool]` checks it at each parameter with
/// [`tool_argument`], so that a type that cannot be an argument is reported there.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "tool arguments are read from JSON: this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on the type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`; or, if \
            the server supplies the value (an extractor such as `AccessToken` or `HttpRequest`), \
            mark the parameter `#[ctx]`"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema + Send + 'static {}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolArgument for T {}

/// Checks that `T` can be a tool argument (used by `#[mcp_tool]`, at each parameter).
pub fn tool_argument<T: ToolArgument>() {}

/// Builds the definition of a `#[mcp_tool]` whose arguments deserialize into `A` (used by the
/// macro, as `(&&TypedTool::<A>::new()).build(..)`).
///
/// When `A` is not a valid arguments type, method resolution falls back to
/// [`BuildInvalidTool`] instead of reporting `A`'s missing traits: the macro has already reported
/// the parameter whose type is at fault, through [`tool_argument`], and one error per parameter is
/// clearer than the derives' internals.
pub struct TypedTool<A>(std::marker::PhantomData<fn() -> A>);

impl<A> TypedTool<A> {
    /// The builder for arguments of type `A`.
    pub fn new() -> Self {
        TypedTool(std::marker::PhantomData)
    }
}

impl<A> Default for TypedTool<A> {
    fn default() -> Self {
        TypedTool::new()
    }
}

/// The definition of a tool whose arguments type is valid: [`ToolDefinition::typed`].
pub trait BuildTypedTool<A> {
    /// Builds the definition.
    fn build<F, Fut, R>(&self, name: &str, handler: F) -> ToolDefinition
    where
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult;
}

impl<A: DeserializeOwned + JsonSchema + Send + 'static> BuildTypedTool<A> for &TypedTool<A> {
    fn build<F, Fut, R>(&self, name: &str, handler: F) -> ToolDefinition
    where
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        ToolDefinition::typed(name, handler)
    }
}

/// The definition of a tool whose arguments type is not valid, which only a crate that fails to
/// compile can reach (see [`TypedTool`]); building a server with it fails.
pub trait BuildInvalidTool {
    /// A definition whose defect names the problem.
    fn build<F>(&self, name: &str, handler: F) -> ToolDefinition;
}

impl<A> BuildInvalidTool for TypedTool<A> {
    fn build<F>(&self, name: &str, _handler: F) -> ToolDefinition {
        let mut definition = ToolDefinition::new(name, JsonObject::new(), |_, _| async {});
        definition.defect = Some(format!(
            "the arguments of tool `{name}` cannot be read from JSON ({})",
            std::any::type_name::<A>()
        ));
        definition
    }
}

/// The result of a tool whose handler could not be given a parameter (used by `#[mcp_tool]`).
pub fn extraction_failed(error: ErrorObject) -> CallToolResult {
    CallToolResult::error(error.message)
}

/// A prompt's final outcome, passed through as it is (used by `#[mcp_prompt]`, whose generated
/// code reports invalid arguments as the invalid-params errors they are). Hidden: it implements a
/// public trait, whose documented implementors would list it.
#[doc(hidden)]
pub struct PromptOutcome(pub Result<GetPromptResult, ErrorObject>);

impl IntoPromptResult for PromptOutcome {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        self.0
    }
}

/// Parses the argument `name` as `T` (used by `#[mcp_prompt]`): absent gives `None`, a value that
/// does not parse gives an invalid-params error naming the argument and the type expected.
pub fn parse_argument<T: FromArgumentText>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<Option<T>, ErrorObject> {
    parse_text(arguments.get(name).map(String::as_str))
        .map_err(|what| ErrorObject::invalid_params(format!("Invalid argument `{name}`: {what}")))
}

/// Like [`parse_argument`], for a required argument.
pub fn require_argument<T: FromArgumentText>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<T, ErrorObject> {
    parse_argument(arguments, name)?
        .ok_or_else(|| ErrorObject::invalid_params(format!("Missing required argument `{name}`")))
}

/// Parses the template variable `name` as `T` (used by `#[mcp_resource]`): absent gives `None`,
/// a value that does not parse gives an invalid-params error naming the variable.
pub fn parse_variable<T: FromArgumentText>(
    captured: &UriMatch,
    name: &str,
) -> Result<Option<T>, ResourceError> {
    parse_text(captured.get(name)).map_err(|what| {
        ResourceError::invalid_uri(format!("Invalid value for `{{{name}}}`: {what}"))
    })
}

/// Like [`parse_variable`], for a variable the template always captures.
pub fn require_variable<T: FromArgumentText>(
    captured: &UriMatch,
    name: &str,
) -> Result<T, ResourceError> {
    parse_variable(captured, name)?
        .ok_or_else(|| ResourceError::invalid_uri(format!("Missing value for `{{{name}}}`")))
}

/// The single-select schema of an [`ElicitEnum`] (titled when any choice has a title): the
/// `ElicitField` of an enum that derives `Elicit`.
pub fn enum_schema<E: ElicitEnum>() -> PrimitiveSchema {
    let options = E::options();
    if options.iter().any(|(_, title)| title.is_some()) {
        let mut schema = TitledSingleSelectEnumSchema::default();
        schema.one_of = titled(&options);
        PrimitiveSchema::TitledSingleSelect(schema)
    } else {
        let mut schema = UntitledSingleSelectEnumSchema::default();
        schema.values = options.iter().map(|(v, _)| (*v).to_owned()).collect();
        PrimitiveSchema::UntitledSingleSelect(schema)
    }
}

/// Decodes a single choice (the `ElicitField` of an enum that derives `Elicit`).
pub fn decode_enum<E: ElicitEnum>(value: Option<&ElicitValue>) -> Result<E, String> {
    match value {
        Some(ElicitValue::String(choice)) => parse_choice(choice),
        Some(other) => Err(format!("expected a choice, got {}", describe(other))),
        None => Err("missing".into()),
    }
}

/// Adds a title, a description and a default to a property schema (used by the derive).
pub fn describe_property(
    mut schema: PrimitiveSchema,
    title: Option<&str>,
    description: Option<&str>,
    default: Option<ElicitValue>,
) -> PrimitiveSchema {
    let title = title.map(str::to_owned);
    let description = description.map(str::to_owned);
    macro_rules! describe {
        ($s:expr) => {{
            if title.is_some() {
                $s.title = title;
            }
            if description.is_some() {
                $s.description = description;
            }
        }};
    }
    match &mut schema {
        PrimitiveSchema::String(s) => {
            describe!(s);
            if let Some(ElicitValue::String(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::Number(s) => {
            describe!(s);
            if let Some(ElicitValue::Number(d)) = default {
                s.default = d.as_f64();
            }
        }
        PrimitiveSchema::Boolean(s) => {
            describe!(s);
            if let Some(ElicitValue::Boolean(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::UntitledSingleSelect(s) => {
            describe!(s);
            if let Some(ElicitValue::String(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::TitledSingleSelect(s) => {
            describe!(s);
            if let Some(ElicitValue::String(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::UntitledMultiSelect(s) => {
            describe!(s);
            if let Some(ElicitValue::Strings(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::TitledMultiSelect(s) => {
            describe!(s);
            if let Some(ElicitValue::Strings(d)) = default {
                s.default = Some(d);
            }
        }
        PrimitiveSchema::LegacyTitled(s) => {
            describe!(s);
            if let Some(ElicitValue::String(d)) = default {
                s.default = Some(d);
            }
        }
        _ => {}
    }
    schema
}

/// Decodes one field of an answer with `decode` (an [`ElicitField::decode`](super::elicit::ElicitField::decode)), naming the field in
/// the error (used by the derive, which names the field's type only as `<T as ElicitField>`, so
/// that a type that cannot be a field is reported once).
pub fn decode_field<T>(
    content: &IndexMap<String, ElicitValue>,
    name: &str,
    decode: fn(Option<&ElicitValue>) -> Result<T, String>,
) -> Result<T, String> {
    decode(content.get(name)).map_err(|e| format!("field `{name}`: {e}"))
}

/// Builds a form schema from its properties (used by the derive).
pub fn form_schema(properties: Vec<(&str, PrimitiveSchema, bool)>) -> ElicitationSchema {
    let required: Vec<String> = properties
        .iter()
        .filter(|(_, _, required)| *required)
        .map(|(name, _, _)| (*name).to_owned())
        .collect();
    let mut schema = ElicitationSchema::new(
        properties
            .into_iter()
            .map(|(name, schema, _)| (name.to_owned(), schema))
            .collect(),
    );
    schema.required = (!required.is_empty()).then_some(required);
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> PromptArguments {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn arguments_parse_or_name_the_problem() {
        let a = args(&[("count", "3"), ("bad", "x")]);
        assert_eq!(require_argument::<u32>(&a, "count"), Ok(3));
        assert_eq!(parse_argument::<u32>(&a, "absent"), Ok(None));
        assert_eq!(
            require_argument::<u32>(&a, "bad").unwrap_err().message,
            "Invalid argument `bad`: expected u32, got \"x\" (invalid digit found in string)"
        );
        assert_eq!(
            require_argument::<String>(&a, "absent")
                .unwrap_err()
                .message,
            "Missing required argument `absent`"
        );
    }
}
