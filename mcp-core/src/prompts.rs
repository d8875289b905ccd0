//! Prompts: templates of messages the user can pick, listing them, and getting one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::content::{ContentBlock, Role};
use crate::implementation::Icon;
use crate::input::InputResponses;
use crate::meta::{RequestMeta, ResultMeta};
use crate::render::skip;
use crate::result::ResultType;

/// A prompt the server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons for a user interface (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_06_18"
    )]
    pub meta: Option<JsonObject>,
}

impl Prompt {
    /// The prompt `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
            icons: None,
            meta: None,
        }
    }
}

/// An argument of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display name (2025-06-18).
    #[serde(default, skip_serializing_if = "skip::since_2025_06_18")]
    pub title: Option<String>,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// The argument `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: None,
        }
    }
}

crate::result::paginated_result! {
    /// The result of `prompts/list`.
    ListPromptsResult, "prompts", prompts: Prompt, "prompts"
}

/// The params of `prompts/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptRequestParams {
    /// The prompt to get.
    pub name: String,
    /// Its arguments, all strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to the input requests of an earlier round (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub input_responses: Option<InputResponses>,
    /// The state the server handed out with its input requests (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::since_2026_07_28")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl GetPromptRequestParams {
    /// Get `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptRequestParams {
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }
}

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message from `role` with `content`.
    pub fn new(role: Role, content: impl Into<ContentBlock>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
        }
    }

    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::User, ContentBlock::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::Assistant, ContentBlock::text(text))
    }
}

/// The result of `prompts/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// A description of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// Complete (2026-07-28).
    #[serde(default, skip_serializing_if = "skip::before_2026_07_28")]
    pub result_type: ResultType,
}

impl GetPromptResult {
    /// A result holding `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            description: None,
            messages,
            meta: None,
            result_type: ResultType::Complete,
        }
    }
}
