//! Routing: the handler of each method, the end of every stack of layers.
//!
//! [`answer`] hands a request to the feature module that serves its method
//! ([`lifecycle`](super::lifecycle), [`tools`](super::tools), ...), with its resolved target.

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::messages::{ClientRequest, ServerResult};
use mcp_runtime_core::methods::{Request as _, SubscriptionsListen};
use mcp_runtime_core::result::EmptyResult;

use super::request::{Lists, McpRequest, RequestParts, TargetKind};
use super::{
    completion, lifecycle, logging, prompts, resources, skills, subscriptions, tasks, tools,
};

/// The result of `request`, from its handler: the end of every stack of layers.
pub(super) async fn answer(request: McpRequest) -> Result<ServerResult, ErrorObject> {
    let RequestParts {
        server,
        params,
        target,
        ctx,
        hidden,
    } = *request.parts;
    let (server, ctx) = (&server, &ctx);
    let connection = ctx.connection();
    let lists = Lists(&hidden);
    Ok(match *params {
        ClientRequest::Initialize(params) => {
            lifecycle::initialize(server, params, connection)?.into()
        }
        ClientRequest::Ping(_) => EmptyResult::default().into(),
        ClientRequest::Discover(_) => lifecycle::discover(server).into(),
        ClientRequest::ListTools(params) => tools::list_tools(server, &params, ctx, lists)?,
        ClientRequest::CallTool(params) => match target.kind {
            TargetKind::Tool(tool) => {
                let arguments = params.arguments.unwrap_or_default();
                tools::run(server, tool, arguments, ctx.clone())
                    .await?
                    .into()
            }
            _ => {
                return Err(ErrorObject::internal_error(
                    "tools/call reached its handler without its tool",
                ));
            }
        },
        ClientRequest::ListPrompts(params) => prompts::list_prompts(server, &params, ctx, lists)?,
        ClientRequest::GetPrompt(params) => prompts::get(target, params, ctx).await?.into(),
        ClientRequest::ListResources(params) => {
            resources::list_resources(server, &params, ctx, lists)?
        }
        ClientRequest::ListResourceTemplates(params) => {
            resources::list_templates(server, &params, ctx, lists)?
        }
        ClientRequest::ReadResource(params) => resources::read(target, params, ctx).await?.into(),
        ClientRequest::Subscribe(params) => {
            subscriptions::subscribe(server, &target, &params, ctx)?.into()
        }
        ClientRequest::Unsubscribe(params) => {
            subscriptions::unsubscribe(server, &params, ctx)?.into()
        }
        ClientRequest::SetLevel(params) => logging::set_level(server, &params, connection)?.into(),
        ClientRequest::Complete(params) => completion::complete(server, target, params, ctx)
            .await?
            .into(),
        ClientRequest::SubscriptionsListen(params)
            if SubscriptionsListen::REVISIONS.contains(&ctx.protocol_version()) =>
        {
            subscriptions::listen(server, params, ctx).await?.into()
        }
        ClientRequest::GetTask(params) => tasks::get(server, &params, ctx).await?.into(),
        ClientRequest::GetTaskPayload(params) => tasks::result(server, &params, ctx).await?,
        ClientRequest::ListTasks(params) if tasks::offered(server) => {
            tasks::list(server, &params, ctx).await?.into()
        }
        ClientRequest::CancelTask(params) => tasks::cancel(server, &params, ctx).await?,
        ClientRequest::UpdateTask(params) => tasks::update(server, params, ctx).await?.into(),
        ClientRequest::ListSkills(params) if server.offers_skills() => {
            skills::list(server, &params)?.into()
        }
        ClientRequest::GetSkill(params) if server.offers_skills() => {
            skills::get(server, &params)?.into()
        }
        ClientRequest::ReadDirectory(params) if server.offers_skills() => {
            skills::read_directory(server, &params)?.into()
        }
        other => return Err(ErrorObject::method_not_found(other.method())),
    })
}
