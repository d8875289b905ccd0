//! What the server asks of the user while a command runs: an elicitation is asked on the
//! terminal, one question per field (`dialoguer`); without a terminal it is declined, with a
//! line on stderr saying so.

use std::io::IsTerminal;

use dialoguer::console::Term;
use dialoguer::{Confirm, Input, Select};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{Map, Value, json};

/// Answers an elicitation of the server.
pub async fn elicit(params: ElicitRequestParams) -> Result<ElicitResult, ErrorObject> {
    tokio::task::spawn_blocking(move || answer(params))
        .await
        .unwrap_or_else(|_| Ok(outcome("cancel", None)))
}

fn answer(params: ElicitRequestParams) -> Result<ElicitResult, ErrorObject> {
    let (message, url) = match &params {
        ElicitRequestParams::Form(form) => (form.message.clone(), None),
        ElicitRequestParams::Url(url) => (url.message.clone(), Some(url.url.clone())),
        _ => (String::new(), None),
    };
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        eprintln!("mcp: the server asks \"{message}\"; declined: mcp asks only on a terminal");
        return Ok(outcome("decline", None));
    }
    let term = Term::stderr();
    eprintln!("The server asks: {message}");
    if let Some(url) = url {
        eprintln!("  {url}");
        return Ok(
            match Confirm::new()
                .with_prompt("Done there?")
                .default(true)
                .interact_on(&term)
            {
                Ok(true) => outcome("accept", None),
                Ok(false) => outcome("decline", None),
                Err(_) => outcome("cancel", None),
            },
        );
    }
    let ElicitRequestParams::Form(form) = params else {
        return Ok(outcome("decline", None));
    };
    let required = form.requested_schema.required.clone().unwrap_or_default();
    let mut content = Map::new();
    for (name, schema) in &form.requested_schema.properties {
        let schema = serde_json::to_value(schema).unwrap_or_default();
        match ask(&term, name, &schema, required.contains(name)) {
            Ok(Some(value)) => {
                content.insert(name.clone(), value);
            }
            Ok(None) => {}
            Err(_) => return Ok(outcome("cancel", None)),
        }
    }
    Ok(outcome("accept", Some(content)))
}

/// Asks for the field `name` described by `schema`: `None` for an optional field left empty.
fn ask(
    term: &Term,
    name: &str,
    schema: &Value,
    required: bool,
) -> dialoguer::Result<Option<Value>> {
    let title = schema["title"].as_str().unwrap_or(name);
    let prompt = match schema["description"].as_str() {
        Some(description) => format!("{title} ({description})"),
        None => title.to_owned(),
    };
    let choices: Vec<String> = schema["enum"]
        .as_array()
        .or_else(|| schema["items"]["enum"].as_array())
        .map(|values| {
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if !choices.is_empty() {
        let default = schema["default"]
            .as_str()
            .and_then(|d| choices.iter().position(|c| c == d))
            .unwrap_or(0);
        let chosen = Select::new()
            .with_prompt(&prompt)
            .items(&choices)
            .default(default)
            .interact_on(term)?;
        return Ok(Some(Value::String(choices[chosen].clone())));
    }
    match schema["type"].as_str() {
        Some("boolean") => {
            let default = schema["default"].as_bool().unwrap_or(false);
            let answer = Confirm::new()
                .with_prompt(&prompt)
                .default(default)
                .interact_on(term)?;
            Ok(Some(Value::Bool(answer)))
        }
        Some(kind @ ("integer" | "number")) => {
            let integer = kind == "integer";
            let text: String = Input::new()
                .with_prompt(&prompt)
                .allow_empty(!required)
                .validate_with(|text: &String| -> Result<(), String> {
                    if text.is_empty() {
                        return Ok(());
                    }
                    let valid = if integer {
                        text.parse::<i64>().is_ok()
                    } else {
                        text.parse::<f64>().is_ok_and(f64::is_finite)
                    };
                    if valid {
                        Ok(())
                    } else {
                        Err(format!(
                            "not {}",
                            if integer { "an integer" } else { "a number" }
                        ))
                    }
                })
                .interact_text_on(term)?;
            Ok((!text.is_empty())
                .then(|| serde_json::from_str(&text).unwrap_or(Value::String(text))))
        }
        _ => {
            let text: String = Input::new()
                .with_prompt(&prompt)
                .allow_empty(!required)
                .interact_text_on(term)?;
            Ok((!text.is_empty()).then_some(Value::String(text)))
        }
    }
}

/// The answer `action`, with `content` when accepted.
fn outcome(action: &str, content: Option<Map<String, Value>>) -> ElicitResult {
    let mut answer = json!({"action": action});
    if let Some(content) = content {
        answer["content"] = Value::Object(content);
    }
    serde_json::from_value(answer).expect("a valid elicitation answer")
}
