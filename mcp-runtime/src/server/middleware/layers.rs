//! The layers a builder was given, and the stacks a server is built with.

use std::collections::HashMap;

use super::{BoxedLayer, Handler, Stack, ToTarget};
use crate::server::registry::Registry;
use crate::server::request::{Target, TargetKind};

/// What kind of item a target's own layers are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::server) enum Kind {
    Tool,
    Prompt,
    /// A resource, by its URI, or a template, by its URI template.
    Resource,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }
}

/// The layers `#[mcp_tool(layer = ...)]` (or `mcp_prompt`, `mcp_resource`) gives its item.
#[doc(hidden)]
#[derive(Debug)]
pub struct LayerEntry {
    /// The module of the annotated function.
    pub module_path: &'static str,
    /// `tool`, `prompt` or `resource`.
    pub kind: &'static str,
    /// The item's name, as its entry has it.
    pub name: &'static str,
    /// Makes the layers, the innermost first.
    pub layers: fn() -> Vec<BoxedLayer>,
}

inventory::collect!(LayerEntry);

/// The layers given to a builder, in the order they were added.
#[derive(Default)]
pub(in crate::server) struct Layers {
    server: Vec<BoxedLayer>,
    targets: Vec<(Kind, String, BoxedLayer)>,
}

/// A layer given for a target the server does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "a layer was given for {kind} `{name}`, and the server has no {kind} of that name: check the \
     name given to `{kind}_layer` (a resource is named by its URI, a template by its URI template)"
)]
pub struct UnknownLayerTarget {
    kind: &'static str,
    name: String,
}

impl Layers {
    /// Adds a layer around every request.
    pub(in crate::server) fn server(&mut self, layer: BoxedLayer) {
        self.server.push(layer);
    }

    /// Adds a layer around the requests of one target.
    pub(in crate::server) fn target(&mut self, kind: Kind, name: String, layer: BoxedLayer) {
        self.targets.push((kind, name, layer));
    }

    /// Adds the layers the attribute macro gave the `kind` entry `name` of `module_path`, kept
    /// under `key` (a resource's URI or template).
    pub(in crate::server) fn of_entry(
        &mut self,
        kind: Kind,
        module_path: &str,
        name: &str,
        key: impl Fn() -> String,
    ) {
        let given = inventory::iter::<LayerEntry>.into_iter().filter(|entry| {
            entry.kind == kind.word() && entry.module_path == module_path && entry.name == name
        });
        for entry in given {
            for layer in (entry.layers)() {
                self.target(kind, key(), layer);
            }
        }
    }

    /// The server's stack (`None` without layers) and the targets' own, checked against what
    /// `registry` holds.
    pub(in crate::server) fn build(
        self,
        registry: &Registry,
    ) -> Result<(Option<Stack>, TargetLayers), UnknownLayerTarget> {
        let mut targets = TargetLayers::default();
        for (kind, name, layer) in self.targets {
            let exists = match kind {
                Kind::Tool => registry.tools.get(&name).is_some(),
                Kind::Prompt => registry.prompts.get(&name).is_some(),
                Kind::Resource => {
                    registry.resources.get(&name).is_some()
                        || registry.templates.get(&name).is_some()
                }
            };
            if !exists {
                return Err(UnknownLayerTarget {
                    kind: kind.word(),
                    name,
                });
            }
            let stacks = targets.of_kind(kind);
            let inner = stacks.remove(&name).unwrap_or_else(|| Stack::new(Handler));
            stacks.insert(name, layer(inner));
        }
        let server = (!self.server.is_empty()).then(|| {
            let inner = Stack::new(ToTarget);
            self.server
                .into_iter()
                .fold(inner, |stack, layer| layer(stack))
        });
        Ok((server, targets))
    }
}

/// The layers of single targets, by name (a resource's URI, a template's URI template).
#[derive(Default)]
pub(in crate::server) struct TargetLayers {
    tools: HashMap<String, Stack>,
    prompts: HashMap<String, Stack>,
    resources: HashMap<String, Stack>,
}

impl TargetLayers {
    fn of_kind(&mut self, kind: Kind) -> &mut HashMap<String, Stack> {
        match kind {
            Kind::Tool => &mut self.tools,
            Kind::Prompt => &mut self.prompts,
            Kind::Resource => &mut self.resources,
        }
    }

    pub(in crate::server) fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.resources.is_empty()
    }

    /// The layers of `target` alone, if it has any.
    pub(in crate::server) fn of(&self, target: &Target) -> Option<Stack> {
        let by_name = match &target.kind {
            TargetKind::None => return None,
            TargetKind::Tool(_) => &self.tools,
            TargetKind::Prompt(_) => &self.prompts,
            TargetKind::Resource(_) | TargetKind::Template(..) => &self.resources,
        };
        by_name.get(target.name()?).cloned()
    }
}
