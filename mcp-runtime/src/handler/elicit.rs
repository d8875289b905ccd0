//! Typed elicitation: a flat struct describes a form, and the user's answer decodes back into it.
//!
//! `#[derive(Elicit)]` on a struct implements [`Elicit`]: the struct's fields become the form's
//! properties (titles and descriptions from doc comments: the first paragraph of a doc comment with
//! several is the title, the rest the description), `Option` fields are optional, and
//! `#[elicit(default = ...)]` pre-fills a field (SEP-1034) and makes it optional: an answer that
//! leaves it out gets the default. The same derive on an enum of unit
//! variants makes it a single-select field (titled when its variants have doc comments or
//! `#[elicit(title = "...")]`, SEP-1330), and `Vec` of such an enum a multi-select field.
//!
//! Elicitation forms are flat: a field whose type is a struct, a map, or a list of anything but an
//! enum does not compile, and the error points at the field.
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! #[derive(Elicit)]
//! enum Size {
//!     /// Small
//!     S,
//!     /// Large
//!     L,
//! }
//!
//! #[derive(Elicit)]
//! struct Order {
//!     /// Quantity
//!     ///
//!     /// How many to order.
//!     #[elicit(default = 1)]
//!     quantity: u32,
//!     size: Size,
//!     gift_note: Option<String>,
//! }
//!
//! let schema = serde_json::to_value(Order::schema()).unwrap();
//! assert_eq!(schema, serde_json::json!({
//!     "type": "object",
//!     "properties": {
//!         "quantity": {"type": "integer", "title": "Quantity", "description": "How many to order.",
//!                      "minimum": 0, "default": 1},
//!         "size": {"type": "string", "oneOf": [{"const": "S", "title": "Small"},
//!                                              {"const": "L", "title": "Large"}]},
//!         "gift_note": {"type": "string"}
//!     },
//!     "required": ["size"]
//! }));
//! ```
//!
//! The guide's chapter "Elicitation, sampling and roots" (`docs/src/client-features.md`) teaches it with examples.

use indexmap::IndexMap;
use mcp_runtime_core::elicitation::{
    BooleanSchema, ElicitAction, ElicitResult, ElicitValue, ElicitationSchema, EnumOption,
    NumberKind, NumberSchema, PrimitiveSchema, StringSchema, TitledMultiSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
};

/// A flat struct that describes an elicitation form and decodes the user's answer.
pub trait Elicit: Sized {
    /// The form's `requestedSchema`.
    fn schema() -> ElicitationSchema;

    /// Decodes the values of an accepted form.
    fn from_content(content: &IndexMap<String, ElicitValue>) -> Result<Self, String>;
}

/// A type that can be one field of an elicitation form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "elicitation forms hold only strings, numbers, booleans, enums and lists of enum values",
    note = "nested objects, maps and arrays of anything but enum values are not allowed in elicitation schemas; derive `Elicit` on an enum of unit variants to offer choices"
)]
pub trait ElicitField: Sized {
    /// Whether the form requires the field (false for `Option`).
    const REQUIRED: bool = true;

    /// The property's schema, without title, description or default.
    fn schema() -> PrimitiveSchema;

    /// Decodes the field from the answer (`None` when the user left it out).
    fn decode(value: Option<&ElicitValue>) -> Result<Self, String>;

    /// The field's value as the form's default.
    fn to_value(&self) -> Option<ElicitValue>;
}

/// An enum of unit variants offered as choices.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a set of choices",
    label = "a list field of an elicitation form must hold an enum that derives `Elicit`",
    note = "elicitation forms allow arrays only for multi-select enums"
)]
pub trait ElicitEnum: Sized {
    /// The choices: wire value and optional display title.
    fn options() -> Vec<(&'static str, Option<&'static str>)>;

    /// The choice with wire value `value`.
    fn from_choice(value: &str) -> Option<Self>;

    /// This choice's wire value.
    fn choice(&self) -> &'static str;
}

/// The choices of a titled enum schema.
pub(crate) fn titled(options: &[(&'static str, Option<&'static str>)]) -> Vec<EnumOption> {
    options
        .iter()
        .map(|(value, title)| EnumOption::new(*value, title.unwrap_or(value)))
        .collect()
}

/// The choice `E` whose wire value is `choice`, or what is wrong with it.
pub(crate) fn parse_choice<E: ElicitEnum>(choice: &str) -> Result<E, String> {
    E::from_choice(choice).ok_or_else(|| {
        let allowed: Vec<_> = E::options().into_iter().map(|(v, _)| v).collect();
        format!("`{choice}` is not one of {}", allowed.join(", "))
    })
}

/// A value of an answer as the user sent it, for an error message.
pub(crate) fn describe(value: &ElicitValue) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl ElicitField for String {
    fn schema() -> PrimitiveSchema {
        PrimitiveSchema::String(StringSchema::default())
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!("expected a string, got {}", describe(other))),
            None => Err("missing".into()),
        }
    }

    fn to_value(&self) -> Option<ElicitValue> {
        Some(ElicitValue::String(self.clone()))
    }
}

impl ElicitField for bool {
    fn schema() -> PrimitiveSchema {
        PrimitiveSchema::Boolean(BooleanSchema::default())
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::Boolean(b)) => Ok(*b),
            Some(other) => Err(format!("expected a boolean, got {}", describe(other))),
            None => Err("missing".into()),
        }
    }

    fn to_value(&self) -> Option<ElicitValue> {
        Some(ElicitValue::Boolean(*self))
    }
}

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl ElicitField for $ty {
            fn schema() -> PrimitiveSchema {
                let mut schema = NumberSchema::default();
                schema.kind = NumberKind::Integer;
                // As in tool schemas: unsigned integers cannot be negative, and the bounds of
                // types of up to 16 bits are spelt out.
                #[allow(unused_comparisons)]
                let unsigned = <$ty>::MIN >= 0;
                let narrow = <$ty>::BITS <= 16;
                schema.minimum = (unsigned || narrow).then_some(<$ty>::MIN as f64);
                schema.maximum = narrow.then_some(<$ty>::MAX as f64);
                PrimitiveSchema::Number(schema)
            }

            fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
                match value {
                    Some(ElicitValue::Number(n)) => n
                        .as_i64()
                        .and_then(|i| <$ty>::try_from(i).ok())
                        .or_else(|| n.as_u64().and_then(|u| <$ty>::try_from(u).ok()))
                        .ok_or_else(|| format!("{n} is not a valid {}", stringify!($ty))),
                    Some(other) => Err(format!("expected an integer, got {}", describe(other))),
                    None => Err("missing".into()),
                }
            }

            fn to_value(&self) -> Option<ElicitValue> {
                Some(ElicitValue::Number((*self).into()))
            }
        }
    )*};
}

integer_fields!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_fields {
    ($($ty:ty),*) => {$(
        impl ElicitField for $ty {
            fn schema() -> PrimitiveSchema {
                PrimitiveSchema::Number(NumberSchema::default())
            }

            fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
                match value {
                    Some(ElicitValue::Number(n)) => n
                        .as_f64()
                        .map(|f| f as $ty)
                        .ok_or_else(|| format!("{n} is not a number")),
                    Some(other) => Err(format!("expected a number, got {}", describe(other))),
                    None => Err("missing".into()),
                }
            }

            fn to_value(&self) -> Option<ElicitValue> {
                serde_json::Number::from_f64(f64::from(*self)).map(ElicitValue::Number)
            }
        }
    )*};
}

float_fields!(f32, f64);

impl<T: ElicitField> ElicitField for Option<T> {
    const REQUIRED: bool = false;

    fn schema() -> PrimitiveSchema {
        T::schema()
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            None => Ok(None),
            Some(value) => T::decode(Some(value)).map(Some),
        }
    }

    fn to_value(&self) -> Option<ElicitValue> {
        self.as_ref().and_then(T::to_value)
    }
}

impl<E: ElicitEnum> ElicitField for Vec<E> {
    fn schema() -> PrimitiveSchema {
        let options = E::options();
        if options.iter().any(|(_, title)| title.is_some()) {
            let mut schema = TitledMultiSelectEnumSchema::default();
            schema.items.any_of = titled(&options);
            PrimitiveSchema::TitledMultiSelect(schema)
        } else {
            let mut schema = UntitledMultiSelectEnumSchema::default();
            schema.items.values = options.iter().map(|(v, _)| (*v).to_owned()).collect();
            PrimitiveSchema::UntitledMultiSelect(schema)
        }
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::Strings(choices)) => {
                choices.iter().map(|c| parse_choice(c)).collect()
            }
            // A 2025-06-18 client answers a multi-select (rendered as a single select) with one
            // string.
            Some(ElicitValue::String(one)) => parse_choice(one).map(|e| vec![e]),
            Some(other) => Err(format!(
                "expected a list of choices, got {}",
                describe(other)
            )),
            None => Err("missing".into()),
        }
    }

    fn to_value(&self) -> Option<ElicitValue> {
        Some(ElicitValue::Strings(
            self.iter().map(|e| e.choice().to_owned()).collect(),
        ))
    }
}

/// What the user did with a typed form.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitOutcome<T> {
    /// The user submitted the form; here are the values.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the request.
    Cancelled,
}

impl<T: Elicit> ElicitOutcome<T> {
    /// Decodes a client's [`ElicitResult`].
    pub fn from_result(result: ElicitResult) -> Result<Self, String> {
        match result.action {
            ElicitAction::Accept => {
                let content = result.content.unwrap_or_default();
                T::from_content(&content).map(ElicitOutcome::Accepted)
            }
            ElicitAction::Decline => Ok(ElicitOutcome::Declined),
            _ => Ok(ElicitOutcome::Cancelled),
        }
    }
}

impl<T> ElicitOutcome<T> {
    /// The values, when the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            ElicitOutcome::Accepted(value) => Some(value),
            _ => None,
        }
    }
}
