use mcp_runtime::prelude::*;

/// Not text: no `FromStr`.
struct Day(u32);

/// The notes of a day.
#[mcp_resource(uri = "notes://{day}")]
async fn notes(day: Day) -> String {
    day.0.to_string()
}

fn main() {}
