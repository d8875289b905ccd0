use mcp_runtime::prelude::*;

/// Names a web page, not an interface.
#[mcp_tool(ui = "https://example.com/board")]
async fn board() -> String {
    String::new()
}

/// Says who may call it, with no interface.
#[mcp_tool(visibility = "app")]
async fn hidden() -> String {
    String::new()
}

/// Names a caller that does not exist.
#[mcp_tool(ui = "ui://notes/board", visibility = "user")]
async fn user() -> String {
    String::new()
}

/// An app's page at a URI hosts do not look at.
#[mcp_resource(uri = "notes://board", app)]
async fn page() -> &'static str {
    ""
}

/// An app's page with a MIME type of its own.
#[mcp_resource(uri = "ui://notes/board", app, mime_type = "text/html")]
async fn typed() -> &'static str {
    ""
}

/// Pages from a template.
#[mcp_resource(uri = "ui://notes/{id}", app)]
async fn pages(id: String) -> String {
    id
}

fn main() {}
