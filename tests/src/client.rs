//! A scripted MCP client for tests: raw JSON over an in-process connection, with every message the
//! server sends validated against the official schema of the negotiated revision.

use std::collections::VecDeque;
use std::sync::Arc;

use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::server::McpServer;
use mcp_runtime::transport::in_process::{self, InProcessPeer};
use serde_json::{Value, json};

use crate::wire::{check_response, check_server_message};

/// How the test client answers a request from the server: the result, or an error object.
pub type RequestHandler = Arc<dyn Fn(&str, &Value) -> Result<Value, Value> + Send + Sync>;

/// A client driving a server through an in-process connection.
pub struct TestClient {
    peer: InProcessPeer,
    next_id: i64,
    version: ProtocolVersion,
    notifications: VecDeque<Value>,
    other_responses: Vec<Value>,
    server_requests: Vec<Value>,
    handler: Option<RequestHandler>,
}

impl TestClient {
    /// Connects to `server` (not yet initialized).
    pub fn connect(server: McpServer) -> Self {
        TestClient {
            peer: in_process::connect(server),
            next_id: 1,
            version: ProtocolVersion::LATEST_HANDSHAKE,
            notifications: VecDeque::new(),
            other_responses: Vec::new(),
            server_requests: Vec::new(),
            handler: None,
        }
    }

    /// Connects and initializes with `version` and `capabilities`, then sends
    /// `notifications/initialized`.
    pub async fn initialized(
        server: McpServer,
        version: ProtocolVersion,
        capabilities: Value,
    ) -> Self {
        let mut client = TestClient::connect(server);
        client.version = version;
        let result = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": version.as_str(),
                    "capabilities": capabilities,
                    "clientInfo": {"name": "test-client", "version": "0.0.1"}
                }),
            )
            .await
            .expect("initialize succeeds");
        assert_eq!(result["protocolVersion"], version.as_str());
        client.notify("notifications/initialized", json!({})).await;
        client.sync().await;
        client
    }

    /// Waits until the server has read everything sent so far: a `ping` (with an id of its own,
    /// outside the sequence of [`next_id`](Self::next_id)) is answered only after the messages
    /// before it were read, and notifications are handled in the order they are read.
    pub async fn sync(&mut self) {
        let id = json!("sync");
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        let response = self.response_to(&id, "ping").await;
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": "sync", "result": {}})
        );
    }

    /// The revision messages are validated against.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// Answers the server's requests with `handler`.
    pub fn answer_requests_with(
        &mut self,
        handler: impl Fn(&str, &Value) -> Result<Value, Value> + Send + Sync + 'static,
    ) {
        self.handler = Some(Arc::new(handler));
    }

    /// Sends a line as it is.
    pub async fn send_raw(&mut self, line: &str) {
        self.peer.send_raw(line).await.expect("the server reads");
    }

    /// Sends a message.
    pub async fn send(&mut self, message: &Value) {
        self.peer.send(message).await.expect("the server reads");
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends a request and returns its result, or its error object.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = json!(self.next_id());
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let response = self.response_to(&id, method).await;
        match response.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(response["result"].clone()),
        }
    }

    /// Reads messages until the response with `id` (of a request of `method`) arrives, keeping
    /// notifications and answering server requests meanwhile.
    pub async fn response_to(&mut self, id: &Value, method: &str) -> Value {
        loop {
            let message = self
                .recv()
                .await
                .unwrap_or_else(|| panic!("the server closed before answering {id}"));
            if message.get("id") == Some(id) && message.get("method").is_none() {
                check_response(self.version, &message, method);
                return message;
            }
            self.keep(message).await;
        }
    }

    /// The next message from the server, `None` when it closed.
    pub async fn recv(&mut self) -> Option<Value> {
        self.peer
            .recv()
            .await
            .expect("the server writes JSON lines")
    }

    /// Files a message that is not the awaited response.
    async fn keep(&mut self, message: Value) {
        let Some(method) = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            // A response to a request sent by hand.
            self.other_responses.push(message);
            return;
        };
        check_server_message(self.version, &message, &method);
        if message.get("id").is_none() {
            self.notifications.push_back(message);
            return;
        }
        self.server_requests.push(message.clone());
        let answer = match &self.handler {
            Some(handler) => handler(&method, &message["params"]),
            None => Err(json!({"code": -32601, "message": "the test client answers no requests"})),
        };
        let reply = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": message["id"], "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": message["id"], "error": error}),
        };
        self.send(&reply).await;
    }

    /// Reads messages until a notification of `method` arrives, and returns it.
    pub async fn notification(&mut self, method: &str) -> Value {
        if let Some(index) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return self
                .notifications
                .remove(index)
                .expect("the index is valid");
        }
        loop {
            let message = self
                .recv()
                .await
                .unwrap_or_else(|| panic!("the server closed before sending {method}"));
            if message["method"] == method && message.get("id").is_none() {
                check_server_message(self.version, &message, method);
                return message;
            }
            self.keep(message).await;
        }
    }

    /// The notifications received so far and not taken, in order.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        self.notifications.drain(..).collect()
    }

    /// The responses read while waiting for another one (answers to requests sent with
    /// [`send`](Self::send)), in order.
    pub fn take_other_responses(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.other_responses)
    }

    /// The requests the server sent so far.
    pub fn server_requests(&self) -> &[Value] {
        &self.server_requests
    }

    /// Sets the revision to validate against (after an initialize sent by hand).
    pub fn expect_version(&mut self, version: ProtocolVersion) {
        self.version = version;
    }

    /// Ends the input, then reads everything the server still writes until it finishes, and
    /// returns the responses among it (those read earlier while waiting for others included) and
    /// the notifications not taken, in order. Requests from the server are not answered.
    pub async fn finish(mut self) -> (Vec<Value>, Vec<Value>) {
        self.peer.end_input().await.expect("the input closes");
        let mut responses = std::mem::take(&mut self.other_responses);
        let mut notifications: Vec<Value> = self.notifications.drain(..).collect();
        while let Some(message) = self.recv().await {
            match (message.get("method"), message.get("id")) {
                (Some(_), None) => notifications.push(message),
                (Some(_), Some(_)) => self.server_requests.push(message),
                (None, _) => responses.push(message),
            }
        }
        self.peer.close().await.expect("the server ends cleanly");
        (responses, notifications)
    }

    /// Ends the connection and waits for the server to finish.
    pub async fn close(self) {
        self.peer.close().await.expect("the server ends cleanly");
    }
}
