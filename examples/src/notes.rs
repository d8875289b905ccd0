//! The notebook of the `notes-server` example: its tools, prompt and resources, and the server
//! builder that gathers them. The binary serves it over stdio or HTTP; the fuzz targets drive it
//! through [`McpServer::handle_raw`].
//!
//! It shows most of what the SDK offers: tools with typed arguments, structured output, shared
//! state, progress, cancellation, elicitation and sampling; a tool that runs as a task; a prompt
//! with a completer; a resource and a resource template.

use std::sync::{Arc, Mutex};

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One note.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Note {
    /// Its number.
    pub(crate) id: u32,
    /// A short title.
    pub(crate) title: String,
    /// The text.
    pub(crate) body: String,
    /// Words to find it by.
    pub(crate) tags: Vec<String>,
}

impl Note {
    fn markdown(&self) -> String {
        let tags = if self.tags.is_empty() {
            String::new()
        } else {
            format!("\n\nTags: {}", self.tags.join(", "))
        };
        format!("# {}\n\n{}{tags}\n", self.title, self.body)
    }
}

/// The notes, shared by every handler.
#[derive(Clone, Default)]
pub struct Notebook(Arc<Mutex<Vec<Note>>>);

impl Notebook {
    /// A notebook holding the two example notes.
    pub fn with_examples() -> Self {
        let notebook = Notebook::default();
        notebook.reset();
        notebook
    }

    /// Forgets every note but the two examples.
    pub fn reset(&self) {
        self.notes().clear();
        self.add("Shopping", "Milk, bread and coffee.", vec!["home".into()]);
        self.add(
            "Ideas",
            "Write an MCP server in Rust.",
            vec!["work".into(), "rust".into()],
        );
    }

    fn notes(&self) -> std::sync::MutexGuard<'_, Vec<Note>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn add(&self, title: &str, body: &str, tags: Vec<String>) -> Note {
        let mut notes = self.notes();
        let id = notes.iter().map(|n| n.id).max().unwrap_or(0) + 1;
        let note = Note {
            id,
            title: title.to_owned(),
            body: body.to_owned(),
            tags,
        };
        notes.push(note.clone());
        note
    }

    /// The notes with the tag `tag`, or all of them.
    pub(crate) fn tagged(&self, tag: Option<&str>) -> Vec<Note> {
        let notes = self.notes();
        let has_tag = |n: &&Note| tag.is_none_or(|tag| n.tags.iter().any(|t| t == tag));
        notes.iter().filter(has_tag).cloned().collect()
    }

    fn get(&self, id: u32) -> Option<Note> {
        self.notes().iter().find(|n| n.id == id).cloned()
    }
}

/// Add two integers.
#[mcp_tool(read_only, idempotent, scopes = "notes:read")]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    #[arg(default = 0)]
    b: i64,
) -> i64 {
    a + b
}

/// Add a note to the notebook.
#[mcp_tool(title = "Add a note", scopes = "notes:write")]
async fn add_note(
    /// A short title.
    #[arg(min_length = 1)]
    title: String,
    /// The text of the note.
    body: String,
    /// Words to find the note by.
    #[arg(default)]
    tags: Vec<String>,
    State(notebook): State<Notebook>,
) -> Json<Note> {
    Json(notebook.add(&title, &body, tags))
}

/// Matching notes.
#[derive(Serialize, Deserialize, JsonSchema)]
pub(crate) struct Matches {
    /// The notes found, best first.
    pub(crate) notes: Vec<Note>,
}

/// Find the notes whose title, text or tags contain a word.
#[mcp_tool(read_only, idempotent, title = "Search notes", scopes = "notes:read")]
async fn search_notes(
    /// What to look for (case-insensitive).
    text: String,
    /// The most notes to return.
    #[arg(default = 10, minimum = 1, maximum = 100)]
    limit: u32,
    State(notebook): State<Notebook>,
) -> Json<Matches> {
    let needle = text.to_lowercase();
    let notes = notebook
        .notes()
        .iter()
        .filter(|n| {
            n.title.to_lowercase().contains(&needle)
                || n.body.to_lowercase().contains(&needle)
                || n.tags.iter().any(|t| t.to_lowercase() == needle)
        })
        .take(limit as usize)
        .cloned()
        .collect();
    Json(Matches { notes })
}

/// The user's confirmation.
#[derive(Elicit)]
struct Confirmation {
    /// Delete it?
    ///
    /// The note cannot be restored.
    delete: bool,
}

/// Delete a note. Asks the user to confirm when the client can ask.
#[mcp_tool(destructive = true, idempotent, scopes = "notes:write")]
async fn delete_note(
    id: u32,
    State(notebook): State<Notebook>,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let Some(note) = notebook.get(id) else {
        return Err(ToolError::new(format!("there is no note {id}")));
    };
    if ctx.client_capabilities().supports_elicitation_form() {
        let question = format!("Delete the note \"{}\"?", note.title);
        let confirmed = matches!(
            ctx.elicit::<Confirmation>(question).await?,
            ElicitOutcome::Accepted(Confirmation { delete: true })
        );
        if !confirmed {
            return Ok(format!("Kept note {id}."));
        }
    }
    notebook.notes().retain(|n| n.id != id);
    Ok(format!("Deleted note {id}."))
}

/// Word counts.
#[derive(Serialize, JsonSchema)]
struct WordCounts {
    /// Words in each note, by note number.
    per_note: Vec<(u32, usize)>,
    /// Words in all notes.
    total: usize,
}

/// Count the words of every note, reporting progress as it goes.
#[mcp_tool(read_only, idempotent, scopes = "notes:read")]
async fn word_count(
    State(notebook): State<Notebook>,
    ctx: RequestContext,
) -> Result<Json<WordCounts>, ToolError> {
    let notes = notebook.notes().clone();
    let mut per_note = Vec::new();
    for (done, note) in notes.iter().enumerate() {
        if ctx.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        per_note.push((note.id, note.body.split_whitespace().count()));
        ctx.progress(done as u32 + 1, notes.len() as u32).await;
    }
    ctx.log(LoggingLevel::Info, format!("counted {} notes", notes.len()))
        .await;
    let total = per_note.iter().map(|(_, n)| n).sum();
    Ok(Json(WordCounts { per_note, total }))
}

/// Summarize a note in one sentence, with the client's model.
#[mcp_tool(read_only, scopes = "notes:read")]
async fn summarize_note(
    id: u32,
    State(notebook): State<Notebook>,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let note = notebook
        .get(id)
        .ok_or_else(|| ToolError::new(format!("there is no note {id}")))?;
    let request = CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!(
            "Summarize in one sentence:\n\n{}",
            note.markdown()
        ))],
        100,
    );
    let answer = ctx.sample(request).await?;
    Ok(answer.content.text())
}

/// Export every note as one Markdown document, a note at a time, reporting progress. A client
/// that can run tasks gets a task id at once and polls for the document.
#[mcp_tool(read_only, task = "optional", task_start = "1s", scopes = "notes:read")]
async fn export_notes(
    /// How long to spend on each note, in milliseconds (a real export would write files).
    #[arg(maximum = 10_000)]
    pause_ms: Option<u64>,
    State(notebook): State<Notebook>,
    ctx: RequestContext,
) -> Result<String, ToolError> {
    let notes = notebook.notes().clone();
    let pause = std::time::Duration::from_millis(pause_ms.unwrap_or(250));
    let mut document = String::new();
    for (done, note) in notes.iter().enumerate() {
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = ctx.cancelled() => return Err(ToolError::cancelled()),
        }
        document.push_str(&note.markdown());
        document.push('\n');
        ctx.progress_with_message(
            done as u32 + 1,
            Some(notes.len() as f64),
            format!("exported note {}", note.id),
        )
        .await;
    }
    Ok(document)
}

fn note_ids(request: &CompletionRequest, ctx: &RequestContext) -> Vec<String> {
    let Some(notebook) = ctx.state::<Notebook>() else {
        return Vec::new();
    };
    let ids: Vec<String> = notebook.notes().iter().map(|n| n.id.to_string()).collect();
    prefix_match(ids, &request.value)
}

fn focuses(request: &CompletionRequest) -> Vec<String> {
    prefix_match(["clarity", "grammar", "tone"], &request.value)
}

/// Ask the model to review a note.
#[mcp_prompt(title = "Review a note", scopes = "notes:read")]
async fn review_note(
    /// The note's number.
    #[arg(complete = note_ids)]
    id: u32,
    /// What to pay attention to.
    #[arg(complete = focuses)]
    focus: Option<String>,
    State(notebook): State<Notebook>,
) -> Result<Vec<PromptMessage>, String> {
    let note = notebook
        .get(id)
        .ok_or_else(|| format!("there is no note {id}"))?;
    let focus = focus.map(|f| format!(" Focus on {f}.")).unwrap_or_default();
    Ok(vec![PromptMessage::user(format!(
        "Please review this note.{focus}\n\n{}",
        note.markdown()
    ))])
}

/// Every note, as Markdown.
#[mcp_resource(
    uri = "notes://all",
    mime_type = "text/markdown",
    scopes = "notes:read"
)]
async fn all_notes(State(notebook): State<Notebook>) -> String {
    notebook
        .notes()
        .iter()
        .map(Note::markdown)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One note, as Markdown.
#[mcp_resource(
    uri = "notes://{id}",
    mime_type = "text/markdown",
    title = "A note",
    scopes = "notes:read"
)]
async fn note(
    #[arg(complete = note_ids)] id: u32,
    State(notebook): State<Notebook>,
) -> Result<String, ResourceError> {
    notebook
        .get(id)
        .map(|n| n.markdown())
        .ok_or_else(ResourceError::not_found)
}

/// The notebook server, with the two example notes: every tool, prompt and resource of this
/// module, the notebook as shared state, and logging.
pub fn builder() -> McpServerBuilder {
    builder_on(Notebook::with_examples())
}

/// The notebook server on `notebook`.
pub fn builder_on(notebook: Notebook) -> McpServerBuilder {
    McpServer::from_module(server_info!(), module_path!())
        .instructions("A notebook: add, search, count, summarize and delete notes.")
        .state(notebook)
        .logging()
        // How to use the tools well, for the client's agent (the skills extension).
        .skills(include_skills!("../skills"))
}
