//! JSON Schemas from Rust types, and validation against them.
//!
//! [`schema_for`] derives a schema from a type with `schemars`, then makes it friendly to the
//! clients that read tool schemas (LLM providers among them, several of which accept only a plain
//! subset of JSON Schema):
//! - subschemas are inlined: no `$ref` and no `$defs` (except for recursive types, which cannot be
//!   inlined);
//! - `Option<T>` means "may be left out": the property is not `required` and its schema is `T`'s,
//!   never `["T", "null"]` (a `None` is left out of a tool's structured result accordingly, see
//!   [`omit_disallowed_nulls`]); where a value cannot be left out, in the items of an array or the
//!   values of a map, `Option<T>` stays nullable: `{"type": ["integer", "null"]}`;
//! - enums of unit variants are string `enum`s; unsigned integers keep `minimum: 0`;
//! - the root carries no `$schema` (2020-12 is the protocol's default dialect) and no `title` (the
//!   Rust type name means nothing to a client); numeric `format`s such as `int64` are dropped.
//!
//! [`input_schema_for`] additionally requires an object at the root (tool inputs are objects) and
//! makes sure `properties` is present even when empty.
//!
//! [`CompiledSchema`] compiles a schema once (with the `jsonschema` crate, which never fetches remote
//! `$ref`s here) and validates values against it, describing each violation with the path of the
//! offending property.
//!
//! ```
//! use mcp_runtime_core::schema::{CompiledSchema, input_schema_for};
//!
//! #[derive(schemars::JsonSchema)]
//! struct Args {
//!     /// How many.
//!     count: u32,
//!     label: Option<String>,
//! }
//!
//! let schema = input_schema_for::<Args>().unwrap();
//! assert_eq!(serde_json::Value::Object(schema.clone()), serde_json::json!({
//!     "type": "object",
//!     "properties": {
//!         "count": {"description": "How many.", "type": "integer", "minimum": 0},
//!         "label": {"type": "string"}
//!     },
//!     "required": ["count"]
//! }));
//! let compiled = CompiledSchema::compile(&schema).unwrap();
//! let err = compiled.validate(&serde_json::json!({"count": -1})).unwrap_err();
//! assert_eq!(err.to_string(), "count: -1 is less than the minimum of 0");
//! ```

use std::fmt;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use crate::JsonObject;
use crate::error::ErrorObject;

/// A type's schema cannot serve where it is asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A tool's input must be an object, and the type's schema is not one.
    #[error("the input schema of `{type_name}` is not an object schema (tool inputs are objects)")]
    NotAnObject {
        /// The Rust type.
        type_name: String,
    },
    /// The schema is not a valid JSON Schema (or uses a dialect or a `$ref` that cannot be
    /// resolved here).
    #[error("invalid JSON Schema: {0}")]
    Invalid(String),
}

/// A schema that cannot serve is the receiver's own fault (a tool or form declared it), so on the
/// wire it is `-32603` (internal error).
impl From<SchemaError> for ErrorObject {
    fn from(err: SchemaError) -> Self {
        ErrorObject::internal_error(err.to_string())
    }
}

/// The client-friendly schema of `T` (see the module docs), whatever its root.
pub fn schema_for<T: JsonSchema>() -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let root = generator.into_root_schema_for::<T>();
    let mut value = Value::from(root);
    if let Value::Object(object) = &mut value {
        object.remove("$schema");
        object.remove("title");
    }
    make_client_friendly(&mut value);
    match value {
        Value::Object(object) => object,
        // `true` / `false` schemas: "anything" / "nothing".
        Value::Bool(true) => Map::new(),
        _ => Map::from_iter([("not".to_owned(), Value::Object(Map::new()))]),
    }
}

/// The client-friendly schema of `T` as a tool input: an object schema with `properties`.
pub fn input_schema_for<T: JsonSchema>() -> Result<JsonObject, SchemaError> {
    let mut schema = schema_for::<T>();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(SchemaError::NotAnObject {
            type_name: std::any::type_name::<T>().to_owned(),
        });
    }
    schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    Ok(schema)
}

/// Rewrites a generated schema in place into the client-friendly form described in the module
/// docs (everything but the root's `$schema` and `title`).
pub fn make_client_friendly(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    // Numeric formats (`int64`, `uint8`, ...) go, whether the type is `"integer"` or, in the items
    // of an array of `Option`s, `["integer", "null"]`.
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    let is_numeric = match object.get("type") {
        Some(Value::Array(types)) => types.iter().any(numeric),
        Some(single) => numeric(single),
        None => false,
    };
    if is_numeric {
        object.remove("format");
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                strip_null(property);
            }
        }
    }
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            // Values, not schemas.
            "enum" | "const" | "default" | "examples" | "required" => {}
            _ => match value {
                Value::Array(items) => items.iter_mut().for_each(make_client_friendly),
                Value::Object(_) if is_schema_map(key) => {
                    if let Value::Object(map) = value {
                        map.values_mut().for_each(make_client_friendly);
                    }
                }
                Value::Object(_) => make_client_friendly(value),
                _ => {}
            },
        }
    }
}

/// Keywords whose value maps names to schemas.
fn is_schema_map(keyword: &str) -> bool {
    matches!(
        keyword,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// Makes an optional property's schema that of its non-null type.
fn strip_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = object.get_mut(keyword) else {
            continue;
        };
        branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if branches.len() == 1 {
            let Some(Value::Object(branch)) = branches.pop() else {
                continue;
            };
            object.remove(keyword);
            for (key, value) in branch {
                object.entry(key).or_insert(value);
            }
        }
    }
}

/// Removes from `value` the object members that are `null` where `schema` neither allows `null`
/// nor requires the member, and returns whether it removed any.
///
/// A `None` field serializes as `null`, while [`schema_for`] describes an `Option` field as "may
/// be left out" (not required, never nullable): leaving such members out makes the value conform
/// to the schema, and means the same to a client. The schema is followed through `properties`,
/// `additionalProperties`, `items` and the branches of `allOf`, `anyOf` and `oneOf`; a member whose
/// schema is not known, or allows `null`, is kept.
///
/// ```
/// use mcp_runtime_core::schema::omit_disallowed_nulls;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {
///     "n": {"type": "integer"}, "note": {"type": "string"}, "any": true}, "required": ["n"]});
/// let mut value = json!({"n": 1, "note": null, "any": null});
/// assert!(omit_disallowed_nulls(&mut value, &schema));
/// assert_eq!(value, json!({"n": 1, "any": null}));
/// ```
pub fn omit_disallowed_nulls(value: &mut Value, schema: &Value) -> bool {
    let Value::Object(schema) = schema else {
        return false;
    };
    let mut changed = false;
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            for branch in branches {
                changed |= omit_disallowed_nulls(value, branch);
            }
        }
    }
    match value {
        Value::Object(members) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            let required = |key: &str| {
                schema
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|k| k == key))
            };
            members.retain(|key, member| {
                let Some(member_schema) = properties.and_then(|p| p.get(key)).or(additional) else {
                    return true;
                };
                if member.is_null() {
                    let omit = !required(key) && !allows_null(member_schema);
                    changed |= omit;
                    !omit
                } else {
                    changed |= omit_disallowed_nulls(member, member_schema);
                    true
                }
            });
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    changed |= omit_disallowed_nulls(item, item_schema);
                }
            }
        }
        _ => {}
    }
    changed
}

/// Whether `schema` may accept `null` (true when it does not constrain the type).
fn allows_null(schema: &Value) -> bool {
    let Value::Object(object) = schema else {
        return schema != &Value::Bool(false);
    };
    if let Some(types) = object.get("type") {
        return match types {
            Value::String(t) => t == "null",
            Value::Array(types) => types.iter().any(|t| t == "null"),
            _ => true,
        };
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return values.iter().any(Value::is_null);
    }
    if let Some(value) = object.get("const") {
        return value.is_null();
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(keyword) {
            return branches.iter().any(allows_null);
        }
    }
    true
}

/// A schema compiled for validation.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Compiles `schema`, in the dialect its `$schema` names (2020-12 when it names none). Remote
    /// references are never fetched: a `$ref` that does not resolve inside the schema is an error.
    pub fn compile(schema: &JsonObject) -> Result<CompiledSchema, SchemaError> {
        let value = Value::Object(schema.clone());
        jsonschema::validator_for(&value)
            .map(|validator| CompiledSchema { validator })
            .map_err(|e| SchemaError::Invalid(e.to_string()))
    }

    /// Whether `instance` conforms.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Checks `instance`, describing every violation.
    pub fn validate(&self, instance: &Value) -> Result<(), SchemaViolation> {
        // Telling valid from invalid is cheaper than listing violations, and most values are valid.
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let problems: Vec<String> = self
            .validator
            .iter_errors(instance)
            .map(|error| {
                let path = error.instance_path().to_string();
                let property = path.trim_start_matches('/').replace('/', ".");
                if property.is_empty() {
                    error.to_string()
                } else {
                    format!("{property}: {error}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SchemaViolation { problems })
        }
    }
}

/// A value does not conform to a schema.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("; "))]
pub struct SchemaViolation {
    /// Each violation, prefixed with the path of the property it concerns (dot-separated), if any.
    pub problems: Vec<String>,
}

/// A value that breaks the schema it was sent against is invalid params (`-32602`), with each
/// problem listed in `data`. (A tool whose *arguments* fail may prefer to answer with a tool error
/// result instead, which the model can read and correct.)
impl From<SchemaViolation> for ErrorObject {
    fn from(err: SchemaViolation) -> Self {
        ErrorObject::invalid_params(format!("Invalid params: {err}"))
            .with_data(serde_json::json!({ "problems": err.problems }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Inner {
        flag: bool,
        note: Option<String>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Color {
        Red,
        Green,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    fn default_limit() -> u8 {
        10
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Catalogue {
        /// A signed integer.
        int: i64,
        unsigned: u16,
        float: f32,
        text: String,
        maybe: Option<i32>,
        color: Color,
        maybe_color: Option<Color>,
        inner: Inner,
        maybe_inner: Option<Inner>,
        list: Vec<Inner>,
        map: BTreeMap<String, u8>,
        shape: Shape,
        #[serde(rename = "renamedField")]
        renamed: bool,
        #[serde(default = "default_limit")]
        limit: u8,
    }

    #[test]
    fn catalogue_schema() {
        let inner = json!({
            "type": "object",
            "properties": {"flag": {"type": "boolean"}, "note": {"type": "string"}},
            "required": ["flag"]
        });
        assert_eq!(
            Value::Object(input_schema_for::<Catalogue>().unwrap()),
            json!({
                "type": "object",
                "properties": {
                    "int": {"description": "A signed integer.", "type": "integer"},
                    "unsigned": {"type": "integer", "maximum": 65535, "minimum": 0},
                    "float": {"type": "number"},
                    "text": {"type": "string"},
                    "maybe": {"type": "integer"},
                    "color": {"type": "string", "enum": ["Red", "Green"]},
                    "maybe_color": {"type": "string", "enum": ["Red", "Green"]},
                    "inner": inner,
                    "maybe_inner": inner,
                    "list": {"type": "array", "items": inner},
                    "map": {"type": "object", "additionalProperties":
                        {"type": "integer", "maximum": 255, "minimum": 0}},
                    "shape": {"oneOf": [
                        {"type": "object", "properties": {
                            "kind": {"type": "string", "const": "circle"},
                            "radius": {"type": "number"}}, "required": ["kind", "radius"]},
                        {"type": "object", "properties": {
                            "kind": {"type": "string", "const": "square"},
                            "side": {"type": "number"}}, "required": ["kind", "side"]}
                    ]},
                    "renamedField": {"type": "boolean"},
                    "limit": {"type": "integer", "default": 10, "maximum": 255, "minimum": 0}
                },
                "required": ["int", "unsigned", "float", "text", "color", "inner", "list", "map",
                             "shape", "renamedField"]
            })
        );
    }

    /// Serde's default representation: externally tagged, unit and data variants mixed.
    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Target {
        All,
        Id(u64),
        Named { name: String, exact: Option<bool> },
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Extra {
        depth: u8,
        label: Option<String>,
    }

    /// A recursive type.
    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Tree {
        name: String,
        children: Vec<Tree>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Forest {
        trees: Vec<Tree>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct MoreCatalogue {
        target: Target,
        hash: std::collections::HashMap<String, Option<u8>>,
        tree_map: BTreeMap<String, Inner>,
        scores: Vec<Option<u8>>,
        maybe_scores: Option<Vec<Option<i64>>>,
        #[serde(flatten)]
        extra: Extra,
    }

    #[test]
    fn catalogue_of_enums_maps_flattening_and_nullable_items() {
        let inner = json!({
            "type": "object",
            "properties": {"flag": {"type": "boolean"}, "note": {"type": "string"}},
            "required": ["flag"]
        });
        let byte = json!({"type": ["integer", "null"], "maximum": 255, "minimum": 0});
        assert_eq!(
            Value::Object(input_schema_for::<MoreCatalogue>().unwrap()),
            json!({
                "type": "object",
                "properties": {
                    // A unit variant is a string; a data variant an object of one property.
                    "target": {"oneOf": [
                        {"type": "string", "enum": ["All"]},
                        {"type": "object", "properties": {"Id": {"type": "integer", "minimum": 0}},
                         "required": ["Id"], "additionalProperties": false},
                        {"type": "object", "properties": {"Named": {
                            "type": "object",
                            "properties": {"name": {"type": "string"},
                                           "exact": {"type": "boolean"}},
                            "required": ["name"]}},
                         "required": ["Named"], "additionalProperties": false}
                    ], "description": "Serde's default representation: externally tagged, unit and data variants mixed."},
                    // Map values and array items cannot be left out: `Option` stays nullable
                    // there, without `format`.
                    "hash": {"type": "object", "additionalProperties": byte},
                    "tree_map": {"type": "object", "additionalProperties": inner},
                    "scores": {"type": "array", "items": byte},
                    "maybe_scores": {"type": "array", "items": {"type": ["integer", "null"]}},
                    // Flattened fields are the struct's own.
                    "depth": {"type": "integer", "maximum": 255, "minimum": 0},
                    "label": {"type": "string"}
                },
                "required": ["target", "hash", "tree_map", "scores", "depth"]
            })
        );
        // Recursive types keep their references: to the root, or to `$defs`.
        assert_eq!(
            Value::Object(schema_for::<Tree>()),
            json!({
                "type": "object",
                "properties": {"name": {"type": "string"},
                               "children": {"type": "array", "items": {"$ref": "#"}}},
                "required": ["name", "children"],
                "description": "A recursive type."
            })
        );
        let forest = input_schema_for::<Forest>().unwrap();
        let tree = json!({
            "type": "object",
            "properties": {"name": {"type": "string"},
                           "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
            "required": ["name", "children"],
            "description": "A recursive type."
        });
        assert_eq!(
            Value::Object(forest.clone()),
            json!({
                "type": "object",
                "properties": {"trees": {"type": "array", "items": tree}},
                "required": ["trees"],
                "$defs": {"Tree": tree}
            })
        );
        let compiled = CompiledSchema::compile(&forest).unwrap();
        assert!(
            compiled.is_valid(&json!({"trees": [{"name": "a", "children": [
            {"name": "b", "children": []}]}]}))
        );
        assert!(!compiled.is_valid(&json!({"trees": [{"name": "a", "children": [{"name": 1}]}]})));
    }

    #[test]
    fn nulls_are_omitted_only_where_the_schema_disallows_them() {
        #[derive(JsonSchema, serde::Serialize)]
        struct Row {
            id: u8,
            note: Option<String>,
        }
        #[derive(JsonSchema, serde::Serialize)]
        struct Out {
            rows: Vec<Row>,
            by_name: BTreeMap<String, Option<u8>>,
            #[schemars(required)]
            must: Option<String>,
            count: Option<u32>,
        }
        let schema = Value::Object(schema_for::<Out>());
        let out = Out {
            rows: vec![
                Row { id: 1, note: None },
                Row {
                    id: 2,
                    note: Some("x".into()),
                },
            ],
            by_name: BTreeMap::from([("a".to_owned(), None)]),
            must: None,
            count: None,
        };
        let mut value = serde_json::to_value(&out).unwrap();
        assert!(omit_disallowed_nulls(&mut value, &schema));
        // Items are followed; nullable map values and required members stay.
        assert_eq!(
            value,
            json!({"rows": [{"id": 1}, {"id": 2, "note": "x"}], "by_name": {"a": null},
                   "must": null})
        );
        assert!(!omit_disallowed_nulls(&mut value, &schema));
    }

    #[test]
    fn empty_struct_has_properties() {
        #[derive(JsonSchema)]
        struct Nothing {}
        assert_eq!(
            Value::Object(input_schema_for::<Nothing>().unwrap()),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn non_objects_are_not_inputs() {
        assert!(matches!(
            input_schema_for::<Vec<String>>(),
            Err(SchemaError::NotAnObject { .. })
        ));
        assert_eq!(
            Value::Object(schema_for::<Vec<String>>()),
            json!({"type": "array", "items": {"type": "string"}})
        );
    }

    #[test]
    fn validation_names_the_property() {
        let schema = input_schema_for::<Catalogue>().unwrap();
        let compiled = CompiledSchema::compile(&schema).unwrap();
        let err = compiled
            .validate(&json!({"int": "x", "inner": {"flag": 1}}))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("int: \"x\" is not of type \"integer\""),
            "{text}"
        );
        assert!(
            text.contains("inner.flag: 1 is not of type \"boolean\""),
            "{text}"
        );
        assert!(
            text.contains("\"unsigned\" is a required property"),
            "{text}"
        );
    }

    #[test]
    fn schema_errors_become_error_objects() {
        let compiled = CompiledSchema::compile(
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        let violation = compiled.validate(&json!({"a": "x"})).unwrap_err();
        assert_eq!(
            serde_json::to_value(ErrorObject::from(violation)).unwrap(),
            json!({"code": -32602, "message": "Invalid params: a: \"x\" is not of type \"integer\"",
                   "data": {"problems": ["a: \"x\" is not of type \"integer\""]}})
        );
        let not_object = input_schema_for::<Vec<String>>().unwrap_err();
        assert_eq!(
            serde_json::to_value(ErrorObject::from(not_object)).unwrap(),
            json!({"code": -32603, "message":
                "the input schema of `alloc::vec::Vec<alloc::string::String>` is not an object schema (tool inputs are objects)"})
        );
    }

    #[test]
    fn verbatim_schemas_keep_their_dialect_and_reject_remote_refs() {
        let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                            "properties": {"a": {"type": "integer"}}, "required": ["a"]});
        let compiled = CompiledSchema::compile(draft7.as_object().unwrap()).unwrap();
        assert!(compiled.is_valid(&json!({"a": 1})));
        assert!(!compiled.is_valid(&json!({})));
        let remote = json!({"type": "object", "properties": {
            "a": {"$ref": "https://example.com/schemas/a.json"}}});
        assert!(matches!(
            CompiledSchema::compile(remote.as_object().unwrap()),
            Err(SchemaError::Invalid(_))
        ));
    }
}
