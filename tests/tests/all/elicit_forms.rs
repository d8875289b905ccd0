//! `#[derive(Elicit)]`: the form schemas of flat structs, and the decoding of answers.

use indexmap::IndexMap;
use mcp_runtime::elicit::ElicitOutcome;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::elicitation::{ElicitResult, ElicitValue};
use serde_json::{Value, json};

#[derive(Elicit, Debug, PartialEq)]
enum Size {
    S,
    M,
    #[elicit(rename = "large")]
    L,
}

#[derive(Elicit, Debug, PartialEq)]
enum Topping {
    /// Cheese
    Cheese,
    #[elicit(title = "Olives, black")]
    Olives,
}

/// An order form.
#[derive(Elicit, Debug, PartialEq)]
struct Order {
    #[elicit(rename = "customerName", title = "Your name")]
    name: String,
    #[elicit(description = "Between 1 and 10")]
    quantity: u8,
    price: f64,
    size: Size,
    toppings: Vec<Topping>,
    extras: Vec<Size>,
    #[elicit(default = true)]
    gift: bool,
    #[elicit(default = Some(Size::M))]
    box_size: Option<Size>,
    note: Option<String>,
}

/// Numbers of every width.
#[derive(Elicit, Debug, PartialEq)]
struct Numbers {
    #[elicit(default = 3)]
    count: u16,
    offset: i8,
    big: u64,
    delta: i64,
    #[elicit(default = 0.5)]
    ratio: f32,
    #[elicit(default = 2.0)]
    scale: f64,
}

#[test]
fn integer_bounds_and_defaults_are_written_as_integers() {
    let schema =
        mcp_runtime::protocol::render::to_value(&Numbers::schema(), ProtocolVersion::V2025_11_25)
            .unwrap();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0, "maximum": 65535, "default": 3},
                "offset": {"type": "integer", "minimum": -128, "maximum": 127},
                "big": {"type": "integer", "minimum": 0},
                "delta": {"type": "integer"},
                "ratio": {"type": "number", "default": 0.5},
                "scale": {"type": "number", "default": 2}
            },
            "required": ["offset", "big", "delta"]
        })
    );
    // On the wire, byte for byte.
    assert_eq!(
        schema["properties"]["count"].to_string(),
        r#"{"type":"integer","minimum":0,"maximum":65535,"default":3}"#
    );
}

#[test]
fn the_form_schema_covers_every_field_kind() {
    let schema =
        mcp_runtime::protocol::render::to_value(&Order::schema(), ProtocolVersion::V2025_11_25)
            .unwrap();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "customerName": {"type": "string", "title": "Your name"},
                "quantity": {"type": "integer", "description": "Between 1 and 10",
                             "minimum": 0, "maximum": 255},
                "price": {"type": "number"},
                "size": {"type": "string", "enum": ["S", "M", "large"]},
                "toppings": {"type": "array", "items": {"anyOf": [
                    {"const": "Cheese", "title": "Cheese"},
                    {"const": "Olives", "title": "Olives, black"}]}},
                "extras": {"type": "array", "items": {"type": "string", "enum": ["S", "M", "large"]}},
                "gift": {"type": "boolean", "default": true},
                "box_size": {"type": "string", "enum": ["S", "M", "large"], "default": "M"},
                "note": {"type": "string"}
            },
            "required": ["customerName", "quantity", "price", "size", "toppings", "extras"]
        })
    );
    // What a 2025-06-18 client is shown: no multi-select, no defaults but boolean ones.
    let old =
        mcp_runtime::protocol::render::to_value(&Order::schema(), ProtocolVersion::V2025_06_18)
            .unwrap();
    assert_eq!(
        old["properties"]["toppings"],
        json!({"type": "string", "enum": ["Cheese", "Olives"], "enumNames": ["Cheese", "Olives, black"]})
    );
    assert_eq!(
        old["properties"]["extras"],
        json!({"type": "string", "enum": ["S", "M", "large"]})
    );
    assert_eq!(
        old["properties"]["box_size"],
        json!({"type": "string", "enum": ["S", "M", "large"]})
    );
    assert_eq!(
        old["properties"]["gift"],
        json!({"type": "boolean", "default": true})
    );
}

fn accepted(content: Value) -> ElicitResult {
    let content: IndexMap<String, ElicitValue> = serde_json::from_value(content).unwrap();
    ElicitResult::accept(content)
}

#[test]
fn answers_decode_into_the_struct() {
    let outcome = ElicitOutcome::<Order>::from_result(accepted(json!({
        "customerName": "Ada", "quantity": 2, "price": 9.5, "size": "large",
        "toppings": ["Olives"], "extras": ["S", "M"]
    })))
    .unwrap();
    assert_eq!(
        outcome,
        ElicitOutcome::Accepted(Order {
            name: "Ada".into(),
            quantity: 2,
            price: 9.5,
            size: Size::L,
            toppings: vec![Topping::Olives],
            extras: vec![Size::S, Size::M],
            gift: true,
            box_size: Some(Size::M),
            note: None,
        })
    );
    // A 2025-06-18 client answers a multi-select with one choice.
    let outcome = ElicitOutcome::<Order>::from_result(accepted(json!({
        "customerName": "Bo", "quantity": 1, "price": 1, "size": "S",
        "toppings": "Cheese", "extras": "M", "gift": false, "box_size": "S", "note": "hi"
    })))
    .unwrap()
    .accepted()
    .unwrap();
    assert_eq!(
        (outcome.toppings, outcome.extras, outcome.gift),
        (vec![Topping::Cheese], vec![Size::M], false)
    );
    assert_eq!(
        (outcome.box_size, outcome.note.as_deref()),
        (Some(Size::S), Some("hi"))
    );
}

#[test]
fn bad_answers_name_the_field() {
    let decode =
        |content: Value| ElicitOutcome::<Order>::from_result(accepted(content)).unwrap_err();
    let base = json!({"customerName": "Ada", "quantity": 2, "price": 1, "size": "S", "toppings": [], "extras": []});
    let with = |key: &str, value: Value| {
        let mut content = base.clone();
        content[key] = value;
        content
    };
    assert_eq!(
        decode(with("quantity", json!(300))),
        "field `quantity`: 300 is not a valid u8"
    );
    assert_eq!(
        decode(with("quantity", json!("2"))),
        "field `quantity`: expected an integer, got \"2\""
    );
    assert_eq!(
        decode(with("size", json!("XL"))),
        "field `size`: `XL` is not one of S, M, large"
    );
    assert_eq!(
        decode(with("toppings", json!(["Ham"]))),
        "field `toppings`: `Ham` is not one of Cheese, Olives"
    );
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("price");
    assert_eq!(decode(missing), "field `price`: missing");
    assert_eq!(
        ElicitOutcome::<Order>::from_result(ElicitResult::decline()).unwrap(),
        ElicitOutcome::Declined
    );
}
