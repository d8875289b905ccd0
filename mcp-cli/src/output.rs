//! How results are printed: a summary for people, or JSON (`--json`) for programs.
//!
//! On a terminal, listings are tables cut to its width, and names and headings are coloured
//! (unless `NO_COLOR` or `CLICOLOR=0` is set); piped into another program, the same commands
//! print plain `name: description` lines, easy to `grep` and `cut`.

use console::{Alignment, StyledObject, Term, measure_text_width, pad_str, style, truncate_str};

use mcp_runtime::protocol::apps::{ResourceUi, ToolUi, Visibility};
use mcp_runtime::protocol::capabilities::ServerCapabilities;
use mcp_runtime::protocol::content::ContentBlock;
use serde_json::Value;

/// A heading: bold on a terminal.
pub fn heading<D>(text: D) -> StyledObject<D> {
    style(text).bold()
}

/// The name of a tool, prompt, resource or template: coloured on a terminal.
pub fn name<D>(text: D) -> StyledObject<D> {
    style(text).cyan()
}

/// Prints one row per `(name, description)`: on a terminal, a table whose names are aligned
/// and coloured and whose descriptions are cut to the terminal's width; elsewhere
/// `name: description` lines.
pub fn rows(rows: &[(String, String)]) {
    let term = Term::stdout();
    if !term.is_term() {
        for (name, description) in rows {
            println!("{name}: {description}");
        }
        return;
    }
    for line in table(rows, usize::from(term.size().1)) {
        println!("{line}");
    }
}

/// The lines of a two-column table `columns` characters wide.
fn table(rows: &[(String, String)], columns: usize) -> Vec<String> {
    let width = rows
        .iter()
        .map(|(name, _)| measure_text_width(name))
        .max()
        .unwrap_or(0);
    // Descriptions always get some room, even on a narrow terminal.
    let room = columns.saturating_sub(width + 2).max(16);
    rows.iter()
        .map(|(title, description)| {
            let title = pad_str(title, width, Alignment::Left, None);
            let description = description.lines().next().unwrap_or_default();
            format!("{}  {}", name(title), truncate_str(description, room, "…"))
                .trim_end()
                .to_owned()
        })
        .collect()
}

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

/// A tool's interface (MCP Apps): its page and who may call the tool, as
/// `ui://notes/board (model and app)`.
pub fn tool_ui(ui: &ToolUi) -> String {
    let uri = ui.resource_uri.as_deref().unwrap_or("no page");
    let callers = match (
        ui.is_visible_to(Visibility::Model),
        ui.is_visible_to(Visibility::App),
    ) {
        (true, true) => "model and app",
        (true, false) => "model only",
        (false, true) => "app only",
        (false, false) => "nobody",
    };
    format!("{uri} ({callers})")
}

/// How a page asks to be sandboxed (MCP Apps): the origins its content security policy allows,
/// the permissions it asks for, its origin and border, as
/// `connectDomains https://api.example.com; border`; `defaults` when it says nothing.
pub fn resource_ui(ui: &ResourceUi) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(csp) = &ui.csp {
        let mut lists: Vec<(&str, Vec<&str>)> = Vec::new();
        for (list, origin) in csp.origins() {
            match lists.last_mut() {
                Some((last, origins)) if *last == list => origins.push(origin),
                _ => lists.push((list, vec![origin])),
            }
        }
        parts.extend(
            lists
                .iter()
                .map(|(list, o)| format!("{list} {}", o.join(" "))),
        );
    }
    if let Some(permissions) = ui
        .permissions
        .as_ref()
        .and_then(|p| serde_json::to_value(p).ok())
    {
        let asked: Vec<&str> = permissions
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys().map(String::as_str))
            .collect();
        if !asked.is_empty() {
            parts.push(format!("permissions {}", asked.join(" ")));
        }
    }
    if let Some(domain) = &ui.domain {
        parts.push(format!("domain {domain}"));
    }
    match ui.prefers_border {
        Some(true) => parts.push("border".into()),
        Some(false) => parts.push("no border".into()),
        None => {}
    }
    if parts.is_empty() {
        "defaults".into()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_names_and_cut_descriptions_to_the_width() {
        let rows = [
            ("add".to_owned(), "Add two integers.".to_owned()),
            (
                "search_notes".to_owned(),
                "Find notes whose title or body has the text.\nMore.".to_owned(),
            ),
            ("wc".to_owned(), String::new()),
        ];
        // Off a terminal (as under test) the names are not coloured.
        assert_eq!(
            table(&rows, 40),
            [
                "add           Add two integers.",
                "search_notes  Find notes whose title or…",
                "wc",
            ]
        );
        // However narrow the terminal, a description keeps 16 columns.
        assert_eq!(table(&rows[..1], 10), ["add  Add two integer…"]);
        assert_eq!(table(&rows[1..2], 10)[0], "search_notes  Find notes whos…");
    }
}
