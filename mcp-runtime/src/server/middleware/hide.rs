//! [`Hide`]: what a caller may not see, left out of its lists and refused as unknown.

use std::sync::Arc;

use tower::{Layer, Service};

use super::{Listed, McpRequest, Stack, StackFuture};
use crate::handler::RequestContext;

type Rule = dyn Fn(&RequestContext, Listed<'_>) -> bool + Send + Sync;

/// Hides tools, prompts, resources and templates from some callers: a rule of the request's
/// context (its caller's token, its HTTP request, the client's capabilities) and an item says
/// whether to hide it. A hidden item is left out of the caller's lists (before they are cut into
/// pages), and a request that names it gets the error an item that does not exist gets.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::middleware::Hide;
///
/// // Only callers whose token carries `admin` see the tools whose names start with `admin_`.
/// let server = McpServer::builder(server_info!())
///     .layer(Hide::new(|ctx: &RequestContext, item| {
///         let admin = ctx.access_token().is_some_and(|t| t.has_scope("admin"));
///         item.name().starts_with("admin_") && !admin
///     }))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct Hide {
    rule: Arc<Rule>,
}

impl std::fmt::Debug for Hide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hide").finish_non_exhaustive()
    }
}

impl Hide {
    /// Hides what `rule` returns `true` for.
    pub fn new(rule: impl Fn(&RequestContext, Listed<'_>) -> bool + Send + Sync + 'static) -> Self {
        Hide {
            rule: Arc::new(rule),
        }
    }
}

impl Layer<Stack> for Hide {
    type Service = HideService;

    fn layer(&self, inner: Stack) -> HideService {
        HideService {
            rule: self.rule.clone(),
            inner,
        }
    }
}

/// The service of a [`Hide`].
#[derive(Clone)]
pub struct HideService {
    rule: Arc<Rule>,
    inner: Stack,
}

impl std::fmt::Debug for HideService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HideService").finish_non_exhaustive()
    }
}

impl Service<McpRequest> for HideService {
    stack_service!(ready when inner);

    fn call(&mut self, mut request: McpRequest) -> StackFuture {
        let hidden = request
            .target()
            .listed()
            .is_some_and(|item| (self.rule)(request.context(), item));
        if hidden {
            let error = request.target().unknown(request.protocol_version());
            return Box::pin(std::future::ready(Err(error.into())));
        }
        if request.target().is_none() {
            let (rule, ctx) = (self.rule.clone(), request.context().clone());
            request.hide_from_lists(move |item| rule(&ctx, item));
        }
        self.inner.call(request)
    }
}
