//! Admission: what the server does with a message as it arrives, before any handler runs.
//!
//! Every transport hands what it received to [`McpServer::admit`] (or wire text to
//! [`McpServer::admit_text`]) and gets an [`Admission`]: the answers it owes at once, and the work
//! of the requests that were started. Nothing else of the protocol's rules is the transport's.
//!
//! 1. A batch is accepted only from a peer speaking 2025-03-26, the only revision that has them,
//!    and is refused as a whole otherwise; `initialize` must not be part of one, and an entry that
//!    is not a valid message gets its error (`-32700` or `-32600`).
//! 2. Notifications and responses are handled at once, in the order they came, so that a
//!    `notifications/cancelled` finds a request admitted before it.
//! 3. A request whose `_meta` names a protocol version, or any request on a 2026-07-28
//!    connection, follows that revision's rules: its `_meta` must carry the protocol version and
//!    the client's capabilities (`-32602`), the server must speak that version (`-32022`, listing
//!    those it speaks) and the revision must have the method (`-32601`).
//! 4. A 2026-07-28 request that came with HTTP headers ([`Envelope::with_http_request`]) is also refused
//!    when they disagree with it (SEP-2243, `-32020`): the `MCP-Protocol-Version` header is
//!    checked first, against `_meta`, and the `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
//!    headers last, against the body. Such a refusal is of the whole message
//!    ([`Admission::refusal`]), which the transport answers with an HTTP error status.
//! 5. Every other request is started by the [dispatcher](super::dispatch): registered as in
//!    flight on its connection, its handler's work returned, not yet run.
//!
//! The era of each request is decided here, once, with its revision (step 3); over HTTP,
//! [`era_over_http`] decides a message's from the headers the transport hands in, before the
//! transport picks its connection. Code after admission asks the era's rules
//! ([`Era`](mcp_runtime_core::Era)), never its name.

use std::sync::Arc;

use futures_util::future::join_all;
use mcp_runtime_core::headers::{self, RequestHeaders};
use mcp_runtime_core::jsonrpc::{
    self, EnvelopeError, Incoming, JsonRpcMessage, JsonRpcRequest, Params,
};
use mcp_runtime_core::messages::ClientRequest;
use mcp_runtime_core::stateless::{StatelessMeta, check_version_and_method};
use mcp_runtime_core::{Era, ErrorObject, ProtocolVersion};

use super::dispatch::{self, Decoded, Running, Started};
use super::reply::{Reply, render_batch};
use super::{McpServer, authorization, lifecycle};
use crate::auth::{AccessToken, joined};
use crate::connection::{ConnectionState, SharedSink};
use crate::handler::HttpRequest;
use crate::handler::caller::Caller;

/// What a transport knows of a message besides the message itself.
#[derive(Clone, Default)]
pub struct Envelope {
    caller: Caller,
}

impl Envelope {
    /// A message that came with nothing else (stdio, in process).
    pub fn bare() -> Self {
        Envelope::default()
    }

    /// The message came in `request`, which its handlers may read
    /// ([`RequestContext::http_request`](crate::handler::RequestContext::http_request)). When
    /// it is of the stateless era, admission also checks the headers that mirror it
    /// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) against it.
    pub fn with_http_request(mut self, request: HttpRequest) -> Self {
        self.caller.http = Some(request);
        self
    }

    /// The message came with the caller's verified access `token`: admission refuses the
    /// requests whose targets need scopes it lacks ([`Admission::insufficient_scope`]), the
    /// handlers read it ([`RequestContext::access_token`](crate::handler::RequestContext::access_token)),
    /// and the 2026-07-28 `requestState` the server seals and the tasks it creates are bound to
    /// its [`principal`](AccessToken::principal).
    pub fn authorized(mut self, token: Arc<AccessToken>) -> Self {
        self.caller.authorize(token);
        self
    }

    /// The HTTP headers that mirror a message to `connection`, which admission checks: those of
    /// a stateless-era message (a batch is of the handshake era, and has none).
    fn mirrored(&self, connection: &ConnectionState) -> Option<&dyn RequestHeaders> {
        match &self.caller.http {
            Some(request) if !connection.version().era().keeps_state() => Some(request),
            _ => None,
        }
    }
}

impl std::fmt::Debug for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Envelope")
            .field("http", &self.caller.http.is_some())
            .field("principal", &self.caller.principal())
            .finish()
    }
}

/// The era of a message that came over HTTP with `headers` (the "dual-era" server of the
/// 2026-07-28 versioning page): one that names a session, or that carries neither a
/// stateless-era `MCP-Protocol-Version` header nor a protocol version in its `_meta`, is of the
/// handshake era; any other is of the stateless era, served on its own. `named` is the revision
/// the `MCP-Protocol-Version` header names, as the transport read it; `message` is `None` for a
/// GET or a DELETE.
#[cfg(feature = "http-handler")]
pub(crate) fn era_over_http(
    headers: &dyn RequestHeaders,
    named: Option<ProtocolVersion>,
    message: Option<&Incoming>,
) -> Era {
    if headers::text(headers, headers::SESSION_HEADER).is_some() {
        return Era::Handshake;
    }
    if named.is_some_and(|v| v.era() == Era::Stateless) {
        return Era::Stateless;
    }
    let params = match message {
        Some(Incoming::Message(JsonRpcMessage::Request(request))) => {
            request.request.params.as_ref()
        }
        Some(Incoming::Message(JsonRpcMessage::Notification(notification))) => {
            notification.notification.params.as_ref()
        }
        _ => None,
    };
    match StatelessMeta::of(params).is_stateless() {
        true => Era::Stateless,
        false => Era::Handshake,
    }
}

/// One answer owed for what was admitted: ready now, or the work of a started request.
pub enum Answer {
    /// An answer the server owes now (an invalid entry, a request refused before its handler).
    Ready(Box<Reply>),
    /// A started request, whose handler runs when this is polled.
    Running(Running),
}

/// The answers of an admission, without a vector for the usual single one.
enum Answers {
    None,
    One(Answer),
    Many(Vec<Answer>),
}

impl Answers {
    fn push(&mut self, answer: Answer) {
        *self = match std::mem::replace(self, Answers::None) {
            Answers::None => Answers::One(answer),
            Answers::One(first) => Answers::Many(vec![first, answer]),
            Answers::Many(mut all) => {
                all.push(answer);
                Answers::Many(all)
            }
        };
    }

    fn len(&self) -> usize {
        match self {
            Answers::None => 0,
            Answers::One(_) => 1,
            Answers::Many(all) => all.len(),
        }
    }
}

/// What the server made of a received message: a refusal of the whole of it, or the answers it
/// owes, in the order the message's entries came (iterate over it).
#[must_use = "the requests of an admission run only when its work is polled"]
pub struct Admission {
    /// Whether the one answer is the refusal of the whole message.
    refused: bool,
    /// The scopes the message needs, when it was refused for the token's lack of them.
    insufficient_scope: Option<Vec<String>>,
    batch: bool,
    answers: Answers,
}

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admission")
            .field("refusal", &self.refusal())
            .field("batch", &self.batch)
            .field("answers", &self.answers.len())
            .finish()
    }
}

impl Admission {
    fn new(batch: bool) -> Self {
        Admission {
            refused: false,
            insufficient_scope: None,
            batch,
            answers: Answers::None,
        }
    }

    fn refused(reply: Box<Reply>) -> Self {
        Admission {
            refused: true,
            insufficient_scope: None,
            batch: false,
            answers: Answers::One(Answer::Ready(reply)),
        }
    }

    /// The refusal of the whole message (a batch the peer may not send; a 2026-07-28 message whose
    /// HTTP headers or `_meta` the server refuses), which is then its only answer.
    pub fn refusal(&self) -> Option<&Reply> {
        match &self.answers {
            Answers::One(Answer::Ready(reply)) if self.refused => Some(reply),
            _ => None,
        }
    }

    /// The scopes the message needs when the caller's access token lacks some of them: the
    /// message was refused as a whole ([`refusal`](Self::refusal) says why), and HTTP answers
    /// it with `403 Forbidden` and an `insufficient_scope` challenge naming these scopes.
    pub fn insufficient_scope(&self) -> Option<&[String]> {
        self.insufficient_scope.as_deref()
    }

    /// Whether the message was a batch, whose answers go in one array.
    pub fn is_batch(&self) -> bool {
        self.batch
    }

    /// Whether nothing is owed: the message held only notifications and responses.
    pub fn is_empty(&self) -> bool {
        matches!(self.answers, Answers::None)
    }

    /// Runs the started requests (concurrently) and returns every answer, in the order the
    /// requests came; a cancelled request has none.
    pub async fn replies(self) -> Vec<Reply> {
        join_all(self.into_iter().map(Answer::into_reply))
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Runs the started requests and returns the text of the answer: one reply, or the array of a
    /// batch; `None` when nothing is owed.
    pub async fn finish(self) -> Option<String> {
        if !self.batch
            && let Answers::One(answer) = self.answers
        {
            // The usual case, without the machinery of a batch.
            return answer.into_reply().await.map(|reply| reply.render());
        }
        let batch = self.batch;
        let replies = self.replies().await;
        match (batch, replies.as_slice()) {
            (_, []) => None,
            (false, [reply]) => Some(reply.render()),
            _ => Some(render_batch(&replies)),
        }
    }
}

impl Answer {
    /// The reply: the one ready, or the started request's once it finishes (none when it was
    /// cancelled).
    pub async fn into_reply(self) -> Option<Reply> {
        match self {
            Answer::Ready(reply) => Some(*reply),
            Answer::Running(work) => work.await,
        }
    }
}

/// The answers of an admission (the refusal, if it is one), in order.
impl IntoIterator for Admission {
    type Item = Answer;
    type IntoIter = AnswerIter;

    fn into_iter(self) -> AnswerIter {
        let (first, rest) = match self.answers {
            Answers::None => (None, Vec::new()),
            Answers::One(answer) => (Some(answer), Vec::new()),
            Answers::Many(all) => (None, all),
        };
        AnswerIter {
            first,
            rest: rest.into_iter(),
        }
    }
}

/// The answers of an [`Admission`], in order.
pub struct AnswerIter {
    first: Option<Answer>,
    rest: std::vec::IntoIter<Answer>,
}

impl Iterator for AnswerIter {
    type Item = Answer;

    fn next(&mut self) -> Option<Answer> {
        self.first.take().or_else(|| self.rest.next())
    }
}

/// Admits `incoming` from the peer of `connection` (see the module docs).
pub(super) fn admit(
    server: &McpServer,
    incoming: Incoming,
    connection: &Arc<ConnectionState>,
    sink: Option<SharedSink>,
    envelope: Envelope,
) -> Admission {
    let outcome = match incoming {
        // The usual message, straight to its request's admission.
        Incoming::Message(JsonRpcMessage::Request(request)) => {
            admit_request(server, request, connection, sink, &envelope, false).map(Some)
        }
        Incoming::Message(message) => admit_other(server, message, connection, &envelope),
        Incoming::Batch(entries) => {
            return admit_batch(server, entries, connection, sink, &envelope);
        }
        _ => Ok(None),
    };
    match outcome {
        Ok(Some(admitted)) => {
            let admitted = [admitted];
            if let Some(denied) = denied(&admitted, &envelope) {
                return forbidden(connection.version(), denied, &admitted);
            }
            let [admitted] = admitted;
            Admission {
                answers: Answers::One(admitted.into_answer()),
                ..Admission::new(false)
            }
        }
        Ok(None) => Admission::new(false),
        Err(refusal) => Admission::refused(refusal),
    }
}

/// A request admitted and not yet run, or the answer it got at once.
enum Admitted {
    Ready(Box<Reply>),
    Started(Started),
}

impl Admitted {
    fn into_answer(self) -> Answer {
        match self {
            Admitted::Ready(reply) => Answer::Ready(reply),
            Admitted::Started(started) => Answer::Running(started.run()),
        }
    }
}

/// Why `admitted` are refused as a whole: the scopes their targets need that the caller's token
/// lacks, if it has a token.
fn denied(admitted: &[Admitted], envelope: &Envelope) -> Option<authorization::Denied> {
    let token = envelope.caller.token()?;
    let started = admitted.iter().filter_map(|admitted| match admitted {
        Admitted::Started(started) => Some(started.request()),
        Admitted::Ready(_) => None,
    });
    authorization::check(started, token)
}

/// The refusal of a message whose requests need scopes the caller's token lacks.
/// The spans of the requests `admitted` say so too.
fn forbidden(
    version: ProtocolVersion,
    denied: authorization::Denied,
    admitted: &[Admitted],
) -> Admission {
    let one = denied.scopes.len() == 1;
    let error = ErrorObject::invalid_request(format!(
        "Forbidden: {} need{} the scope{} {}, and the access token was not granted {}",
        denied.targets.join(" and "),
        if denied.targets.len() == 1 { "s" } else { "" },
        if one { "" } else { "s" },
        joined(&denied.scopes),
        if one { "it" } else { "them all" },
    ));
    for admitted in admitted {
        if let Admitted::Started(started) = admitted {
            started.record_error(&error);
        }
    }
    Admission {
        insufficient_scope: Some(denied.scopes),
        ..Admission::refused(Box::new(Reply::error(version, None, error)))
    }
}

/// Admits a batch: refused as a whole unless the peer speaks 2025-03-26; each entry admitted in
/// order, an invalid one answered with its error, `initialize` refused.
fn admit_batch(
    server: &McpServer,
    entries: Vec<Result<JsonRpcMessage, EnvelopeError>>,
    connection: &Arc<ConnectionState>,
    sink: Option<SharedSink>,
    envelope: &Envelope,
) -> Admission {
    let version = connection.version();
    if !version.accepts_batches() {
        let error = ErrorObject::invalid_request(format!(
            "JSON-RPC batches are accepted only from peers speaking 2025-03-26 (this one speaks {version})"
        ));
        return Admission::refused(Box::new(Reply::error(version, None, error)));
    }
    let mut admitted = Vec::with_capacity(entries.len());
    // The entries share the envelope; none is checked against headers, as only a stateless-era
    // message is, and batches are of 2025-03-26.
    for entry in entries {
        let answer = match entry {
            Ok(JsonRpcMessage::Request(request)) => {
                admit_request(server, request, connection, sink.clone(), envelope, true).map(Some)
            }
            Ok(message) => admit_other(server, message, connection, envelope),
            Err(error) => {
                let error_object = ErrorObject::from(&error);
                let reply = Reply::error(version, error.id().cloned(), error_object);
                Ok(Some(Admitted::Ready(Box::new(reply))))
            }
        };
        match answer {
            Ok(Some(answer)) => admitted.push(answer),
            Ok(None) => {}
            // Only a message with mirrored headers is refused whole, and a batch has none.
            Err(refusal) => return Admission::refused(refusal),
        }
    }
    if let Some(denied) = denied(&admitted, envelope) {
        return forbidden(version, denied, &admitted);
    }
    let mut admission = Admission::new(true);
    for answer in admitted {
        admission.answers.push(answer.into_answer());
    }
    admission
}

/// Handles a notification or a response at once; nothing is owed for it, unless its mirrored
/// headers refuse it.
fn admit_other(
    server: &McpServer,
    message: JsonRpcMessage,
    connection: &Arc<ConnectionState>,
    envelope: &Envelope,
) -> Result<Option<Admitted>, Box<Reply>> {
    match message {
        JsonRpcMessage::Notification(notification) => {
            if let Some(headers) = envelope.mirrored(connection) {
                let method = &notification.notification.method;
                if let Err(mismatch) = headers::check_standard(headers, method, None) {
                    let error = mismatch.into();
                    let reply = Reply::error(ProtocolVersion::V2026_07_28, None, error);
                    return Err(Box::new(reply));
                }
            }
            lifecycle::notification(server, notification, connection);
        }
        JsonRpcMessage::Response(response) => {
            let id = response.id;
            if !connection.resolve(&id, Ok(response.result)) {
                tracing::debug!(%id, "a response matches no request of ours");
            }
        }
        JsonRpcMessage::Error(error) => match &error.id {
            Some(id) if connection.resolve(id, Err(error.error.clone())) => {}
            _ => tracing::debug!(?error, "the client sent an error that matches no request"),
        },
        _ => {}
    }
    Ok(None)
}

/// Admits a request: its revision checked (and its mirrored headers, when it has them), then
/// started; `batched` when it came in a batch.
fn admit_request(
    server: &McpServer,
    request: JsonRpcRequest,
    connection: &Arc<ConnectionState>,
    sink: Option<SharedSink>,
    envelope: &Envelope,
    batched: bool,
) -> Result<Admitted, Box<Reply>> {
    let ready =
        |version, id, error| Ok(Admitted::Ready(Box::new(Reply::error(version, id, error))));
    if batched && request.request.method == "initialize" {
        let error = ErrorObject::invalid_request("initialize must not be part of a batch");
        return ready(connection.version(), Some(request.id), error);
    }
    let (revision, decoded) = match envelope.mirrored(connection) {
        Some(headers) => match check_mirrored(server, headers, &request) {
            Ok(checked) => checked,
            Err(error) => {
                let id = Some(request.id);
                return Err(Box::new(Reply::error(
                    ProtocolVersion::V2026_07_28,
                    id,
                    error,
                )));
            }
        },
        None => {
            let call = &request.request;
            match revision_of(server, &call.method, call.params.as_ref(), connection) {
                Ok(revision) => (revision, None),
                Err(error) => return ready(ProtocolVersion::V2026_07_28, Some(request.id), error),
            }
        }
    };
    let started = match dispatch::start(
        server,
        request,
        decoded,
        connection,
        sink,
        revision,
        &envelope.caller,
    ) {
        Ok(started) => started,
        Err(reply) => return Ok(Admitted::Ready(reply)),
    };
    if let Some(headers) = envelope.mirrored(connection)
        && let (ClientRequest::CallTool(params), Some(tool)) = (
            started.request().params(),
            started.request().target().tool_registration(),
        )
        && !tool.header_params.is_empty()
    {
        // The `Mcp-Param-*` headers, last, against the arguments (SEP-2243).
        if let Err(mismatch) =
            headers::check_params(headers, &tool.header_params, params.arguments.as_ref())
        {
            let id = Some(started.request().context().request_id().clone());
            let error = mismatch.into();
            started.record_error(&error);
            return Err(Box::new(Reply::error(revision, id, error)));
        }
    }
    Ok(Admitted::Started(started))
}

/// Admits wire text: a message that is not JSON gets a parse error (`-32700`) and an invalid one
/// an invalid-request error (`-32600`), rendered for the connection's revision.
pub(super) fn admit_text(
    server: &McpServer,
    text: &[u8],
    connection: &Arc<ConnectionState>,
    sink: Option<SharedSink>,
) -> Admission {
    match jsonrpc::parse(text) {
        Ok(incoming) => admit(server, incoming, connection, sink, Envelope::bare()),
        Err(error) => Admission::refused(Box::new(Reply::error(
            connection.version(),
            error.id().cloned(),
            ErrorObject::from(&error),
        ))),
    }
}

/// Whether a request follows the 2026-07-28 rules, and the revision it is answered in; the error
/// of a 2026-07-28 request whose `_meta` or method that revision refuses.
fn revision_of(
    server: &McpServer,
    method: &str,
    params: Option<&Params>,
    connection: &ConnectionState,
) -> Result<ProtocolVersion, ErrorObject> {
    // A request whose `_meta` names its protocol version follows the 2026-07-28 rules, whatever
    // the connection (a stdio client of that revision sends no `initialize`).
    let meta = StatelessMeta::of(params);
    if meta.is_stateless() || connection.version().era() == Era::Stateless {
        let requested = meta.requested_version()?;
        let version = check_version_and_method(&requested, method, server.supported_versions())?;
        Ok(version)
    } else {
        Ok(connection.version())
    }
}

/// Checks a 2026-07-28 request against the HTTP headers that mirror it (see the module docs for
/// what and in which order); the revision it is answered in, and its params decoded when the
/// checks could read them from the decoded request.
fn check_mirrored(
    server: &McpServer,
    mirrored: &dyn RequestHeaders,
    request: &JsonRpcRequest,
) -> Result<(ProtocolVersion, Option<Decoded>), ErrorObject> {
    let (method, params) = (&request.request.method, request.request.params.as_ref());
    let Some(header) = headers::text(mirrored, headers::VERSION_HEADER) else {
        return Err(ErrorObject::header_mismatch(
            "Header mismatch: the MCP-Protocol-Version header is missing",
        ));
    };
    // The usual request: params of the method's type, whose `_meta` names the version and the
    // capabilities. Its checks read the decoded request, which the dispatcher then uses, so that
    // the params are read once. Anything else (params that do not decode, a `_meta` lacking a
    // member) is checked from the text, which tells each fault as the revision says.
    if let Ok(decoded) = Decoded::of(method, params)
        && let Some(meta) = decoded.meta()
        && let (Some(requested), Some(_)) = (&meta.protocol_version, &meta.client_capabilities)
    {
        let name = headers::name_of(decoded.request());
        let version = check_requested(server, mirrored, header, requested, method, name)?;
        return Ok((version, Some(decoded)));
    }
    // The member `Mcp-Name` names and `_meta`, in one reading of the params.
    let (name, meta) = match (params, headers::name_field(method)) {
        (None, _) => (None, None),
        (Some(params), Some(field)) => params
            .members([field, "_meta"])
            .map_or((None, None), |[name, meta]| (name, meta)),
        (Some(params), None) => (None, params.members(["_meta"]).and_then(|[meta]| meta)),
    };
    let name = name.and_then(|name| serde_json::from_str::<String>(name.get()).ok());
    let requested = StatelessMeta::in_member(meta).requested_version()?;
    let version = check_requested(
        server,
        mirrored,
        header,
        &requested,
        method,
        name.as_deref(),
    )?;
    Ok((version, None))
}

/// Checks the version `requested` in `_meta` against the `MCP-Protocol-Version` header's and
/// the revision's methods, then `Mcp-Method` and `Mcp-Name` against `method` and `name`.
fn check_requested(
    server: &McpServer,
    mirrored: &dyn RequestHeaders,
    header: &str,
    requested: &str,
    method: &str,
    name: Option<&str>,
) -> Result<ProtocolVersion, ErrorObject> {
    if requested != header {
        return Err(ErrorObject::header_mismatch(format!(
            "Header mismatch: MCP-Protocol-Version header value {header:?} does not match _meta value {requested:?}"
        )));
    }
    let version = check_version_and_method(requested, method, server.supported_versions())?;
    headers::check_standard(mirrored, method, name)?;
    Ok(version)
}
