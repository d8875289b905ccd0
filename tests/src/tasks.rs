//! A server with a tool for each way a call runs as a task, and the clients the task tests drive
//! it with through `McpServer::handle_raw`: a 2025-era [`Session`] on a persistent connection
//! whose sink the test reads, and [`stateless`] 2026-07-28 requests, each on a connection of its
//! own with its `_meta`. Task ids and timestamps are checked for shape and masked ([`masked`]),
//! so that tests compare whole answers.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::connection::{Outbound, SharedSink};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::server::DEFAULT_TASK_TTL;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};

use crate::spec_schema;
use crate::wire::{self, check_server_message};

/// How long any wait of these tests may last.
pub const WAIT: Duration = Duration::from_secs(10);

/// The tasks extension (2026-07-28).
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Opens when a test says so.
#[derive(Clone)]
pub struct Gate(Arc<Semaphore>);

impl Gate {
    /// A gate that lets every handler through.
    pub fn always_open() -> Gate {
        Gate(Arc::new(Semaphore::new(Semaphore::MAX_PERMITS)))
    }

    /// Lets `n` more handlers through.
    pub fn open(&self, n: usize) {
        self.0.add_permits(n);
    }

    /// Waits for the gate to let this handler through.
    pub async fn pass(&self) {
        self.0
            .acquire()
            .await
            .expect("the gate stays open")
            .forget();
    }
}

/// What handlers tell the test.
#[derive(Clone)]
struct Events(mpsc::UnboundedSender<String>);

impl Events {
    /// Tells the test `event`.
    fn send(&self, event: impl Into<String>) {
        let _ = self.0.send(event.into());
    }
}

/// Sends its event when dropped: when the handler holding it has returned.
struct OnReturn(Events);

impl Drop for OnReturn {
    fn drop(&mut self) {
        self.0.send("returned");
    }
}

/// Reports progress and logs it (when the server logs), then works until the gate opens; stops
/// when its task is cancelled.
#[mcp_tool(task = "optional")]
async fn work(
    ctx: RequestContext,
    State(gate): State<Gate>,
    State(events): State<Events>,
) -> String {
    let _returned = OnReturn(events.clone());
    ctx.progress(1, 2).await;
    ctx.log(LoggingLevel::Info, "half way").await;
    tokio::select! {
        () = ctx.cancelled() => {
            events.send(format!("cancelled: {}", ctx.is_cancelled()));
            // It answers anyway: a cancelled task stays cancelled.
            "stopped".into()
        }
        () = gate.pass() => "worked".into(),
    }
}

/// Runs only as a task, until the gate opens.
#[mcp_tool(task = "required")]
async fn must(State(gate): State<Gate>) -> &'static str {
    gate.pass().await;
    "done"
}

/// Runs as a task when asked, and ends at once.
#[mcp_tool(task = "optional")]
async fn quick() -> &'static str {
    "quick"
}

/// Never runs as a task.
#[mcp_tool]
async fn plain() -> &'static str {
    "plain"
}

/// Fails with a tool error.
#[mcp_tool(task = "required")]
async fn broken() -> Result<String, ToolError> {
    Err(ToolError::new("the input was rejected"))
}

/// Crashes.
#[mcp_tool(task = "required")]
async fn crash() -> String {
    panic!("the worker crashed")
}

/// Whether to go ahead.
#[derive(Elicit)]
struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// A name.
#[derive(Elicit)]
pub(crate) struct Name {
    /// Your name.
    pub(crate) name: String,
}

/// Deletes a file once the gate opens and the user confirms.
#[mcp_tool(task = "optional")]
async fn confirm(
    ctx: RequestContext,
    State(gate): State<Gate>,
    filename: String,
) -> Result<String, ToolError> {
    gate.pass().await;
    let answer = ctx
        .elicit::<Confirmation>(format!("Delete {filename}?"))
        .await?;
    Ok(match answer.accepted() {
        Some(Confirmation { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// Asks for a name and a confirmation at once.
#[mcp_tool(task = "optional")]
async fn two_inputs(ctx: RequestContext) -> Result<String, ToolError> {
    let (name, confirmation) = tokio::join!(
        ctx.input("name").elicit::<Name>("Who are you?"),
        ctx.input("confirm").elicit::<Confirmation>("Go ahead?"),
    );
    let name = name?
        .accepted()
        .map_or_else(|| "someone".into(), |n| n.name);
    let confirmed = confirmation?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("{name} confirmed: {confirmed}"))
}

/// Answers at once when `fast`, else becomes a task after 300 ms and waits for the gate.
#[mcp_tool(task = "optional", task_start = "300ms")]
async fn grace(State(gate): State<Gate>, fast: bool) -> &'static str {
    if !fast {
        gate.pass().await;
    }
    if fast { "fast" } else { "slow" }
}

/// Asks for a name in the call's own rounds, then greets in a task once the gate opens.
#[mcp_tool(task = "required", task_start = "explicitly")]
async fn explicit(ctx: RequestContext, State(gate): State<Gate>) -> Result<String, ToolError> {
    let name = ctx
        .input("user_name")
        .elicit::<Name>("What is your name?")
        .await?
        .accepted()
        .map_or_else(|| "stranger".into(), |n| n.name);
    let started = ctx.start_task().await;
    gate.pass().await;
    Ok(format!("Hello, {name}! (task: {started})"))
}

/// What a test holds of its server: the gate, and the handlers' events.
pub struct Fixture {
    /// The gate the tools wait at.
    pub gate: Gate,
    events: mpsc::UnboundedReceiver<String>,
}

impl Fixture {
    /// The next event of a handler.
    pub async fn event(&mut self) -> String {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("a handler event in time")
            .expect("the handlers keep their sender")
    }
}

/// A builder of the server of this module's tools, and its fixture.
pub fn builder() -> (McpServerBuilder, Fixture) {
    let gate = Gate(Arc::new(Semaphore::new(0)));
    let (events, receiver) = mpsc::unbounded_channel();
    let builder = McpServer::from_module(server_info!(), module_path!())
        .state(gate.clone())
        .state(Events(events));
    (
        builder,
        Fixture {
            gate,
            events: receiver,
        },
    )
}

/// The server of this module's tools, and its fixture.
pub fn server() -> (McpServer, Fixture) {
    let (builder, fixture) = builder();
    (builder.build().unwrap(), fixture)
}

/// The result of a response, or its error.
pub fn outcome(response: Value) -> Result<Value, Value> {
    match response.get("error") {
        Some(error) => Err(error.clone()),
        None => Ok(response["result"].clone()),
    }
}

/// A 2025-era session over `handle_raw`: a persistent connection whose sink the test reads.
pub struct Session {
    server: McpServer,
    connection: Arc<ConnectionState>,
    sink: mpsc::UnboundedReceiver<Outbound>,
    version: ProtocolVersion,
    next_id: i64,
}

impl Session {
    /// Initializes with `version` and `capabilities` and sends `notifications/initialized`;
    /// returns the session and the `initialize` result.
    pub async fn open(
        server: &McpServer,
        version: ProtocolVersion,
        capabilities: Value,
    ) -> (Session, Value) {
        let (sender, sink) = mpsc::unbounded_channel();
        let mut session = Session {
            server: server.clone(),
            connection: ConnectionState::persistent(Some(Arc::new(sender))),
            sink,
            version,
            next_id: 1,
        };
        let initialized = session
            .request(
                "initialize",
                json!({"protocolVersion": version.as_str(), "capabilities": capabilities,
                    "clientInfo": {"name": "tasks-test", "version": "1"}}),
            )
            .await
            .expect("initialize succeeds");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(session.send(&note).await, None);
        (session, initialized)
    }

    /// A 2025-11-25 session with `capabilities`.
    pub async fn new(server: &McpServer, capabilities: Value) -> Session {
        Session::open(server, ProtocolVersion::V2025_11_25, capabilities)
            .await
            .0
    }

    /// The request `method` with `params` and a fresh id.
    pub fn message(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// Sends `message`; the reply, if any.
    pub async fn send(&self, message: &Value) -> Option<Value> {
        let reply = self
            .server
            .handle_raw(message.to_string().as_bytes(), &self.connection, None)
            .await?;
        Some(serde_json::from_str(&reply).expect("a JSON reply"))
    }

    /// Sends a request and returns its result or error, checked against the schema.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let message = self.message(method, params);
        let response = self.send(&message).await.expect("a response");
        check_response(self.version, method, &response);
        outcome(response)
    }

    /// Starts a request whose own messages go to the returned receiver, and which is answered
    /// by the returned task.
    pub fn start(
        &mut self,
        method: &str,
        params: Value,
    ) -> (
        tokio::task::JoinHandle<Result<Value, Value>>,
        mpsc::UnboundedReceiver<Outbound>,
    ) {
        let message = self.message(method, params).to_string();
        let (sender, receiver) = mpsc::unbounded_channel();
        let (server, connection) = (self.server.clone(), self.connection.clone());
        let (version, method) = (self.version, method.to_owned());
        let answer = tokio::spawn(async move {
            let sink: SharedSink = Arc::new(sender);
            let reply = server
                .handle_raw(message.as_bytes(), &connection, Some(sink))
                .await
                .expect("a response");
            let response = serde_json::from_str(&reply).expect("a JSON reply");
            check_response(version, &method, &response);
            outcome(response)
        });
        (answer, receiver)
    }

    /// Calls `tool` with `arguments` as a task (`task: {}`); the task's id.
    pub async fn start_task(&mut self, tool: &str, arguments: Value) -> String {
        let created = self
            .request(
                "tools/call",
                json!({"name": tool, "arguments": arguments, "task": {}}),
            )
            .await
            .expect("the task is created");
        created["task"]["taskId"].as_str().unwrap().to_owned()
    }

    /// The next message on the session's sink.
    pub async fn next(&mut self) -> Value {
        next_on(&mut self.sink, self.version).await
    }

    /// The messages on the session's sink not read yet.
    pub fn pending(&mut self) -> Vec<Value> {
        let mut messages = Vec::new();
        while let Ok(message) = self.sink.try_recv() {
            messages.push(rendered(&message, self.version));
        }
        messages
    }
}

/// `message` as written for `version`, checked against its schema.
pub fn rendered(message: &Outbound, version: ProtocolVersion) -> Value {
    let message: Value =
        serde_json::from_str(&message.render(version).expect("renders")).expect("JSON");
    let method = message["method"]
        .as_str()
        .expect("a request or a notification");
    check_server_message(version, &message, method);
    if method == "notifications/tasks/status" {
        let schema = spec_schema(version);
        schema
            .check("TaskStatusNotification", &message)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    message
}

/// Checks a response to a request of `method` against the schema of `version`: on 2025-11-25 a
/// task's results against their own definitions (and a task's payload against the result of
/// the call it ran), else as [`tests::wire`](crate::wire) does.
fn check_response(version: ProtocolVersion, method: &str, response: &Value) {
    let result = &response["result"];
    let definition = match method {
        _ if version != ProtocolVersion::V2025_11_25 || result.is_null() => None,
        "tools/call" if result.get("task").is_some() => Some("CreateTaskResult"),
        "tasks/get" => Some("GetTaskResult"),
        "tasks/cancel" => Some("CancelTaskResult"),
        "tasks/list" => Some("ListTasksResult"),
        "tasks/result" => Some("CallToolResult"),
        _ => None,
    };
    let Some(definition) = definition else {
        return wire::check_response(version, response, method);
    };
    let schema = spec_schema(version);
    for (definition, instance) in [("JSONRPCResultResponse", response), (definition, result)] {
        schema
            .check(definition, instance)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The next message on `sink`, as written for `version`.
pub async fn next_on(
    sink: &mut mpsc::UnboundedReceiver<Outbound>,
    version: ProtocolVersion,
) -> Value {
    let message = tokio::time::timeout(WAIT, sink.recv())
        .await
        .expect("a message in time")
        .expect("the sink stays open");
    rendered(&message, version)
}

/// Whether `text` is a task id as this server makes them: 32 hex digits.
pub fn is_task_id(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `text` is an RFC 3339 UTC timestamp (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`).
pub fn is_timestamp(text: &str) -> bool {
    let Some(text) = text.strip_suffix('Z') else {
        return false;
    };
    let (seconds, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let shape = "dddd-dd-ddTdd:dd:dd";
    seconds.len() == shape.len()
        && seconds.bytes().zip(shape.bytes()).all(|(c, s)| match s {
            b'd' => c.is_ascii_digit(),
            _ => c == s,
        })
        && !fraction.is_empty()
        && fraction.bytes().all(|c| c.is_ascii_digit())
}

/// `value` with every task id and timestamp checked for shape and replaced by a placeholder.
pub fn masked(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let text = value.as_str().unwrap_or_default();
                    let value = match key.as_str() {
                        "taskId" => {
                            assert!(is_task_id(text), "a task id: {value}");
                            json!("<id>")
                        }
                        "createdAt" | "lastUpdatedAt" => {
                            assert!(is_timestamp(text), "a timestamp: {value}");
                            json!("<time>")
                        }
                        _ => masked(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// The related-task `_meta` of the task `id`.
pub fn related(id: &str) -> Value {
    json!({"io.modelcontextprotocol/related-task": {"taskId": id}})
}

/// The 2025-11-25 task as `tasks/get` shows it, masked.
pub fn task_2025(status: &str, ttl: u64, message: Option<&str>) -> Value {
    let mut task = json!({"taskId": "<id>", "status": status, "createdAt": "<time>",
        "lastUpdatedAt": "<time>", "ttl": ttl, "pollInterval": 500});
    if let Some(message) = message {
        task["statusMessage"] = json!(message);
    }
    task
}

/// The 2025-11-25 `notifications/tasks/status` of a task, masked.
pub fn status_note(status: &str, message: Option<&str>) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": task_2025(status, DEFAULT_TTL, message)})
}

/// [`DEFAULT_TASK_TTL`] in milliseconds, as tasks show it.
pub const DEFAULT_TTL: u64 = DEFAULT_TASK_TTL.as_millis() as u64;

/// Probes until `probe` returns something, for at most [`WAIT`].
pub async fn eventually<T, F: Future<Output = Option<T>>>(
    what: &str,
    mut probe: impl FnMut() -> F,
) -> T {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} did not happen in time"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Lets spawned work run until it waits for something.
pub async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

/// The client capabilities of a 2026-07-28 request: the tasks extension when `extension`, and
/// form elicitation when `elicitation`.
pub fn capabilities(extension: bool, elicitation: bool) -> Value {
    let mut capabilities = json!({});
    if extension {
        capabilities["extensions"] = json!({TASKS: {}});
    }
    if elicitation {
        capabilities["elicitation"] = json!({"form": {}});
    }
    capabilities
}

/// A 2026-07-28 request of `method` with `params` and `capabilities`, on a connection of its own;
/// its result (without the `serverInfo` every result carries, checked here) or its error.
pub async fn stateless(
    server: &McpServer,
    method: &str,
    params: Value,
    capabilities: Value,
) -> Result<Value, Value> {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let connection = ConnectionState::transient(ProtocolVersion::V2026_07_28);
    let reply = server
        .handle_raw(request.to_string().as_bytes(), &connection, None)
        .await
        .expect("a response");
    let mut result = outcome(serde_json::from_str(&reply).unwrap())?;
    let meta = result["_meta"].as_object_mut().expect("a result's _meta");
    let info = meta.remove("io.modelcontextprotocol/serverInfo");
    assert_eq!(info.unwrap()["name"], "tests");
    if meta.is_empty() {
        result.as_object_mut().unwrap().remove("_meta");
    }
    Ok(result)
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` from a client that declares the
/// extension (and elicitation).
pub async fn call_2026(server: &McpServer, tool: &str, arguments: Value) -> Result<Value, Value> {
    let params = json!({"name": tool, "arguments": arguments});
    stateless(server, "tools/call", params, capabilities(true, true)).await
}

/// `tasks/get` of `id` (2026-07-28, the extension declared).
pub async fn get_2026(server: &McpServer, id: &str) -> Result<Value, Value> {
    let params = json!({"taskId": id});
    stateless(server, "tasks/get", params, capabilities(true, true)).await
}

/// `tasks/get` of `id` until its status is `status`.
pub async fn until_status(server: &McpServer, id: &str, status: &str) -> Value {
    eventually(&format!("status {status}"), || async {
        let got = get_2026(server, id).await.unwrap();
        (got["status"] == status).then_some(got)
    })
    .await
}

/// The 2026-07-28 task, masked, with the default TTL.
pub fn task_2026(status: &str) -> Value {
    json!({"taskId": "<id>", "status": status, "createdAt": "<time>", "lastUpdatedAt": "<time>",
        "ttlMs": DEFAULT_TTL, "pollIntervalMs": 500})
}

/// `task` with `members` added.
pub fn with(mut task: Value, members: Value) -> Value {
    for (key, value) in members.as_object().unwrap() {
        task[key] = value.clone();
    }
    task
}

/// The error of a 2026-07-28 request that needs the extension and did not declare it.
pub fn missing_extension() -> Value {
    json!({"code": -32021, "message": "Missing required client capability",
        "data": {"requiredCapabilities": {"extensions": {TASKS: {}}}}})
}

/// A 2026-07-28 POST of `method` with `params` (their `_meta` declaring the extension) to `url`,
/// its `Mcp-Name` header `name` if any and its bearer `token` if any; the status and the body.
pub async fn post_2026(
    url: &str,
    token: Option<&str>,
    method: &str,
    name: Option<&str>,
    mut params: Value,
) -> (reqwest::StatusCode, Value) {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(true, false)});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = crate::http::post_2026_request(url, method, &body);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}
