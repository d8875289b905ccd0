//! An MCP server on AWS Lambda: the server of `../server.rs`, whose transport answers each
//! request that reaches the function (through a function URL, API Gateway or a load balancer).
//!
//! Run it locally with `cargo lambda watch` (see README.md).

use std::convert::Infallible;

use lambda_http::{Request, service_fn};

#[path = "../../server.rs"]
mod server;

// ANCHOR: entry
#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // Built once per instance (a cold start), before the first request; the variables are the
    // function's environment.
    let transport = server::transport(|name| std::env::var(name).ok())
        .map_err(|error| format!("the MCP server cannot start: {error}"))?;
    lambda_http::run(service_fn(move |request: Request| {
        let transport = transport.clone();
        async move { Ok::<_, Infallible>(transport.handle(request).await) }
    }))
    .await
}
// ANCHOR_END: entry
