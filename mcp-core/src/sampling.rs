//! Sampling: the server asks the client's LLM for a completion (`sampling/createMessage`).
//!
//! From 2025-11-25 on a message may hold several content blocks, and sampling may offer the model
//! tools (`tool_use` and `tool_result` blocks). Rendered for older revisions, a message with several
//! blocks becomes several consecutive messages of the same role, and tool blocks become text.

use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::JsonObject;
use crate::content::{AudioContent, ContentBlock, ImageContent, Role, TextContent};
use crate::de;
use crate::meta::RequestMeta;
use crate::render::{self, skip};
use crate::tasks::TaskMetadata;
use crate::tools::Tool;
use crate::version::ProtocolVersion;

/// The params of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    #[serde(serialize_with = "serialize_messages")]
    pub messages: Vec<SamplingMessage>,
    /// What the server prefers in a model; the client decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the server asks for; the client may change or drop it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP servers' context to include (soft-deprecated from 2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata to pass through.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "render::json_object"
    )]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call (2025-11-25; needs the client's `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use the tools (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub tool_choice: Option<ToolChoice>,
    /// Run the request as a task (2025-11-25 tasks).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub task: Option<TaskMetadata>,
    /// Metadata (not part of the request in 2026-07-28, where sampling is an input request).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::until_2025_11_25"
    )]
    pub meta: Option<RequestMeta>,
}

impl CreateMessageRequestParams {
    /// Sample at most `max_tokens` tokens following `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
        }
    }
}

/// Before 2025-11-25 a message holds exactly one block: split messages with several.
fn serialize_messages<S: Serializer>(
    messages: &[SamplingMessage],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if render::target() >= ProtocolVersion::V2025_11_25 {
        return messages.serialize(serializer);
    }
    let mut seq = serializer.serialize_seq(None)?;
    for message in messages {
        match &message.content {
            SamplingContent::Multiple(blocks) if blocks.len() > 1 => {
                for block in blocks {
                    seq.serialize_element(&SamplingMessage {
                        role: message.role,
                        content: SamplingContent::Single(block.clone()),
                        meta: None,
                    })?;
                }
            }
            _ => seq.serialize_element(message)?,
        }
    }
    seq.end()
}

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Metadata (2025-11-25).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub meta: Option<JsonObject>,
}

impl SamplingMessage {
    /// A message from `role` holding one block.
    pub fn new(role: Role, content: SamplingContentBlock) -> Self {
        SamplingMessage {
            role,
            content: SamplingContent::Single(content),
            meta: None,
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(
            Role::User,
            SamplingContentBlock::Text(TextContent::new(text)),
        )
    }
}

/// The content of a sampling message: one block, or (2025-11-25) several.
///
/// An array is several blocks; anything else is one.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SamplingContent {
    /// One block.
    Single(SamplingContentBlock),
    /// Several blocks (2025-11-25).
    Multiple(Vec<SamplingContentBlock>),
}

impl SamplingContent {
    /// The blocks, however many.
    pub fn blocks(&self) -> &[SamplingContentBlock] {
        match self {
            SamplingContent::Single(block) => std::slice::from_ref(block),
            SamplingContent::Multiple(blocks) => blocks,
        }
    }

    /// The text of the text blocks, joined with spaces (what a model answered, without its tool
    /// calls, images or sounds).
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .blocks()
            .iter()
            .filter_map(|block| match block {
                SamplingContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        texts.join(" ")
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            blocks @ Value::Array(_) => de::nested(blocks).map(SamplingContent::Multiple),
            block => de::nested(block).map(SamplingContent::Single),
        }
    }
}

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplingContent::Single(block) => block.serialize(serializer),
            SamplingContent::Multiple(blocks)
                if render::target() >= ProtocolVersion::V2025_11_25 =>
            {
                blocks.serialize(serializer)
            }
            // Older revisions take one block. Messages of a request were already split; what is
            // left (a result) keeps one block: the text of all of them when they are all text,
            // otherwise the first.
            SamplingContent::Multiple(blocks) => match blocks.as_slice() {
                [] => SamplingContentBlock::Text(TextContent::new("")).serialize(serializer),
                [first, ..] => match all_text(blocks) {
                    Some(text) => {
                        SamplingContentBlock::Text(TextContent::new(text)).serialize(serializer)
                    }
                    None => first.serialize(serializer),
                },
            },
        }
    }
}

fn all_text(blocks: &[SamplingContentBlock]) -> Option<String> {
    let texts: Option<Vec<&str>> = blocks
        .iter()
        .map(|b| match b {
            SamplingContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.map(|t| t.join("\n"))
}

/// One block of a sampling message, told apart by its `type`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SamplingContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"` (2025-03-26).
    Audio(AudioContent),
    /// `"tool_use"`: the model calls a tool (2025-11-25).
    ToolUse(ToolUseContent),
    /// `"tool_result"`: the outcome of a tool call (2025-11-25).
    ToolResult(ToolResultContent),
}

de::deserialize_by_type!(SamplingContentBlock {
    "text" => Text,
    "image" => Image,
    "audio" => Audio,
    "tool_use" => ToolUse,
    "tool_result" => ToolResult,
});

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum SamplingBlockRef<'a> {
    Text(&'a TextContent),
    Image(&'a ImageContent),
    Audio(&'a AudioContent),
    ToolUse(&'a ToolUseContent),
    ToolResult(&'a ToolResultContent),
}

impl SamplingContentBlock {
    /// The text that stands in for this block in a revision that does not know its type.
    fn fallback_text(&self, target: ProtocolVersion) -> Option<String> {
        match self {
            SamplingContentBlock::Audio(a) if target < ProtocolVersion::V2025_03_26 => {
                Some(format!("[audio omitted: {}]", a.mime_type))
            }
            SamplingContentBlock::ToolUse(u) if target < ProtocolVersion::V2025_11_25 => {
                Some(format!(
                    "[tool call {} `{}`] {}",
                    u.id,
                    u.name,
                    Value::Object(u.input.clone())
                ))
            }
            SamplingContentBlock::ToolResult(r) if target < ProtocolVersion::V2025_11_25 => {
                let texts: Vec<&str> = r.content.iter().filter_map(ContentBlock::as_text).collect();
                Some(format!(
                    "[tool result {}] {}",
                    r.tool_use_id,
                    texts.join("\n")
                ))
            }
            _ => None,
        }
    }
}

impl Serialize for SamplingContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(text) = self.fallback_text(render::target()) {
            return SamplingBlockRef::Text(&TextContent::new(text)).serialize(serializer);
        }
        match self {
            SamplingContentBlock::Text(t) => SamplingBlockRef::Text(t),
            SamplingContentBlock::Image(i) => SamplingBlockRef::Image(i),
            SamplingContentBlock::Audio(a) => SamplingBlockRef::Audio(a),
            SamplingContentBlock::ToolUse(u) => SamplingBlockRef::ToolUse(u),
            SamplingContentBlock::ToolResult(r) => SamplingBlockRef::ToolResult(r),
        }
        .serialize(serializer)
    }
}

/// The model calls a tool (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUseContent {
    /// The id of this call, which the result refers to.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub input: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ToolUseContent {
    /// A call `id` of tool `name` with `input`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
        }
    }
}

/// The outcome of a tool call in a sampling conversation (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The id of the call.
    pub tool_use_id: String,
    /// What the tool produced.
    pub content: Vec<ContentBlock>,
    /// What the tool produced, as JSON (an object before 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ToolResultContent {
    /// The result of call `tool_use_id`.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
            meta: None,
        }
    }
}

/// Which MCP servers' context the client should add to the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum IncludeContext {
    /// None.
    None,
    /// The requesting server's.
    ThisServer,
    /// Every connected server's.
    AllServers,
}

/// What the server prefers in a model. Priorities go from 0 (unimportant) to 1 (most important).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names or families to consider, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A hint at a model to use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// A (part of a) model name, e.g. `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ModelHint {
    /// The hint `name`.
    pub fn new(name: impl Into<String>) -> Self {
        ModelHint {
            name: Some(name.into()),
        }
    }
}

/// How the model may use the offered tools (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolChoice {
    /// The mode (`auto` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// Whether the model must, may or must not call tools (2025-11-25).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call at least one tool.
    Required,
    /// The model must not call tools.
    None,
}

/// The result of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who says it (the assistant).
    pub role: Role,
    /// What the model produced.
    pub content: SamplingContent,
    /// The model used.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or another reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateMessageResult {
    /// The assistant's `content`, sampled from `model`.
    pub fn new(content: SamplingContentBlock, model: impl Into<String>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContent::Single(content),
            model: model.into(),
            stop_reason: None,
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_value;
    use serde_json::json;

    #[test]
    fn multi_block_messages_are_split_for_old_revisions() {
        let message = SamplingMessage {
            role: Role::User,
            content: SamplingContent::Multiple(vec![
                SamplingContentBlock::Text(TextContent::new("look:")),
                SamplingContentBlock::Image(ImageContent::new("AAAA", "image/png")),
            ]),
            meta: None,
        };
        let params = CreateMessageRequestParams::new(vec![message], 100);
        assert_eq!(
            to_value(&params, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "look:"}},
                {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}
            ], "maxTokens": 100})
        );
        assert_eq!(
            to_value(&params, ProtocolVersion::V2025_11_25).unwrap()["messages"][0]["content"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn the_text_of_an_answer_skips_other_blocks() {
        let content = SamplingContent::Multiple(vec![
            SamplingContentBlock::Text(TextContent::new("Paris")),
            SamplingContentBlock::Image(ImageContent::new("AAAA", "image/png")),
            SamplingContentBlock::Text(TextContent::new("is the capital.")),
        ]);
        assert_eq!(content.text(), "Paris is the capital.");
        let single = SamplingContent::Single(SamplingContentBlock::Text(TextContent::new("Hi")));
        assert_eq!(single.text(), "Hi");
    }

    #[test]
    fn content_parses_single_or_array() {
        let single: SamplingContent =
            serde_json::from_value(json!({"type": "text", "text": "a"})).unwrap();
        assert_eq!(single.blocks().len(), 1);
        let many: SamplingContent = serde_json::from_value(json!([
            {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "18C"}]}
        ]))
        .unwrap();
        assert!(matches!(many.blocks()[0], SamplingContentBlock::ToolUse(_)));
        assert!(matches!(
            many.blocks()[1],
            SamplingContentBlock::ToolResult(_)
        ));
        assert_eq!(
            to_value(&many, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "text", "text": "[tool call c1 `get_weather`] {\"city\":\"Paris\"}"})
        );
    }

    #[test]
    fn audio_in_sampling_before_2025_03_26_is_described() {
        let block = SamplingContentBlock::Audio(AudioContent::new("AAAA", "audio/wav"));
        assert_eq!(
            to_value(&block, ProtocolVersion::V2024_11_05).unwrap(),
            json!({"type": "text", "text": "[audio omitted: audio/wav]"})
        );
    }
}
