//! What a server offers: its tools, prompts, resources and templates.
//!
//! `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]` submit an entry to a process-wide
//! collection (with `inventory`), recording the module path, file and line of the annotated
//! function; a server is built from all entries, the entries under some module paths, or the
//! entries named one by one. A `Registry` holds what one server offers; it may change at run time
//! (dynamic registration), so it sits behind locks, and every listing works on a snapshot.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;
use mcp_runtime_core::JsonObject;
use mcp_runtime_core::content::ContentBlock;
use mcp_runtime_core::schema::{CompiledSchema, SchemaError, omit_disallowed_nulls};
use parking_lot::RwLock;
use serde_json::Value;

use super::list::RenderedPages;
use crate::handler::skill::Skill;
use crate::prompt::PromptDefinition;
use crate::resource::{ResourceDefinition, ResourceTemplateDefinition};
use crate::tool::{ToolDefinition, ToolHandler};
use mcp_runtime_core::headers::{HeaderParam, header_params};

/// A tool submitted by `#[mcp_tool]`.
#[derive(Debug)]
pub struct ToolEntry {
    /// The module of the annotated function.
    pub module_path: &'static str,
    /// The source file and line of the annotated function (entries are taken in that order).
    pub location: (&'static str, u32),
    /// The tool's name.
    pub name: &'static str,
    /// Builds the definition.
    pub definition: fn() -> ToolDefinition,
}

/// A prompt submitted by `#[mcp_prompt]`.
#[derive(Debug)]
pub struct PromptEntry {
    /// The module of the annotated function.
    pub module_path: &'static str,
    /// The source file and line of the annotated function (entries are taken in that order).
    pub location: (&'static str, u32),
    /// The prompt's name.
    pub name: &'static str,
    /// Builds the definition.
    pub definition: fn() -> PromptDefinition,
}

/// A resource or template submitted by `#[mcp_resource]`.
#[derive(Debug)]
pub struct ResourceEntry {
    /// The module of the annotated function.
    pub module_path: &'static str,
    /// The source file and line of the annotated function (entries are taken in that order).
    pub location: (&'static str, u32),
    /// The resource's name.
    pub name: &'static str,
    /// Builds the definition.
    pub definition: fn() -> ResourceKind,
}

/// A direct resource or a template.
#[derive(Clone, Debug)]
pub enum ResourceKind {
    /// A resource with one URI.
    Direct(ResourceDefinition),
    /// A family of URIs matching a template; `Err` when the template does not parse.
    Template(Result<ResourceTemplateDefinition, String>),
}

inventory::collect!(ToolEntry);
inventory::collect!(PromptEntry);
inventory::collect!(ResourceEntry);

/// The entries of one kind, in the order of their source location (collection order is
/// unspecified), so that lists come out in declaration order.
pub(crate) fn in_source_order<E: inventory::Collect>(
    location: fn(&E) -> (&'static str, u32),
) -> Vec<&'static E> {
    let mut entries: Vec<&'static E> = inventory::iter::<E>.into_iter().collect();
    entries.sort_by_key(|e| location(e));
    entries
}

/// Whether `module_path` is `prefix` or lies under it.
pub(crate) fn in_module(module_path: &str, prefix: &str) -> bool {
    module_path == prefix
        || module_path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// Where a registration came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// An attribute macro on the item at `location` (file and line) in `module_path`.
    Macro {
        module_path: &'static str,
        location: (&'static str, u32),
    },
    Dynamic,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Macro {
                module_path,
                location: (file, line),
            } => write!(f, "in `{module_path}` ({file}:{line})"),
            Origin::Dynamic => f.write_str("registered at run time"),
        }
    }
}

/// A tool with its schemas compiled.
pub(crate) struct RegisteredTool {
    pub(crate) definition: ToolDefinition,
    /// The arguments its `x-mcp-header` annotations mirror into `Mcp-Param-*` headers.
    pub(crate) header_params: Vec<HeaderParam>,
    /// Its input and output schemas, compiled; `None` for a forwarded tool, which the server
    /// it goes to checks.
    pub(crate) input: Option<ToolSchema>,
    pub(crate) output: Option<ToolSchema>,
    /// Only an app's page calls it (MCP Apps: its visibility leaves out the model).
    pub(crate) app_only: bool,
    pub(crate) origin: Origin,
}

impl RegisteredTool {
    pub(crate) fn compile(
        definition: ToolDefinition,
        origin: Origin,
    ) -> Result<Self, RegistryError> {
        let name = definition.name().to_owned();
        let invalid = |what: &'static str, e: SchemaError| RegistryError::InvalidSchema {
            tool: name.clone(),
            which: what,
            detail: e.to_string(),
        };
        if let Some(defect) = &definition.defect {
            return Err(RegistryError::InvalidTool {
                tool: name,
                detail: defect.clone(),
            });
        }
        let derived = definition.schemas_derived;
        let compile = |schema: &JsonObject, which| match derived {
            true => Ok(ToolSchema::on_first_use()),
            false => ToolSchema::compiled(schema).map_err(|e| invalid(which, e)),
        };
        let input = match definition.forwarded {
            true => None,
            false => Some(compile(&definition.tool.input_schema, "input")?),
        };
        let output = match &definition.tool.output_schema {
            Some(_) if definition.forwarded => None,
            Some(schema) => {
                // The spec's `outputSchema` describes `structuredContent`, an object.
                if schema.get("type").and_then(Value::as_str) != Some("object") {
                    let found = schema
                        .get("type")
                        .map_or_else(|| "no `type`".to_owned(), |t| format!("`\"type\": {t}`"));
                    return Err(RegistryError::InvalidSchema {
                        tool: name,
                        which: "output",
                        detail: format!(
                            "an output schema must describe an object (`\"type\": \"object\"`), and this one has {found}; return `Json` of a struct that holds the value"
                        ),
                    });
                }
                Some(compile(schema, "output")?)
            }
            None => None,
        };
        let mut definition = definition;
        if let (Some(schema), false) = (&definition.tool.output_schema, definition.forwarded) {
            definition.handler = conforming(definition.handler, Value::Object(schema.clone()));
        }
        // Clients must refuse a tool whose annotations break SEP-2243: it could never be called.
        let header_params = header_params(&definition.tool.input_schema).map_err(|invalid| {
            RegistryError::InvalidSchema {
                tool: name.clone(),
                which: "input",
                detail: invalid.to_string(),
            }
        })?;
        Ok(RegisteredTool {
            app_only: !definition.tool.is_for_model(),
            definition,
            header_params,
            input,
            output,
            origin,
        })
    }
}

/// A tool's schema, compiled for validation. One given as JSON is compiled (and checked against
/// its meta-schema) when the server is built, so that a mistake in it fails the build; one
/// generated from Rust types is valid by construction, and is compiled when first used: starting
/// a server compiles none of them (checking schemas builds the meta-schema's own validator, the
/// larger part of a cold start).
pub(crate) struct ToolSchema(OnceLock<Result<CompiledSchema, String>>);

impl ToolSchema {
    fn compiled(schema: &JsonObject) -> Result<Self, SchemaError> {
        Ok(ToolSchema(OnceLock::from(Ok(CompiledSchema::compile(
            schema,
        )?))))
    }

    fn on_first_use() -> Self {
        ToolSchema(OnceLock::new())
    }

    /// The compiled `schema` (the one this was made for), or why it does not compile.
    pub(crate) fn get(&self, schema: &JsonObject) -> Result<&CompiledSchema, &str> {
        self.0
            .get_or_init(|| CompiledSchema::compile(schema).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// `handler`, with the `null` members that `schema` does not allow left out of its structured
/// results (and of their text copy): what a `None` field of a `Json<T>` result means.
fn conforming(handler: Arc<ToolHandler>, schema: Value) -> Arc<ToolHandler> {
    let schema = Arc::new(schema);
    Arc::new(move |arguments, ctx| {
        let call = handler(arguments, ctx);
        let schema = schema.clone();
        Box::pin(async move {
            let mut result = call.await?;
            if let Some(structured) = &mut result.structured_content {
                let original = structured.clone();
                if omit_disallowed_nulls(structured, &schema) {
                    let text = original.to_string();
                    let structured = structured.to_string();
                    for block in &mut result.content {
                        if block.as_text() == Some(text.as_str()) {
                            *block = ContentBlock::text(structured.clone());
                        }
                    }
                }
            }
            Ok(result)
        })
    })
}

/// A registration that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two items of one kind share a name (or a URI).
    #[error("two {kind} are named `{name}`: one {first}, one {second}")]
    Duplicate {
        /// `tools`, `prompts`, `resources` or `resource templates`.
        kind: &'static str,
        /// The shared name or URI.
        name: String,
        /// Where the first came from.
        first: String,
        /// Where the second came from.
        second: String,
    },
    /// A tool's schema is not a valid JSON Schema.
    #[error("the {which} schema of tool `{tool}` is invalid: {detail}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `input` or `output`.
        which: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A tool's definition is unusable: a schema or `_meta` given verbatim is not a JSON
    /// object, or its arguments type cannot be read from JSON.
    #[error("tool `{tool}` is invalid: {detail}")]
    InvalidTool {
        /// The tool.
        tool: String,
        /// What is wrong, naming the part.
        detail: String,
    },
    /// A resource template does not parse.
    #[error("the URI template of resource `{name}` is invalid: {detail}")]
    InvalidTemplate {
        /// The resource.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// A tool's or a resource's interface (MCP Apps) is wrong.
    #[error(transparent)]
    App(#[from] super::apps::AppError),
}

/// Items keyed by name, remembering where each came from, and the pages of their list as
/// rendered for the clients that asked, valid until the items change.
pub(crate) struct Catalog<T> {
    kind: &'static str,
    items: RwLock<IndexMap<String, Arc<T>, foldhash::fast::RandomState>>,
    /// Counts the changes of `items`: a rendered page holds the count it was made from.
    generation: AtomicU64,
    pages: RenderedPages,
}

impl<T> Catalog<T> {
    pub(crate) fn new(kind: &'static str) -> Self {
        Catalog {
            kind,
            items: RwLock::new(IndexMap::default()),
            generation: AtomicU64::new(0),
            pages: RenderedPages::default(),
        }
    }

    /// The rendered pages of the list, and the count of changes they must have been made at.
    pub(crate) fn pages(&self) -> (&RenderedPages, u64) {
        (&self.pages, self.generation.load(Ordering::Acquire))
    }

    /// Every item, in registration order, and the count of changes they are the state of.
    pub(crate) fn snapshot_at(&self) -> (Vec<Arc<T>>, u64) {
        let items = self.items.read();
        let generation = self.generation.load(Ordering::Acquire);
        (items.values().cloned().collect(), generation)
    }

    /// Adds `item` under `key`; `origin_of` tells where an existing item came from.
    pub(crate) fn insert(
        &self,
        key: String,
        item: T,
        origin: &Origin,
        origin_of: impl Fn(&T) -> &Origin,
    ) -> Result<(), RegistryError> {
        let mut items = self.items.write();
        if let Some(existing) = items.get(&key) {
            return Err(RegistryError::Duplicate {
                kind: self.kind,
                name: key,
                first: origin_of(existing).to_string(),
                second: origin.to_string(),
            });
        }
        items.insert(key, Arc::new(item));
        self.generation.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Removes the item under `key`; false when there was none.
    pub(crate) fn remove(&self, key: &str) -> bool {
        let mut items = self.items.write();
        let removed = items.shift_remove(key).is_some();
        if removed {
            self.generation.fetch_add(1, Ordering::Release);
        }
        removed
    }

    pub(crate) fn get(&self, key: &str) -> Option<Arc<T>> {
        self.items.read().get(key).cloned()
    }

    /// Every item, in registration order.
    pub(crate) fn snapshot(&self) -> Vec<Arc<T>> {
        self.items.read().values().cloned().collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.read().is_empty()
    }

    /// Whether any item satisfies `predicate`.
    pub(crate) fn any(&self, predicate: impl Fn(&T) -> bool) -> bool {
        self.items.read().values().any(|item| predicate(item))
    }
}

/// A prompt and where it came from.
pub(crate) struct RegisteredPrompt {
    pub(crate) definition: PromptDefinition,
    pub(crate) origin: Origin,
}

/// A direct resource and where it came from.
pub(crate) struct RegisteredResource {
    pub(crate) definition: ResourceDefinition,
    pub(crate) origin: Origin,
}

/// A template and where it came from.
pub(crate) struct RegisteredTemplate {
    pub(crate) definition: ResourceTemplateDefinition,
    pub(crate) origin: Origin,
}

/// A skill and where it came from.
pub(crate) struct RegisteredSkill {
    pub(crate) skill: Skill,
    pub(crate) origin: Origin,
}

impl std::ops::Deref for RegisteredSkill {
    type Target = Skill;

    fn deref(&self) -> &Self::Target {
        &self.skill
    }
}

/// Everything one server offers.
pub(crate) struct Registry {
    pub(crate) tools: Catalog<RegisteredTool>,
    /// Whether a tool that may run as a task was ever registered: while none was, a call needs
    /// no look at tasks.
    task_tools: std::sync::atomic::AtomicBool,
    pub(crate) prompts: Catalog<RegisteredPrompt>,
    pub(crate) resources: Catalog<RegisteredResource>,
    pub(crate) templates: Catalog<RegisteredTemplate>,
    pub(crate) skills: Catalog<RegisteredSkill>,
    /// The transforms and filters every tool goes through.
    pub(crate) shaping: super::transform::ToolShaping,
}

impl Registry {
    pub(crate) fn new(shaping: super::transform::ToolShaping) -> Self {
        Registry {
            shaping,
            tools: Catalog::new("tools"),
            task_tools: std::sync::atomic::AtomicBool::new(false),
            prompts: Catalog::new("prompts"),
            resources: Catalog::new("resources"),
            templates: Catalog::new("resource templates"),
            skills: Catalog::new("skills"),
        }
    }

    /// Adds the tool `definition` as the server's transforms and filters offer it (not at all
    /// when a filter leaves it out).
    pub(crate) fn add_tool(
        &self,
        definition: ToolDefinition,
        origin: Origin,
    ) -> Result<(), RegistryError> {
        let name = definition.name().to_owned();
        let shaped = self
            .shaping
            .shape(definition)
            .map_err(|detail| RegistryError::InvalidTool { tool: name, detail })?;
        let Some(definition) = shaped else {
            return Ok(());
        };
        let registered = RegisteredTool::compile(definition, origin.clone())?;
        let name = registered.definition.name().to_owned();
        let task_support = registered.definition.task_support();
        self.tools
            .insert(name, registered, &origin, |t| &t.origin)?;
        if task_support != mcp_runtime_core::tools::TaskSupport::Forbidden {
            self.task_tools
                .store(true, std::sync::atomic::Ordering::Release);
        }
        Ok(())
    }

    /// Whether a tool that may run as a task was ever registered (it may have been removed
    /// since).
    pub(crate) fn may_run_tasks(&self) -> bool {
        self.task_tools.load(std::sync::atomic::Ordering::Acquire)
    }

    pub(crate) fn add_prompt(
        &self,
        definition: PromptDefinition,
        origin: Origin,
    ) -> Result<(), RegistryError> {
        let name = definition.name().to_owned();
        let registered = RegisteredPrompt {
            definition,
            origin: origin.clone(),
        };
        self.prompts
            .insert(name, registered, &origin, |p| &p.origin)
    }

    pub(crate) fn add_resource(
        &self,
        kind: ResourceKind,
        name: &str,
        origin: Origin,
    ) -> Result<(), RegistryError> {
        match kind {
            ResourceKind::Direct(definition) => {
                let uri = definition.resource.uri.clone();
                let registered = RegisteredResource {
                    definition,
                    origin: origin.clone(),
                };
                self.resources
                    .insert(uri, registered, &origin, |r| &r.origin)
            }
            ResourceKind::Template(Ok(definition)) => {
                let key = definition.template.uri_template.clone();
                let registered = RegisteredTemplate {
                    definition,
                    origin: origin.clone(),
                };
                self.templates
                    .insert(key, registered, &origin, |t| &t.origin)
            }
            ResourceKind::Template(Err(detail)) => Err(RegistryError::InvalidTemplate {
                name: name.to_owned(),
                detail,
            }),
        }
    }
}

impl Registry {
    /// Adds `skill`, and its files as resources.
    pub(crate) fn add_skill(&self, skill: Skill, origin: Origin) -> Result<(), RegistryError> {
        let resources = skill.resources();
        let name = skill.name().to_owned();
        self.skills.insert(
            name.clone(),
            RegisteredSkill {
                skill,
                origin: origin.clone(),
            },
            &origin,
            |s| &s.origin,
        )?;
        let mut added: Vec<String> = Vec::new();
        for definition in resources {
            let uri = definition.resource().uri.clone();
            let resource_name = definition.resource().name.clone();
            if let Err(error) = self.add_resource(
                ResourceKind::Direct(definition),
                &resource_name,
                origin.clone(),
            ) {
                for uri in &added {
                    self.resources.remove(uri);
                }
                self.skills.remove(&name);
                return Err(error);
            }
            added.push(uri);
        }
        Ok(())
    }

    /// Removes the skill `name` and its files; false when there was none.
    pub(crate) fn remove_skill(&self, name: &str) -> bool {
        let Some(skill) = self.skills.get(name) else {
            return false;
        };
        for file in &skill.entry().resources {
            self.resources.remove(&file.uri);
        }
        self.skills.remove(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_derived_schema_waits_for_its_first_use_and_one_given_as_json_does_not() {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct Echo {
            #[allow(dead_code)]
            text: String,
        }
        let derived = ToolDefinition::typed("echo", |_: Echo, _| async { "" });
        let registered = RegisteredTool::compile(derived, Origin::Dynamic).unwrap();
        let input = registered.input.as_ref().unwrap();
        assert!(input.0.get().is_none(), "compiled when registered");
        let schema = &registered.definition.tool.input_schema;
        assert!(input.get(schema).is_ok());
        assert!(input.0.get().is_some());
        let given = ToolDefinition::new("echo", schema.clone(), |_, _| async { "" });
        let registered = RegisteredTool::compile(given, Origin::Dynamic).unwrap();
        assert!(registered.input.unwrap().0.get().is_some());
    }

    #[test]
    fn module_prefixes_end_at_path_separators() {
        assert!(in_module("app::math", "app::math"));
        assert!(in_module("app::math::ops", "app::math"));
        assert!(!in_module("app::mathematics", "app::math"));
        assert!(!in_module("app", "app::math"));
    }

    #[test]
    fn duplicates_name_both_origins() {
        let catalog = Catalog::<Origin>::new("tools");
        let first = Origin::Macro {
            module_path: "app::a",
            location: ("src/a.rs", 3),
        };
        let second = Origin::Macro {
            module_path: "app::a",
            location: ("src/a.rs", 12),
        };
        catalog
            .insert("add".into(), first.clone(), &first, |o| o)
            .unwrap();
        let err = catalog
            .insert("add".into(), second.clone(), &second, |o| o)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "two tools are named `add`: one in `app::a` (src/a.rs:3), one in `app::a` (src/a.rs:12)"
        );
        let err = catalog
            .insert("add".into(), Origin::Dynamic, &Origin::Dynamic, |o| o)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "two tools are named `add`: one in `app::a` (src/a.rs:3), one registered at run time"
        );
        assert!(catalog.remove("add"));
        assert!(!catalog.remove("add"));
    }
}
