//! The MCP SDK for Rust.

pub use mcp_core as protocol;
