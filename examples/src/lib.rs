//! Examples of the MCP SDK.
