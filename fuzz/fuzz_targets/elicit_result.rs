//! The decoding of a client's `elicitation/create` result into a form type derived with
//! `#[derive(Elicit)]`: any JSON, read as an `ElicitResult`, then as the typed outcome.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::elicitation::{ElicitResult, ElicitValue};

#[derive(Debug, Elicit)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
}

#[derive(Debug, Elicit)]
#[allow(dead_code)]
struct Form {
    /// A name.
    #[elicit(rename = "fullName")]
    name: String,
    /// An age.
    age: u8,
    /// An offset.
    #[elicit(default = -3)]
    offset: i16,
    /// A score.
    score: Option<f64>,
    /// Yes or no.
    agree: bool,
    /// One color.
    color: Color,
    /// Some colors.
    colors: Vec<Color>,
    /// A remark.
    remark: Option<String>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(result) = serde_json::from_slice::<ElicitResult>(data) else {
        return;
    };
    let content = result.content.clone().unwrap_or_default();
    if let Ok(ElicitOutcome::Accepted(form)) = ElicitOutcome::<Form>::from_result(result) {
        // What was decoded is what was sent.
        assert_eq!(
            content.get("fullName"),
            Some(&ElicitValue::String(form.name.clone()))
        );
        let age = content.get("age").and_then(|v| match v {
            ElicitValue::Number(n) => n.as_u64(),
            _ => None,
        });
        assert_eq!(age, Some(u64::from(form.age)), "{form:?}");
    }
});
