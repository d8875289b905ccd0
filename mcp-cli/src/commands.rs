//! What each command does once connected.

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_runtime::client::{ClientError, McpClient, RequestOptions};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::capabilities::ServerCapabilities;
use mcp_runtime::protocol::completion::{
    CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference,
    PromptReference, ResourceTemplateReference,
};
use mcp_runtime::protocol::logging::LoggingLevel;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::resources::ResourceContents;
use mcp_runtime::protocol::tasks::Task;
use mcp_runtime::protocol::tools::{CallToolResult, Tool};
use serde_json::{Value, json};

use crate::Kind;
use crate::arguments::{check_tool_arguments, prompt_arguments, tool_arguments};
use crate::output;

/// `mcp inspect`.
pub async fn inspect(client: &McpClient, json: bool) -> anyhow::Result<()> {
    let version = client.protocol_version();
    let (info, capabilities, instructions) = identity(client);
    let tools = client.list_all_tools().await.context("tools/list failed")?;
    let prompts = match capabilities.prompts {
        Some(_) => client
            .list_all_prompts()
            .await
            .context("prompts/list failed")?,
        None => Vec::new(),
    };
    let (resources, templates) = match capabilities.resources {
        Some(_) => (
            client
                .list_all_resources()
                .await
                .context("resources/list failed")?,
            client
                .list_all_resource_templates()
                .await
                .context("resources/templates/list failed")?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    if json {
        return output::json(&json!({
            "server": info,
            "protocolVersion": version.as_str(),
            "era": era(version),
            "capabilities": capabilities,
            "instructions": instructions,
            "tools": tools,
            "prompts": prompts,
            "resources": resources,
            "resourceTemplates": templates,
        }));
    }
    match &info {
        Some(info) => {
            let name = output::heading(info["name"].as_str().unwrap_or("?"));
            match info["version"].as_str().filter(|v| !v.is_empty()) {
                Some(version) => println!("{name} {version}"),
                None => println!("{name} (no version given)"),
            }
        }
        None => println!("(the server did not name itself)"),
    }
    println!("protocol {} ({})", version.as_str(), era(version));
    println!(
        "capabilities: {}",
        output::capabilities(&capabilities).join("; ")
    );
    if let Some(instructions) = &instructions {
        println!("instructions: {instructions}");
    }
    println!("\n{}", output::heading(format!("tools ({}):", tools.len())));
    for tool in &tools {
        println!(
            "  {}: {}",
            output::name(&tool.name),
            tool.description.as_deref().unwrap_or("")
        );
        println!("    input: {}", output::schema(&tool.input_schema));
        if let Some(schema) = &tool.output_schema {
            println!("    output: {}", output::schema(schema));
        }
        if let Some(ui) = tool.ui() {
            println!("    interface: {}", output::tool_ui(&ui));
        }
    }
    println!(
        "\n{}",
        output::heading(format!("prompts ({}):", prompts.len()))
    );
    for prompt in &prompts {
        let arguments: Vec<String> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| {
                let required = a.required == Some(true);
                format!("{}{}", a.name, if required { "" } else { "?" })
            })
            .collect();
        println!(
            "  {}({}): {}",
            output::name(&prompt.name),
            arguments.join(", "),
            prompt.description.as_deref().unwrap_or("")
        );
    }
    println!(
        "\n{}",
        output::heading(format!("resources ({}):", resources.len()))
    );
    for resource in &resources {
        println!(
            "  {} ({}): {}",
            output::name(&resource.uri),
            resource.mime_type.as_deref().unwrap_or("no type"),
            resource.description.as_deref().unwrap_or(&resource.name)
        );
        if let Some(ui) = resource.ui() {
            println!("    sandbox: {}", output::resource_ui(&ui));
        }
    }
    println!(
        "\n{}",
        output::heading(format!("resource templates ({}):", templates.len()))
    );
    for template in &templates {
        println!(
            "  {}: {}",
            output::name(&template.uri_template),
            template.description.as_deref().unwrap_or(&template.name)
        );
    }
    Ok(())
}

/// `mcp list KIND`.
pub async fn list(client: &McpClient, kind: Kind, json: bool) -> anyhow::Result<()> {
    match kind {
        Kind::Tools => {
            let tools = client.list_all_tools().await.context("tools/list failed")?;
            if json {
                return output::json(&tools);
            }
            let rows: Vec<_> = tools
                .into_iter()
                .map(|t| (t.name, first_line(t.description.as_deref()).to_owned()))
                .collect();
            output::rows(&rows);
        }
        Kind::Prompts => {
            let prompts = client
                .list_all_prompts()
                .await
                .context("prompts/list failed")?;
            if json {
                return output::json(&prompts);
            }
            let rows: Vec<_> = prompts
                .into_iter()
                .map(|p| (p.name, p.description.unwrap_or_default()))
                .collect();
            output::rows(&rows);
        }
        Kind::Resources => {
            let resources = client
                .list_all_resources()
                .await
                .context("resources/list failed")?;
            if json {
                return output::json(&resources);
            }
            let rows: Vec<_> = resources
                .into_iter()
                .map(|r| (r.uri, r.description.unwrap_or(r.name)))
                .collect();
            output::rows(&rows);
        }
        Kind::Templates => {
            let templates = client
                .list_all_resource_templates()
                .await
                .context("resources/templates/list failed")?;
            if json {
                return output::json(&templates);
            }
            let rows: Vec<_> = templates
                .into_iter()
                .map(|t| (t.uri_template, t.description.unwrap_or(t.name)))
                .collect();
            output::rows(&rows);
        }
    }
    Ok(())
}

/// `mcp call TOOL ARGS`.
pub async fn call(
    client: &McpClient,
    tool: &str,
    items: &[String],
    as_task: bool,
    json: bool,
) -> anyhow::Result<()> {
    let definition = find_tool(client, tool).await?;
    let arguments = tool_arguments(items, &definition.input_schema)?;
    check_tool_arguments(tool, &arguments, &definition.input_schema)?;
    let result = watched_call(client, tool, arguments, as_task)
        .await
        .with_context(|| format!("calling {tool} failed"))?;
    if result.is_error() && !json {
        // The error's text is the one line that says what went wrong.
        let text: Vec<String> = result.content.iter().map(output::content).collect();
        anyhow::bail!("the tool {tool} failed: {}", text.join(" "));
    }
    if json {
        output::json(&result)?;
    } else {
        let structured = result.structured_content.as_ref();
        for block in &result.content {
            // The text that only repeats the structured content is shown once, as JSON.
            let repeats = block
                .as_text()
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
                .is_some_and(|value| Some(&value) == structured.map(|s| s as &_));
            if !repeats {
                println!("{}", output::content(block));
            }
        }
        if let Some(structured) = structured {
            println!("{}", serde_json::to_string_pretty(structured)?);
        }
    }
    if result.is_error() {
        anyhow::bail!("the tool {tool} failed");
    }
    Ok(())
}

/// The definition of `tool`, or an error naming the tools the server has.
pub async fn find_tool(client: &McpClient, tool: &str) -> anyhow::Result<Tool> {
    let mut tools = client.list_all_tools().await.context("tools/list failed")?;
    if let Some(found) = tools.iter().position(|t| t.name == tool) {
        return Ok(tools.swap_remove(found));
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let known = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    anyhow::bail!("the server has no tool {tool:?}; it has: {known}")
}

/// Calls `tool` (as a task where allowed, with `as_task`), showing on stderr what happens
/// meanwhile: its progress as a bar and the task's status beside a spinner (on a terminal),
/// the server's log messages, and each state of the task it may run as.
async fn watched_call(
    client: &McpClient,
    tool: &str,
    arguments: Value,
    as_task: bool,
) -> Result<CallToolResult, ClientError> {
    let handshake = client.protocol_version().era() != mcp_runtime::protocol::Era::Stateless;
    let logs = identity(client).1.logging.is_some();
    if handshake && logs {
        // Best effort: a server that refuses it still runs the tool.
        let _ = client.set_logging_level(LoggingLevel::Info).await;
    }
    let (progress, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let (statuses, mut states) = tokio::sync::mpsc::unbounded_channel();
    let options = RequestOptions::new()
        .progress(progress)
        .task_status(statuses);
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {percent:>3}% {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut notifications = client.notifications();
    let call = async {
        if as_task {
            client
                .call_tool_as_task(tool, arguments, options)
                .await?
                .wait()
                .await
        } else {
            client.call_tool_with(tool, arguments, options).await
        }
    };
    tokio::pin!(call);
    let result = loop {
        tokio::select! {
            result = &mut call => break result,
            Some(update) = updates.recv() => {
                // Scaled to thousandths: progress values need not be integers.
                if let Some(total) = update.total.filter(|t| *t > 0.0) {
                    bar.set_length((total * 1000.0) as u64);
                }
                bar.set_position((update.progress * 1000.0) as u64);
                if let Some(message) = update.message {
                    bar.set_message(message);
                }
            }
            Some(task) = states.recv() => {
                show_state(&bar, task);
                // The spinner turns while the task runs, its status beside it.
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
            }
            Ok(notification) = notifications.recv() => show_log(&bar, notification),
        }
    };
    // What came before the result may not have been shown yet: the last state of the task,
    // the last log messages.
    while let Ok(task) = states.try_recv() {
        show_state(&bar, task);
    }
    while let Ok(notification) = notifications.try_recv() {
        show_log(&bar, notification);
    }
    bar.finish_and_clear();
    result
}

/// Shows a state of the task a call runs as, on stderr and beside the spinner.
fn show_state(bar: &ProgressBar, task: Task) {
    let status = serde_json::to_value(task.status).unwrap_or_default();
    let line = format!(
        "task {}: {}{}",
        task.task_id,
        status.as_str().unwrap_or("?"),
        task.status_message
            .map(|m| format!(" ({m})"))
            .unwrap_or_default()
    );
    bar.suspend(|| eprintln!("{line}"));
    bar.set_message(line);
}

/// Shows `notification` on stderr when it is a log message.
fn show_log(bar: &ProgressBar, notification: ServerNotification) {
    if let ServerNotification::LoggingMessage(log) = notification {
        let level = serde_json::to_value(log.level).unwrap_or_default();
        let data = match &log.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let logger = log.logger.map(|l| format!(" {l}")).unwrap_or_default();
        let line = format!("[{}{logger}] {data}", level.as_str().unwrap_or("log"));
        bar.suspend(|| eprintln!("{line}"));
    }
}

/// `mcp read URI`.
pub async fn read(client: &McpClient, uri: &str, json: bool) -> anyhow::Result<()> {
    let result = client
        .read_resource(uri)
        .await
        .with_context(|| format!("reading {uri} failed"))?;
    if json {
        return output::json(&result);
    }
    for contents in &result.contents {
        match contents {
            ResourceContents::Text(text) => println!("{}", text.text),
            ResourceContents::Blob(blob) => println!(
                "[{}: {}, {} bytes of base64]",
                blob.uri,
                blob.mime_type.as_deref().unwrap_or("binary"),
                blob.blob.len()
            ),
            other => println!("{}", serde_json::to_string(other)?),
        }
    }
    Ok(())
}

/// `mcp prompt NAME ARGS`.
pub async fn prompt(
    client: &McpClient,
    name: &str,
    items: &[String],
    json: bool,
) -> anyhow::Result<()> {
    let arguments = prompt_arguments(items)?;
    let result = client
        .get_prompt(name, arguments)
        .await
        .with_context(|| format!("getting the prompt {name} failed"))?;
    if json {
        return output::json(&result);
    }
    if let Some(description) = &result.description {
        println!("{description}");
    }
    for message in &result.messages {
        let role = serde_json::to_value(message.role)?;
        println!(
            "[{}] {}",
            role.as_str().unwrap_or("?"),
            output::content(&message.content)
        );
    }
    Ok(())
}

/// `mcp complete KIND NAME ARG=PARTIAL [CHOSEN=VALUE ...]`: `kind` is `prompt` or
/// `template`.
pub async fn complete(
    client: &McpClient,
    kind: &str,
    items: &[String],
    json: bool,
) -> anyhow::Result<()> {
    let usage = "mcp complete URL prompt NAME arg=partial, or mcp complete URL template URI variable=partial";
    let Some((name, pairs)) = items.split_first() else {
        anyhow::bail!("name the {kind} to complete: {usage}");
    };
    let reference = match kind {
        "prompt" => CompletionReference::Prompt(PromptReference::new(name.clone())),
        "template" => {
            CompletionReference::ResourceTemplate(ResourceTemplateReference::new(name.clone()))
        }
        other => anyhow::bail!("{other:?} is neither prompt nor template: {usage}"),
    };
    let mut pairs = prompt_arguments(pairs)?.into_iter();
    let Some((argument, partial)) = pairs.next() else {
        anyhow::bail!("give the argument to complete and what is typed so far: {usage}");
    };
    let mut params =
        CompleteRequestParams::new(reference, CompletionArgument::new(argument, partial));
    let chosen: std::collections::BTreeMap<String, String> = pairs.collect();
    if !chosen.is_empty() {
        let mut context = CompletionContext::default();
        context.arguments = Some(chosen);
        params.context = Some(context);
    }
    let result = client
        .complete(params)
        .await
        .context("completion/complete failed")?;
    if json {
        return output::json(&result.completion);
    }
    for value in &result.completion.values {
        println!("{value}");
    }
    let shown = result.completion.values.len() as u64;
    match (result.completion.total, result.completion.has_more) {
        (Some(total), _) if total > shown => println!("({} more)", total - shown),
        (_, Some(true)) => println!("(more)"),
        _ => {}
    }
    Ok(())
}

/// `mcp ping`.
pub async fn ping(client: &McpClient, json: bool) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    // 2026-07-28 has no `ping`: a `server/discover` round trip stands for it.
    match client.protocol_version().era() {
        mcp_runtime::protocol::Era::Stateless => {
            client
                .request::<mcp_runtime::protocol::methods::Discover>(
                    Default::default(),
                    RequestOptions::new(),
                )
                .await
                .context("server/discover failed")?;
        }
        _ => client.ping().await.context("ping failed")?,
    }
    let elapsed = started.elapsed();
    if json {
        return output::json(&json!({"ok": true, "milliseconds": elapsed.as_secs_f64() * 1000.0}));
    }
    println!("ok ({:.1} ms)", elapsed.as_secs_f64() * 1000.0);
    Ok(())
}

/// The first line of a description: what a one-line listing shows.
fn first_line(description: Option<&str>) -> &str {
    description
        .and_then(|d| d.lines().next())
        .unwrap_or_default()
}

/// `stateless` for 2026-07-28, `handshake` before.
fn era(version: ProtocolVersion) -> &'static str {
    match version.era() {
        mcp_runtime::protocol::Era::Stateless => "stateless",
        _ => "handshake",
    }
}

/// What the server said of itself: its info, capabilities and instructions.
fn identity(client: &McpClient) -> (Option<Value>, ServerCapabilities, Option<String>) {
    if let Some(result) = client.server() {
        let info = serde_json::to_value(&result.server_info).ok();
        return (
            info,
            result.capabilities.clone(),
            result.instructions.clone(),
        );
    }
    match client.discovered() {
        Some(discovered) => {
            let info = discovered
                .meta
                .as_ref()
                .and_then(|m| m.server_info.as_ref())
                .and_then(|i| serde_json::to_value(i).ok());
            (info, discovered.capabilities, discovered.instructions)
        }
        None => (None, ServerCapabilities::default(), None),
    }
}
