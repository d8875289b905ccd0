//! OpenTelemetry export (cargo feature `otel`): the spans of every MCP operation (see the
//! runtime's `mcp::server`, `mcp::client` and `mcp::http` targets) and the four duration metrics
//! of the OpenTelemetry conventions for MCP, sent over OTLP/HTTP to the collector or backend
//! that the standard `OTEL_*` variables name, or that [`TelemetryBuilder`] sets.
//!
//! ```no_run
//! use mcp_runtime::telemetry::Telemetry;
//! use tracing_subscriber::layer::SubscriberExt;
//! use tracing_subscriber::util::SubscriberInitExt;
//!
//! # #[tokio::main] async fn main() {
//! // `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, ...; `None` when no endpoint is set.
//! let telemetry = Telemetry::from_env_if_configured().expect("the OTLP exporter starts");
//! tracing_subscriber::registry()
//!     .with(telemetry.as_ref().map(|t| t.layer()))
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .init();
//! // ... serve ...
//! if let Some(telemetry) = telemetry {
//!     telemetry.shutdown(); // sends what is still buffered
//! }
//! # }
//! ```
//!
//! With the feature on, trace context travels as SEP-414 says, in `params._meta`
//! (`traceparent`, `tracestate`, `baggage`): an [`McpClient`](crate::client::McpClient) puts its
//! span's context there (and in the `traceparent` header of its HTTP requests), the server
//! continues the trace it finds there, linking the HTTP request's own, and so does a client that
//! the server asks (elicitation, sampling, the roots). A tool that calls another server with an
//! `McpClient` continues the caller's trace without any code of its own.
//!
//! The metrics (histograms, in seconds, with the conventions' bucket boundaries):
//!
//! | metric | what | attributes |
//! |---|---|---|
//! | `mcp.server.operation.duration` | a request or notification the server handled | `mcp.method.name`, `mcp.protocol.version`, `network.transport`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `gen_ai.operation.name`, `error.type`, `rpc.response.status_code` |
//! | `mcp.client.operation.duration` | a request a client sent (the server's to its client too) | the same |
//! | `mcp.server.session.duration` | a session, from its start to its end | `mcp.protocol.version`, `network.transport`, `network.protocol.name` |
//! | `mcp.client.session.duration` | an `McpClient`'s session | the same |

use std::time::Instant;

use mcp_runtime_core::meta::{RequestMeta, TraceContext, keys};
use opentelemetry::global;
use opentelemetry::metrics::{Histogram, Meter, MeterProvider as _};
use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry::{Key, KeyValue, Value as OtelValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Span, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::layer::Identity;
use tracing_subscriber::registry::LookupSpan;

/// The methods that put attributes, events and links on a span as OpenTelemetry sees it:
/// `tracing::Span::current().set_attribute("notes.found", 3)` in a handler marks its request's
/// span.
pub use tracing_opentelemetry::OpenTelemetrySpanExt;

/// What could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An OTLP exporter could not be built (a malformed `OTEL_EXPORTER_OTLP_*` variable, say).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(String),
    /// `variable` asks for a protocol other than OTLP/HTTP (`grpc`, say), the one exported here.
    #[error(
        "{variable}={value}: spans and metrics are exported over OTLP/HTTP only; set it to \
         http/protobuf (or unset it) and point OTEL_EXPORTER_OTLP_ENDPOINT at the receiver's \
         HTTP port (4318 by default)"
    )]
    Protocol {
        /// The variable.
        variable: &'static str,
        /// What it says.
        value: String,
    },
}

/// Fails when a standard variable asks for an OTLP protocol other than OTLP/HTTP: the exporter
/// would send HTTP to a gRPC port, and every span would be lost quietly. `http/json` is taken,
/// and sent as protobuf, which every OTLP/HTTP receiver accepts.
fn check_protocol() -> Result<(), TelemetryError> {
    for variable in [
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    ] {
        if let Some(value) = env(variable)
            && !matches!(value.as_str(), "http/protobuf" | "http/json")
        {
            return Err(TelemetryError::Protocol { variable, value });
        }
    }
    Ok(())
}

/// The standard variable `name`, trimmed; `None` when unset or blank.
fn env(name: &str) -> Option<String> {
    let value = std::env::var(name).ok()?;
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// The providers that export spans and metrics; [`shutdown`](Self::shutdown) flushes them.
#[derive(Debug)]
pub struct Telemetry {
    /// `None` when `OTEL_TRACES_EXPORTER` is `none`.
    tracers: Option<SdkTracerProvider>,
    /// `None` when `OTEL_METRICS_EXPORTER` is `none`.
    meters: Option<SdkMeterProvider>,
}

/// Sets up [`Telemetry`] in code rather than from the environment: what is not set here comes
/// from the `OTEL_*` variables as [`Telemetry::from_env`] reads them.
#[derive(Debug, Default)]
#[must_use]
pub struct TelemetryBuilder {
    endpoint: Option<String>,
    service_name: Option<String>,
}

/// Whether the standard variable `name` (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`) turns
/// its signal off (`none`); any other value means OTLP, the only exporter here.
fn exporter_off(name: &str) -> bool {
    env(name).is_some_and(|v| v.eq_ignore_ascii_case("none"))
}

impl TelemetryBuilder {
    /// The base URL of the OTLP/HTTP receiver (`http://127.0.0.1:4318`): spans go to
    /// `/v1/traces` under it, metrics to `/v1/metrics`.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// The `service.name` the spans and metrics are reported under.
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = Some(name.into());
        self
    }

    /// Starts the exporters; see [`Telemetry::from_env`].
    pub fn build(self) -> Result<Telemetry, TelemetryError> {
        check_protocol()?;
        let mut resource = Resource::builder();
        if let Some(name) = self.service_name {
            resource = resource.with_service_name(name);
        }
        let resource = resource.build();
        let url = |path: &str| {
            self.endpoint
                .as_deref()
                .map(|base| format!("{}{path}", base.trim_end_matches('/')))
        };
        let exporter_error =
            |e: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter(e.to_string());
        let tracers = if exporter_off("OTEL_TRACES_EXPORTER") {
            None
        } else {
            let mut spans = opentelemetry_otlp::SpanExporter::builder().with_http();
            if let Some(url) = url("/v1/traces") {
                spans = opentelemetry_otlp::WithExportConfig::with_endpoint(spans, url);
            }
            let tracers = SdkTracerProvider::builder()
                .with_batch_exporter(spans.build().map_err(exporter_error)?)
                .with_resource(resource.clone())
                .build();
            global::set_tracer_provider(tracers.clone());
            Some(tracers)
        };
        let meters = if exporter_off("OTEL_METRICS_EXPORTER") {
            None
        } else {
            let mut metrics = opentelemetry_otlp::MetricExporter::builder().with_http();
            if let Some(url) = url("/v1/metrics") {
                metrics = opentelemetry_otlp::WithExportConfig::with_endpoint(metrics, url);
            }
            let meters = SdkMeterProvider::builder()
                .with_periodic_exporter(metrics.build().map_err(exporter_error)?)
                .with_resource(resource)
                .build();
            global::set_meter_provider(meters.clone());
            Some(meters)
        };
        // W3C Trace Context and Baggage, the formats SEP-414 carries in `_meta`.
        global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
        Ok(Telemetry { tracers, meters })
    }
}

impl Telemetry {
    /// A builder, to set the endpoint or the service's name in code.
    pub fn builder() -> TelemetryBuilder {
        TelemetryBuilder::default()
    }

    /// Exporters over OTLP/HTTP, configured by the standard `OTEL_*` variables
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT`, which defaults to `http://localhost:4318`, its per-signal
    /// forms such as `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`,
    /// `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_TRACES_EXPORTER` or `OTEL_METRICS_EXPORTER` set to
    /// `none` to export only the other signal, ...), and the service's resource
    /// (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`). The providers also become the global
    /// ones, and W3C Trace Context and Baggage the global propagators.
    pub fn from_env() -> Result<Telemetry, TelemetryError> {
        Telemetry::builder().build()
    }

    /// [`from_env`](Self::from_env) when the environment asks for export: an
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set and
    /// `OTEL_SDK_DISABLED` is not `true`; `None` otherwise. What a binary calls to export
    /// exactly when its operator configured it.
    pub fn from_env_if_configured() -> Result<Option<Telemetry>, TelemetryError> {
        let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let endpoint = env("OTEL_EXPORTER_OTLP_ENDPOINT")
            .or_else(|| env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
            .is_some();
        if disabled || !endpoint {
            return Ok(None);
        }
        Telemetry::from_env().map(Some)
    }

    /// The `tracing` layer that exports spans as OpenTelemetry spans and records the duration
    /// metrics from the runtime's spans.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        // A signal that is off is an `Identity`: one layer type whichever signals are on.
        let spans: Box<dyn Layer<S> + Send + Sync> = match &self.tracers {
            Some(tracers) => {
                Box::new(tracing_opentelemetry::layer().with_tracer(tracers.tracer("mcp-runtime")))
            }
            None => Box::new(Identity::new()),
        };
        let durations: Box<dyn Layer<S> + Send + Sync> = match &self.meters {
            Some(meters) => Box::new(Durations::new(&meters.meter("mcp-runtime"))),
            None => Box::new(Identity::new()),
        };
        spans.and_then(durations)
    }

    /// Sends what is still buffered and stops the exporters.
    pub fn shutdown(self) {
        if let Some(tracers) = self.tracers
            && let Err(error) = tracers.shutdown()
        {
            tracing::warn!(%error, "the span exporter did not shut down cleanly");
        }
        if let Some(meters) = self.meters
            && let Err(error) = meters.shutdown()
        {
            tracing::warn!(%error, "the metric exporter did not shut down cleanly");
        }
    }
}

/// The span and event names the duration metrics are taken from (see [`crate::spans`]).
mod names {
    pub(super) const SERVER_REQUEST: &str = "mcp.request";
    pub(super) const SERVER_NOTIFICATION: &str = "mcp.notification";
    pub(super) const CLIENT_REQUEST: &str = "mcp.client_request";
    pub(super) const ASKING_CLIENT: &str = "mcp.server_request";
    /// The field of the event that ends a session: its duration in seconds.
    pub(super) const SESSION_DURATION: &str = "mcp.session.duration";
    /// The field of that event that says whose session it was: `server` or `client`.
    pub(super) const SESSION_SIDE: &str = "mcp.session.side";
}

/// The attributes the conventions give the operation metrics (the spans carry more: ids and
/// URIs, whose cardinality a metric must not have).
const OPERATION_ATTRIBUTES: [&str; 8] = [
    "mcp.method.name",
    "mcp.protocol.version",
    "network.transport",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "error.type",
    "rpc.response.status_code",
];

/// The attributes of the session metrics.
const SESSION_ATTRIBUTES: [&str; 4] = [
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "error.type",
];

/// The bucket boundaries the conventions give every MCP duration, in seconds.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Records the duration metrics: an operation's when its span closes, a session's when the
/// event that ends it (fields `mcp.session.duration` and `mcp.session.side`) is emitted.
struct Durations {
    server_operations: Histogram<f64>,
    client_operations: Histogram<f64>,
    server_sessions: Histogram<f64>,
    client_sessions: Histogram<f64>,
}

impl Durations {
    fn new(meter: &Meter) -> Durations {
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(BOUNDARIES.to_vec())
                .build()
        };
        Durations {
            server_operations: histogram(
                "mcp.server.operation.duration",
                "The duration of an MCP request or notification as the server handled it",
            ),
            client_operations: histogram(
                "mcp.client.operation.duration",
                "The duration of an MCP request from its sending to its answer",
            ),
            server_sessions: histogram(
                "mcp.server.session.duration",
                "The duration of an MCP session as observed on the server",
            ),
            client_sessions: histogram(
                "mcp.client.session.duration",
                "The duration of an MCP session as observed on the client",
            ),
        }
    }
}

/// An operation being timed, kept in its span's extensions.
struct Operation {
    server: bool,
    started: Instant,
    attributes: Vec<KeyValue>,
}

/// Keeps the fields named in `wanted` as attributes, and, of a session's end, its duration and
/// side.
struct Fields<'a> {
    wanted: &'a [&'static str],
    attributes: &'a mut Vec<KeyValue>,
    /// `mcp.session.duration`, in seconds.
    duration: Option<f64>,
    /// `mcp.session.side`: whether the session was a server's.
    server_side: Option<bool>,
}

impl<'a> Fields<'a> {
    /// A visitor keeping the fields named in `wanted` into `attributes`.
    fn new(wanted: &'a [&'static str], attributes: &'a mut Vec<KeyValue>) -> Self {
        Fields {
            wanted,
            attributes,
            duration: None,
            server_side: None,
        }
    }
}

impl Fields<'_> {
    /// Keeps `field` when it is wanted, with the value `value` makes.
    fn keep(&mut self, field: &Field, value: impl FnOnce() -> OtelValue) {
        let Some(&name) = self.wanted.iter().find(|&&name| name == field.name()) else {
            return;
        };
        let value = value();
        match self
            .attributes
            .iter_mut()
            .find(|kv| kv.key.as_str() == name)
        {
            Some(existing) => existing.value = value,
            None => self
                .attributes
                .push(KeyValue::new(Key::from_static_str(name), value)),
        }
    }
}

/// `value` as a `'static` string when it is one the runtime records (a method, a revision, a
/// transport, ...): no copy to keep it. Tool and prompt names, and error codes, are copied.
fn interned(value: &str) -> Option<&'static str> {
    use mcp_runtime_core::messages::{ClientNotification, ClientRequest, ServerRequest};
    match value {
        "tcp" => Some("tcp"),
        "pipe" => Some("pipe"),
        "http" => Some("http"),
        "execute_tool" => Some("execute_tool"),
        "tool_error" => Some("tool_error"),
        _ => mcp_runtime_core::ProtocolVersion::from_name(value)
            .map(mcp_runtime_core::ProtocolVersion::as_str)
            .or_else(|| ClientRequest::static_method(value))
            .or_else(|| ServerRequest::static_method(value))
            .or_else(|| ClientNotification::static_method(value)),
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == names::SESSION_SIDE {
            self.server_side = Some(value == "server");
            return;
        }
        self.keep(field, || match interned(value) {
            Some(value) => OtelValue::from(value),
            None => OtelValue::from(value.to_owned()),
        });
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == names::SESSION_DURATION {
            self.duration = Some(value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.keep(field, || OtelValue::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.keep(field, || OtelValue::from(value as i64));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.keep(field, || OtelValue::from(format!("{value:?}")));
    }
}

impl<S> Layer<S> for Durations
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let server = match attrs.metadata().name() {
            names::SERVER_REQUEST | names::SERVER_NOTIFICATION => true,
            names::CLIENT_REQUEST | names::ASKING_CLIENT => false,
            _ => return,
        };
        let Some(span) = ctx.span(id) else { return };
        let mut operation = Operation {
            server,
            started: Instant::now(),
            attributes: Vec::with_capacity(OPERATION_ATTRIBUTES.len()),
        };
        attrs.record(&mut Fields::new(
            &OPERATION_ATTRIBUTES,
            &mut operation.attributes,
        ));
        span.extensions_mut().insert(operation);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if let Some(operation) = span.extensions_mut().get_mut::<Operation>() {
            values.record(&mut Fields::new(
                &OPERATION_ATTRIBUTES,
                &mut operation.attributes,
            ));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(operation) = span.extensions_mut().remove::<Operation>() else {
            return;
        };
        let seconds = operation.started.elapsed().as_secs_f64();
        let histogram = if operation.server {
            &self.server_operations
        } else {
            &self.client_operations
        };
        histogram.record(seconds, &operation.attributes);
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if event
            .metadata()
            .fields()
            .field(names::SESSION_DURATION)
            .is_none()
        {
            return;
        }
        let mut attributes = Vec::new();
        let mut fields = Fields::new(&SESSION_ATTRIBUTES, &mut attributes);
        event.record(&mut fields);
        let (Some(seconds), Some(server)) = (fields.duration, fields.server_side) else {
            return;
        };
        let histogram = if server {
            &self.server_sessions
        } else {
            &self.client_sessions
        };
        histogram.record(seconds, &attributes);
    }
}

/// Continues in `span` the trace that the environment variables `TRACEPARENT` and `TRACESTATE`
/// carry, as OpenTelemetry passes context to a process it starts (a CI job, a script): what a
/// command-line client calls on its root span, so that it shows in its caller's trace. Does
/// nothing without a valid `TRACEPARENT`.
pub fn continue_environment_trace(span: &Span) {
    let Ok(traceparent) = std::env::var("TRACEPARENT") else {
        return;
    };
    let mut trace = TraceContext::default();
    trace.traceparent = Some(traceparent);
    trace.tracestate = std::env::var("TRACESTATE").ok();
    continue_trace(span, &trace);
}

/// The trace context of a request's `_meta`, as a propagator reads it.
struct Reading<'a>(&'a TraceContext);

impl Extractor for Reading<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)
    }

    fn keys(&self) -> Vec<&str> {
        [keys::TRACEPARENT, keys::TRACESTATE, keys::BAGGAGE]
            .into_iter()
            .filter(|key| self.0.get(key).is_some())
            .collect()
    }
}

/// The trace context of a `_meta`, as a propagator writes it.
struct Writing<'a>(&'a mut TraceContext);

impl Injector for Writing<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.set(key, value);
    }
}

/// The context `carrier` carries, when it names a valid span.
fn extract(carrier: &dyn Extractor) -> Option<opentelemetry::Context> {
    let context = global::get_text_map_propagator(|p| p.extract(carrier));
    context.span().span_context().is_valid().then_some(context)
}

/// HTTP headers, as a propagator reads them.
#[cfg(feature = "http-handler")]
struct Headers<'a>(&'a http::HeaderMap);

#[cfg(feature = "http-handler")]
impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// Continues in `span`, the span of a request, the trace that its `_meta` carries (SEP-414), and
/// links the span current when it started (the HTTP request's, say): the conventions make the
/// sender's MCP span the parent, whatever the transport did.
pub(crate) fn continue_trace(span: &Span, trace: &TraceContext) {
    if span.is_disabled() || trace.traceparent.is_none() {
        return;
    }
    let Some(parent) = extract(&Reading(trace)) else {
        return;
    };
    let ambient = Span::current().context().span().span_context().clone();
    if let Err(error) = span.set_parent(parent) {
        tracing::debug!(%error, "the request's trace context could not be continued");
        return;
    }
    if ambient.is_valid() {
        span.add_link(ambient);
    }
}

/// Makes `parent` the parent of `span` as exported, whatever their relation in `tracing`.
pub(crate) fn continue_from(span: &Span, parent: &Span) {
    if span.is_disabled() || parent.is_disabled() {
        return;
    }
    if let Err(error) = span.set_parent(parent.context()) {
        tracing::debug!(%error, "a span's parent could not be set");
    }
}

/// Continues in `span`, the span of an HTTP request, the trace its `traceparent` header carries.
#[cfg(feature = "http-handler")]
pub(crate) fn continue_http_trace(span: &Span, headers: &http::HeaderMap) {
    if span.is_disabled() || !headers.contains_key("traceparent") {
        return;
    }
    if let Some(parent) = extract(&Headers(headers))
        && let Err(error) = span.set_parent(parent)
    {
        tracing::debug!(%error, "the HTTP request's trace context could not be continued");
    }
}

/// The trace context of `span`, as it goes into a `_meta`; `None` when no span is recorded.
fn trace_of(span: &Span) -> Option<TraceContext> {
    if span.is_disabled() {
        return None;
    }
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return None;
    }
    let mut trace = TraceContext::default();
    global::get_text_map_propagator(|p| p.inject_context(&context, &mut Writing(&mut trace)));
    (!trace.is_empty()).then_some(trace)
}

/// Puts the trace context of `span`, a request's, into the `_meta` of its `params` (SEP-414).
pub(crate) fn inject(span: &Span, params: &mut Value) {
    let Some(trace) = trace_of(span) else { return };
    let Ok(Value::Object(members)) = serde_json::to_value(&trace) else {
        return;
    };
    if let Value::Object(params) = params
        && let Value::Object(meta) = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()))
    {
        meta.extend(members);
    }
}

/// Puts the trace context of `span`, a request's, into its typed `_meta` (SEP-414).
pub(crate) fn inject_meta(span: &Span, meta: &mut Option<RequestMeta>) {
    if let Some(trace) = trace_of(span) {
        meta.get_or_insert_with(Default::default).trace = Some(Box::new(trace));
    }
}
