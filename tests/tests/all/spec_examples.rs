//! Every example the specification ships, through the protocol model and back.
//!
//! Each file under `spec/schema/<revision>/examples/<Type>/` is parsed into the model's type for
//! `<Type>`, rendered again for its revision, compared with the original (numbers by value, keys in
//! any order), and the rendering is validated against the revision's schema. Only 2026-07-28 ships
//! examples; the loop takes any revision that does, and the revisions in `REQUIRED_EXAMPLES` must.
//! The few places where the rendering differs on purpose are listed, with the reason, in
//! `EXPECTED_DIFFERENCES`.

use std::path::Path;

use mcp_runtime::protocol::{
    self as mcp, ProtocolVersion, cancellation::*, capabilities::*, completion::*, content::*,
    elicitation::*, input::*, jsonrpc::*, logging::*, messages::*, params::*, progress::*,
    prompts::*, resources::*, roots::*, sampling::*, subscriptions::*, tools::*,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tests::{json_difference, schema_root, spec_schema};

/// Parses an example and renders it again for a revision.
type RoundTrip = fn(Value, ProtocolVersion) -> Result<Value, String>;

/// A round trip that may capture state (the method whose result an example is).
type BoxedRoundTrip = Box<dyn Fn(Value, ProtocolVersion) -> Result<Value, String>>;

fn typed<T: DeserializeOwned + Serialize>(
    value: Value,
    version: ProtocolVersion,
) -> Result<Value, String> {
    let parsed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
    mcp::render::to_value(&parsed, version).map_err(|e| e.to_string())
}

fn message(value: Value) -> Result<JsonRpcMessage, String> {
    mcp::jsonrpc::message_from_value(value).map_err(|e| e.to_string())
}

fn client_request(value: Value, version: ProtocolVersion) -> Result<Value, String> {
    let JsonRpcMessage::Request(request) = message(value)? else {
        return Err("not a request".into());
    };
    let typed = ClientRequest::from_raw(&request.request).map_err(|e| e.to_string())?;
    mcp::render::to_value(&JsonRpcRequest::new(request.id, typed), version)
        .map_err(|e| e.to_string())
}

fn server_notification(value: Value, version: ProtocolVersion) -> Result<Value, String> {
    let JsonRpcMessage::Notification(note) = message(value)? else {
        return Err("not a notification".into());
    };
    let typed = ServerNotification::from_raw(&note.notification).map_err(|e| e.to_string())?;
    mcp::render::to_value(&JsonRpcNotification::new(typed), version).map_err(|e| e.to_string())
}

fn error_response(value: Value, version: ProtocolVersion) -> Result<Value, String> {
    let JsonRpcMessage::Error(error) = message(value)? else {
        return Err("not an error response".into());
    };
    mcp::render::to_value(&error, version).map_err(|e| e.to_string())
}

/// A result of a request of `method`, alone or inside a response.
fn result_of(
    method: &'static str,
    in_response: bool,
) -> impl Fn(Value, ProtocolVersion) -> Result<Value, String> {
    move |value, version| {
        let decode =
            |result: Value| ServerResult::decode(method, result).map_err(|e| e.to_string());
        if in_response {
            let JsonRpcMessage::Response(response) = message(value)? else {
                return Err("not a response".into());
            };
            let typed = decode(response.result)?;
            mcp::render::to_value(&JsonRpcResponse::new(response.id, typed), version)
                .map_err(|e| e.to_string())
        } else {
            mcp::render::to_value(&decode(value)?, version).map_err(|e| e.to_string())
        }
    }
}

/// How each example type goes through the model.
fn round_trip_for(def: &str) -> Option<BoxedRoundTrip> {
    let plain: Option<RoundTrip> = match def {
        "AudioContent" | "EmbeddedResource" | "ImageContent" | "ResourceLink" | "TextContent" => {
            Some(typed::<ContentBlock>)
        }
        "BlobResourceContents" | "TextResourceContents" => Some(typed::<ResourceContents>),
        "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledMultiSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema" => Some(typed::<PrimitiveSchema>),
        "ToolResultContent" | "ToolUseContent" => Some(typed::<SamplingContentBlock>),
        "CallToolRequestParams" => Some(typed::<CallToolRequestParams>),
        "CancelledNotificationParams" => Some(typed::<CancelledNotificationParams>),
        "ClientCapabilities" => Some(typed::<ClientCapabilities>),
        "ServerCapabilities" => Some(typed::<ServerCapabilities>),
        "CompleteRequestParams" => Some(typed::<CompleteRequestParams>),
        "CreateMessageRequestParams" => Some(typed::<CreateMessageRequestParams>),
        "CreateMessageResult" => Some(typed::<CreateMessageResult>),
        "ElicitRequestFormParams" | "ElicitRequestURLParams" => Some(typed::<ElicitRequestParams>),
        "ElicitResult" => Some(typed::<ElicitResult>),
        "GetPromptRequestParams" => Some(typed::<GetPromptRequestParams>),
        "InputRequests" => Some(typed::<InputRequests>),
        "InputResponses" => Some(typed::<InputResponses>),
        "InputRequiredResult" => Some(typed::<InputRequiredResult>),
        "CreateMessageRequest" | "ElicitRequest" | "ListRootsRequest" => {
            Some(typed::<InputRequest>)
        }
        "ListRootsResult" => Some(typed::<ListRootsResult>),
        "LoggingMessageNotificationParams" => Some(typed::<LoggingMessageNotificationParams>),
        "ModelPreferences" => Some(typed::<ModelPreferences>),
        "PaginatedRequestParams" => Some(typed::<PaginatedRequestParams>),
        "ProgressNotificationParams" => Some(typed::<ProgressNotificationParams>),
        "Resource" => Some(typed::<Resource>),
        "ResourceUpdatedNotificationParams" => Some(typed::<ResourceUpdatedNotificationParams>),
        "Root" => Some(typed::<Root>),
        "SamplingMessage" => Some(typed::<SamplingMessage>),
        "SubscriptionsListenResult" => Some(typed::<SubscriptionsListenResult>),
        "Tool" => Some(typed::<Tool>),
        "InternalError"
        | "InvalidParamsError"
        | "MethodNotFoundError"
        | "ParseError"
        | "InvalidRequestError" => Some(typed::<mcp::ErrorObject>),
        "HeaderMismatchError"
        | "MissingRequiredClientCapabilityError"
        | "UnsupportedProtocolVersionError" => Some(error_response),
        d if d.ends_with("Notification") => Some(server_notification),
        d if d.ends_with("Request") => Some(client_request),
        _ => None,
    };
    if let Some(f) = plain {
        return Some(Box::new(f));
    }
    let (result, in_response) = match def.strip_suffix("Response") {
        Some(result) => (result, true),
        None => (def, false),
    };
    let method = match result {
        "CallToolResult" => "tools/call",
        "CompleteResult" => "completion/complete",
        "DiscoverResult" => "server/discover",
        "GetPromptResult" => "prompts/get",
        "ListPromptsResult" => "prompts/list",
        "ListResourceTemplatesResult" => "resources/templates/list",
        "ListResourcesResult" => "resources/list",
        "ListToolsResult" => "tools/list",
        "ReadResourceResult" => "resources/read",
        "SubscriptionsListenResult" => "subscriptions/listen",
        _ => return None,
    };
    Some(Box::new(result_of(method, in_response)))
}

/// Where the model's rendering of an example differs from the example, on purpose. Each entry is
/// the example file, a JSON pointer into it, the value the rendering has there (`None`: the
/// rendering leaves it out), and why.
const EXPECTED_DIFFERENCES: &[(&str, &str, Option<&str>, &str)] = &[
    (
        "input-required-result-with-elicitation-and-sampling-and-request-state.json",
        "/inputRequests/github_login/params/mode",
        Some(r#""form""#),
        "from 2025-11-25 on, form-mode elicitation names its mode explicitly (absent means form)",
    ),
    (
        "list-roots-request.json",
        "/id",
        None,
        "in 2026-07-28 `roots/list` is an input request, which has no id; unknown fields are ignored",
    ),
    (
        "read-resource-result-response.json",
        "/result/ttlMs",
        Some("0"),
        "ReadResourceResult requires ttlMs; a missing value counts as 0 (caching.mdx)",
    ),
    (
        "read-resource-result-response.json",
        "/result/cacheScope",
        Some(r#""private""#),
        "ReadResourceResult requires cacheScope; private is the scope that is safe to assume",
    ),
];

/// The example as the model renders it: the original with the expected differences applied.
fn expected_rendering(path: &Path, mut original: Value) -> Value {
    let file = path.file_name().unwrap().to_string_lossy();
    for (name, pointer, value, _why) in EXPECTED_DIFFERENCES {
        if *name != file {
            continue;
        }
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let parent = original
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("{file}: no object at {parent}"));
        match value {
            Some(value) => parent.insert(key.to_owned(), serde_json::from_str(value).unwrap()),
            None => parent.remove(key),
        };
    }
    original
}

/// The revisions whose examples must be present (a missing or empty `examples` folder fails).
///
/// 2025-11-25 is not listed because its examples do not exist anywhere we can take them from: not
/// in `spec/schema/2025-11-25` here, not in the shared copy of the specification, and upstream
/// publishes examples only under `schema/draft/examples`. They are not faked; when a source for
/// them is found, copy them to `spec/schema/2025-11-25/examples` and add the revision here.
const REQUIRED_EXAMPLES: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

/// The examples of `version` as (type, file) pairs, sorted; empty when it ships none.
fn examples_of(version: ProtocolVersion) -> Vec<(String, std::path::PathBuf)> {
    let dir = schema_root().join(version.as_str()).join("examples");
    let Ok(types) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut examples = Vec::new();
    for entry in types {
        let entry = entry.unwrap();
        let def = entry.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(entry.path()).unwrap() {
            examples.push((def.clone(), file.unwrap().path()));
        }
    }
    examples.sort();
    examples
}

fn label(path: &Path) -> String {
    let parts: Vec<_> = path.iter().rev().take(2).collect();
    format!(
        "{}/{}",
        parts[1].to_string_lossy(),
        parts[0].to_string_lossy()
    )
}

#[test]
fn every_example_round_trips_and_validates() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for version in ProtocolVersion::ALL {
        let schema = spec_schema(version);
        for (def, path) in examples_of(version) {
            let original: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let Some(round_trip) = round_trip_for(&def) else {
                failures.push(format!(
                    "{version} {}: no round trip for type {def}",
                    label(&path)
                ));
                continue;
            };
            checked += 1;
            match round_trip(original.clone(), version) {
                Err(e) => failures.push(format!("{version} {}: does not parse: {e}", label(&path))),
                Ok(rendered) => {
                    let expected = expected_rendering(&path, original);
                    if let Some(diff) = json_difference(&expected, &rendered) {
                        failures.push(format!(
                            "{version} {}: changed in the round trip at {diff}",
                            label(&path)
                        ));
                    }
                    if let Err(e) = schema.check(&def, &rendered) {
                        failures.push(format!("{}: {e}", label(&path)));
                    }
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
    assert!(checked >= 120, "only {checked} examples were found");
}

#[test]
fn the_required_examples_are_present() {
    for version in REQUIRED_EXAMPLES {
        let dir = schema_root().join(version.as_str()).join("examples");
        assert!(dir.is_dir(), "{} is missing", dir.display());
        let examples = examples_of(version);
        assert!(
            examples.len() >= 120,
            "{}: only {} examples",
            dir.display(),
            examples.len()
        );
    }
}

#[test]
fn every_expected_difference_names_an_existing_example() {
    let files: Vec<String> = ProtocolVersion::ALL
        .into_iter()
        .flat_map(examples_of)
        .map(|(_, path)| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for (file, pointer, _, why) in EXPECTED_DIFFERENCES {
        assert!(
            files.iter().any(|f| f == file),
            "{file} ({pointer}: {why}) is not an example"
        );
    }
}
