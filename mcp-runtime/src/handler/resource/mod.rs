//! Resources and resource templates: their definitions, what readers may return, and their errors.
//!
//! A direct resource has one URI; a template (RFC 6570, see [`uri_template`]) matches a
//! family of URIs and hands the reader the values of its variables. What a reader returns becomes
//! the contents of a `resources/read` result through [`IntoResourceContents`]: a `String` is text,
//! `Vec<u8>` is a binary blob, [`ResourceContents`] and `Vec<ResourceContents>` are themselves, and
//! `Result<T, E>` with `E: Into<ResourceError>` turns `Err` into a JSON-RPC error ("resource not
//! found" for [`ResourceError::not_found`], an internal error otherwise).
//!
//! The guide's chapter "Prompts and resources" (`docs/src/prompts-and-resources.md`) teaches it with examples.

pub mod uri_template;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use base64::Engine;
use mcp_runtime_core::content::Annotations;
use mcp_runtime_core::implementation::Icon;
use mcp_runtime_core::resources::{
    BlobResourceContents, Resource, ResourceContents, ResourceTemplate, TextResourceContents,
};
use mcp_runtime_core::{ErrorObject, JsonObject, ProtocolVersion};

use super::RequestContext;
use super::completion::Completer;
use super::extract::StateRequirement;
use mcp_runtime_core::result::CacheHint;
use uri_template::{UriMatch, UriTemplate, UriTemplateError};

/// The future a resource reader returns.
pub type ResourceFuture =
    Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send>>;

type DirectReader = dyn Fn(RequestContext) -> ResourceFuture + Send + Sync;
type TemplateReader = dyn Fn(String, UriMatch, RequestContext) -> ResourceFuture + Send + Sync;

/// A resource with a fixed URI.
#[derive(Clone)]
pub struct ResourceDefinition {
    pub(crate) resource: Resource,
    pub(crate) reader: Arc<DirectReader>,
    pub(crate) required_state: Vec<StateRequirement>,
    pub(crate) cache: CacheHint,
    pub(crate) scopes: Vec<String>,
}

impl fmt::Debug for ResourceDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDefinition")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl ResourceDefinition {
    /// The resource `name` at `uri`, read by `reader`.
    pub fn new<F, Fut, R>(uri: impl Into<String>, name: impl Into<String>, reader: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let resource = Resource::new(uri, name);
        let uri = resource.uri.clone();
        let reader: Arc<DirectReader> = Arc::new(move |ctx| {
            let future = reader(ctx);
            let uri = uri.clone();
            Box::pin(async move { future.await.into_contents(&uri) })
        });
        ResourceDefinition {
            resource,
            reader,
            required_state: Vec::new(),
            scopes: Vec::new(),
            cache: CacheHint::default(),
        }
    }

    /// An app's interface (MCP Apps): the HTML page `html` at the `ui://` URI `uri`, served as
    /// `text/html;profile=mcp-app`. Its sandbox (content security policy, permissions, border)
    /// is [`ui`](Self::ui)'s to say.
    ///
    /// ```
    /// use mcp_runtime::protocol::apps::{Csp, ResourceUi};
    /// use mcp_runtime::resource::ResourceDefinition;
    ///
    /// let mut ui = ResourceUi::default();
    /// ui.prefers_border = Some(true);
    /// let board = ResourceDefinition::app("ui://notes/board", "board", "<!DOCTYPE html><p>Notes</p>")
    ///     .ui(ui);
    /// assert_eq!(board.resource().mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    /// ```
    pub fn app(uri: impl Into<String>, name: impl Into<String>, html: impl Into<Arc<str>>) -> Self {
        let html: Arc<str> = html.into();
        ResourceDefinition::new(uri, name, move |_| {
            let html = html.clone();
            async move { html.to_string() }
        })
        .mime_type(mcp_runtime_core::apps::MIME_TYPE)
    }

    /// Sets how the host should sandbox and frame the interface this resource is (MCP Apps):
    /// `_meta.ui` of the listed resource, and of the contents a read returns (unless the reader
    /// set its own).
    pub fn ui(mut self, ui: mcp_runtime_core::apps::ResourceUi) -> Self {
        ui.write_to(self.resource.meta.get_or_insert_with(JsonObject::new));
        self
    }

    /// How the host should sandbox and frame this resource, if it is an app's interface.
    pub fn resource_ui(&self) -> Option<mcp_runtime_core::apps::ResourceUi> {
        self.resource.ui()
    }

    /// The resource as clients see it.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }

    /// Sets the display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// Sets the MIME type (also given to the contents a reader returns without one).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    /// How long a read of this resource may be reused, and by whom (`ttlMs` and `cacheScope` of
    /// `resources/read` on 2026-07-28; by default, not at all).
    pub fn cache(mut self, hint: CacheHint) -> Self {
        self.cache = hint;
        self
    }

    /// Sets the size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.resource.size = Some(size);
        self
    }

    /// Sets the annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.resource.annotations = Some(annotations);
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.resource.icons = Some(icons);
        self
    }

    /// The OAuth scopes a caller's access token must have been granted to read the resource (see
    /// [`ToolDefinition::scopes`](crate::tool::ToolDefinition::scopes)); subscribing to it and
    /// completing its arguments need them too.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = crate::auth::scope_list(scopes);
        self
    }

    /// The OAuth scopes reading needs ([`scopes`](Self::scopes)).
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Declares that the reader needs shared state of type `T`.
    pub fn requires_state<T: 'static>(mut self) -> Self {
        self.required_state.push(StateRequirement::of::<T>());
        self
    }
}

/// A family of resources whose URIs match a template.
#[derive(Clone)]
pub struct ResourceTemplateDefinition {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: Arc<UriTemplate>,
    pub(crate) reader: Arc<TemplateReader>,
    pub(crate) completers: HashMap<String, Completer>,
    pub(crate) required_state: Vec<StateRequirement>,
    pub(crate) cache: CacheHint,
    pub(crate) scopes: Vec<String>,
}

impl fmt::Debug for ResourceTemplateDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplateDefinition")
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplateDefinition {
    /// The template `name` for URIs matching `uri_template`; `reader` gets the URI read and the
    /// values of the template's variables.
    pub fn new<F, Fut, R>(
        uri_template: &str,
        name: impl Into<String>,
        reader: F,
    ) -> Result<Self, UriTemplateError>
    where
        F: Fn(String, UriMatch, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let matcher = Arc::new(UriTemplate::parse(uri_template)?);
        let reader: Arc<TemplateReader> = Arc::new(move |uri, captured, ctx| {
            let future = reader(uri.clone(), captured, ctx);
            Box::pin(async move { future.await.into_contents(&uri) })
        });
        Ok(ResourceTemplateDefinition {
            template: ResourceTemplate::new(uri_template, name),
            matcher,
            reader,
            completers: HashMap::new(),
            required_state: Vec::new(),
            scopes: Vec::new(),
            cache: CacheHint::default(),
        })
    }

    /// The template as clients see it.
    pub fn template(&self) -> &ResourceTemplate {
        &self.template
    }

    /// Sets the display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.template.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// Sets the MIME type of every matching resource.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }

    /// How long a read of this resource may be reused, and by whom (`ttlMs` and `cacheScope` of
    /// `resources/read` on 2026-07-28; by default, not at all).
    pub fn cache(mut self, hint: CacheHint) -> Self {
        self.cache = hint;
        self
    }

    /// Sets the annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.template.annotations = Some(annotations);
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.template.icons = Some(icons);
        self
    }

    /// The OAuth scopes a caller's access token must have been granted to read the resources of the template (see
    /// [`ToolDefinition::scopes`](crate::tool::ToolDefinition::scopes)); subscribing to it and
    /// completing its arguments need them too.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = crate::auth::scope_list(scopes);
        self
    }

    /// The OAuth scopes reading needs ([`scopes`](Self::scopes)).
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Attaches a completer to the template variable `name`.
    pub fn complete_variable(mut self, name: impl Into<String>, completer: Completer) -> Self {
        self.completers.insert(name.into(), completer);
        self
    }

    /// Declares that the reader needs shared state of type `T`.
    pub fn requires_state<T: 'static>(mut self) -> Self {
        self.required_state.push(StateRequirement::of::<T>());
        self
    }
}

/// A resource could not be read: the reader's `Err`, sent to the client as a JSON-RPC error
/// whose code depends on the kind (see [`to_error_object`](Self::to_error_object)). Any error
/// type converts into it with `?` (as [`new`](Self::new)).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::protocol::ProtocolVersion;
///
/// /// One note, as Markdown.
/// #[mcp_resource(uri = "notes://{id}", mime_type = "text/markdown")]
/// async fn note(id: String) -> Result<String, ResourceError> {
///     let id: u32 = id
///         .parse()
///         .map_err(|_| ResourceError::invalid_uri(format!("{id} is not a note id: use a number")))?;
///     match id {
///         1 => Ok("# Shopping".to_owned()),
///         _ => Err(ResourceError::not_found()),
///     }
/// }
/// # let _ = McpServer::from_module(server_info!(), module_path!()).build().unwrap();
///
/// let missing = ResourceError::not_found().to_error_object("notes://7", ProtocolVersion::V2025_11_25);
/// assert_eq!((missing.code.0, missing.message.as_str()), (-32002, "Resource not found: notes://7"));
/// let bad = ResourceError::invalid_uri("x is not a note id").to_error_object("notes://x", ProtocolVersion::V2025_11_25);
/// assert_eq!((bad.code.0, bad.message.as_str()), (-32602, "x is not a note id"));
/// let failed = ResourceError::new("the disk is full").to_error_object("notes://1", ProtocolVersion::V2025_11_25);
/// assert_eq!((failed.code.0, failed.message.as_str()), (-32603, "the disk is full"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ResourceError {
    kind: ResourceErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ResourceErrorKind {
    NotFound,
    InvalidUri(String),
    Failed(String),
    Answered(ErrorObject),
}

impl ResourceError {
    /// The resource does not exist (`-32002` up to 2025-11-25, `-32602` after).
    pub fn not_found() -> Self {
        ResourceError {
            kind: ResourceErrorKind::NotFound,
        }
    }

    /// Reading failed for the reason `message` (an internal error).
    pub fn new(message: impl Into<String>) -> Self {
        ResourceError {
            kind: ResourceErrorKind::Failed(message.into()),
        }
    }

    /// The URI does not fit the resource: `message` says how (invalid params).
    pub fn invalid_uri(message: impl Into<String>) -> Self {
        ResourceError {
            kind: ResourceErrorKind::InvalidUri(message.into()),
        }
    }

    /// Reading is answered with `error` as it is (a gateway's: the error of the server it read
    /// from).
    pub fn answered(error: ErrorObject) -> Self {
        ResourceError {
            kind: ResourceErrorKind::Answered(error),
        }
    }

    /// Whether the resource was not found.
    pub fn is_not_found(&self) -> bool {
        self.kind == ResourceErrorKind::NotFound
    }

    /// The JSON-RPC error for reading `uri` at `version`.
    pub fn to_error_object(&self, uri: &str, version: ProtocolVersion) -> ErrorObject {
        match &self.kind {
            ResourceErrorKind::NotFound => ErrorObject::resource_not_found(uri, version),
            ResourceErrorKind::InvalidUri(message) => ErrorObject::invalid_params(message.clone()),
            ResourceErrorKind::Failed(message) => ErrorObject::internal_error(message.clone()),
            ResourceErrorKind::Answered(error) => error.clone(),
        }
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ResourceErrorKind::NotFound => f.write_str("resource not found"),
            ResourceErrorKind::InvalidUri(message) | ResourceErrorKind::Failed(message) => {
                f.write_str(message)
            }
            ResourceErrorKind::Answered(error) => f.write_str(&error.message),
        }
    }
}

impl fmt::Debug for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResourceError({self})")
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ResourceError {
    fn from(error: E) -> Self {
        ResourceError::new(error.to_string())
    }
}

/// What a resource reader may return.
#[diagnostic::on_unimplemented(
    message = "a resource cannot be read as `{Self}`",
    label = "not resource contents",
    note = "return text (`String`), bytes (`Vec<u8>`), `ResourceContents`, a `Vec` of them, or \
            a `Result` of one of these with `ResourceError` (or any error that converts into it)"
)]
pub trait IntoResourceContents {
    /// The contents of the resource at `uri`.
    fn into_contents(self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError>;
}

impl IntoResourceContents for String {
    fn into_contents(self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::Text(TextResourceContents::new(
            uri, self,
        ))])
    }
}

impl IntoResourceContents for &str {
    fn into_contents(self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_owned().into_contents(uri)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_contents(self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        let blob = base64::engine::general_purpose::STANDARD.encode(self);
        Ok(vec![ResourceContents::Blob(BlobResourceContents::new(
            uri, blob,
        ))])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_contents(self, _uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_contents(self, _uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self)
    }
}

impl<T: IntoResourceContents, E: Into<ResourceError>> IntoResourceContents for Result<T, E> {
    fn into_contents(self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        self.map_err(Into::into)?.into_contents(uri)
    }
}

/// Fills in the MIME type of contents that have none.
pub(crate) fn default_mime_type(contents: &mut [ResourceContents], mime_type: Option<&str>) {
    let Some(mime_type) = mime_type else {
        return;
    };
    for_each_content(contents, |slot, _| {
        slot.get_or_insert_with(|| mime_type.to_owned());
    });
}

/// Gives each of `contents` without UI metadata (MCP Apps) `ui`, the `_meta.ui` of its listed
/// resource: the host reads how to sandbox an interface from the contents it renders.
pub(crate) fn default_ui(contents: &mut [ResourceContents], ui: Option<&serde_json::Value>) {
    let Some(ui) = ui else {
        return;
    };
    for_each_content(contents, |_, meta| {
        meta.get_or_insert_with(JsonObject::new)
            .entry(mcp_runtime_core::apps::META_KEY)
            .or_insert_with(|| ui.clone());
    });
}

/// Calls `fill` with the MIME type and the `_meta` of each of `contents`.
fn for_each_content(
    contents: &mut [ResourceContents],
    mut fill: impl FnMut(&mut Option<String>, &mut Option<JsonObject>),
) {
    for content in contents {
        match content {
            ResourceContents::Text(t) => fill(&mut t.mime_type, &mut t.meta),
            ResourceContents::Blob(b) => fill(&mut b.mime_type, &mut b.meta),
            _ => continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_return_text_or_blobs() {
        let text = "hello".into_contents("file:///a").unwrap();
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            serde_json::json!([{"uri": "file:///a", "text": "hello"}])
        );
        let mut blob = vec![0u8, 255].into_contents("file:///b").unwrap();
        default_mime_type(&mut blob, Some("application/octet-stream"));
        assert_eq!(
            serde_json::to_value(&blob).unwrap(),
            serde_json::json!([{"uri": "file:///b", "blob": "AP8=",
                                "mimeType": "application/octet-stream"}])
        );
        let missing: Result<String, ResourceError> = Err(ResourceError::not_found());
        let err = missing.into_contents("file:///c").unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(
            err.to_error_object("file:///c", ProtocolVersion::V2025_06_18)
                .code
                .0,
            -32002
        );
        let io: Result<String, std::io::Error> = Err(std::io::Error::other("disk"));
        assert_eq!(
            io.into_contents("file:///d")
                .unwrap_err()
                .to_error_object("file:///d", ProtocolVersion::V2025_06_18)
                .code
                .0,
            -32603
        );
    }
}
