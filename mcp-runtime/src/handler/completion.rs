//! Completions for prompt arguments and resource-template variables.
//!
//! A completer is attached to one argument (`#[arg(complete = languages)]`, or
//! [`PromptDefinition::complete_argument`](crate::prompt::PromptDefinition::complete_argument)) and
//! returns the candidate values for what the user typed so far. A server may also have one global
//! [`CompletionHandler`]; `completion/complete` tries it first, then the argument's completer, and
//! answers with no values when neither knows the argument. Results are capped at 100 values, with
//! `total` and `hasMore` set when there were more.
//!
//! ```
//! use mcp_runtime::completion::{CompletionRequest, prefix_match};
//!
//! fn languages(request: &CompletionRequest) -> Vec<String> {
//!     prefix_match(["rust", "ruby", "go"], &request.value)
//! }
//! # let _ = mcp_runtime::completion::completer(languages);
//! ```
//!
//! The guide's chapter "Prompts and resources" (`docs/src/prompts-and-resources.md`) teaches it with examples.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::completion::{CompleteRequestParams, CompleteResult};

use crate::handler::RequestContext;

/// What is being completed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or template variable) name.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of other arguments already filled in.
    pub context: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// The request from a `completion/complete`'s params.
    pub fn from_params(params: &CompleteRequestParams) -> Self {
        CompletionRequest {
            argument: params.argument.name.clone(),
            value: params.argument.value.clone(),
            context: params
                .context
                .as_ref()
                .and_then(|c| c.arguments.clone())
                .unwrap_or_default(),
        }
    }
}

/// The candidates of `candidates` that start with `prefix`, in their order.
pub fn prefix_match<I, S>(candidates: I, prefix: &str) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    candidates
        .into_iter()
        .filter(|c| c.as_ref().starts_with(prefix))
        .map(|c| c.as_ref().to_owned())
        .collect()
}

/// A completer of one argument.
pub type Completer = Arc<dyn Fn(&CompletionRequest, &RequestContext) -> Vec<String> + Send + Sync>;

/// A function that can complete an argument: `fn(&CompletionRequest) -> Vec<String>`, or, to
/// reach shared state or the client's details, `fn(&CompletionRequest, &RequestContext) ->
/// Vec<String>`. (`Marker` only tells the two forms apart.)
pub trait IntoCompleter<Marker> {
    /// The completer.
    fn into_completer(self) -> Completer;
}

impl<F> IntoCompleter<fn(&CompletionRequest)> for F
where
    F: Fn(&CompletionRequest) -> Vec<String> + Send + Sync + 'static,
{
    fn into_completer(self) -> Completer {
        Arc::new(move |request, _| self(request))
    }
}

impl<F> IntoCompleter<fn(&CompletionRequest, &RequestContext)> for F
where
    F: Fn(&CompletionRequest, &RequestContext) -> Vec<String> + Send + Sync + 'static,
{
    fn into_completer(self) -> Completer {
        Arc::new(self)
    }
}

/// Makes a [`Completer`] of a function (see [`IntoCompleter`]).
pub fn completer<Marker>(f: impl IntoCompleter<Marker>) -> Completer {
    f.into_completer()
}

/// The future a [`CompletionHandler`] returns: `None` when it does not complete that argument.
pub type CompletionFuture = Pin<Box<dyn Future<Output = Option<CompleteResult>> + Send>>;

/// A server-wide completion handler, tried before the per-argument completers.
pub type CompletionHandler =
    Arc<dyn Fn(CompleteRequestParams, RequestContext) -> CompletionFuture + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_matching_keeps_order() {
        assert_eq!(
            prefix_match(["rust", "go", "ruby"], "ru"),
            vec!["rust".to_owned(), "ruby".to_owned()]
        );
        assert_eq!(prefix_match(["rust"], ""), vec!["rust".to_owned()]);
        assert!(prefix_match(Vec::<String>::new(), "x").is_empty());
    }
}
