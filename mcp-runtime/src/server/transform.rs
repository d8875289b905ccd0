//! Offering tools otherwise than they are defined: renamed, with arguments renamed, fixed (and
//! hidden) or described anew, with another description; and offering only some of them, by
//! name or tag. The same on the server's own tools and on those it mirrors from another
//! (see [`proxy`](crate::proxy)): a transform applies to every tool registered under its name,
//! at build time or at run time.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use mcp_runtime_core::JsonObject;
use mcp_runtime_core::tools::Tool;
use serde_json::Value;

use crate::tool::{ToolDefinition, ToolHandler};

/// How one tool is offered: renamed, its arguments renamed, fixed (and hidden from its schema)
/// or described anew, its title and description rewritten; set on a server with
/// [`McpServerBuilder::transform_tool`](super::McpServerBuilder::transform_tool), where it
/// applies to the tool defined under that name, the server's own or one it mirrors.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::{ToolFilter, ToolTransform};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {
///     "path": {"type": "string"}, "encoding": {"type": "string"}}});
/// let read = ToolDefinition::new("read_file", schema.as_object().unwrap().clone(), |args, _| async move {
///     format!("{} as {}", args["path"], args["encoding"])
/// });
/// let server = McpServer::builder(server_info!())
///     .tool(read)
///     .transform_tool(
///         "read_file",
///         ToolTransform::new()
///             .rename("read")
///             .description("Reads a text file of the project.")
///             .rename_argument("path", "file")
///             .fix_argument("encoding", json!("utf-8")),
///     )
///     .drop_tools(ToolFilter::named(["delete_file"]))
///     .build()
///     .unwrap();
/// assert_eq!(server.tool_names(), ["read"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ToolTransform {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    /// Arguments renamed, new name to the tool's own.
    renamed: BTreeMap<String, String>,
    /// Arguments fixed: always the value given, and left out of the schema.
    fixed: BTreeMap<String, Value>,
    /// Arguments described anew, by their name as offered.
    described: BTreeMap<String, String>,
}

impl ToolTransform {
    /// No change yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Offers the tool as `name`.
    pub fn rename(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Offers the tool with the display name `title`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Offers the tool with `description` (what the model reads).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Offers the argument `from` as `to`; calls name it `to`, and the tool gets it as `from`.
    pub fn rename_argument(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.renamed.insert(to.into(), from.into());
        self
    }

    /// Always calls the tool with `value` for the argument `name`, which the schema no longer
    /// shows: a caller cannot set it.
    pub fn fix_argument(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.fixed.insert(name.into(), value.into());
        self
    }

    /// Describes the argument `name` (as offered, after a rename) with `description`.
    pub fn describe_argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.described.insert(name.into(), description.into());
        self
    }

    /// The name the tool defined as `name` is offered under.
    pub(crate) fn offered_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.name.as_deref().unwrap_or(name)
    }

    /// `definition` as this transform offers it; an error names an argument the tool lacks.
    pub(crate) fn apply(&self, definition: ToolDefinition) -> Result<ToolDefinition, String> {
        let mut definition = definition;
        let tool = &mut definition.tool;
        let own = tool.name.clone();
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let missing = self
            .renamed
            .values()
            .chain(self.fixed.keys())
            .find(|name| !properties.contains_key(*name));
        if let Some(name) = missing {
            return Err(format!(
                "the transform of tool {own} names the argument {name}, which the tool does not \
                 have"
            ));
        }
        if let Some(name) = &self.name {
            tool.name = name.clone();
        }
        if let Some(title) = &self.title {
            tool.title = Some(title.clone());
        }
        if let Some(description) = &self.description {
            tool.description = Some(description.clone());
        }
        reshape(
            &mut tool.input_schema,
            &self.renamed,
            &self.fixed,
            &self.described,
        );
        if !self.renamed.is_empty() || !self.fixed.is_empty() {
            definition.handler = translating(
                definition.handler,
                Arc::new(self.renamed.clone()),
                Arc::new(self.fixed.clone()),
            );
        }
        Ok(definition)
    }
}

/// The input schema as offered: renamed properties (and `required` entries), fixed ones left
/// out, descriptions set.
fn reshape(
    schema: &mut JsonObject,
    renamed: &BTreeMap<String, String>,
    fixed: &BTreeMap<String, Value>,
    described: &BTreeMap<String, String>,
) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for name in fixed.keys() {
            properties.remove(name);
        }
        for (to, from) in renamed {
            if let Some(property) = properties.remove(from) {
                properties.insert(to.clone(), property);
            }
        }
        for (name, description) in described {
            if let Some(Value::Object(property)) = properties.get_mut(name) {
                property.insert("description".into(), Value::String(description.clone()));
            }
        }
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|name| name.as_str().is_none_or(|n| !fixed.contains_key(n)));
        for name in required.iter_mut() {
            let from = name.as_str().unwrap_or_default();
            if let Some((to, _)) = renamed.iter().find(|(_, own)| own.as_str() == from) {
                *name = Value::String(to.clone());
            }
        }
    }
}

/// `handler`, called with the arguments as the tool defines them: renamed back, and the fixed
/// ones set (whatever the caller sent for them).
fn translating(
    handler: Arc<ToolHandler>,
    renamed: Arc<BTreeMap<String, String>>,
    fixed: Arc<BTreeMap<String, Value>>,
) -> Arc<ToolHandler> {
    Arc::new(move |arguments, ctx| {
        let mut own = JsonObject::new();
        for (name, value) in arguments {
            if fixed.contains_key(&name) {
                continue;
            }
            match renamed.get(&name) {
                Some(from) => own.insert(from.clone(), value),
                None => own.insert(name, value),
            };
        }
        for (name, value) in fixed.iter() {
            own.insert(name.clone(), value.clone());
        }
        handler(own, ctx)
    })
}

/// Tools picked by name or by tag (see [`ToolDefinition::tags`], and for another server's
/// tools the tags FastMCP servers put in their `_meta`).
#[derive(Clone, Debug, Default)]
pub struct ToolFilter {
    names: HashSet<String>,
    tags: HashSet<String>,
}

impl ToolFilter {
    /// The tools named `names` (as offered, after a transform's rename).
    pub fn named<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        ToolFilter::default().or_named(names)
    }

    /// The tools with any of `tags`.
    pub fn tagged<S: Into<String>>(tags: impl IntoIterator<Item = S>) -> Self {
        ToolFilter::default().or_tagged(tags)
    }

    /// These tools, and those named `names`.
    pub fn or_named<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.names.extend(names.into_iter().map(Into::into));
        self
    }

    /// These tools, and those with any of `tags`.
    pub fn or_tagged<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Whether the tool `tool` with `tags` is one of these.
    fn picks(&self, tool: &Tool, tags: &[String]) -> bool {
        self.names.contains(&tool.name) || tags.iter().any(|tag| self.tags.contains(tag))
    }
}

/// What a server does to the tools registered on it: transforms by name, filters.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolShaping {
    transforms: BTreeMap<String, ToolTransform>,
    /// Tools offered only when one of these picks them (none: all).
    keep: Vec<ToolFilter>,
    /// Tools never offered.
    drop: Vec<ToolFilter>,
}

impl ToolShaping {
    pub(crate) fn transform(&mut self, name: String, transform: ToolTransform) {
        self.transforms.insert(name, transform);
    }

    pub(crate) fn keep(&mut self, filter: ToolFilter) {
        self.keep.push(filter);
    }

    pub(crate) fn drop(&mut self, filter: ToolFilter) {
        self.drop.push(filter);
    }

    /// The name the tool defined as `name` is registered under.
    pub(crate) fn offered_name<'a>(&'a self, name: &'a str) -> &'a str {
        match self.transforms.get(name) {
            Some(transform) => transform.offered_name(name),
            None => name,
        }
    }

    /// `definition` as the server offers it, or `None` when a filter leaves it out.
    pub(crate) fn shape(
        &self,
        definition: ToolDefinition,
    ) -> Result<Option<ToolDefinition>, String> {
        let definition = match self.transforms.get(definition.name()) {
            Some(transform) => transform.apply(definition)?,
            None => definition,
        };
        let tags = definition.all_tags();
        let tool = &definition.tool;
        let kept = self.keep.is_empty() || self.keep.iter().any(|f| f.picks(tool, &tags));
        let dropped = self.drop.iter().any(|f| f.picks(tool, &tags));
        Ok((kept && !dropped).then_some(definition))
    }
}
