//! What a client answers when the server asks: sampling, elicitation and roots, handled by
//! functions the application registers (which also decide the capabilities the client declares),
//! whether the server asks with a request, in the input-required rounds of a 2026-07-28 request,
//! or in the `inputRequests` of a task. (The server's side of it is `connection/asking.rs`.)

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_runtime_core::capabilities::{
    CapabilityMap, ClientCapabilities, ElicitationCapability, RootsCapability, SamplingCapability,
};
use mcp_runtime_core::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_runtime_core::input::{InputRequest, InputResponse, InputResponses};
use mcp_runtime_core::messages::ServerRequest;
use mcp_runtime_core::render;
use mcp_runtime_core::roots::ListRootsResult;
use mcp_runtime_core::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_runtime_core::tasks::TASKS_EXTENSION;
use mcp_runtime_core::{ErrorObject, ProtocolVersion};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use super::AskedInput;

type Boxed<T> = Pin<Box<dyn Future<Output = Result<T, ErrorObject>> + Send>>;

/// Answers `sampling/createMessage`.
pub(crate) type SamplingHandler =
    Arc<dyn Fn(CreateMessageRequestParams) -> Boxed<CreateMessageResult> + Send + Sync>;
/// Answers `elicitation/create`.
pub(crate) type ElicitationHandler =
    Arc<dyn Fn(ElicitRequestParams) -> Boxed<ElicitResult> + Send + Sync>;

/// Answers `roots/list`.
pub(crate) type RootsHandler = Arc<dyn Fn() -> Boxed<ListRootsResult> + Send + Sync>;

/// The client's handlers.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) sampling: Option<SamplingHandler>,
    pub(crate) elicitation: Option<ElicitationHandler>,
    /// Whether the elicitation handler takes URL mode too.
    pub(crate) url_elicitation: bool,
    pub(crate) roots: Option<RootsHandler>,
    /// The extensions the client declares, with their settings.
    pub(crate) extensions: Option<CapabilityMap>,
}

impl Handlers {
    /// The capabilities the handlers make the client declare at `version`. On 2026-07-28 they
    /// include the tasks extension: the client follows a tool call that became a task to its
    /// end (2025-11-25 has tasks in the core protocol instead).
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        if self.sampling.is_some() {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if self.elicitation.is_some() {
            let mut elicitation = ElicitationCapability::default();
            if self.url_elicitation {
                elicitation.form = Some(Default::default());
                elicitation.url = Some(Default::default());
            }
            capabilities.elicitation = Some(elicitation);
        }
        if self.roots.is_some() {
            capabilities.roots = Some(RootsCapability::default());
        }
        let mut extensions = self.extensions.clone().unwrap_or_default();
        if version.era() == mcp_runtime_core::Era::Stateless {
            extensions.entry(TASKS_EXTENSION.to_owned()).or_default();
        }
        capabilities.extensions = (!extensions.is_empty()).then_some(extensions);
        capabilities
    }

    /// The answer to `request`, as the JSON of `version`.
    pub(crate) async fn answer(
        &self,
        request: ServerRequest,
        version: ProtocolVersion,
    ) -> Result<Value, ErrorObject> {
        let unsupported = |method: &str| ErrorObject::method_not_found(method);
        match request {
            ServerRequest::Ping(_) => Ok(Value::Object(Default::default())),
            ServerRequest::CreateMessage(params) => match &self.sampling {
                Some(handler) => rendered(handler(params).await?, version),
                None => Err(unsupported("sampling/createMessage")),
            },
            ServerRequest::Elicit(params) => match &self.elicitation {
                Some(handler) => {
                    let mut answer = handler(params.clone()).await?;
                    fill_defaults(&params, &mut answer);
                    rendered(answer, version)
                }
                None => Err(unsupported("elicitation/create")),
            },
            ServerRequest::ListRoots(_) => match &self.roots {
                Some(roots) => rendered(roots().await?, version),
                None => Err(unsupported("roots/list")),
            },
            other => Err(unsupported(other.method())),
        }
    }
}

impl Handlers {
    /// The answer to one input request of a 2026-07-28 input-required result, from `via` (the
    /// request's own [`ask_through`](super::RequestOptions::ask_through)) or the handlers; a
    /// request the client has no handler for fails the round (method not found), as it would
    /// as a request.
    pub(crate) async fn answer_input(
        &self,
        request: InputRequest,
        via: Option<&mpsc::Sender<AskedInput>>,
    ) -> Result<InputResponse, ErrorObject> {
        if let Some(sink) = via {
            return super::options::ask(sink, request).await;
        }
        let method = request.method();
        let answer = self
            .answer(ServerRequest::from(request), ProtocolVersion::V2026_07_28)
            .await?;
        serde_json::from_value(answer).map_err(|e| {
            ErrorObject::internal_error(format!(
                "the answer to {method} is not an input response: {e}"
            ))
        })
    }

    /// The answers to `requests` (of an input-required round, or of a task's `inputRequests`),
    /// keyed like them, one after the other, from `via` or the handlers; the first that fails
    /// fails them all.
    pub(crate) async fn answer_inputs(
        &self,
        requests: impl IntoIterator<Item = (String, InputRequest)>,
        via: Option<&mpsc::Sender<AskedInput>>,
    ) -> Result<InputResponses, ErrorObject> {
        let mut answers = InputResponses::new();
        for (key, request) in requests {
            let answer = self.answer_input(request, via).await?;
            answers.insert(key, answer);
        }
        Ok(answers)
    }
}

/// Fills the fields an accepted form leaves out with the defaults of the requested schema
/// (SEP-1034): what a form pre-filled with them would have sent.
fn fill_defaults(params: &ElicitRequestParams, answer: &mut ElicitResult) {
    let ElicitRequestParams::Form(form) = params else {
        return;
    };
    if answer.action != ElicitAction::Accept {
        return;
    }
    let content = answer.content.get_or_insert_with(Default::default);
    for (name, property) in &form.requested_schema.properties {
        if content.contains_key(name) {
            continue;
        }
        let Ok(property) = serde_json::to_value(property) else {
            continue;
        };
        let Some(default) = property.get("default") else {
            continue;
        };
        // An integer field's default reads back as a float (`30.0`): send it as an integer.
        let default = match default.as_f64() {
            Some(f) if property["type"] == "integer" && f.fract() == 0.0 => Value::from(f as i64),
            _ => default.clone(),
        };
        if let Ok(value) = serde_json::from_value(default) {
            content.insert(name.clone(), value);
        }
    }
}

fn rendered<T: Serialize>(value: T, version: ProtocolVersion) -> Result<Value, ErrorObject> {
    render::to_value(&value, version).map_err(|e| ErrorObject::internal_error(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_accepted_form_takes_the_defaults_of_the_fields_it_leaves_out() {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": "Who are you?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "nickname": {"type": "string"}
            }}
        }))
        .unwrap();
        let mut answer: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Jane"}}))
                .unwrap();
        fill_defaults(&params, &mut answer);
        assert_eq!(
            serde_json::to_value(&answer).unwrap(),
            json!({"action": "accept", "content": {"name": "Jane", "age": 30, "score": 95.5,
                "status": "active", "verified": true}})
        );
        let mut declined: ElicitResult =
            serde_json::from_value(json!({"action": "decline"})).unwrap();
        fill_defaults(&params, &mut declined);
        assert_eq!(
            serde_json::to_value(&declined).unwrap(),
            json!({"action": "decline"})
        );
    }
}
