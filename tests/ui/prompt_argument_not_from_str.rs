use mcp_runtime::prelude::*;

/// Not text: no `FromStr`.
struct Level(u8);

/// Reviews code.
#[mcp_prompt]
async fn review(code: String, level: Option<Level>) -> String {
    format!("{code} {}", level.map_or(0, |l| l.0))
}

fn main() {}
