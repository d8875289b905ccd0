//! The entries a builder takes, registered: those its attribute macros submitted (all, those of
//! some modules, or some named), each with the layers its attribute gives it, and the check
//! that every handler finds the state it extracts.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use super::builder::BuildError;
use super::middleware::{Kind, Layers};
use super::registry::{
    Origin, PromptEntry, Registry, ResourceEntry, ResourceKind, ToolEntry, in_source_order,
};
use crate::extract::StateRequirement;

/// A registry entry asked for by name.
#[derive(Clone, Debug)]
pub(super) enum Named {
    Tool(String),
    Prompt(String),
    Resource(String),
}

/// The origin of a registry entry.
pub(super) fn origin(module_path: &'static str, location: (&'static str, u32)) -> Origin {
    Origin::Macro {
        module_path,
        location,
    }
}

/// Finds the one registry entry of `kind` called `name`, or `module::path::name` for the one
/// of that module. `about` gives an entry's name, module path and location.
pub(super) fn find_entry<'a, E: 'a>(
    entries: impl Iterator<Item = &'a E> + Clone,
    kind: &'static str,
    name: &str,
    about: impl Fn(&E) -> (&'static str, &'static str, (&'static str, u32)),
) -> Result<&'a E, BuildError> {
    let mut matching: Vec<&E> = entries.clone().filter(|e| about(e).0 == name).collect();
    if let (true, Some((module, bare))) = (matching.is_empty(), name.rsplit_once("::")) {
        matching = entries
            .filter(|e| about(e).0 == bare && about(e).1 == module)
            .collect();
    }
    match matching.as_slice() {
        [] => Err(BuildError::NotRegistered {
            kind,
            name: name.to_owned(),
        }),
        [one] => Ok(one),
        many => Err(BuildError::Ambiguous {
            kind,
            name: name.to_owned(),
            count: many.len(),
            modules: many
                .iter()
                .map(|e| {
                    let (_, module_path, location) = about(e);
                    origin(module_path, location).to_string()
                })
                .collect::<Vec<_>>()
                .join(", "),
            first_module: about(many[0]).1,
        }),
    }
}

pub(super) fn add_named(
    registry: &Registry,
    layers: &mut Layers,
    named: &Named,
) -> Result<(), BuildError> {
    match named {
        Named::Tool(name) => {
            let entry = find_entry(
                in_source_order::<ToolEntry>(|e| e.location).into_iter(),
                "tool",
                name,
                |e| (e.name, e.module_path, e.location),
            )?;
            add_tool_entry(registry, layers, entry)?;
        }
        Named::Prompt(name) => {
            let entry = find_entry(
                in_source_order::<PromptEntry>(|e| e.location).into_iter(),
                "prompt",
                name,
                |e| (e.name, e.module_path, e.location),
            )?;
            add_prompt_entry(registry, layers, entry)?;
        }
        Named::Resource(name) => {
            let entry = find_entry(
                in_source_order::<ResourceEntry>(|e| e.location).into_iter(),
                "resource",
                name,
                |e| (e.name, e.module_path, e.location),
            )?;
            add_resource_entry(registry, layers, entry)?;
        }
    }
    Ok(())
}

/// Registers the tool of `entry`, with the layers its attribute gives it.
pub(super) fn add_tool_entry(
    registry: &Registry,
    layers: &mut Layers,
    entry: &ToolEntry,
) -> Result<(), BuildError> {
    let definition = (entry.definition)();
    let name = definition.name().to_owned();
    registry.add_tool(definition, origin(entry.module_path, entry.location))?;
    layers.of_entry(Kind::Tool, entry.module_path, entry.name, || name.clone());
    Ok(())
}

/// Registers the prompt of `entry`, with the layers its attribute gives it.
pub(super) fn add_prompt_entry(
    registry: &Registry,
    layers: &mut Layers,
    entry: &PromptEntry,
) -> Result<(), BuildError> {
    let definition = (entry.definition)();
    let name = definition.prompt.name.clone();
    registry.add_prompt(definition, origin(entry.module_path, entry.location))?;
    layers.of_entry(Kind::Prompt, entry.module_path, entry.name, || name.clone());
    Ok(())
}

/// Registers the resource or template of `entry`, with the layers its attribute gives it (kept
/// under its URI or URI template).
pub(super) fn add_resource_entry(
    registry: &Registry,
    layers: &mut Layers,
    entry: &ResourceEntry,
) -> Result<(), BuildError> {
    let definition = (entry.definition)();
    let uri = match &definition {
        ResourceKind::Direct(d) => d.resource.uri.clone(),
        ResourceKind::Template(Ok(t)) => t.template.uri_template.clone(),
        ResourceKind::Template(Err(_)) => String::new(),
    };
    registry.add_resource(
        definition,
        entry.name,
        origin(entry.module_path, entry.location),
    )?;
    layers.of_entry(Kind::Resource, entry.module_path, entry.name, || {
        uri.clone()
    });
    Ok(())
}

/// Checks that every handler's `State<T>` is available.
pub(super) fn check_state(
    registry: &Registry,
    state: &HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
) -> Result<(), BuildError> {
    let missing = |item: &str, required: &[StateRequirement]| {
        required
            .iter()
            .find(|r| !state.contains_key(&r.type_id))
            .map(|r| BuildError::MissingState {
                item: item.to_owned(),
                type_name: r.type_name,
            })
    };
    let tools = registry.tools.snapshot();
    let prompts = registry.prompts.snapshot();
    let resources = registry.resources.snapshot();
    let templates = registry.templates.snapshot();
    let problem = tools
        .iter()
        .find_map(|t| missing(t.definition.name(), &t.definition.required_state))
        .or_else(|| {
            prompts
                .iter()
                .find_map(|p| missing(p.definition.name(), &p.definition.required_state))
        })
        .or_else(|| {
            resources
                .iter()
                .find_map(|r| missing(&r.definition.resource.name, &r.definition.required_state))
        })
        .or_else(|| {
            templates
                .iter()
                .find_map(|t| missing(&t.definition.template.name, &t.definition.required_state))
        });
    match problem {
        Some(error) => Err(error),
        None => Ok(()),
    }
}
