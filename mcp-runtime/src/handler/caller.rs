//! Who is calling, and through what: the verified access token and the HTTP request.
//!
//! On the Streamable HTTP transport every MCP request reaches its handler with the HTTP request
//! that carried it ([`HttpRequest`]: method, URI, headers, and the `http::Extensions` that tower
//! layers set), and, when the server is an OAuth protected resource, with the caller's verified
//! [`AccessToken`]. Both are handler parameters:
//!
//! ```
//! use mcp_runtime::prelude::*;
//!
//! /// What a tower layer of the application found out about the caller.
//! #[derive(Clone)]
//! struct Tenant(String);
//!
//! /// Who am I?
//! #[mcp_tool]
//! async fn whoami(
//!     #[ctx] token: Option<AccessToken>,
//!     #[ctx] request: HttpRequest,
//!     #[ctx] HttpExtension(tenant): HttpExtension<Tenant>,
//! ) -> String {
//!     let agent = request.headers.get("user-agent").and_then(|v| v.to_str().ok());
//!     format!(
//!         "{} of {} with {}",
//!         token.as_ref().and_then(|t| t.subject()).unwrap_or("someone"),
//!         tenant.0,
//!         agent.unwrap_or("an unnamed client"),
//!     )
//! }
//! ```
//!
//! A parameter of type `HttpRequest` or `HttpExtension<T>` fails the request (with an error that
//! says why) when there is no HTTP request (stdio, in process) or no extension of that type; one of
//! type `AccessToken` fails when the request carries no verified token. Make it an `Option` to
//! take what there is.

use std::sync::Arc;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::headers::RequestHeaders;

use super::RequestContext;
use super::extract::FromRequestContext;
use crate::auth::{AccessToken, Principal};

/// What a transport knows of who sent a request: its verified access token and the HTTP request
/// that carried it.
#[derive(Clone, Default)]
pub(crate) struct Caller {
    token: Option<Arc<AccessToken>>,
    /// Who the token speaks for, decided once when the token is set.
    principal: Option<Principal>,
    pub(crate) http: Option<HttpRequest>,
}

impl Caller {
    /// The caller presented `token`.
    pub(crate) fn authorize(&mut self, token: Arc<AccessToken>) {
        self.principal = token.principal();
        self.token = Some(token);
    }

    /// The caller's verified access token, if it presented one.
    pub(crate) fn token(&self) -> Option<&AccessToken> {
        self.token.as_deref()
    }

    /// Who the caller's token speaks for (see [`AccessToken::principal`]): what its sessions,
    /// `requestState` and tasks are bound to.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }
}

/// The IP address of the client that sent a request, from the `ConnectInfo` that the accept loop
/// of [`Serve::serve_http`](crate::transport::Serve::serve_http) records among its extensions;
/// `None` when the router is served some other way (a function on a serverless platform, say,
/// whose platform names the client in headers of its own).
pub(crate) fn client_address(extensions: &http::Extensions) -> Option<std::net::IpAddr> {
    #[cfg(feature = "http")]
    {
        extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.ip())
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = extensions;
        None
    }
}

/// The HTTP request that carried an MCP request, without its body: method, URI, version,
/// headers, and the extensions that the tower layers around the transport's router set. Cheap to
/// clone; it dereferences to [`http::request::Parts`].
#[derive(Clone)]
pub struct HttpRequest(Arc<http::request::Parts>);

impl HttpRequest {
    /// The request made of `parts`.
    pub fn new(parts: http::request::Parts) -> Self {
        HttpRequest(Arc::new(parts))
    }

    /// The IP address of the client that sent the request, as the accept loop of
    /// [`Serve::serve_http`](crate::transport::Serve::serve_http) records it (axum's
    /// `ConnectInfo`); `None` when the router is served some other way.
    pub fn client_address(&self) -> Option<std::net::IpAddr> {
        client_address(&self.0.extensions)
    }

    /// The extension of type `T` that a layer set, if any.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.0.extensions.get::<T>()
    }
}

/// Its headers, as [`mcp_runtime_core::headers`] reads them.
impl RequestHeaders for HttpRequest {
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.0.headers.get(name).map(http::HeaderValue::as_bytes)
    }
}

impl std::ops::Deref for HttpRequest {
    type Target = http::request::Parts;

    fn deref(&self) -> &http::request::Parts {
        &self.0
    }
}

/// Names the headers without their values: they may carry credentials.
impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.0.method)
            .field("uri", &self.0.uri.path())
            .field("headers", &self.0.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The caller's verified access token; fails when the request carries none.
impl FromRequestContext for AccessToken {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        ctx.access_token().cloned().ok_or_else(|| {
            ErrorObject::internal_error(
                "this handler takes the caller's access token, and the request carries none: serve \
                 the server over HTTP with authorization (HttpOptions::authorization), or take an \
                 `Option<AccessToken>`",
            )
        })
    }
}

/// The HTTP request; fails when the request did not come over HTTP.
impl FromRequestContext for HttpRequest {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        ctx.http_request().cloned().ok_or_else(|| {
            ErrorObject::internal_error(
                "this handler takes the HTTP request, and the request did not come over HTTP (take \
                 an `Option<HttpRequest>` to serve other transports too)",
            )
        })
    }
}

/// An extension of type `T` on the HTTP request, set by a tower layer of the application (an
/// authentication middleware, say): the handler-side end of `request.extensions_mut().insert(..)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HttpExtension<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromRequestContext for HttpExtension<T> {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        ctx.http_request()
            .and_then(|request| request.extension::<T>())
            .cloned()
            .map(HttpExtension)
            .ok_or_else(|| {
                ErrorObject::internal_error(format!(
                    "this handler takes an HTTP request extension of type `{}`, and the request \
                     has none: is the layer that sets it around the MCP router?",
                    std::any::type_name::<T>()
                ))
            })
    }
}

/// What there is: `None` where `T` would fail.
impl<T: FromRequestContext> FromRequestContext for Option<T> {
    fn from_context(ctx: &RequestContext) -> Result<Self, ErrorObject> {
        Ok(T::from_context(ctx).ok())
    }
}
