//! Elicitation: the server asks the user, through the client, for input.
//!
//! Form mode (2025-06-18) sends a flat object schema of primitive properties and gets the user's
//! values back; URL mode (2025-11-25) sends the user to a web page for input that must not pass
//! through the client (credentials, payments). In 2026-07-28 both travel as input requests of a
//! multi-round-trip request instead of as `elicitation/create` requests.
//!
//! The property schemas of 2025-11-25 (defaults on every type, titled and multi-select enums) are
//! rendered for 2025-06-18 peers in the forms that revision knows: defaults other than boolean ones
//! are left out, titled enums become `enum` + `enumNames`, and multi-select enums become
//! single-select ones.

use indexmap::IndexMap;
use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::JsonObject;
use crate::de;
use crate::error::{ErrorCode, ErrorObject};
use crate::meta::{NotificationMeta, RequestMeta};
use crate::render::{self, required, skip};
use crate::tasks::TaskMetadata;
use crate::version::ProtocolVersion;

/// The params of `elicitation/create`: form mode or URL mode.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Ask for values described by a schema (`mode: "form"`, or no mode).
    Form(ElicitRequestFormParams),
    /// Send the user to a URL (`mode: "url"`, 2025-11-25).
    Url(ElicitRequestUrlParams),
}

/// Form-mode elicitation: a message and the schema of the values wanted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// What to tell the user.
    pub message: String,
    /// The values wanted: a flat object of primitive properties.
    pub requested_schema: ElicitationSchema,
    /// Run the request as a task (2025-11-25 tasks).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub task: Option<TaskMetadata>,
    /// Metadata (not part of the request in 2026-07-28).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::until_2025_11_25"
    )]
    pub meta: Option<RequestMeta>,
}

impl ElicitRequestFormParams {
    /// Ask `message`, wanting values described by `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: ElicitationSchema) -> Self {
        ElicitRequestFormParams {
            message: message.into(),
            requested_schema,
            task: None,
            meta: None,
        }
    }
}

/// URL-mode elicitation (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestUrlParams {
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// Identifies the elicitation for `notifications/elicitation/complete` (2025-11-25 only, where
    /// it is required: rendering for 2025-11-25 without it fails).
    #[serde(
        default,
        skip_serializing_if = "skip::unless_2025_11_25",
        serialize_with = "required::elicitation_id"
    )]
    pub elicitation_id: Option<String>,
    /// Run the request as a task (2025-11-25 tasks).
    #[serde(default, skip_serializing_if = "skip::only_2025_11_25")]
    pub task: Option<TaskMetadata>,
    /// Metadata (not part of the request in 2026-07-28).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::until_2025_11_25"
    )]
    pub meta: Option<RequestMeta>,
}

impl ElicitRequestUrlParams {
    /// Send the user to `url`, explaining why with `message`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequestUrlParams {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
            task: None,
            meta: None,
        }
    }
}

#[derive(Serialize)]
struct ModeTagged<'a, T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'static str>,
    #[serde(flatten)]
    params: &'a T,
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // 2025-06-18 knows no modes; later revisions name form mode explicitly.
            ElicitRequestParams::Form(params) => ModeTagged {
                mode: (render::target() >= ProtocolVersion::V2025_11_25).then_some("form"),
                params,
            }
            .serialize(serializer),
            // 2025-06-18 has form mode only.
            ElicitRequestParams::Url(_) if render::target() < ProtocolVersion::V2025_11_25 => {
                Err(render::unsupported("URL-mode elicitation"))
            }
            ElicitRequestParams::Url(params) => ModeTagged {
                mode: Some("url"),
                params,
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value.get("mode").map(|m| m.as_str()) {
            None | Some(Some("form")) => de::nested(value).map(ElicitRequestParams::Form),
            Some(Some("url")) => de::nested(value).map(ElicitRequestParams::Url),
            Some(other) => Err(D::Error::custom(format!(
                "unknown elicitation mode {}",
                other.map_or_else(|| "(not a string)".to_owned(), |m| format!("`{m}`"))
            ))),
        }
    }
}

/// The schema of the values a form asks for: an object of primitive properties.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "object")]
#[non_exhaustive]
pub struct ElicitationSchema {
    /// The JSON Schema dialect (2025-11-25).
    #[serde(
        rename = "$schema",
        default,
        skip_serializing_if = "skip::since_2025_11_25"
    )]
    pub schema: Option<String>,
    /// The properties, in the order the form shows them.
    pub properties: IndexMap<String, PrimitiveSchema>,
    /// The properties that must be filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

impl ElicitationSchema {
    /// A schema with `properties`, none required.
    pub fn new(properties: IndexMap<String, PrimitiveSchema>) -> Self {
        ElicitationSchema {
            schema: None,
            properties,
            required: None,
        }
    }
}

/// The schema of one property of an elicitation form.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PrimitiveSchema {
    /// A string.
    String(StringSchema),
    /// A number or an integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// One of a list of strings (`enum`).
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// One of a list of strings with display titles (`oneOf` of `const`/`title`, 2025-11-25).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Several of a list of strings (an array of `enum` items, 2025-11-25).
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Several of a list of strings with display titles (2025-11-25).
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// One of a list of strings with titles in `enumNames` (the 2025-06-18 form; deprecated).
    LegacyTitled(LegacyTitledEnumSchema),
}

/// A string property.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "string", rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The shortest allowed length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// The longest allowed length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A format the value must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// The value to pre-fill (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub default: Option<String>,
}

/// The formats a string property may require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StringFormat {
    /// An email address.
    Email,
    /// A URI.
    Uri,
    /// A date (`2025-01-31`).
    Date,
    /// A date and time (RFC 3339).
    DateTime,
}

/// Whether a number property takes any number or only integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum NumberKind {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A number property.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NumberSchema {
    /// `number` or `integer`.
    #[serde(rename = "type")]
    pub kind: NumberKind,
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The least allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_numbers_as_integers"
    )]
    pub minimum: Option<f64>,
    /// The greatest allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_numbers_as_integers"
    )]
    pub maximum: Option<f64>,
    /// The value to pre-fill (2025-11-25).
    #[serde(
        default,
        skip_serializing_if = "skip::since_2025_11_25",
        serialize_with = "whole_numbers_as_integers"
    )]
    pub default: Option<f64>,
}

/// Writes a whole number as an integer (`0`, not `0.0`), so that the bounds and default of an
/// `integer` property read as integers; other numbers are written as they are.
fn whole_numbers_as_integers<S: Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    // Every whole f64 in this range converts to i64 exactly.
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    match *value {
        Some(n) if n.fract() == 0.0 && n.abs() <= EXACT => serializer.serialize_i64(n as i64),
        Some(n) => serializer.serialize_f64(n),
        None => serializer.serialize_none(),
    }
}

/// A boolean property.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "boolean")]
#[non_exhaustive]
pub struct BooleanSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value to pre-fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// One of a list of strings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "string")]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// The value to pre-select (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub default: Option<String>,
}

/// An allowed value with its display title.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
}

impl EnumOption {
    /// The value `value`, shown as `title`.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        EnumOption {
            value: value.into(),
            title: title.into(),
        }
    }
}

/// One of a list of strings with display titles (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "string", rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values and their titles.
    pub one_of: Vec<EnumOption>,
    /// The value to pre-select.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select: `{type: "string", enum: [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "string")]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select: `{anyOf: [{const, title}, ...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The allowed values and their titles.
    pub any_of: Vec<EnumOption>,
}

/// Several of a list of strings (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "array", rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest values to pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most values to pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// The values to pre-select.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several of a list of strings with display titles (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "array", rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest values to pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most values to pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values and their titles.
    pub items: TitledEnumItems,
    /// The values to pre-select.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// One of a list of strings, titled through `enumNames` (deprecated; the only titled form
/// 2025-06-18 knows).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "string", rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display titles, in the order of `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// The value to pre-select (2025-11-25).
    #[serde(default, skip_serializing_if = "skip::since_2025_11_25")]
    pub default: Option<String>,
}

impl LegacyTitledEnumSchema {
    fn from_options(
        title: &Option<String>,
        description: &Option<String>,
        options: &[EnumOption],
    ) -> Self {
        LegacyTitledEnumSchema {
            title: title.clone(),
            description: description.clone(),
            values: options.iter().map(|o| o.value.clone()).collect(),
            enum_names: Some(options.iter().map(|o| o.title.clone()).collect()),
            default: None,
        }
    }
}

impl Serialize for PrimitiveSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let legacy = render::target() < ProtocolVersion::V2025_11_25;
        match self {
            PrimitiveSchema::String(s) => s.serialize(serializer),
            PrimitiveSchema::Number(n) => n.serialize(serializer),
            PrimitiveSchema::Boolean(b) => b.serialize(serializer),
            PrimitiveSchema::UntitledSingleSelect(e) => e.serialize(serializer),
            PrimitiveSchema::LegacyTitled(e) => e.serialize(serializer),
            PrimitiveSchema::TitledSingleSelect(e) if legacy => {
                LegacyTitledEnumSchema::from_options(&e.title, &e.description, &e.one_of)
                    .serialize(serializer)
            }
            PrimitiveSchema::TitledSingleSelect(e) => e.serialize(serializer),
            PrimitiveSchema::UntitledMultiSelect(e) if legacy => UntitledSingleSelectEnumSchema {
                title: e.title.clone(),
                description: e.description.clone(),
                values: e.items.values.clone(),
                default: None,
            }
            .serialize(serializer),
            PrimitiveSchema::UntitledMultiSelect(e) => e.serialize(serializer),
            PrimitiveSchema::TitledMultiSelect(e) if legacy => {
                LegacyTitledEnumSchema::from_options(&e.title, &e.description, &e.items.any_of)
                    .serialize(serializer)
            }
            PrimitiveSchema::TitledMultiSelect(e) => e.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let has = |key: &str| value.get(key).is_some();
        match value.get("type").and_then(Value::as_str) {
            Some("string") if has("oneOf") => {
                de::nested(value).map(PrimitiveSchema::TitledSingleSelect)
            }
            Some("string") if has("enumNames") => {
                de::nested(value).map(PrimitiveSchema::LegacyTitled)
            }
            Some("string") if has("enum") => {
                de::nested(value).map(PrimitiveSchema::UntitledSingleSelect)
            }
            Some("string") => de::nested(value).map(PrimitiveSchema::String),
            Some("number" | "integer") => de::nested(value).map(PrimitiveSchema::Number),
            Some("boolean") => de::nested(value).map(PrimitiveSchema::Boolean),
            Some("array") if value.get("items").is_some_and(|i| i.get("anyOf").is_some()) => {
                de::nested(value).map(PrimitiveSchema::TitledMultiSelect)
            }
            Some("array") => de::nested(value).map(PrimitiveSchema::UntitledMultiSelect),
            _ => Err(D::Error::custom(
                "an elicitation property must have type string, number, integer, boolean or array",
            )),
        }
    }
}

/// The answer to `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The values the user gave (on `accept` in form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<IndexMap<String, ElicitValue>>,
    /// Metadata (removed in 2026-07-28).
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "skip::until_2025_11_25"
    )]
    pub meta: Option<JsonObject>,
}

impl ElicitResult {
    /// The user accepted and gave `content`.
    pub fn accept(content: IndexMap<String, ElicitValue>) -> Self {
        ElicitResult {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// The user declined.
    pub fn decline() -> Self {
        ElicitResult {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// The user dismissed the request without choosing.
    pub fn cancel() -> Self {
        ElicitResult {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// Submitted the form (or agreed to open the URL).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed it.
    Cancel,
}

/// One value the user gave.
///
/// Several choices (2025-11-25) are rendered for 2025-06-18, which has no multi-select, as one
/// string of the choices separated by `", "`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitValue {
    /// A string (also an enum choice).
    String(String),
    /// A number.
    Number(serde_json::Number),
    /// A boolean.
    Boolean(bool),
    /// Several enum choices (2025-11-25).
    Strings(Vec<String>),
}

impl<'de> Deserialize<'de> for ElicitValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(ElicitValue::String(s)),
            Value::Number(n) => Ok(ElicitValue::Number(n)),
            Value::Bool(b) => Ok(ElicitValue::Boolean(b)),
            choices @ Value::Array(_) => de::nested(choices).map(ElicitValue::Strings),
            other => Err(D::Error::invalid_type(
                match other {
                    Value::Null => Unexpected::Other("null"),
                    _ => Unexpected::Map,
                },
                &"a string, a number, a boolean or an array of strings",
            )),
        }
    }
}

impl Serialize for ElicitValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitValue::String(s) => serializer.serialize_str(s),
            ElicitValue::Number(n) => n.serialize(serializer),
            ElicitValue::Boolean(b) => serializer.serialize_bool(*b),
            ElicitValue::Strings(choices) if render::target() < ProtocolVersion::V2025_11_25 => {
                serializer.serialize_str(&choices.join(", "))
            }
            ElicitValue::Strings(choices) => choices.serialize(serializer),
        }
    }
}

/// The params of `notifications/elicitation/complete` (2025-11-25): a URL-mode elicitation ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the request that ended.
    pub elicitation_id: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMeta>,
}

impl ElicitationCompleteNotificationParams {
    /// The notification that `elicitation_id` ended.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        ElicitationCompleteNotificationParams {
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }
}

/// A request needs the user to complete URL-mode elicitations first (`-32042`,
/// `URLElicitationRequiredError`, 2025-11-25 only).
///
/// The elicitations travel in the error's `data`, rendered for 2025-11-25, so they are rendered
/// (and checked: each needs its `elicitationId`) when the error is made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("This request requires more information.")]
#[non_exhaustive]
pub struct UrlElicitationRequired {
    /// The elicitations as they go in `data.elicitations`.
    pub elicitations: Vec<Value>,
}

impl UrlElicitationRequired {
    /// The error asking for `elicitations`; fails when one cannot be rendered for 2025-11-25 (it
    /// lacks its `elicitationId`).
    pub fn new(elicitations: &[ElicitRequestUrlParams]) -> serde_json::Result<Self> {
        let elicitations = elicitations
            .iter()
            .map(|e| {
                render::to_value(
                    &ElicitRequestParams::Url(e.clone()),
                    ProtocolVersion::V2025_11_25,
                )
            })
            .collect::<serde_json::Result<_>>()?;
        Ok(UrlElicitationRequired { elicitations })
    }
}

impl From<UrlElicitationRequired> for ErrorObject {
    fn from(err: UrlElicitationRequired) -> Self {
        ErrorObject::new(ErrorCode::URL_ELICITATION_REQUIRED, err.to_string())
            .with_data(serde_json::json!({ "elicitations": err.elicitations }))
    }
}

/// The error object of [`UrlElicitationRequired`] for `elicitations`; fails when one lacks its
/// `elicitationId`.
pub fn url_elicitation_required(
    elicitations: &[ElicitRequestUrlParams],
) -> serde_json::Result<ErrorObject> {
    UrlElicitationRequired::new(elicitations).map(ErrorObject::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_value;
    use serde_json::json;

    fn parse(value: Value) -> PrimitiveSchema {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn every_primitive_schema_round_trips() {
        for wire in [
            json!({"type": "string", "title": "Name", "minLength": 1, "maxLength": 50,
                   "format": "email", "default": "a@b.c"}),
            json!({"type": "integer", "minimum": 0, "maximum": 10, "default": 3}),
            json!({"type": "number", "description": "Ratio"}),
            json!({"type": "boolean", "default": true}),
            json!({"type": "string", "enum": ["a", "b"], "default": "a"}),
            json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "a"}),
            json!({"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["x", "y"]},
                   "default": ["x"]}),
            json!({"type": "array", "maxItems": 2,
                   "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}}),
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
        ] {
            let schema = parse(wire.clone());
            let back = serde_json::to_value(&schema).unwrap();
            // Integer bounds come back as floats; compare numerically.
            assert_eq!(
                serde_json::from_value::<PrimitiveSchema>(back).unwrap(),
                schema,
                "{wire}"
            );
        }
    }

    #[test]
    fn kinds_are_recognised() {
        assert!(matches!(
            parse(json!({"type": "string", "format": "uri"})),
            PrimitiveSchema::String(_)
        ));
        assert!(matches!(
            parse(json!({"type": "string", "enum": []})),
            PrimitiveSchema::UntitledSingleSelect(_)
        ));
        assert!(matches!(
            parse(json!({"type": "string", "enum": [], "enumNames": []})),
            PrimitiveSchema::LegacyTitled(_)
        ));
        assert!(matches!(
            parse(json!({"type": "string", "oneOf": []})),
            PrimitiveSchema::TitledSingleSelect(_)
        ));
        assert!(matches!(
            parse(json!({"type": "array", "items": {"type": "string", "enum": []}})),
            PrimitiveSchema::UntitledMultiSelect(_)
        ));
        assert!(matches!(
            parse(json!({"type": "array", "items": {"anyOf": []}})),
            PrimitiveSchema::TitledMultiSelect(_)
        ));
        assert!(serde_json::from_value::<PrimitiveSchema>(json!({"type": "object"})).is_err());
    }

    #[test]
    fn new_schema_forms_are_rendered_for_2025_06_18() {
        let titled = parse(json!({"type": "string", "title": "Color", "default": "r",
                                  "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}));
        assert_eq!(
            to_value(&titled, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "string", "title": "Color", "enum": ["r", "g"], "enumNames": ["Red", "Green"]})
        );
        let multi = parse(
            json!({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "default": ["x"]}),
        );
        assert_eq!(
            to_value(&multi, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "string", "enum": ["x", "y"]})
        );
        let string = parse(json!({"type": "string", "default": "d"}));
        assert_eq!(
            to_value(&string, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "string"})
        );
        let boolean = parse(json!({"type": "boolean", "default": false}));
        assert_eq!(
            to_value(&boolean, ProtocolVersion::V2025_06_18).unwrap(),
            json!({"type": "boolean", "default": false})
        );
    }

    #[test]
    fn modes() {
        let form: ElicitRequestParams = serde_json::from_value(json!({
            "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        }))
        .unwrap();
        assert!(matches!(form, ElicitRequestParams::Form(_)));
        assert_eq!(
            to_value(&form, ProtocolVersion::V2025_06_18)
                .unwrap()
                .get("mode"),
            None
        );
        assert_eq!(
            to_value(&form, ProtocolVersion::V2025_11_25).unwrap()["mode"],
            "form"
        );

        let url: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "url", "message": "Sign in", "url": "https://example.com/auth", "elicitationId": "e1"
        }))
        .unwrap();
        let ElicitRequestParams::Url(ref params) = url else {
            panic!("url mode")
        };
        assert_eq!(params.elicitation_id.as_deref(), Some("e1"));
        assert_eq!(
            to_value(&url, ProtocolVersion::V2025_11_25).unwrap()["elicitationId"],
            "e1"
        );
        assert_eq!(
            to_value(&url, ProtocolVersion::V2026_07_28)
                .unwrap()
                .get("elicitationId"),
            None
        );

        let bad =
            serde_json::from_value::<ElicitRequestParams>(json!({"mode": "voice", "message": "x"}));
        assert_eq!(
            bad.unwrap_err().to_string(),
            "unknown elicitation mode `voice`"
        );
    }

    #[test]
    fn results_carry_typed_values() {
        let result: ElicitResult = serde_json::from_value(json!({
            "action": "accept",
            "content": {"name": "Ada", "age": 36, "ratio": 0.5, "ok": true, "tags": ["a", "b"]}
        }))
        .unwrap();
        let content = result.content.unwrap();
        assert_eq!(content["name"], ElicitValue::String("Ada".into()));
        assert_eq!(content["age"], ElicitValue::Number(36.into()));
        assert_eq!(content["ok"], ElicitValue::Boolean(true));
        assert_eq!(
            content["tags"],
            ElicitValue::Strings(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            content.keys().collect::<Vec<_>>(),
            ["name", "age", "ratio", "ok", "tags"]
        );
    }

    #[test]
    fn url_elicitation_required_error() {
        let mut params = ElicitRequestUrlParams::new("Authorize", "https://example.com/oauth");
        params.elicitation_id = Some("e-1".into());
        let err = url_elicitation_required(std::slice::from_ref(&params)).unwrap();
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"code": -32042, "message": "This request requires more information.",
                   "data": {"elicitations": [{"mode": "url", "message": "Authorize",
                                              "url": "https://example.com/oauth", "elicitationId": "e-1"}]}})
        );
        assert_eq!(
            ErrorObject::from(UrlElicitationRequired::new(&[params.clone()]).unwrap()),
            err
        );
        params.elicitation_id = None;
        assert_eq!(
            UrlElicitationRequired::new(&[params])
                .unwrap_err()
                .to_string(),
            "missing field `elicitationId`, which protocol revision 2025-11-25 requires"
        );
    }

    #[test]
    fn url_mode_needs_2025_11_25_and_its_elicitation_id() {
        let mut params = ElicitRequestUrlParams::new("Sign in", "https://example.com/auth");
        let url = ElicitRequestParams::Url(params.clone());
        for version in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_06_18] {
            assert_eq!(
                to_value(&url, version).unwrap_err().to_string(),
                format!("URL-mode elicitation cannot be rendered for protocol revision {version}")
            );
        }
        assert_eq!(
            to_value(&url, ProtocolVersion::V2025_11_25)
                .unwrap_err()
                .to_string(),
            "missing field `elicitationId`, which protocol revision 2025-11-25 requires"
        );
        // 2026-07-28 has no `elicitationId`.
        assert_eq!(
            to_value(&url, ProtocolVersion::V2026_07_28).unwrap(),
            json!({"mode": "url", "message": "Sign in", "url": "https://example.com/auth"})
        );
        params.elicitation_id = Some("e-9".into());
        assert_eq!(
            to_value(
                &ElicitRequestParams::Url(params),
                ProtocolVersion::V2025_11_25
            )
            .unwrap(),
            json!({"mode": "url", "message": "Sign in", "url": "https://example.com/auth",
                   "elicitationId": "e-9"})
        );
    }
}
