//! The protocol model against the official schemas of every revision.
//!
//! A catalogue of representative messages (every request, notification, result and error kind,
//! each with every optional field filled in, plus minimal forms) is rendered for every revision that
//! defines it and validated against that revision's `schema.json`, as published and strictly (no
//! property the revision does not define). Two more checks keep the catalogue honest: it must cover
//! every member of every message union of every revision, and each entry must claim exactly the
//! revisions whose schema defines its type.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use mcp_runtime::protocol::{
    self as mcp, JsonObject, ProtocolVersion as V, cancellation::*, capabilities::*, completion::*,
    content::*, elicitation::*, implementation::*, input::*, jsonrpc::*, lifecycle::*, logging::*,
    messages::*, meta::*, params::*, progress::*, prompts::*, resources::*, result::*, roots::*,
    sampling::*, subscriptions::*, tasks::*, tools::*,
};
use serde::Serialize;
use serde_json::{Value, json};
use tests::spec_schema;

// ---------------------------------------------------------------------------------------------
// Full values: every optional field set.

/// A default value changed by `set` (protocol structs are `#[non_exhaustive]`).
fn with<T: Default>(set: impl FnOnce(&mut T)) -> T {
    let mut value = T::default();
    set(&mut value);
    value
}

fn with_title(mut reference: PromptReference) -> PromptReference {
    reference.title = Some("Code review".into());
    reference
}

fn ttl(ms: Option<u64>) -> TaskMetadata {
    with(|t: &mut TaskMetadata| t.ttl = ms)
}

fn obj(value: Value) -> JsonObject {
    value.as_object().cloned().expect("an object")
}

fn some_meta() -> Option<JsonObject> {
    Some(obj(json!({"com.example/trace": "abc"})))
}

fn icon() -> Icon {
    let mut icon = Icon::new("https://example.com/icon.png");
    icon.mime_type = Some("image/png".into());
    icon.sizes = Some(vec!["48x48".into()]);
    icon.theme = Some(IconTheme::Dark);
    icon
}

fn implementation(name: &str) -> Implementation {
    let mut info = Implementation::new(name, "1.2.3");
    info.title = Some(format!("The {name}"));
    info.description = Some("Does things.".into());
    info.icons = Some(vec![icon()]);
    info.website_url = Some("https://example.com".into());
    info
}

fn client_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({
        "experimental": {"com.example/x": {"on": true}},
        "roots": {"listChanged": true},
        "sampling": {"context": {}, "tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "tasks": {"list": {}, "cancel": {}, "requests": {
            "sampling": {"createMessage": {}}, "elicitation": {"create": {}}}},
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
    }))
    .unwrap()
}

fn server_capabilities() -> ServerCapabilities {
    serde_json::from_value(json!({
        "experimental": {"com.example/x": {}},
        "logging": {},
        "completions": {},
        "prompts": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "tools": {"listChanged": true},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }))
    .unwrap()
}

/// `_meta` of a stateless request (valid for every revision: `_meta` is open in the older ones).
fn request_meta() -> Option<RequestMeta> {
    let mut meta = RequestMeta::stateless("2026-07-28", client_capabilities());
    meta.progress_token = Some(RequestId::from("progress-1"));
    meta.client_info = Some(Box::new(implementation("client")));
    meta.log_level = Some(LoggingLevel::Info);
    meta.extra.insert(
        "traceparent".into(),
        json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    );
    Some(meta)
}

fn notification_meta() -> Option<NotificationMeta> {
    let mut meta = NotificationMeta::for_subscription(RequestId::from("listen-1"));
    meta.extra.insert("com.example/seq".into(), json!(4));
    Some(meta)
}

fn result_meta() -> Option<ResultMeta> {
    Some(ResultMeta::with_server_info(implementation("server")))
}

fn annotations() -> Option<Annotations> {
    Some(with(|a: &mut Annotations| {
        a.audience = Some(vec![Role::User, Role::Assistant]);
        a.priority = Some(0.5);
        a.last_modified = Some("2025-06-18T12:00:00Z".into());
    }))
}

fn resource() -> Resource {
    let mut r = Resource::new("file:///project/README.md", "README.md");
    r.title = Some("Read me".into());
    r.description = Some("The project's front page.".into());
    r.mime_type = Some("text/markdown".into());
    r.annotations = annotations();
    r.size = Some(1024);
    r.icons = Some(vec![icon()]);
    r.meta = some_meta();
    r
}

fn text_contents() -> ResourceContents {
    let mut t = TextResourceContents::new("file:///project/README.md", "# Hello");
    t.mime_type = Some("text/markdown".into());
    t.meta = some_meta();
    ResourceContents::Text(t)
}

fn blob_contents() -> ResourceContents {
    let mut b = BlobResourceContents::new("file:///project/logo.png", "iVBORw0KGgo=");
    b.mime_type = Some("image/png".into());
    b.meta = some_meta();
    ResourceContents::Blob(b)
}

/// One block of every kind, with annotations and `_meta`.
fn content_blocks() -> Vec<ContentBlock> {
    let mut text = TextContent::new("Hello");
    text.annotations = annotations();
    text.meta = some_meta();
    let mut image = ImageContent::new("iVBORw0KGgo=", "image/png");
    image.annotations = annotations();
    image.meta = some_meta();
    let mut audio = AudioContent::new("UklGRiQAAABXQVZF", "audio/wav");
    audio.annotations = annotations();
    audio.meta = some_meta();
    let mut embedded_text = EmbeddedResource::new(text_contents());
    embedded_text.annotations = annotations();
    embedded_text.meta = some_meta();
    let mut embedded_blob = EmbeddedResource::new(blob_contents());
    embedded_blob.annotations = annotations();
    vec![
        ContentBlock::Text(text),
        ContentBlock::Image(image),
        ContentBlock::Audio(audio),
        ContentBlock::ResourceLink(resource()),
        ContentBlock::EmbeddedResource(embedded_text),
        ContentBlock::EmbeddedResource(embedded_blob),
    ]
}

fn tool() -> Tool {
    let mut tool = Tool::new(
        "search",
        obj(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"query": {"type": "string"}, "filter": {"$ref": "#/$defs/filter"}},
            "required": ["query"],
            "$defs": {"filter": {"type": "object", "additionalProperties": false}},
            "additionalProperties": false
        })),
    );
    tool.title = Some("Search".into());
    tool.description = Some("Searches the corpus.".into());
    tool.output_schema = Some(obj(json!({
        "type": "object",
        "properties": {"hits": {"type": "array", "items": {"type": "string"}}},
        "required": ["hits"]
    })));
    tool.annotations = Some(with(|a: &mut ToolAnnotations| {
        a.title = Some("Search (annotation)".into());
        a.read_only_hint = Some(true);
        a.destructive_hint = Some(false);
        a.idempotent_hint = Some(true);
        a.open_world_hint = Some(false);
    }));
    tool.execution = Some(with(|e: &mut ToolExecution| {
        e.task_support = Some(TaskSupport::Optional)
    }));
    tool.icons = Some(vec![icon()]);
    tool.meta = some_meta();
    tool
}

/// A tool whose output is an array (only 2026-07-28 lets that be declared).
fn array_output_tool() -> Tool {
    let mut tool = Tool::new("list_names", obj(json!({"type": "object"})));
    tool.output_schema = Some(obj(json!({"type": "array", "items": {"type": "string"}})));
    tool
}

fn template() -> ResourceTemplate {
    let mut t = ResourceTemplate::new("file:///project/{path}", "project-files");
    t.title = Some("Project files".into());
    t.description = Some("Any file of the project.".into());
    t.mime_type = Some("text/plain".into());
    t.annotations = annotations();
    t.icons = Some(vec![icon()]);
    t.meta = some_meta();
    t
}

fn prompt() -> Prompt {
    let mut argument = PromptArgument::new("code");
    argument.title = Some("Code".into());
    argument.description = Some("The code to review.".into());
    argument.required = Some(true);
    let mut p = Prompt::new("review");
    p.title = Some("Code review".into());
    p.description = Some("Review a piece of code.".into());
    p.arguments = Some(vec![argument, PromptArgument::new("language")]);
    p.icons = Some(vec![icon()]);
    p.meta = some_meta();
    p
}

fn task() -> Task {
    let mut t = Task::new("task-1", TaskStatus::Working, "2025-11-25T10:00:00Z");
    t.status_message = Some("Indexing".into());
    t.last_updated_at = "2025-11-25T10:00:05Z".into();
    t.ttl = Some(60_000);
    t.poll_interval = Some(500);
    t
}

fn sampling_params() -> CreateMessageRequestParams {
    let mut many = SamplingMessage::user_text("What is in these?");
    many.content = SamplingContent::Multiple(vec![
        SamplingContentBlock::Text(TextContent::new("What is in these?")),
        SamplingContentBlock::Image(ImageContent::new("iVBORw0KGgo=", "image/png")),
        SamplingContentBlock::Audio(AudioContent::new("UklGRiQAAABXQVZF", "audio/wav")),
    ]);
    many.meta = some_meta();
    let tool_use = SamplingMessage::new(
        Role::Assistant,
        SamplingContentBlock::ToolUse(ToolUseContent::new(
            "call-1",
            "search",
            obj(json!({"query": "cats"})),
        )),
    );
    let mut result = ToolResultContent::new("call-1", content_blocks());
    result.structured_content = Some(json!({"hits": ["a"]}));
    result.is_error = Some(false);
    let tool_result = SamplingMessage::new(Role::User, SamplingContentBlock::ToolResult(result));
    let mut params = CreateMessageRequestParams::new(vec![many, tool_use, tool_result], 500);
    params.model_preferences = Some(with(|p: &mut ModelPreferences| {
        p.hints = Some(vec![ModelHint::new("claude-3-5-sonnet")]);
        p.cost_priority = Some(0.2);
        p.speed_priority = Some(0.5);
        p.intelligence_priority = Some(0.9);
    }));
    params.system_prompt = Some("You are terse.".into());
    params.include_context = Some(IncludeContext::ThisServer);
    params.temperature = Some(0.7);
    params.stop_sequences = Some(vec!["\n\n".into()]);
    params.metadata = Some(obj(json!({"provider": {"beta": true}})));
    params.tools = Some(vec![tool()]);
    params.tool_choice = Some(with(|c: &mut ToolChoice| {
        c.mode = Some(ToolChoiceMode::Auto)
    }));
    params.task = Some(ttl(Some(30_000)));
    params.meta = request_meta();
    params
}

fn elicitation_schema() -> ElicitationSchema {
    let mut properties = IndexMap::new();
    let mut name = StringSchema::default();
    name.title = Some("Name".into());
    name.description = Some("Your name".into());
    name.min_length = Some(1);
    name.max_length = Some(100);
    name.format = Some(StringFormat::Email);
    name.default = Some("ada@example.com".into());
    properties.insert("email".into(), PrimitiveSchema::String(name));
    let mut age = NumberSchema::default();
    age.kind = NumberKind::Integer;
    age.minimum = Some(0.0);
    age.maximum = Some(150.0);
    age.default = Some(30.0);
    properties.insert("age".into(), PrimitiveSchema::Number(age));
    let mut ok = BooleanSchema::default();
    ok.default = Some(true);
    properties.insert("ok".into(), PrimitiveSchema::Boolean(ok));
    let mut size = UntitledSingleSelectEnumSchema::default();
    size.values = vec!["s".into(), "m".into()];
    size.default = Some("m".into());
    properties.insert("size".into(), PrimitiveSchema::UntitledSingleSelect(size));
    let mut color = TitledSingleSelectEnumSchema::default();
    color.title = Some("Color".into());
    color.one_of = vec![EnumOption::new("r", "Red"), EnumOption::new("g", "Green")];
    color.default = Some("g".into());
    properties.insert("color".into(), PrimitiveSchema::TitledSingleSelect(color));
    let mut tags = UntitledMultiSelectEnumSchema::default();
    tags.min_items = Some(1);
    tags.max_items = Some(2);
    tags.items.values = vec!["a".into(), "b".into(), "c".into()];
    tags.default = Some(vec!["a".into()]);
    properties.insert("tags".into(), PrimitiveSchema::UntitledMultiSelect(tags));
    let mut days = TitledMultiSelectEnumSchema::default();
    days.items.any_of = vec![
        EnumOption::new("mon", "Monday"),
        EnumOption::new("tue", "Tuesday"),
    ];
    days.default = Some(vec!["mon".into()]);
    properties.insert("days".into(), PrimitiveSchema::TitledMultiSelect(days));
    let mut legacy = LegacyTitledEnumSchema::default();
    legacy.values = vec!["x".into(), "y".into()];
    legacy.enum_names = Some(vec!["Ex".into(), "Why".into()]);
    legacy.default = Some("x".into());
    properties.insert("legacy".into(), PrimitiveSchema::LegacyTitled(legacy));
    let mut schema = ElicitationSchema::new(properties);
    schema.schema = Some("https://json-schema.org/draft/2020-12/schema".into());
    schema.required = Some(vec!["email".into()]);
    schema
}

fn elicit_form() -> ElicitRequestParams {
    let mut form = ElicitRequestFormParams::new("Tell us about you.", elicitation_schema());
    form.task = Some(ttl(Some(1000)));
    form.meta = request_meta();
    ElicitRequestParams::Form(form)
}

fn elicit_url() -> ElicitRequestUrlParams {
    let mut url =
        ElicitRequestUrlParams::new("Sign in to continue.", "https://example.com/oauth?state=1");
    url.elicitation_id = Some("elicit-1".into());
    url.task = Some(ttl(None));
    url.meta = request_meta();
    url
}

fn elicit_result() -> ElicitResult {
    let mut content = IndexMap::new();
    content.insert(
        "email".into(),
        ElicitValue::String("ada@example.com".into()),
    );
    content.insert("age".into(), ElicitValue::Number(36.into()));
    content.insert("ok".into(), ElicitValue::Boolean(true));
    content.insert(
        "tags".into(),
        ElicitValue::Strings(vec!["a".into(), "b".into()]),
    );
    let mut result = ElicitResult::accept(content);
    result.meta = some_meta();
    result
}

fn sampling_result() -> CreateMessageResult {
    let mut result = CreateMessageResult::new(
        SamplingContentBlock::Text(TextContent::new("Paris.")),
        "claude-3-5-sonnet",
    );
    result.stop_reason = Some("endTurn".into());
    result.meta = some_meta();
    result
}

fn tool_use_sampling_result() -> CreateMessageResult {
    let mut result = sampling_result();
    result.content = SamplingContent::Multiple(vec![
        SamplingContentBlock::Text(TextContent::new("Let me look.")),
        SamplingContentBlock::ToolUse(ToolUseContent::new(
            "call-2",
            "search",
            obj(json!({"query": "dogs"})),
        )),
    ]);
    result.stop_reason = Some("toolUse".into());
    result
}

fn roots_result() -> ListRootsResult {
    let mut root = Root::new("file:///home/ada/project");
    root.name = Some("project".into());
    root.meta = some_meta();
    let mut result = ListRootsResult::new(vec![root, Root::new("file:///tmp")]);
    result.meta = some_meta();
    result
}

fn input_requests() -> InputRequests {
    let mut requests = IndexMap::new();
    requests.insert("profile".into(), InputRequest::Elicit(elicit_form()));
    requests.insert(
        "login".into(),
        InputRequest::Elicit(ElicitRequestParams::Url(elicit_url())),
    );
    requests.insert(
        "summary".into(),
        InputRequest::CreateMessage(sampling_params()),
    );
    requests.insert(
        "roots".into(),
        InputRequest::ListRoots(RequestParams::default()),
    );
    requests
}

fn input_responses() -> InputResponses {
    let mut responses = IndexMap::new();
    responses.insert("profile".into(), InputResponse::Elicit(elicit_result()));
    responses.insert(
        "summary".into(),
        InputResponse::CreateMessage(tool_use_sampling_result()),
    );
    responses.insert("roots".into(), InputResponse::ListRoots(roots_result()));
    responses
}

fn call_tool_params() -> CallToolRequestParams {
    let mut params =
        CallToolRequestParams::new("search", Some(obj(json!({"query": "cats", "filter": {}}))));
    params.task = Some(ttl(Some(60_000)));
    params.input_responses = Some(input_responses());
    params.request_state = Some("c3RhdGU=".into());
    params.meta = request_meta();
    params
}

fn paginated() -> PaginatedRequestParams {
    let mut params = PaginatedRequestParams::after("cursor-2");
    params.meta = request_meta();
    params
}

fn bare() -> RequestParams {
    RequestParams::with_meta(request_meta().unwrap())
}

fn notification_params() -> NotificationParams {
    NotificationParams::with_meta(notification_meta().unwrap())
}

fn call_tool_result() -> CallToolResult {
    let mut result = CallToolResult::success(content_blocks());
    result.structured_content = Some(json!({"hits": ["README.md"]}));
    result.is_error = Some(false);
    result.meta = result_meta();
    result
}

fn with_cache<T>(mut result: T, set: impl FnOnce(&mut T)) -> T {
    set(&mut result);
    result
}

// ---------------------------------------------------------------------------------------------
// The catalogue.

/// How a sample travels, which decides what is checked against which definition.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A JSON-RPC request; the definition describes the whole message or its method and params.
    Request,
    /// A JSON-RPC notification, likewise.
    Notification,
    /// A JSON-RPC response; the definition describes its `result`.
    Result,
    /// A JSON-RPC error response; the definition describes the whole response or its `error`.
    Error,
    /// A value checked as it is (2026-07-28 input requests, batches).
    Plain,
}

type Renderer = Box<dyn Fn(V) -> Value>;

struct Sample {
    def: &'static str,
    label: &'static str,
    from: V,
    to: V,
    kind: Kind,
    render: Renderer,
}

const FIRST: V = V::V2024_11_05;
const LAST: V = V::V2026_07_28;

fn rendered<T: Serialize>(value: &T, version: V) -> Value {
    mcp::render::to_value(value, version).expect("rendering never fails")
}

fn request<R: Serialize + Clone + 'static>(body: R) -> Renderer {
    Box::new(move |v| rendered(&JsonRpcRequest::new(7, body.clone()), v))
}

fn notification<N: Serialize + Clone + 'static>(body: N) -> Renderer {
    Box::new(move |v| rendered(&JsonRpcNotification::new(body.clone()), v))
}

fn response<R: Serialize + Clone + 'static>(result: R) -> Renderer {
    Box::new(move |v| {
        rendered(
            &JsonRpcResponse::new(RequestId::from("r-1"), result.clone()),
            v,
        )
    })
}

fn error(error: mcp::ErrorObject) -> Renderer {
    Box::new(move |v| {
        rendered(
            &JsonRpcErrorResponse::new(Some(RequestId::Number(0)), error.clone()),
            v,
        )
    })
}

/// An error response to a message whose id could not be determined.
fn error_without_id(error: mcp::ErrorObject) -> Renderer {
    Box::new(move |v| rendered(&JsonRpcErrorResponse::new(None, error.clone()), v))
}

fn plain<T: Serialize + Clone + 'static>(value: T) -> Renderer {
    Box::new(move |v| rendered(&value, v))
}

fn sample(
    def: &'static str,
    label: &'static str,
    from: V,
    to: V,
    kind: Kind,
    render: Renderer,
) -> Sample {
    Sample {
        def,
        label,
        from,
        to,
        kind,
        render,
    }
}

fn catalogue() -> Vec<Sample> {
    use Kind::*;
    let handshake_end = V::V2025_11_25;
    let tasks = V::V2025_11_25;
    let stateless = V::V2026_07_28;
    let elicit_from = V::V2025_06_18;
    let mut initialize = InitializeResult::new(
        "2025-11-25",
        server_capabilities(),
        implementation("server"),
    );
    initialize.instructions = Some("Use search first.".into());
    initialize.meta = result_meta();
    let mut discover =
        DiscoverResult::new(mcp::SupportedVersions::ALL.names(), server_capabilities());
    discover.instructions = Some("Use search first.".into());
    discover.ttl_ms = 60_000;
    discover.cache_scope = CacheScope::Public;
    discover.meta = result_meta();
    let mut complete_params = CompleteRequestParams::new(
        CompletionReference::Prompt(with_title(PromptReference::new("review"))),
        CompletionArgument::new("language", "ru"),
    );
    complete_params.context = Some(with(|c: &mut CompletionContext| {
        c.arguments = Some([("code".to_owned(), "fn main() {}".to_owned())].into())
    }));
    complete_params.meta = request_meta();
    let mut complete_template = complete_params.clone();
    complete_template.reference = CompletionReference::ResourceTemplate(
        ResourceTemplateReference::new("file:///project/{path}"),
    );
    let mut get_prompt = GetPromptRequestParams::new("review");
    get_prompt.arguments = Some([("code".to_owned(), "x = 1".to_owned())].into());
    get_prompt.input_responses = Some(input_responses());
    get_prompt.request_state = Some("state".into());
    get_prompt.meta = request_meta();
    let mut read = ReadResourceRequestParams::new("file:///project/README.md");
    read.input_responses = Some(input_responses());
    read.request_state = Some("state".into());
    read.meta = request_meta();
    let mut subscribe = SubscribeRequestParams::new("file:///project/README.md");
    subscribe.meta = request_meta();
    let mut set_level = SetLevelRequestParams::new(LoggingLevel::Warning);
    set_level.meta = request_meta();
    let mut initialize_params = InitializeRequestParams::new(
        "2025-11-25",
        client_capabilities(),
        implementation("client"),
    );
    initialize_params.meta = request_meta();
    let mut listen = SubscriptionsListenRequestParams::new(with(|f: &mut SubscriptionFilter| {
        f.tools_list_changed = Some(true);
        f.prompts_list_changed = Some(true);
        f.resources_list_changed = Some(false);
        f.resource_subscriptions = Some(vec!["file:///project/README.md".into()]);
    }));
    listen.meta = request_meta();
    let acknowledged = SubscriptionsAcknowledgedNotificationParams::new(
        listen.notifications.clone(),
        RequestId::from("listen-1"),
    );
    let mut progress =
        ProgressNotificationParams::new(RequestId::from("progress-1"), 2.0, Some(10.0));
    progress.message = Some("Indexing".into());
    progress.meta = notification_meta();
    let mut cancelled = CancelledNotificationParams::new(RequestId::Number(0));
    cancelled.reason = Some("User pressed stop".into());
    cancelled.meta = notification_meta();
    let mut log = LoggingMessageNotificationParams::new(
        LoggingLevel::Error,
        json!({"error": "disk full", "free": 0}),
    );
    log.logger = Some("storage".into());
    log.meta = notification_meta();
    let mut updated = ResourceUpdatedNotificationParams::new("file:///project/README.md");
    updated.meta = notification_meta();
    let mut task_status = TaskStatusNotificationParams::new(task());
    task_status.meta = notification_meta();
    let mut elicit_complete = ElicitationCompleteNotificationParams::new("elicit-1");
    elicit_complete.meta = notification_meta();
    let mut prompt_result = GetPromptResult::new(
        content_blocks()
            .into_iter()
            .map(|c| PromptMessage::new(Role::User, c))
            .collect(),
    );
    prompt_result.description = Some("A review prompt".into());
    prompt_result
        .messages
        .push(PromptMessage::assistant("Looks good."));
    prompt_result.meta = result_meta();
    let mut complete_result = CompleteResult::new(vec!["rust".into(), "ruby".into()]);
    complete_result.completion.total = Some(2);
    complete_result.completion.has_more = Some(false);
    complete_result.meta = result_meta();
    let mut create_task = CreateTaskResult::new(task());
    create_task.meta = result_meta();
    let mut task_result = TaskResult::new(task());
    task_result.meta = result_meta();
    let mut list_tasks = ListTasksResult::new(vec![
        task(),
        Task::new("task-2", TaskStatus::Completed, "2025-11-25T09:00:00Z"),
    ]);
    list_tasks.next_cursor = Some("next".into());
    list_tasks.meta = result_meta();
    let payload = obj(rendered(&call_tool_result(), tasks));
    let mut input_required =
        InputRequiredResult::new(Some(input_requests()), Some("c3RhdGU=".into()));
    input_required.meta = result_meta();
    let mut listen_result = SubscriptionsListenResult::new(RequestId::from("listen-1"));
    listen_result.meta.server_info = Some(Box::new(implementation("server")));
    let page = |set_cursor: &mut Option<String>,
                ttl: &mut u64,
                scope: &mut CacheScope,
                meta: &mut Option<ResultMeta>| {
        *set_cursor = Some("page-2".into());
        *ttl = 30_000;
        *scope = CacheScope::Public;
        *meta = result_meta();
    };
    let tools_page = with_cache(
        ListToolsResult::new(vec![
            tool(),
            array_output_tool(),
            Tool::new("bare", obj(json!({"type": "object"}))),
        ]),
        |r| {
            page(
                &mut r.next_cursor,
                &mut r.ttl_ms,
                &mut r.cache_scope,
                &mut r.meta,
            )
        },
    );
    let prompts_page = with_cache(
        ListPromptsResult::new(vec![prompt(), Prompt::new("bare")]),
        |r| {
            page(
                &mut r.next_cursor,
                &mut r.ttl_ms,
                &mut r.cache_scope,
                &mut r.meta,
            )
        },
    );
    let resources_page = with_cache(
        ListResourcesResult::new(vec![resource(), Resource::new("file:///x", "x")]),
        |r| {
            page(
                &mut r.next_cursor,
                &mut r.ttl_ms,
                &mut r.cache_scope,
                &mut r.meta,
            )
        },
    );
    let templates_page = with_cache(ListResourceTemplatesResult::new(vec![template()]), |r| {
        page(
            &mut r.next_cursor,
            &mut r.ttl_ms,
            &mut r.cache_scope,
            &mut r.meta,
        )
    });
    let read_result = with_cache(
        ReadResourceResult::new(vec![text_contents(), blob_contents()]),
        |r| {
            r.ttl_ms = 1000;
            r.meta = result_meta();
        },
    );
    let structured_array = CallToolResult::structured(json!(["a", "b"]));
    let url_required = mcp::elicitation::url_elicitation_required(&[elicit_url()]).unwrap();
    let missing_capability = mcp::ErrorObject::from(MissingClientCapability {
        required: serde_json::from_value(json!({"sampling": {}, "elicitation": {"form": {}}}))
            .unwrap(),
    });
    let unsupported = mcp::ErrorObject::from(
        mcp::SupportedVersions::ALL
            .check_stateless("1999-01-01")
            .unwrap_err(),
    );
    let batch_requests = vec![
        JsonRpcMessage::Request(JsonRpcRequest::new(1, RawCall::new("tools/list", None))),
        JsonRpcMessage::Notification(JsonRpcNotification::new(RawCall::new(
            "notifications/initialized",
            None,
        ))),
    ];
    let batch_responses = vec![
        JsonRpcMessage::Response(JsonRpcResponse::new(
            RequestId::Number(1),
            json!({"tools": []}),
        )),
        JsonRpcMessage::Error(JsonRpcErrorResponse::new(
            Some(RequestId::Number(2)),
            mcp::ErrorObject::method_not_found("nope"),
        )),
    ];

    vec![
        // Client requests.
        sample(
            "InitializeRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::Initialize(initialize_params)),
        ),
        sample(
            "PingRequest",
            "client",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::Ping(bare())),
        ),
        sample(
            "PingRequest",
            "bare",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::Ping(RequestParams::default())),
        ),
        sample(
            "DiscoverRequest",
            "full",
            stateless,
            LAST,
            Request,
            request(ClientRequest::Discover(bare())),
        ),
        sample(
            "ListResourcesRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::ListResources(paginated())),
        ),
        sample(
            "ListResourceTemplatesRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::ListResourceTemplates(paginated())),
        ),
        sample(
            "ReadResourceRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::ReadResource(read)),
        ),
        sample(
            "SubscribeRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::Subscribe(subscribe.clone())),
        ),
        sample(
            "UnsubscribeRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::Unsubscribe(subscribe)),
        ),
        sample(
            "SubscriptionsListenRequest",
            "full",
            stateless,
            LAST,
            Request,
            request(ClientRequest::SubscriptionsListen(listen)),
        ),
        sample(
            "ListPromptsRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::ListPrompts(paginated())),
        ),
        sample(
            "GetPromptRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::GetPrompt(get_prompt)),
        ),
        sample(
            "ListToolsRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::ListTools(paginated())),
        ),
        sample(
            "ListToolsRequest",
            "first page",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::ListTools(PaginatedRequestParams::default())),
        ),
        sample(
            "CallToolRequest",
            "full",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::CallTool(call_tool_params())),
        ),
        sample(
            "CallToolRequest",
            "minimal",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::CallTool(CallToolRequestParams::new(
                "bare", None,
            ))),
        ),
        sample(
            "SetLevelRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ClientRequest::SetLevel(set_level)),
        ),
        sample(
            "CompleteRequest",
            "prompt",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::Complete(complete_params)),
        ),
        sample(
            "CompleteRequest",
            "template",
            FIRST,
            LAST,
            Request,
            request(ClientRequest::Complete(complete_template)),
        ),
        sample(
            "GetTaskRequest",
            "full",
            tasks,
            tasks,
            Request,
            request(ClientRequest::GetTask(TaskIdParams::new("task-1"))),
        ),
        sample(
            "GetTaskPayloadRequest",
            "full",
            tasks,
            tasks,
            Request,
            request(ClientRequest::GetTaskPayload(TaskIdParams::new("task-1"))),
        ),
        sample(
            "CancelTaskRequest",
            "full",
            tasks,
            tasks,
            Request,
            request(ClientRequest::CancelTask(TaskIdParams::new("task-1"))),
        ),
        sample(
            "ListTasksRequest",
            "full",
            tasks,
            tasks,
            Request,
            request(ClientRequest::ListTasks(paginated())),
        ),
        // Server requests (handshake era) and their 2026-07-28 form, input requests.
        sample(
            "PingRequest",
            "server",
            FIRST,
            handshake_end,
            Request,
            request(ServerRequest::Ping(RequestParams::default())),
        ),
        sample(
            "CreateMessageRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ServerRequest::CreateMessage(sampling_params())),
        ),
        sample(
            "CreateMessageRequest",
            "input request",
            stateless,
            LAST,
            Plain,
            plain(InputRequest::CreateMessage(sampling_params())),
        ),
        sample(
            "ListRootsRequest",
            "full",
            FIRST,
            handshake_end,
            Request,
            request(ServerRequest::ListRoots(bare())),
        ),
        sample(
            "ListRootsRequest",
            "input request",
            stateless,
            LAST,
            Plain,
            plain(InputRequest::ListRoots(RequestParams::default())),
        ),
        sample(
            "ElicitRequest",
            "form",
            elicit_from,
            handshake_end,
            Request,
            request(ServerRequest::Elicit(elicit_form())),
        ),
        sample(
            "ElicitRequest",
            "url",
            tasks,
            handshake_end,
            Request,
            request(ServerRequest::Elicit(
                ElicitRequestParams::Url(elicit_url()),
            )),
        ),
        sample(
            "ElicitRequest",
            "form input request",
            stateless,
            LAST,
            Plain,
            plain(InputRequest::Elicit(elicit_form())),
        ),
        sample(
            "ElicitRequest",
            "url input request",
            stateless,
            LAST,
            Plain,
            plain(InputRequest::Elicit(ElicitRequestParams::Url(elicit_url()))),
        ),
        sample(
            "GetTaskRequest",
            "server",
            tasks,
            tasks,
            Request,
            request(ServerRequest::GetTask(TaskIdParams::new("task-1"))),
        ),
        sample(
            "GetTaskPayloadRequest",
            "server",
            tasks,
            tasks,
            Request,
            request(ServerRequest::GetTaskPayload(TaskIdParams::new("task-1"))),
        ),
        sample(
            "CancelTaskRequest",
            "server",
            tasks,
            tasks,
            Request,
            request(ServerRequest::CancelTask(TaskIdParams::new("task-1"))),
        ),
        sample(
            "ListTasksRequest",
            "server",
            tasks,
            tasks,
            Request,
            request(ServerRequest::ListTasks(PaginatedRequestParams::default())),
        ),
        // Client notifications.
        sample(
            "CancelledNotification",
            "client",
            FIRST,
            LAST,
            Notification,
            notification(ClientNotification::Cancelled(cancelled.clone())),
        ),
        sample(
            "InitializedNotification",
            "bare",
            FIRST,
            handshake_end,
            Notification,
            notification(ClientNotification::Initialized(
                NotificationParams::default(),
            )),
        ),
        sample(
            "InitializedNotification",
            "meta",
            FIRST,
            handshake_end,
            Notification,
            notification(ClientNotification::Initialized(notification_params())),
        ),
        sample(
            "ProgressNotification",
            "client",
            FIRST,
            LAST,
            Notification,
            notification(ClientNotification::Progress(progress.clone())),
        ),
        sample(
            "RootsListChangedNotification",
            "full",
            FIRST,
            handshake_end,
            Notification,
            notification(ClientNotification::RootsListChanged(notification_params())),
        ),
        sample(
            "TaskStatusNotification",
            "client",
            tasks,
            tasks,
            Notification,
            notification(ClientNotification::TaskStatus(task_status.clone())),
        ),
        // Server notifications.
        sample(
            "CancelledNotification",
            "server",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::Cancelled(cancelled)),
        ),
        sample(
            "ProgressNotification",
            "server",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::Progress(progress)),
        ),
        sample(
            "ResourceListChangedNotification",
            "full",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::ResourceListChanged(
                notification_params(),
            )),
        ),
        sample(
            "ResourceUpdatedNotification",
            "full",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::ResourceUpdated(updated)),
        ),
        sample(
            "PromptListChangedNotification",
            "full",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::PromptListChanged(notification_params())),
        ),
        sample(
            "ToolListChangedNotification",
            "full",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::ToolListChanged(notification_params())),
        ),
        sample(
            "ToolListChangedNotification",
            "bare",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::ToolListChanged(
                NotificationParams::default(),
            )),
        ),
        sample(
            "LoggingMessageNotification",
            "full",
            FIRST,
            LAST,
            Notification,
            notification(ServerNotification::LoggingMessage(log)),
        ),
        sample(
            "TaskStatusNotification",
            "server",
            tasks,
            tasks,
            Notification,
            notification(ServerNotification::TaskStatus(task_status)),
        ),
        sample(
            "ElicitationCompleteNotification",
            "full",
            tasks,
            tasks,
            Notification,
            notification(ServerNotification::ElicitationComplete(elicit_complete)),
        ),
        sample(
            "SubscriptionsAcknowledgedNotification",
            "full",
            stateless,
            LAST,
            Notification,
            notification(ServerNotification::SubscriptionsAcknowledged(acknowledged)),
        ),
        // Server results.
        sample(
            "Result",
            "empty",
            FIRST,
            LAST,
            Result,
            response(ServerResult::Empty(EmptyResult::default())),
        ),
        sample(
            "InitializeResult",
            "full",
            FIRST,
            handshake_end,
            Result,
            response(ServerResult::from(initialize)),
        ),
        sample(
            "DiscoverResult",
            "full",
            stateless,
            LAST,
            Result,
            response(ServerResult::from(discover)),
        ),
        sample(
            "ListResourcesResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::ListResources(resources_page)),
        ),
        sample(
            "ListResourceTemplatesResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::ListResourceTemplates(templates_page)),
        ),
        sample(
            "ReadResourceResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::ReadResource(read_result)),
        ),
        sample(
            "ListPromptsResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::ListPrompts(prompts_page)),
        ),
        sample(
            "GetPromptResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::GetPrompt(prompt_result)),
        ),
        sample(
            "ListToolsResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::ListTools(tools_page)),
        ),
        sample(
            "CallToolResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::CallTool(call_tool_result())),
        ),
        sample(
            "CallToolResult",
            "array output",
            FIRST,
            LAST,
            Result,
            response(ServerResult::CallTool(structured_array)),
        ),
        sample(
            "CallToolResult",
            "error",
            FIRST,
            LAST,
            Result,
            response(ServerResult::CallTool(CallToolResult::error(
                "no such file",
            ))),
        ),
        sample(
            "CompleteResult",
            "full",
            FIRST,
            LAST,
            Result,
            response(ServerResult::Complete(complete_result)),
        ),
        sample(
            "SubscriptionsListenResult",
            "full",
            stateless,
            LAST,
            Result,
            response(ServerResult::SubscriptionsListen(listen_result)),
        ),
        sample(
            "InputRequiredResult",
            "full",
            stateless,
            LAST,
            Result,
            response(ServerResult::InputRequired(input_required)),
        ),
        sample(
            "CreateTaskResult",
            "server",
            tasks,
            tasks,
            Result,
            response(ServerResult::CreateTask(create_task.clone())),
        ),
        sample(
            "GetTaskResult",
            "server",
            tasks,
            tasks,
            Result,
            response(ServerResult::Task(Box::new(task_result.clone()))),
        ),
        sample(
            "CancelTaskResult",
            "server",
            tasks,
            tasks,
            Result,
            response(ServerResult::Task(Box::new(task_result.clone()))),
        ),
        sample(
            "GetTaskPayloadResult",
            "server",
            tasks,
            tasks,
            Result,
            response(ServerResult::TaskPayload(payload.clone())),
        ),
        sample(
            "ListTasksResult",
            "server",
            tasks,
            tasks,
            Result,
            response(ServerResult::ListTasks(list_tasks.clone())),
        ),
        // Client results (handshake era), and their 2026-07-28 form, input responses.
        sample(
            "CreateMessageResult",
            "text",
            FIRST,
            handshake_end,
            Result,
            response(ClientResult::CreateMessage(sampling_result())),
        ),
        sample(
            "CreateMessageResult",
            "tool use",
            FIRST,
            handshake_end,
            Result,
            response(ClientResult::CreateMessage(tool_use_sampling_result())),
        ),
        sample(
            "CreateMessageResult",
            "input response",
            stateless,
            LAST,
            Plain,
            plain(InputResponse::CreateMessage(tool_use_sampling_result())),
        ),
        sample(
            "ListRootsResult",
            "full",
            FIRST,
            handshake_end,
            Result,
            response(ClientResult::ListRoots(roots_result())),
        ),
        sample(
            "ListRootsResult",
            "input response",
            stateless,
            LAST,
            Plain,
            plain(InputResponse::ListRoots(roots_result())),
        ),
        sample(
            "ElicitResult",
            "accept",
            elicit_from,
            handshake_end,
            Result,
            response(ClientResult::Elicit(elicit_result())),
        ),
        sample(
            "ElicitResult",
            "decline",
            elicit_from,
            handshake_end,
            Result,
            response(ClientResult::Elicit(ElicitResult::decline())),
        ),
        sample(
            "ElicitResult",
            "input response",
            stateless,
            LAST,
            Plain,
            plain(InputResponse::Elicit(elicit_result())),
        ),
        sample(
            "CreateTaskResult",
            "client",
            tasks,
            tasks,
            Result,
            response(ClientResult::CreateTask(create_task)),
        ),
        sample(
            "GetTaskResult",
            "client",
            tasks,
            tasks,
            Result,
            response(ClientResult::Task(Box::new(task_result.clone()))),
        ),
        sample(
            "CancelTaskResult",
            "client",
            tasks,
            tasks,
            Result,
            response(ClientResult::Task(Box::new(task_result))),
        ),
        sample(
            "GetTaskPayloadResult",
            "client",
            tasks,
            tasks,
            Result,
            response(ClientResult::TaskPayload(payload)),
        ),
        sample(
            "ListTasksResult",
            "client",
            tasks,
            tasks,
            Result,
            response(ClientResult::ListTasks(list_tasks)),
        ),
        // Input responses (2026-07-28), inside a retried request.
        sample(
            "InputResponses",
            "full",
            stateless,
            LAST,
            Plain,
            plain(input_responses()),
        ),
        // Errors.
        sample(
            "JSONRPCError",
            "method not found",
            FIRST,
            V::V2025_06_18,
            Error,
            error(
                mcp::ErrorObject::method_not_found("tools/explode")
                    .with_data(json!({"method": "tools/explode"})),
            ),
        ),
        sample(
            "JSONRPCErrorResponse",
            "method not found",
            tasks,
            LAST,
            Error,
            error(mcp::ErrorObject::method_not_found("tools/explode")),
        ),
        sample(
            "ParseError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::parse_error("Parse error: EOF")),
        ),
        sample(
            "InvalidRequestError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::invalid_request(
                "Invalid request: no method",
            )),
        ),
        sample(
            "MethodNotFoundError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::method_not_found("initialize")),
        ),
        sample(
            "InvalidParamsError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::resource_not_found(
                "file:///gone",
                stateless,
            )),
        ),
        sample(
            "InternalError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::internal_error("boom")),
        ),
        sample(
            "UnsupportedProtocolVersionError",
            "full",
            stateless,
            LAST,
            Error,
            error(unsupported),
        ),
        sample(
            "MissingRequiredClientCapabilityError",
            "full",
            stateless,
            LAST,
            Error,
            error(missing_capability),
        ),
        sample(
            "HeaderMismatchError",
            "full",
            stateless,
            LAST,
            Error,
            error(mcp::ErrorObject::header_mismatch(
                "Mcp-Name does not match params.name",
            )),
        ),
        sample(
            "URLElicitationRequiredError",
            "full",
            tasks,
            tasks,
            Error,
            error(url_required),
        ),
        // Errors answering a message whose id is unknown: the id is left out from 2025-11-25 on.
        // (Up to 2025-06-18 it renders as `null`, which those schemas reject, as they reject a
        // missing id; see `unknown_ids_before_2025_11_25_follow_json_rpc`.)
        sample(
            "JSONRPCErrorResponse",
            "parse error, unknown id",
            tasks,
            LAST,
            Error,
            error_without_id(mcp::ErrorObject::parse_error("Parse error: EOF")),
        ),
        sample(
            "JSONRPCErrorResponse",
            "invalid request, unknown id",
            tasks,
            LAST,
            Error,
            error_without_id(mcp::ErrorObject::invalid_request(
                "Invalid request: the id must be a string or an integer",
            )),
        ),
        sample(
            "ParseError",
            "unknown id",
            stateless,
            LAST,
            Error,
            error_without_id(mcp::ErrorObject::parse_error("Parse error: EOF")),
        ),
        sample(
            "InvalidRequestError",
            "unknown id",
            stateless,
            LAST,
            Error,
            error_without_id(mcp::ErrorObject::invalid_request(
                "Invalid request: the id must be a string or an integer",
            )),
        ),
        // Batches (2025-03-26 only).
        sample(
            "JSONRPCBatchRequest",
            "mixed",
            V::V2025_03_26,
            V::V2025_03_26,
            Plain,
            plain(batch_requests),
        ),
        sample(
            "JSONRPCBatchResponse",
            "mixed",
            V::V2025_03_26,
            V::V2025_03_26,
            Plain,
            plain(batch_responses),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// The checks.

fn envelope_def(kind: Kind, version: V) -> Option<&'static str> {
    let schema = spec_schema(version);
    match kind {
        Kind::Request => Some("JSONRPCRequest"),
        Kind::Notification => Some("JSONRPCNotification"),
        Kind::Result if schema.has("JSONRPCResultResponse") => Some("JSONRPCResultResponse"),
        Kind::Result => Some("JSONRPCResponse"),
        Kind::Error if schema.has("JSONRPCErrorResponse") => Some("JSONRPCErrorResponse"),
        Kind::Error => Some("JSONRPCError"),
        Kind::Plain => None,
    }
}

/// The part of a rendered message that the sample's definition describes.
fn described_part(sample: &Sample, version: V, message: &Value) -> Value {
    let schema = spec_schema(version);
    match sample.kind {
        Kind::Request | Kind::Notification if !schema.is_envelope(sample.def) => {
            let mut part = message.clone();
            let object = part.as_object_mut().unwrap();
            object.remove("jsonrpc");
            object.remove("id");
            part
        }
        Kind::Result => message["result"].clone(),
        Kind::Error if !schema.is_envelope(sample.def) => message["error"].clone(),
        _ => message.clone(),
    }
}

#[test]
fn every_sample_validates_in_every_revision_it_exists_in() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for version in V::ALL {
        let schema = spec_schema(version);
        for sample in catalogue()
            .iter()
            .filter(|s| s.from <= version && version <= s.to)
        {
            let message = (sample.render)(version);
            let mut checks = vec![(sample.def, described_part(sample, version, &message))];
            if let Some(envelope) = envelope_def(sample.kind, version) {
                checks.push((envelope, message.clone()));
            }
            // 2026-07-28 names the response of each request (`CallToolResultResponse`, ...).
            let response_def = format!("{}Response", sample.def);
            if sample.kind == Kind::Result && schema.has(&response_def) {
                checks.push((Box::leak(response_def.into_boxed_str()), message.clone()));
            }
            for (def, instance) in checks {
                checked += 1;
                if let Err(e) = schema.check(def, &instance) {
                    failures.push(format!("{} ({}): {e}", sample.def, sample.label));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 400, "only {checked} checks ran");
}

#[test]
fn samples_cover_every_message_kind_of_every_revision() {
    let samples = catalogue();
    for version in V::ALL {
        let schema = spec_schema(version);
        let covered: BTreeSet<&str> = samples
            .iter()
            .filter(|s| s.from <= version && version <= s.to)
            .map(|s| s.def)
            .collect();
        let unions = [
            "ClientRequest",
            "ServerRequest",
            "ClientNotification",
            "ServerNotification",
            "ClientResult",
            "ServerResult",
            "InputRequest",
            "InputResponse",
        ];
        let mut members: BTreeSet<String> = unions
            .iter()
            .flat_map(|u| schema.union_members(u))
            .collect();
        // 2026-07-28 spells its only client notification inline instead of by reference.
        if schema.union_members("ClientNotification").is_empty() {
            members.insert("CancelledNotification".into());
        }
        let missing: Vec<_> = members
            .iter()
            .filter(|m| !covered.contains(m.as_str()))
            .collect();
        assert!(missing.is_empty(), "{version}: no sample for {missing:?}");
        assert!(
            members.len() >= 20,
            "{version}: only {} message kinds found",
            members.len()
        );
    }
}

#[test]
fn sample_revisions_match_the_schemas() {
    let samples = catalogue();
    let defs: BTreeSet<&str> = samples.iter().map(|s| s.def).collect();
    for def in defs {
        for version in V::ALL {
            let claimed = samples
                .iter()
                .any(|s| s.def == def && s.from <= version && version <= s.to);
            assert_eq!(
                claimed,
                spec_schema(version).has(def),
                "{def}: the catalogue says {claimed} for {version}, the schema disagrees"
            );
        }
    }
}

#[test]
fn newer_fields_never_reach_older_peers() {
    let tools = ListToolsResult::new(vec![tool()]);
    let old = rendered(&tools, V::V2025_06_18);
    assert_eq!(old["tools"][0].get("icons"), None);
    assert_eq!(old["tools"][0].get("execution"), None);
    assert_eq!(old["tools"][0]["title"], "Search");
    let older = rendered(&tools, V::V2025_03_26);
    assert_eq!(older["tools"][0].get("title"), None);
    assert_eq!(older["tools"][0].get("outputSchema"), None);
    assert_eq!(older["tools"][0]["annotations"]["readOnlyHint"], true);
    let oldest = rendered(&tools, V::V2024_11_05);
    assert_eq!(oldest["tools"][0].get("annotations"), None);
    assert_eq!(old.get("ttlMs"), None);
    assert_eq!(rendered(&tools, V::V2026_07_28)["ttlMs"], 0);
    let info = rendered(&implementation("server"), V::V2025_06_18);
    assert_eq!(
        info,
        json!({"name": "server", "title": "The server", "version": "1.2.3"})
    );
}

/// Up to 2025-06-18 an error answering a message whose id is unknown carries `"id": null`, as
/// JSON-RPC 2.0 requires. Those revisions' schemas (`JSONRPCError`) require a string or integer id,
/// so they reject `null` and a missing id alike: no rendering can satisfy them, and JSON-RPC wins.
/// Whichever form arrives, parsing reads it back.
#[test]
fn unknown_ids_before_2025_11_25_follow_json_rpc() {
    let errors = [
        mcp::ErrorObject::parse_error("Parse error: EOF"),
        mcp::ErrorObject::invalid_request("Invalid request: the id must be a string or an integer"),
    ];
    for version in V::ALL {
        let schema = spec_schema(version);
        for error in &errors {
            let response = JsonRpcErrorResponse::new(None, error.clone());
            let message = rendered(&response, version);
            let mut without_id = json!({"jsonrpc": "2.0", "error": error});
            if version < V::V2025_11_25 {
                assert_eq!(
                    message,
                    json!({"jsonrpc": "2.0", "id": null, "error": error})
                );
                assert!(schema.check("JSONRPCError", &message).is_err());
                assert!(schema.check("JSONRPCError", &without_id).is_err());
            } else {
                assert_eq!(message, without_id);
                assert_eq!(schema.check("JSONRPCErrorResponse", &message), Ok(()));
                without_id["id"] = Value::Null;
                assert!(schema.check("JSONRPCErrorResponse", &without_id).is_err());
            }
            let text = serde_json::to_vec(&message).unwrap();
            assert_eq!(
                parse(&text).unwrap(),
                Incoming::Message(JsonRpcMessage::Error(response)),
                "{version}"
            );
        }
    }
}

/// Rendering refuses what the target revision cannot carry instead of sending an invalid message.
#[test]
fn values_a_revision_cannot_carry_are_refused() {
    let mut cancel = CancelledNotificationParams::new(RequestId::Number(1));
    cancel.request_id = None;
    let cancelled = ClientNotification::Cancelled(cancel);
    for version in V::ALL {
        let result = mcp::render::to_value(&JsonRpcNotification::new(cancelled.clone()), version);
        if version == V::V2025_11_25 {
            let message = result.unwrap();
            assert_eq!(
                message,
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
            );
            assert_eq!(
                spec_schema(version).check("CancelledNotification", &message),
                Ok(())
            );
        } else {
            assert_eq!(
                result.unwrap_err().to_string(),
                format!("missing field `requestId`, which protocol revision {version} requires")
            );
        }
    }
    let mut url = elicit_url();
    url.elicitation_id = None;
    let elicit = ServerRequest::Elicit(ElicitRequestParams::Url(url));
    let refusals = [
        (
            V::V2024_11_05,
            "`elicitation/create` cannot be rendered for protocol revision 2024-11-05",
        ),
        (
            V::V2025_03_26,
            "`elicitation/create` cannot be rendered for protocol revision 2025-03-26",
        ),
        (
            V::V2025_06_18,
            "URL-mode elicitation cannot be rendered for protocol revision 2025-06-18",
        ),
        (
            V::V2025_11_25,
            "missing field `elicitationId`, which protocol revision 2025-11-25 requires",
        ),
    ];
    for (version, message) in refusals {
        let result = mcp::render::to_value(&JsonRpcRequest::new(1, elicit.clone()), version);
        assert_eq!(result.unwrap_err().to_string(), message);
    }
    // In 2026-07-28 it travels as an input request, without `elicitationId`.
    let stateless = rendered(&elicit, V::V2026_07_28);
    assert_eq!(
        spec_schema(V::V2026_07_28).check("ElicitRequest", &stateless),
        Ok(())
    );
    let tasks = ClientRequest::ListTasks(paginated());
    for version in [V::V2024_11_05, V::V2025_06_18, V::V2026_07_28] {
        assert_eq!(
            mcp::render::to_value(&JsonRpcRequest::new(1, tasks.clone()), version)
                .unwrap_err()
                .to_string(),
            format!("`tasks/list` cannot be rendered for protocol revision {version}")
        );
    }
}
