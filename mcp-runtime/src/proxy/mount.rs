//! Putting a proxy on a server: as it is ([`McpServerBuilder::proxy`]), or under a namespace
//! beside other servers ([`McpServerBuilder::mount`]).

use std::sync::Arc;

use mcp_runtime_core::completion::{CompleteRequestParams, CompletionReference};

use super::namespace::Namespace;
use super::{Proxy, Shared, mirror};
use crate::handler::RequestContext;
use crate::server::McpServerBuilder;
use crate::server::middleware::{self, McpRequest, Next};

impl McpServerBuilder {
    /// Offers what `proxy`'s upstream offers, as it names it, forwarding every request for it
    /// (see [`proxy`](crate::proxy)). The server declares what the upstream declares (list
    /// changes, logging, completions, resource subscriptions), and announces the upstream's
    /// list changes.
    pub fn proxy(self, proxy: Proxy) -> Self {
        self.mount_as(Namespace::none(), proxy)
    }

    /// Offers what `proxy`'s upstream offers under the namespace `prefix`, beside this server's
    /// own items and other mounted servers: tool and prompt `read` become `{prefix}_read`,
    /// and resource URIs (and templates) take the prefix after their scheme
    /// (`file:///tmp/a` becomes `file://{prefix}//tmp/a`), so that every name stays unique.
    /// Log messages of the upstream name the prefix as their logger. A proxy is mounted once.
    ///
    /// A local [`McpServer`](crate::server::McpServer) is mounted through
    /// [`Proxy::in_process`].
    pub fn mount(self, prefix: impl Into<String>, proxy: Proxy) -> Self {
        self.mount_as(Namespace::new(prefix), proxy)
    }

    fn mount_as(self, namespace: Namespace, proxy: Proxy) -> Self {
        let shared = proxy.shared;
        if shared.namespace.set(namespace).is_err() {
            tracing::warn!("a proxy was mounted twice: its first namespace stays");
        }
        let capabilities = &shared.capabilities;
        let mut builder = self;
        if capabilities.tools.is_some() {
            builder = builder.tools_list_changed();
        }
        if capabilities.prompts.is_some() {
            builder = builder.prompts_list_changed();
        }
        if capabilities.resources.is_some() {
            builder = builder.resources_list_changed();
        }
        if capabilities.logging.is_some() {
            builder = builder.logging();
        }
        if capabilities.completions.is_some() {
            let forwarding = shared.clone();
            builder = builder.also_complete_with(Arc::new(move |params, ctx| {
                let shared = forwarding.clone();
                Box::pin(async move { shared.complete_here(params, ctx).await })
            }));
        }
        let subscribe = capabilities.resources.as_ref();
        if subscribe.is_some_and(|r| r.subscribe == Some(true)) {
            let forwarding = shared.clone();
            builder = builder.resource_subscriptions().layer(middleware::from_fn(
                move |request: McpRequest, next: Next| {
                    let shared = forwarding.clone();
                    async move {
                        shared.follow_subscription(&request).await?;
                        next.run(request).await
                    }
                },
            ));
        }
        // A downstream client's new roots are the upstream's to ask for again.
        let telling = Arc::downgrade(&shared);
        builder = builder.on_roots_list_changed(move |_| {
            if let Some(shared) = telling.upgrade()
                && let Err(error) = shared.client.notify_roots_list_changed()
            {
                tracing::debug!(%error, "the upstream was not told of new roots");
            }
        });
        let offered = shared.offered.lock().clone();
        for tool in offered.tools {
            builder = builder.tool(mirror::tool(&shared, tool));
        }
        for prompt in offered.prompts {
            builder = builder.prompt(mirror::prompt(&shared, prompt));
        }
        for resource in offered.resources {
            builder = builder.resource(mirror::resource(&shared, resource));
        }
        for template in offered.templates {
            if let Some(definition) = mirror::template(&shared, template) {
                builder = builder.resource_template(definition);
            }
        }
        // Served from the copy read when the proxy was made, under their own names: a skill's
        // name is its folder's, which its SKILL.md repeats.
        for skill in offered.skills {
            builder = builder.skill(skill);
        }
        builder.after_build(move |server| {
            let _ = shared.server.set(server.downgrade());
        })
    }
}

impl Shared {
    /// `completion/complete` for one of the upstream's prompts or templates, forwarded with
    /// the upstream's names; `None` for another's.
    async fn complete_here(
        self: &Arc<Self>,
        mut params: CompleteRequestParams,
        ctx: RequestContext,
    ) -> Option<mcp_runtime_core::completion::CompleteResult> {
        let namespace = self.namespace();
        match &mut params.reference {
            CompletionReference::Prompt(prompt) => {
                prompt.name = namespace.upstream_name(&prompt.name)?.to_owned();
                let offered = self.offered.lock();
                offered.prompts.iter().find(|p| p.name == prompt.name)?;
            }
            CompletionReference::ResourceTemplate(template) => {
                template.uri = namespace.upstream_uri(&template.uri)?;
                let offered = self.offered.lock();
                offered
                    .templates
                    .iter()
                    .find(|t| t.uri_template == template.uri)?;
            }
            _ => return None,
        }
        self.complete(params, &ctx).await
    }
}
