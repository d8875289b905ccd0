//! A receiver of OTLP/HTTP metrics on loopback (spans it takes and drops), for the tests of the duration metrics: no trace
//! backend these machines can install takes metrics, so the test decodes what the exporter sends
//! with the official protobuf definitions (`opentelemetry-proto`), as a collector would.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use prost::Message;
use tokio::sync::oneshot;

/// One data point of a histogram, as exported.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramPoint {
    /// The point's attributes, their values as text.
    pub attributes: BTreeMap<String, String>,
    /// How many durations it counts.
    pub count: u64,
    /// Their sum, in the histogram's unit.
    pub sum: f64,
    /// The buckets' upper bounds.
    pub bounds: Vec<f64>,
    /// The histogram's unit.
    pub unit: String,
    /// The `service.name` of the resource that exported it.
    pub service: String,
}

/// An OTLP/HTTP receiver of metrics at `http://127.0.0.1:PORT/v1/metrics`, running until it is
/// dropped.
pub struct OtlpReceiver {
    endpoint: String,
    received: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OtlpReceiver {
    /// Starts a receiver on a free loopback port, on a thread of its own.
    pub fn start() -> OtlpReceiver {
        let received = Arc::new(Mutex::new(Vec::new()));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let endpoint = format!("http://{}", listener.local_addr().expect("its address"));
        let (stop, stopped) = oneshot::channel::<()>();
        let state = received.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the receiver");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let app = Router::new()
                    .route("/v1/metrics", post(receive))
                    // Spans are taken and dropped: the tests of traces use a trace backend.
                    .route("/v1/traces", post(|| async { StatusCode::OK }))
                    .with_state(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        OtlpReceiver {
            endpoint,
            received,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The base URL for `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (with `/v1/metrics`) or a
    /// builder's endpoint (without).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The data points of histogram `name` received so far: of each series (an exporter's
    /// service and the point's attributes), the latest, which counts everything before it (the
    /// exporters' temporality is cumulative).
    pub fn histogram(&self, name: &str) -> Vec<HistogramPoint> {
        let received = self.received.lock().unwrap();
        let mut points: Vec<HistogramPoint> = Vec::new();
        for request in received.iter() {
            for resource in &request.resource_metrics {
                let service = resource
                    .resource
                    .as_ref()
                    .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
                    .map(|kv| text(kv.value.as_ref()))
                    .unwrap_or_default();
                for scope in &resource.scope_metrics {
                    for metric in scope.metrics.iter().filter(|m| m.name == name) {
                        let Some(Data::Histogram(histogram)) = &metric.data else {
                            panic!("{name} is not a histogram: {:?}", metric.data);
                        };
                        for point in &histogram.data_points {
                            let point = HistogramPoint {
                                attributes: point
                                    .attributes
                                    .iter()
                                    .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
                                    .collect(),
                                count: point.count,
                                sum: point.sum.unwrap_or_default(),
                                bounds: point.explicit_bounds.clone(),
                                unit: metric.unit.clone(),
                                service: service.clone(),
                            };
                            points.retain(|p| {
                                (&p.service, &p.attributes) != (&point.service, &point.attributes)
                            });
                            points.push(point);
                        }
                    }
                }
            }
        }
        points
    }

    /// Waits (30 s at most) until `histogram(name)` has a point that `wanted` accepts, and
    /// returns the points then.
    pub fn wait_for(
        &self,
        name: &str,
        wanted: impl Fn(&HistogramPoint) -> bool,
    ) -> Vec<HistogramPoint> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let points = self.histogram(name);
            if points.iter().any(&wanted) {
                return points;
            }
            assert!(
                Instant::now() < deadline,
                "no point of {name} arrived in 30 s as wanted; received: {points:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn receive(
    State(received): State<Arc<Mutex<Vec<ExportMetricsServiceRequest>>>>,
    body: Bytes,
) -> StatusCode {
    match ExportMetricsServiceRequest::decode(body) {
        Ok(request) => {
            received.lock().unwrap().push(request);
            StatusCode::OK
        }
        Err(_) => StatusCode::BAD_REQUEST,
    }
}

/// An attribute's value as text.
fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        other => format!("{other:?}"),
    }
}
