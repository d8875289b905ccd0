//! The extractors of the MCP endpoint: each checks one thing about a request before its handler
//! runs, and rejects it with the HTTP status the transport's rules give.
//!
//! | extractor | checks | rejection |
//! |---|---|---|
//! | [`AllowedHost`] | `Host` and `Origin`, by the [`HostPolicy`](crate::auth::HostPolicy) | 403 |
//! | [`Authorized`] | the bearer token and the scopes the server requires, by the [`ResourceServer`](crate::auth::ResourceServer) (when there is one) | 401, 403, 503 |
//! | [`AcceptsPost`], [`AcceptsStream`] | `Accept` | 406 |
//! | [`JsonRpcPost`] | `Content-Type` is JSON, the body fits the limit, arrives in time (and without stalling while others need the memory it holds), fits in the memory budget's share for bodies being read, and is JSON-RPC | 415, 413, 408, 503, 400 |

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, OriginalUri, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use mcp_runtime_core::jsonrpc::{self, Incoming};
use mcp_runtime_core::{ErrorObject, ProtocolVersion};

use tokio::sync::OwnedSemaphorePermit;

use super::HttpState;
use super::bodies::{BodyError, MEMORY_WAIT};
use super::headers::{accepted, header_str, header_version};
use super::response::{error_reply, refuse, retry_after};
use crate::auth::resource_server::Refusal;
use crate::auth::{AccessToken, Principal, ResourceServer};
use crate::server::Reply;
use crate::server::authorization::declared_scopes;

/// A request whose `Host` and `Origin` the server answers to.
pub(crate) struct AllowedHost;

impl FromRequestParts<Arc<HttpState>> for AllowedHost {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        http: &Arc<HttpState>,
    ) -> Result<Self, Response> {
        match http.options.policy().check(&parts.headers) {
            Ok(()) => Ok(AllowedHost),
            Err((status, message)) => Err(refuse(status, message)),
        }
    }
}

/// The caller's verified access token when the transport has authorization (`None` without),
/// and who it speaks for ([`AccessToken::principal`]), which the caller's session is bound to.
pub(crate) struct Authorized {
    pub(crate) token: Option<Arc<AccessToken>>,
    pub(crate) principal: Option<Principal>,
}

impl FromRequestParts<Arc<HttpState>> for Authorized {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        http: &Arc<HttpState>,
    ) -> Result<Self, Response> {
        let Some(authorization) = &http.options.authorization else {
            return Ok(Authorized {
                token: None,
                principal: None,
            });
        };
        match authorization.authenticate(parts).await {
            Ok(token) => Ok(Authorized {
                principal: token.principal(),
                token: Some(Arc::new(token)),
            }),
            Err(refusal) => Err(unauthorized(http, authorization, &refusal)),
        }
    }
}

/// The response to a request whose credentials `authorization` refused.
pub(crate) fn unauthorized(
    http: &HttpState,
    authorization: &ResourceServer,
    refusal: &Refusal,
) -> Response {
    if let Refusal::Unavailable(reason) = refusal {
        tracing::warn!(%reason, "an access token could not be verified");
    } else {
        tracing::debug!(?refusal, "refused a request's credentials");
    }
    let declared = || declared_scopes(&http.server);
    let (status, challenge, message) = authorization.challenge(refusal, declared);
    challenged(refuse(status, message), challenge)
}

/// The `403` of a message the server refused because the caller's token lacks `scopes`, which
/// its requests need: `refusal` (the server's error, which names what was called) with the
/// `insufficient_scope` challenge naming those scopes and the ones the server requires.
pub(crate) fn insufficient_scope(
    authorization: &ResourceServer,
    scopes: &[String],
    refusal: &Reply,
) -> Response {
    let refused = Refusal::InsufficientScope(authorization.needed_with_required(scopes));
    let (status, challenge, _) = authorization.challenge(&refused, Vec::new);
    challenged(error_reply(status, refusal), challenge)
}

/// `response` with the header of a refusal (`WWW-Authenticate`, or `Retry-After`).
fn challenged(mut response: Response, challenge: Option<(HeaderName, HeaderValue)>) -> Response {
    if let Some((name, value)) = challenge {
        response.headers_mut().insert(name, value);
    }
    response
}

/// A POST whose client accepts both answers the endpoint may give: JSON and an SSE stream.
pub(crate) struct AcceptsPost;

impl<S: Send + Sync> FromRequestParts<S> for AcceptsPost {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Response> {
        let accepted = accepted(&parts.headers);
        if accepted.json && accepted.event_stream {
            return Ok(AcceptsPost);
        }
        Err(refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        ))
    }
}

/// A GET whose client accepts an SSE stream.
pub(crate) struct AcceptsStream;

impl<S: Send + Sync> FromRequestParts<S> for AcceptsStream {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Response> {
        if accepted(&parts.headers).event_stream {
            return Ok(AcceptsStream);
        }
        Err(refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: the client must accept text/event-stream",
        ))
    }
}

/// A POST's JSON-RPC body, parsed, with the rest of the request (its headers, its extensions).
pub(crate) struct JsonRpcPost {
    pub(crate) parts: Parts,
    pub(crate) incoming: Incoming,
}

impl FromRequest<Arc<HttpState>> for JsonRpcPost {
    type Rejection = Response;

    async fn from_request(request: Request, http: &Arc<HttpState>) -> Result<Self, Response> {
        let (mut parts, body) = request.into_parts();
        // Nested in an application, the router sees the path below its mount point; handlers
        // get the one the client sent.
        if let Some(OriginalUri(uri)) = parts.extensions.get::<OriginalUri>() {
            parts.uri = uri.clone();
        }
        let (body, _held) = json_body(http, &parts.headers, body).await?;
        match jsonrpc::parse(&body) {
            Ok(incoming) => Ok(JsonRpcPost { parts, incoming }),
            Err(error) => {
                // Before any session is found, the revision is the one the header names.
                let version = header_version(&parts.headers)
                    .ok()
                    .flatten()
                    .unwrap_or(ProtocolVersion::V2025_03_26);
                let reply = Reply::error(version, error.id().cloned(), ErrorObject::from(&error));
                Err(error_reply(StatusCode::BAD_REQUEST, &reply))
            }
        }
    }
}

/// The body of a POST that must be JSON: its `Content-Type` checked (415), then read within the
/// body limit (413), the read deadline (408) and the memory budget's share for bodies (503, or
/// 408 for a read that stalled while others waited). The bytes, and the permits they hold until
/// dropped.
pub(crate) async fn json_body(
    http: &HttpState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Response> {
    let json_body = header_str(headers, header::CONTENT_TYPE.as_str()).is_some_and(|ct| {
        ct.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("application/json")
    });
    if !json_body {
        return Err(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    let limit = http.options.body_limit;
    // The deadline's timer is armed only when the body is not all there at once.
    let deadline = http.options.body_read_timeout;
    let read = http.bodies.read(body, limit);
    match crate::rt::timeout(deadline, read).await {
        Ok(Ok(read)) => Ok(read),
        Err(_) => Err(refuse(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "Request Timeout: the body did not arrive within {} s",
                deadline.as_secs_f64()
            ),
        )),
        Ok(Err(BodyError::TooLarge)) => Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload Too Large: the body exceeds the limit of {limit} bytes"),
        )),
        Ok(Err(BodyError::NoMemory)) => Err(retry_after(
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: the server is reading as many request bodies as its \
                     memory budget allows; retry in a second",
            ),
            MEMORY_WAIT,
        )),
        Ok(Err(BodyError::Stalled)) => Err(refuse(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the body stopped coming while other requests needed the \
                 memory it held; send it again, whole",
        )),
        Ok(Err(BodyError::Broken)) => Err(refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the body could not be read",
        )),
    }
}
