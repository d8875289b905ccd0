use mcp_runtime::prelude::*;

/// Counts the calls.
#[mcp_tool]
async fn count(State(counter): State<std::sync::Mutex<u64>>) -> u64 {
    let mut calls = counter.lock().unwrap();
    *calls += 1;
    *calls
}

fn main() {}
