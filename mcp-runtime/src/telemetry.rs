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

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
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
        opentelemetry::global::set_meter_provider(meters.clone());
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
