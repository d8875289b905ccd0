//! The notebook as a board (MCP Apps), which `notes-server --board` adds: the tool `show_board`
//! answers with the notes as text and as data, and hosts that render apps show that data in the
//! page `ui://notes/board`, where the user adds notes.
//!
//! The page is `examples/apps/board`, written with the official `ext-apps` `App` class and built
//! into one HTML file (`scripts/build-apps.sh`), which is embedded here at compile time: the
//! Rust build needs no Node. It calls two tools back through the host: `add_note`, which the
//! model sees too, and `board_notes`, which only the page may call (`visibility = "app"`).

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::apps::{Csp, ResourceUi};
use schemars::JsonSchema;
use serde::Serialize;

use crate::notes::{Note, Notebook};

/// The notes on the board.
#[derive(Serialize, JsonSchema)]
struct Board {
    /// The notes shown, in the order they were added.
    notes: Vec<Note>,
    /// The tag the board shows, if only one.
    tag: Option<String>,
}

/// The board of `notebook`'s notes (those tagged `tag`, if given), with a line per note for
/// the model and for hosts that show only text.
fn board(notebook: &Notebook, tag: Option<String>) -> Structured<Board> {
    let notes = notebook.tagged(tag.as_deref());
    let mut text = match notes.len() {
        1 => "1 note on the board:".to_owned(),
        n => format!("{n} notes on the board:"),
    };
    for note in &notes {
        text.push_str(&format!("\n- #{} {}: {}", note.id, note.title, note.body));
    }
    Structured::new(text, Board { notes, tag })
}

/// Show the notes as a board, where the user can add notes.
#[mcp_tool(
    read_only,
    idempotent,
    title = "Show the board",
    scopes = "notes:read",
    ui = "ui://notes/board"
)]
async fn show_board(
    /// Show only the notes with this tag.
    tag: Option<String>,
    State(notebook): State<Notebook>,
) -> Structured<Board> {
    board(&notebook, tag)
}

/// The notes of the board, for the board's page to refresh itself.
#[mcp_tool(
    read_only,
    idempotent,
    scopes = "notes:read",
    ui = "ui://notes/board",
    visibility = "app"
)]
async fn board_notes(
    /// Only the notes with this tag.
    tag: Option<String>,
    State(notebook): State<Notebook>,
) -> Structured<Board> {
    board(&notebook, tag)
}

/// How hosts should frame the board: it loads nothing from elsewhere, and looks best with a
/// border.
fn sandbox() -> ResourceUi {
    ResourceUi::new().csp(Csp::new()).prefers_border(true)
}

/// The board's page.
#[mcp_resource(uri = "ui://notes/board", app = sandbox, scopes = "notes:read")]
async fn board_page() -> &'static str {
    include_str!("../apps/board/dist/board.html")
}
