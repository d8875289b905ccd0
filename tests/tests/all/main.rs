//! The integration tests, one module per subject, linked into one binary: the workspace's
//! dependencies are linked once rather than once per file, which saves minutes and gigabytes on
//! every build. Run one subject with `cargo test -p tests --test all cli::`.
//!
//! Three subjects stay binaries of their own: `macros_tools` (it checks what
//! `McpServer::from_registry` finds in the whole binary), `soak` (it measures a server under load,
//! alone) and `compile_fail` (trybuild).

mod api_key_server;
mod apps;
mod apps_browser;
mod auth_http;
mod auth_interop;
mod auth_jwt;
mod auth_oidc_provider;
mod auth_unavailable;
mod auth_verifiers;
mod cli;
mod client;
mod client_oauth;
mod client_tasks;
mod client_tasks_wire;
mod client_wire;
mod deployment;
mod elicit_forms;
mod http_function;
mod http_limits;
mod http_transport;
mod interop_clients;
mod interop_server;
mod interop_tasks;
mod legacy_sse;
mod lines_backpressure;
mod list_pages;
mod macros_prompts_resources;
mod memory_budget;
mod middleware;
mod mount;
mod otel_phoenix;
mod pack;
mod protocol_schemas;
mod proxy;
mod proxy_cli;
mod server_context;
mod server_protocol;
mod serverless;
mod shared_sessions;
mod skills;
mod spans;
mod spec_examples;
mod stores;
mod tasks_2025;
mod tasks_2026;
mod telemetry;
mod transforms;
