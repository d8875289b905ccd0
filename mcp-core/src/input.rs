//! Multi-round-trip requests (2026-07-28, SEP-2322).
//!
//! A stateless server never sends requests to the client. When `tools/call`, `prompts/get` or
//! `resources/read` needs something from the client (a sampled message, the roots, the user's
//! input), the server answers with an [`InputRequiredResult`] naming what it needs; the client
//! gathers the answers and sends the original request again with `inputResponses` (keyed like the
//! input requests) and the `requestState` the server handed out.

use indexmap::IndexMap;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::de;
use crate::elicitation::{ElicitRequestParams, ElicitResult};
use crate::messages::MethodAndParams;
use crate::meta::ResultMeta;
use crate::params::RequestParams;
use crate::render::skip;
use crate::result::ResultType;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};

/// What the server needs from the client, keyed by names the server picks.
pub type InputRequests = IndexMap<String, InputRequest>;

/// The client's answers, keyed like the [`InputRequests`] they answer.
pub type InputResponses = IndexMap<String, InputResponse>;

/// One thing the server needs from the client.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list`.
    ListRoots(RequestParams),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
}

impl InputRequest {
    /// The method the request stands for.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::CreateMessage(_) => "sampling/createMessage",
            InputRequest::ListRoots(_) => "roots/list",
            InputRequest::Elicit(_) => "elicitation/create",
        }
    }

    /// The request's `_meta`.
    pub fn meta_mut(&mut self) -> &mut Option<crate::meta::RequestMeta> {
        match self {
            InputRequest::CreateMessage(params) => &mut params.meta,
            InputRequest::ListRoots(params) => &mut params.meta,
            InputRequest::Elicit(crate::elicitation::ElicitRequestParams::Form(params)) => {
                &mut params.meta
            }
            InputRequest::Elicit(crate::elicitation::ElicitRequestParams::Url(params)) => {
                &mut params.meta
            }
        }
    }
}

impl From<InputRequest> for crate::messages::ServerRequest {
    /// The request a server of an earlier revision sends for what `input` asks.
    fn from(input: InputRequest) -> Self {
        use crate::messages::ServerRequest;
        match input {
            InputRequest::CreateMessage(params) => ServerRequest::CreateMessage(params),
            InputRequest::ListRoots(params) => ServerRequest::ListRoots(params),
            InputRequest::Elicit(params) => ServerRequest::Elicit(params),
        }
    }
}

impl TryFrom<crate::messages::ServerRequest> for InputRequest {
    type Error = crate::messages::ServerRequest;

    /// What a request of a server of an earlier revision asks for, as an input request; the
    /// request itself when it asks for none (`ping`, the tasks methods).
    fn try_from(request: crate::messages::ServerRequest) -> Result<Self, Self::Error> {
        use crate::messages::ServerRequest;
        match request {
            ServerRequest::CreateMessage(params) => Ok(InputRequest::CreateMessage(params)),
            ServerRequest::ListRoots(params) => Ok(InputRequest::ListRoots(params)),
            ServerRequest::Elicit(params) => Ok(InputRequest::Elicit(params)),
            other => Err(other),
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let method = self.method();
        match self {
            InputRequest::CreateMessage(p) => MethodAndParams {
                method,
                params: Some(p),
            }
            .serialize(serializer),
            InputRequest::ListRoots(p) => MethodAndParams {
                method,
                params: (!p.is_empty()).then_some(p),
            }
            .serialize(serializer),
            InputRequest::Elicit(p) => MethodAndParams {
                method,
                params: Some(p),
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let wire = Wire::deserialize(deserializer)?;
        let params = wire
            .params
            .unwrap_or_else(|| Value::Object(Default::default()));
        match wire.method.as_str() {
            "sampling/createMessage" => {
                de::nested_in("params", params).map(InputRequest::CreateMessage)
            }
            "roots/list" => de::nested_in("params", params).map(InputRequest::ListRoots),
            "elicitation/create" => de::nested_in("params", params).map(InputRequest::Elicit),
            other => Err(D::Error::custom(format!(
                "unknown input request method `{other}`"
            ))),
        }
    }
}

/// The client's answer to one [`InputRequest`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum InputResponse {
    /// The answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.get("action").is_some() {
            de::nested(value).map(InputResponse::Elicit)
        } else if value.get("roots").is_some() {
            de::nested(value).map(InputResponse::ListRoots)
        } else if value.get("model").is_some() || value.get("role").is_some() {
            de::nested(value).map(InputResponse::CreateMessage)
        } else {
            Err(D::Error::custom(
                "an input response must be an elicitation, roots or sampling result",
            ))
        }
    }
}

/// The answer of a request that needs input from the client before it can finish (2026-07-28).
///
/// At least one of `input_requests` and `request_state` must be present.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// What the server needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to send back with the retried request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
    /// `input_required`.
    #[serde(
        default = "input_required",
        skip_serializing_if = "skip::before_2026_07_28"
    )]
    pub result_type: ResultType,
}

fn input_required() -> ResultType {
    ResultType::InputRequired
}

impl InputRequiredResult {
    /// A result asking for `input_requests`, carrying `request_state`.
    pub fn new(input_requests: Option<InputRequests>, request_state: Option<String>) -> Self {
        InputRequiredResult {
            input_requests,
            request_state,
            meta: None,
            result_type: ResultType::InputRequired,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_requests_and_responses_round_trip() {
        let wire = json!({
            "inputRequests": {
                "confirm": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Proceed?",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}},
                "roots": {"method": "roots/list"}
            },
            "requestState": "opaque",
            "resultType": "input_required"
        });
        let result: InputRequiredResult = serde_json::from_value(wire.clone()).unwrap();
        let requests = result.input_requests.as_ref().unwrap();
        assert_eq!(requests["confirm"].method(), "elicitation/create");
        assert_eq!(requests["roots"].method(), "roots/list");
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);

        let responses: InputResponses = serde_json::from_value(json!({
            "confirm": {"action": "accept", "content": {"ok": true}},
            "roots": {"roots": [{"uri": "file:///home"}]},
            "sample": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
        }))
        .unwrap();
        assert!(matches!(responses["confirm"], InputResponse::Elicit(_)));
        assert!(matches!(responses["roots"], InputResponse::ListRoots(_)));
        assert!(matches!(
            responses["sample"],
            InputResponse::CreateMessage(_)
        ));
        assert!(serde_json::from_value::<InputResponse>(json!({"x": 1})).is_err());
        assert!(serde_json::from_value::<InputRequest>(json!({"method": "ping"})).is_err());
    }
}
