//! Argument completion for prompts and resource templates (`completion/complete`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::meta::{RequestMeta, ResultMeta};
use crate::render::skip;
use crate::result::ResultType;

/// At most this many values go in one completion result.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The params of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and what the user typed so far.
    pub argument: CompletionArgument,
    /// Arguments already filled in (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub context: Option<CompletionContext>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl CompleteRequestParams {
    /// Complete `argument` of `reference`.
    pub fn new(reference: CompletionReference, argument: CompletionArgument) -> Self {
        CompleteRequestParams {
            reference,
            argument,
            context: None,
            meta: None,
        }
    }
}

/// What an argument belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// A prompt (`"ref/prompt"`).
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// A resource template (`"ref/resource"`); the argument is one of its variables.
    #[serde(rename = "ref/resource")]
    ResourceTemplate(ResourceTemplateReference),
}

/// A prompt, by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// Its display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
}

impl PromptReference {
    /// The prompt `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptReference {
            name: name.into(),
            title: None,
        }
    }
}

/// A resource template, by URI template (`ResourceReference` before 2025-06-18).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceTemplateReference {
    /// The URI template (or a URI).
    pub uri: String,
}

impl ResourceTemplateReference {
    /// The template `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceTemplateReference { uri: uri.into() }
    }
}

/// The argument to complete.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What has been typed so far.
    pub value: String,
}

impl CompletionArgument {
    /// Complete `name`, typed so far as `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        CompletionArgument {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// Arguments already filled in, to narrow completions (2025-06-18).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// The values so far, by argument name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// The result of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// The completions.
    pub completion: Completion,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Complete (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl CompleteResult {
    /// A result offering `values`: the first [`MAX_COMPLETION_VALUES`] of them, with `total` and
    /// `hasMore` set when there were more.
    pub fn new(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > MAX_COMPLETION_VALUES;
        values.truncate(MAX_COMPLETION_VALUES);
        CompleteResult {
            completion: Completion {
                values,
                total: has_more.then_some(total as u64),
                has_more: has_more.then_some(true),
            },
            meta: None,
            result_type: ResultType::Complete,
        }
    }
}

/// Completion values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// Up to 100 values.
    pub values: Vec<String>,
    /// How many values there are in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_tagged() {
        let params: CompleteRequestParams = serde_json::from_value(json!({
            "ref": {"type": "ref/resource", "uri": "file:///{path}"},
            "argument": {"name": "path", "value": "sr"},
            "context": {"arguments": {"root": "/"}}
        }))
        .unwrap();
        assert_eq!(
            params.reference,
            CompletionReference::ResourceTemplate(ResourceTemplateReference::new("file:///{path}"))
        );
        assert_eq!(params.argument, CompletionArgument::new("path", "sr"));
        let prompt = CompletionReference::Prompt(PromptReference::new("review"));
        assert_eq!(
            serde_json::to_value(prompt).unwrap(),
            json!({"type": "ref/prompt", "name": "review"})
        );
    }

    #[test]
    fn results_are_capped_at_100() {
        let result = CompleteResult::new((0..150).map(|i| i.to_string()).collect());
        assert_eq!(result.completion.values.len(), 100);
        assert_eq!(result.completion.total, Some(150));
        assert_eq!(result.completion.has_more, Some(true));
        let small = CompleteResult::new(vec!["a".into()]);
        assert_eq!(small.completion.total, None);
        assert_eq!(small.completion.has_more, None);
    }
}
