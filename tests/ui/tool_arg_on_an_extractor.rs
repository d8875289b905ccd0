use mcp_runtime::prelude::*;

/// Says where the call comes from.
#[mcp_tool]
async fn whence(#[arg(description = "the context")] ctx: RequestContext) -> String {
    format!("{:?}", ctx.client_info())
}

fn main() {}
