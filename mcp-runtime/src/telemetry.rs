//! OpenTelemetry export (cargo feature `otel`): the spans of [`spans`](crate::spans) and the
//! MCP duration metrics, sent over OTLP/HTTP to the collector or backend that the standard
//! `OTEL_*` variables name (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, ...).
//!
//! ```no_run
//! use mcp_runtime::telemetry::Telemetry;
//! use tracing_subscriber::layer::SubscriberExt;
//! use tracing_subscriber::util::SubscriberInitExt;
//!
//! # #[tokio::main] async fn main() {
//! let telemetry = Telemetry::from_env().expect("the OTLP exporter starts");
//! tracing_subscriber::registry().with(telemetry.layer()).init();
//! // ... serve ...
//! telemetry.shutdown(); // sends what is still buffered
//! # }
//! ```

use mcp_core::meta::TraceContext;
use opentelemetry::global;
use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::Value;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::registry::LookupSpan;

/// What could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An OTLP exporter could not be built (a malformed `OTEL_EXPORTER_OTLP_*` variable, say).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(String),
}

/// The providers that export spans and metrics; [`shutdown`](Self::shutdown) flushes them.
#[derive(Debug)]
pub struct Telemetry {
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
}

impl Telemetry {
    /// Exporters over OTLP/HTTP, configured by the standard `OTEL_*` variables (the endpoint
    /// defaults to `http://localhost:4318`), and the service's resource (`OTEL_SERVICE_NAME`,
    /// `OTEL_RESOURCE_ATTRIBUTES`). The meter provider becomes the global one, which the
    /// duration histograms record to.
    pub fn from_env() -> Result<Telemetry, TelemetryError> {
        let resource = Resource::builder().build();
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let tracers = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let meters = SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .with_resource(resource)
            .build();
        global::set_meter_provider(meters.clone());
        // W3C Trace Context and Baggage, the formats SEP-414 carries in `_meta`.
        global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
        Ok(Telemetry { tracers, meters })
    }

    /// The `tracing` layer that turns spans into OpenTelemetry spans for export.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracers.tracer("mcp-runtime"))
    }

    /// Sends what is still buffered and stops the exporters.
    pub fn shutdown(self) {
        if let Err(error) = self.tracers.shutdown() {
            tracing::warn!(%error, "the span exporter did not shut down cleanly");
        }
        if let Err(error) = self.meters.shutdown() {
            tracing::warn!(%error, "the metric exporter did not shut down cleanly");
        }
    }
}

/// The trace context of a request's `_meta`, as a propagator reads and writes it.
struct Carrier<'a>(&'a mut TraceContext);

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)
    }

    fn keys(&self) -> Vec<&str> {
        let trace = &*self.0;
        [
            ("traceparent", &trace.traceparent),
            ("tracestate", &trace.tracestate),
            ("baggage", &trace.baggage),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.as_ref().map(|_| key))
        .collect()
    }
}

impl Injector for Carrier<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.set(key, value);
    }
}

/// Continues in `span`, a request's, the trace that the request's `_meta` carries (SEP-414).
pub(crate) fn continue_trace(span: &Span, trace: &TraceContext) {
    if span.is_disabled() || trace.traceparent.is_none() {
        return;
    }
    let mut trace = trace.clone();
    let parent = global::get_text_map_propagator(|p| p.extract(&Carrier(&mut trace)));
    if let Err(error) = span.set_parent(parent) {
        tracing::debug!(%error, "the request's trace context could not be continued");
    }
}

/// Puts the trace context of `span`, a request's, into the `_meta` of its `params` (SEP-414).
pub(crate) fn inject(span: &Span, params: &mut Value) {
    if span.is_disabled() {
        return;
    }
    let mut trace = TraceContext::default();
    let context = span.context();
    global::get_text_map_propagator(|p| p.inject_context(&context, &mut Carrier(&mut trace)));
    let Ok(Value::Object(members)) = serde_json::to_value(&trace) else {
        return;
    };
    if members.is_empty() {
        return;
    }
    if let Value::Object(params) = params
        && let Value::Object(meta) = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()))
    {
        meta.extend(members);
    }
}
