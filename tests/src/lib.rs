//! Support for the integration tests: the official MCP schemas, loaded from `spec/schema` at the
//! root of the repository, and validation of JSON values against any of their definitions.
//!
//! Every check runs twice: against the schema as published, and against a *strict* copy in which
//! every object schema that lists its properties and says nothing about others forbids them. The
//! published schemas allow unknown properties almost everywhere, so only the strict check notices a
//! field sent to a revision that does not define it (`icons` to a 2025-06-18 peer, say). The strict
//! copy leaves open what the protocol leaves open: `_meta` objects (and the 2026-07-28 `*MetaObject`
//! definitions), tool input and output schemas, a client's `extensions` capability (which hosts
//! send on every revision), the params of requests and notifications and results (which inherit `_meta` from their base
//! types), and the members of `allOf` compositions.

pub mod authorization_server;
pub mod client;
pub mod client_tasks;
pub mod deployment;
pub mod http;
pub mod interop;
pub mod otlp;
pub mod phoenix;
pub mod redis;
pub mod scaffold;
pub mod scripted;
pub mod serverless;
pub mod stores;
pub mod tasks;
pub mod ways;
pub mod wire;

pub use client::TestClient;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::Validator;
use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Map, Value, json};

/// A loopback port nothing listens on now, for a server the test starts.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener
        .local_addr()
        .expect("a bound listener has an address")
        .port()
}

/// Waits until something listens on loopback `port`; panics after `limit`, naming `what`.
pub fn wait_for_listener(port: u16, limit: std::time::Duration, what: &str) {
    let deadline = std::time::Instant::now() + limit;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what} did not listen on port {port} within {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The folder holding `<revision>/schema.json` and the examples.
pub fn schema_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/schema")
}

/// The official schema of one protocol revision.
pub struct SpecSchema {
    version: ProtocolVersion,
    defs_key: &'static str,
    official: Value,
    strict: Value,
    validators: Mutex<HashMap<(String, bool), Arc<Validator>>>,
}

/// The schema of `version`, loaded once.
pub fn spec_schema(version: ProtocolVersion) -> &'static SpecSchema {
    static SCHEMAS: OnceLock<Vec<SpecSchema>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        ProtocolVersion::ALL
            .iter()
            .map(|v| SpecSchema::load(*v))
            .collect()
    });
    schemas
        .iter()
        .find(|s| s.version == version)
        .expect("every revision has a schema")
}

impl SpecSchema {
    fn load(version: ProtocolVersion) -> SpecSchema {
        let path = schema_root().join(version.as_str()).join("schema.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let official: Value = serde_json::from_str(&text).expect("schema.json is JSON");
        // The three older revisions are draft-07 documents, the newer ones 2020-12; the validator
        // picks the dialect from `$schema`.
        let expected = if version < ProtocolVersion::V2025_11_25 {
            "http://json-schema.org/draft-07/schema#"
        } else {
            "https://json-schema.org/draft/2020-12/schema"
        };
        assert_eq!(
            official["$schema"], expected,
            "{version}: unexpected JSON Schema dialect"
        );
        let defs_key = if official.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let mut strict = official.clone();
        strictify_definitions(&mut strict, defs_key);
        SpecSchema {
            version,
            defs_key,
            official,
            strict,
            validators: Mutex::new(HashMap::new()),
        }
    }

    /// The revision.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    fn definitions(&self) -> &Map<String, Value> {
        self.official[self.defs_key]
            .as_object()
            .expect("definitions")
    }

    /// Whether the revision defines `name`.
    pub fn has(&self, name: &str) -> bool {
        self.definitions().contains_key(name)
    }

    /// The definition `name`.
    pub fn definition(&self, name: &str) -> Option<&Value> {
        self.definitions().get(name)
    }

    /// The names of the definitions a union (`anyOf` of `$ref`s) is made of.
    pub fn union_members(&self, name: &str) -> Vec<String> {
        self.definition(name)
            .and_then(|d| d.get("anyOf"))
            .and_then(Value::as_array)
            .map(|members| {
                members
                    .iter()
                    .filter_map(|m| m.get("$ref").and_then(Value::as_str))
                    .map(|r| r.rsplit('/').next().unwrap_or(r).to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the definition `name` describes a JSON-RPC envelope (it has a `jsonrpc` property).
    pub fn is_envelope(&self, name: &str) -> bool {
        self.definition(name)
            .and_then(|d| d.get("properties"))
            .is_some_and(|p| p.get("jsonrpc").is_some())
    }

    fn validator(&self, name: &str, strict: bool) -> Arc<Validator> {
        let key = (name.to_owned(), strict);
        if let Some(v) = self.validators.lock().unwrap().get(&key) {
            return v.clone();
        }
        let mut root = if strict {
            self.strict.clone()
        } else {
            self.official.clone()
        };
        root.as_object_mut()
            .unwrap()
            .insert("$ref".into(), json!(format!("#/{}/{name}", self.defs_key)));
        let validator = Arc::new(
            jsonschema::validator_for(&root)
                .unwrap_or_else(|e| panic!("{} {name}: cannot compile: {e}", self.version)),
        );
        self.validators
            .lock()
            .unwrap()
            .insert(key, validator.clone());
        validator
    }

    /// Validates `instance` against the definition `name`, as published and strictly. The error
    /// lists every violation with its location.
    pub fn check(&self, name: &str, instance: &Value) -> Result<(), String> {
        assert!(self.has(name), "{} has no definition {name}", self.version);
        let mut problems = Vec::new();
        for (strict, label) in [(false, "official"), (true, "strict")] {
            for error in self.validator(name, strict).iter_errors(instance) {
                problems.push(format!("[{label}] at {}: {error}", error.instance_path()));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} {name} rejects {}:\n  {}",
                self.version,
                serde_json::to_string(instance).unwrap(),
                problems.join("\n  ")
            ))
        }
    }
}

/// Closes every object schema of the definitions (see the module docs for what stays open).
fn strictify_definitions(doc: &mut Value, defs_key: &str) {
    let composed = names_referenced_in_all_of(&doc[defs_key]);
    let defs = doc[defs_key].as_object_mut().expect("definitions");
    for (name, schema) in defs.iter_mut() {
        if !composed.contains(name) && !name.ends_with("MetaObject") {
            strictify(schema, name.ends_with("Result"));
        }
    }
    // A client's capabilities are an open set (every revision's schema says so), and hosts
    // declare extensions (SEP-2133, MCP Apps' `io.modelcontextprotocol/ui`) in `extensions`
    // on the 2025 revisions too, as the official SDKs do: the strict copy allows that one
    // addition, as 2026-07-28 defines it.
    if let Some(Value::Object(properties)) = defs
        .get_mut("ClientCapabilities")
        .and_then(|c| c.get_mut("properties"))
    {
        properties.entry("extensions").or_insert_with(|| {
            serde_json::json!({
                "type": "object",
                "additionalProperties": {"type": "object"}
            })
        });
    }
}

fn names_referenced_in_all_of(defs: &Value) -> HashSet<String> {
    fn collect(value: &Value, inside: bool, out: &mut HashSet<String>) {
        match value {
            Value::Object(map) => {
                if inside && let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    out.insert(r.rsplit('/').next().unwrap_or(r).to_owned());
                }
                for (key, sub) in map {
                    collect(sub, inside || key == "allOf", out);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| collect(i, inside, out)),
            _ => {}
        }
    }
    let mut out = HashSet::new();
    collect(defs, false, &mut out);
    out
}

fn strictify(schema: &mut Value, allow_meta: bool) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if object.contains_key("allOf") {
        return;
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        let is_call = properties.contains_key("method");
        for (key, sub) in properties.iter_mut() {
            match key.as_str() {
                "_meta" | "inputSchema" | "outputSchema" => {}
                "params" if is_call => strictify(sub, true),
                _ => strictify(sub, false),
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = object.get_mut(key) {
            strictify(sub, false);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get_mut(key) {
            branches.iter_mut().for_each(|b| strictify(b, allow_meta));
        }
    }
    if object.contains_key("properties") && !object.contains_key("additionalProperties") {
        if allow_meta && let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties
                .entry("_meta")
                .or_insert(json!({"type": "object"}));
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// A tool named `name` that takes anything and answers with an empty text: what tests add at run
/// time to change the tool list.
pub fn placeholder_tool(name: &str) -> mcp_runtime::tool::ToolDefinition {
    let schema = json!({"type": "object"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    mcp_runtime::tool::ToolDefinition::new(name, schema, |_, _| async { "" })
}

/// Compares two JSON values as the protocol does: numbers by value (`1` equals `1.0`), objects
/// regardless of key order. Returns the path of the first difference.
pub fn json_difference(expected: &Value, actual: &Value) -> Option<String> {
    fn walk(expected: &Value, actual: &Value, path: &str) -> Option<String> {
        match (expected, actual) {
            (Value::Number(a), Value::Number(b)) => {
                (a.as_f64() != b.as_f64()).then(|| format!("{path}: {a} != {b}"))
            }
            (Value::Object(a), Value::Object(b)) => {
                let keys: HashSet<&String> = a.keys().chain(b.keys()).collect();
                let mut keys: Vec<_> = keys.into_iter().collect();
                keys.sort();
                keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => walk(x, y, &format!("{path}.{k}")),
                    (x, y) => Some(format!("{path}.{k}: {x:?} != {y:?}")),
                })
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
                .iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| walk(x, y, &format!("{path}[{i}]"))),
            (a, b) => (a != b).then(|| format!("{path}: {a} != {b}")),
        }
    }
    walk(expected, actual, "$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_copy_rejects_unknown_properties_where_the_official_one_allows_them() {
        let schema = spec_schema(ProtocolVersion::V2025_06_18);
        let tool =
            json!({"name": "t", "inputSchema": {"type": "object", "$defs": {}}, "icons": []});
        let err = schema.check("Tool", &tool).unwrap_err();
        assert!(err.contains("[strict]") && err.contains("icons"), "{err}");
        assert!(!err.contains("[official]"), "{err}");
        // `_meta` stays open on params and results, and input schemas stay open.
        let call = json!({"method": "tools/call", "params": {"name": "t", "_meta": {"x": 1}}});
        schema.check("CallToolRequest", &call).unwrap();
    }

    #[test]
    fn json_difference_compares_numbers_by_value() {
        assert_eq!(
            json_difference(&json!({"a": [1, 2.5]}), &json!({"a": [1.0, 2.5]})),
            None
        );
        assert_eq!(
            json_difference(&json!({"a": 1}), &json!({"a": 2})),
            Some("$.a: 1 != 2".into())
        );
        assert_eq!(
            json_difference(&json!({"a": 1}), &json!({})),
            Some("$.a: Some(Number(1)) != None".into())
        );
    }
}
