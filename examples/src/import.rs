//! The tool `import_notes` of `notes-server --import-from URL`: it copies into this notebook the
//! notes that another notes server finds, by calling that server's `search_notes` tool with an
//! [`McpClient`]. A tool calling another MCP server needs nothing more: with the `otel`
//! feature, the client's request carries the trace of the call that runs the tool, so one trace
//! shows the caller, this server and the other one.

use mcp_runtime::client::{ClientError, McpClient};
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use crate::notes::{Matches, Notebook};

/// The MCP endpoint of the notes server that `import_notes` copies from.
#[derive(Clone, Debug)]
pub struct Upstream(pub String);

/// What `import_notes` copied.
#[derive(Serialize, JsonSchema)]
struct Imported {
    /// The numbers the copies got here.
    ids: Vec<u32>,
}

/// Copy into this notebook the notes that the notebook at `--import-from` finds for a word.
#[mcp_tool(title = "Import notes", scopes = "notes:write")]
async fn import_notes(
    /// What to look for there (case-insensitive).
    text: String,
    State(upstream): State<Upstream>,
    State(notebook): State<Notebook>,
) -> Result<Json<Imported>, ToolError> {
    let unreachable = |error: ClientError| {
        ToolError::new(format!(
            "the notes server at {} could not be asked: {error}",
            upstream.0
        ))
    };
    let client = McpClient::builder(server_info!())
        .connect_http(upstream.0.clone())
        .await
        .map_err(unreachable)?;
    let found: Matches = client
        .call_tool_as("search_notes", serde_json::json!({ "text": text }))
        .await
        .map_err(unreachable)?;
    let ids = found
        .notes
        .into_iter()
        .map(|note| notebook.add(&note.title, &note.body, note.tags).id)
        .collect();
    // Ends the session there; a failure to say goodbye loses nothing here.
    let _ = client.close().await;
    Ok(Json(Imported { ids }))
}
