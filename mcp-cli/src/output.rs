//! How results are printed: a summary for people, or JSON (`--json`) for programs.

use mcp_runtime::protocol::capabilities::ServerCapabilities;
use mcp_runtime::protocol::content::ContentBlock;
use serde_json::Value;

/// Prints `value` as pretty JSON.
pub fn json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// The capabilities, one phrase each: `tools (list changes)`, `resources (subscriptions)`,
/// `extensions: io.modelcontextprotocol/skills`.
pub fn capabilities(caps: &ServerCapabilities) -> Vec<String> {
    let value = serde_json::to_value(caps).unwrap_or_default();
    let mut phrases = Vec::new();
    for (name, settings) in value.as_object().into_iter().flatten() {
        if name == "extensions" {
            let ids: Vec<_> = settings
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .collect();
            phrases.push(format!("extensions: {}", ids.join(", ")));
            continue;
        }
        let flags: Vec<&str> = settings
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, v)| **v == Value::Bool(true))
            .map(|(k, _)| match k.as_str() {
                "listChanged" => "list changes",
                "subscribe" => "subscriptions",
                other => other,
            })
            .collect();
        if flags.is_empty() {
            phrases.push(name.clone());
        } else {
            phrases.push(format!("{name} ({})", flags.join(", ")));
        }
    }
    phrases
}

/// A content block as people read it: text as is, anything else described.
pub fn content(block: &ContentBlock) -> String {
    if let Some(text) = block.as_text() {
        return text.to_owned();
    }
    let value = serde_json::to_value(block).unwrap_or_default();
    let kind = value["type"].as_str().unwrap_or("content");
    match kind {
        "image" | "audio" => {
            let bytes = value["data"].as_str().map_or(0, |d| d.len() * 3 / 4);
            format!(
                "[{kind}: {}, about {bytes} bytes]",
                value["mimeType"].as_str().unwrap_or("unknown type")
            )
        }
        "resource_link" => format!("[link: {}]", value["uri"].as_str().unwrap_or_default()),
        "resource" => {
            let resource = &value["resource"];
            match resource["text"].as_str() {
                Some(text) => format!("[{}]\n{text}", resource["uri"].as_str().unwrap_or_default()),
                None => format!("[{}: binary]", resource["uri"].as_str().unwrap_or_default()),
            }
        }
        _ => serde_json::to_string(&value).unwrap_or_default(),
    }
}

/// `schema` on one line, as compact JSON.
pub fn schema(schema: &impl serde::Serialize) -> String {
    serde_json::to_string(schema).unwrap_or_default()
}
