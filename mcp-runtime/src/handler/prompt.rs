//! Prompts: their definitions, their arguments, and what handlers may return.
//!
//! Prompt arguments travel as strings. A `#[mcp_prompt]` function may take typed parameters: each
//! is parsed from its string with `FromStr`, and a value that does not parse gives an invalid-params
//! error naming the argument and the type expected. `Option` parameters are optional arguments.
//!
//! What a handler returns becomes a `GetPromptResult` through [`IntoPromptResult`]: a `String` is
//! one user message; a [`PromptMessage`] or `Vec<PromptMessage>` are the messages; a
//! [`GetPromptResult`] is itself; `Result<T, E>` with `E: Display` turns `Err` into an internal
//! error carrying `E`'s text.
//!
//! The guide's chapter "Prompts and resources" (`docs/src/prompts-and-resources.md`) teaches it with examples.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::implementation::Icon;
use mcp_runtime_core::prompts::{GetPromptResult, Prompt, PromptArgument, PromptMessage};

use super::RequestContext;
use super::completion::Completer;
use super::extract::StateRequirement;

/// The arguments of a `prompts/get`, by name.
pub type PromptArguments = BTreeMap<String, String>;

/// The future a prompt handler returns.
pub type PromptFuture = Pin<Box<dyn Future<Output = Result<GetPromptResult, ErrorObject>> + Send>>;

type PromptHandler = dyn Fn(PromptArguments, RequestContext) -> PromptFuture + Send + Sync;

/// A prompt: its description for clients, its handler, and its argument completers.
#[derive(Clone)]
pub struct PromptDefinition {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<PromptHandler>,
    pub(crate) completers: HashMap<String, Completer>,
    pub(crate) required_state: Vec<StateRequirement>,
    pub(crate) scopes: Vec<String>,
}

impl fmt::Debug for PromptDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDefinition")
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

impl PromptDefinition {
    /// A prompt named `name` whose handler gets the arguments (already checked for the required
    /// ones) and the request context.
    pub fn new<F, Fut, R>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let handler: Arc<PromptHandler> = Arc::new(move |args, ctx| {
            let future = handler(args, ctx);
            Box::pin(async move { future.await.into_prompt_result() })
        });
        PromptDefinition {
            prompt: Prompt::new(name),
            handler,
            completers: HashMap::new(),
            required_state: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// The prompt as clients see it.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.prompt.name
    }

    /// Sets the display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// The OAuth scopes a caller's access token must have been granted to get the prompt (see
    /// [`ToolDefinition::scopes`](crate::tool::ToolDefinition::scopes)).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = crate::auth::scope_list(scopes);
        self
    }

    /// The OAuth scopes getting the prompt needs ([`scopes`](Self::scopes)).
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Adds an argument.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.prompt
            .arguments
            .get_or_insert_with(Vec::new)
            .push(argument);
        self
    }

    /// Adds an argument by name, with a description and whether it is required.
    pub fn simple_argument(self, name: &str, description: Option<&str>, required: bool) -> Self {
        let mut argument = PromptArgument::new(name);
        argument.description = description.map(str::to_owned);
        argument.required = Some(required);
        self.argument(argument)
    }

    /// Attaches a completer to the argument `name`.
    pub fn complete_argument(mut self, name: impl Into<String>, completer: Completer) -> Self {
        self.completers.insert(name.into(), completer);
        self
    }

    /// Declares that the handler needs shared state of type `T`.
    pub fn requires_state<T: 'static>(mut self) -> Self {
        self.required_state.push(StateRequirement::of::<T>());
        self
    }

    /// The arguments the prompt requires that `arguments` lacks.
    pub(crate) fn missing_arguments(&self, arguments: &PromptArguments) -> Vec<&str> {
        self.prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect()
    }
}

/// What a prompt handler may return.
#[diagnostic::on_unimplemented(
    message = "a prompt cannot return `{Self}`",
    label = "not a prompt result",
    note = "return text (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a \
            `GetPromptResult`, or a `Result` of one of these"
)]
pub trait IntoPromptResult {
    /// The result, or the error the client gets.
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl<T: IntoPromptResult, E: fmt::Display> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        match self {
            Ok(value) => value.into_prompt_result(),
            Err(error) => Err(ErrorObject::internal_error(error.to_string())),
        }
    }
}
