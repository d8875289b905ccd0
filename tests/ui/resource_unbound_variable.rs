use mcp_runtime::prelude::*;

/// A note of a day.
#[mcp_resource(uri = "notes://{day}/{id}")]
async fn note(day: String) -> String {
    day
}

fn main() {}
