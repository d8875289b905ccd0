//! An MCP server on Cloudflare Workers: the server of `../server.rs`, whose transport answers each
//! request the platform hands to [`fetch`].
//!
//! Build it with `worker-build --release` (see README.md).

use std::cell::OnceCell;

use mcp_runtime::transport::http::{HttpTransport, axum::body::Body};
use worker::{Context, Env, HttpRequest, console_error, event};

#[path = "../../server.rs"]
mod server;

// ANCHOR: entry
thread_local! {
    /// The server, built on the first request an instance of the worker gets (the isolate keeps
    /// it between requests; a Worker has one thread).
    static TRANSPORT: OnceCell<HttpTransport> = const { OnceCell::new() };
}

/// The worker's entry point: each request, answered by the MCP server.
#[event(fetch)]
async fn fetch(
    request: HttpRequest,
    env: Env,
    _context: Context,
) -> worker::Result<http::Response<Body>> {
    let transport = match TRANSPORT.with(|cell| cell.get().cloned()) {
        Some(transport) => transport,
        None => match server::transport(|name| variable(&env, name)) {
            Ok(transport) => TRANSPORT.with(|cell| cell.get_or_init(|| transport).clone()),
            Err(error) => {
                console_error!("the MCP server cannot start: {error}");
                return Ok(http::Response::builder()
                    .status(http::StatusCode::INTERNAL_SERVER_ERROR)
                    .body(Body::from(format!("the MCP server cannot start: {error}")))?);
            }
        },
    };
    Ok(transport.handle(request).await)
}

/// A variable or secret of the worker (`[vars]` of wrangler.toml, `wrangler secret put`, or
/// workerd's `fromEnvironment`): a string, if it is set. (An unset `fromEnvironment` binding is
/// null, which `Env::var` cannot take.)
fn variable(env: &Env, name: &str) -> Option<String> {
    worker::js_sys::Reflect::get(env, &name.into())
        .ok()?
        .as_string()
}
// ANCHOR_END: entry
