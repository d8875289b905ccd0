//! The attribute macros of the MCP SDK. Use them through `mcp_runtime`, which re-exports them.
