//! [`RateLimit`]: a rate per caller, with the `governor` crate's GCRA.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use mcp_runtime_core::ErrorObject;
use serde_json::json;
use tower::{Layer, Service};

use super::{McpRequest, OVERLOADED, Stack, StackFuture};

/// Who a request counts against, for [`RateLimit`]: the subject of the caller's verified token
/// (with its issuer), else the client's IP address (HTTP), else the connection (stdio, in
/// process: one client).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallerKey {
    /// The issuer and subject of the caller's access token.
    Subject(Arc<str>, Arc<str>),
    /// The address of an HTTP client without a token.
    Address(IpAddr),
    /// The connection of a client without a token or an address.
    Connection(u64),
}

impl CallerKey {
    /// Who `request` counts against.
    pub fn of(request: &McpRequest) -> Self {
        let ctx = request.context();
        if let Some(principal) = ctx.access_token().and_then(|token| token.principal()) {
            return CallerKey::Subject(
                Arc::from(principal.issuer().unwrap_or_default()),
                Arc::from(principal.subject().unwrap_or_default()),
            );
        }
        match ctx.http_request().and_then(|http| http.client_address()) {
            Some(address) => CallerKey::Address(address),
            None => CallerKey::Connection(ctx.connection().id()),
        }
    }
}

/// At most so many requests per caller ([`CallerKey`]) in a period, with bursts: a request over
/// the rate is refused with `-32000`, whose message and `data.retryAfterMs` say when to retry.
/// The count is shared by every session and transport of the server (put the layer on one tool
/// to limit that tool alone).
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::middleware::RateLimit;
///
/// let server = McpServer::builder(server_info!())
///     .layer(RateLimit::per_minute(120).burst(20))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct RateLimit {
    limiter: Arc<DefaultKeyedRateLimiter<CallerKey>>,
    quota: Quota,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("quota", &self.quota)
            .field("callers", &self.limiter.len())
            .finish()
    }
}

/// How many callers the limiter remembers before it forgets those whose limits have reset.
const REMEMBERED_CALLERS: usize = 10_000;

impl RateLimit {
    /// `count` requests a second per caller (at least one), in bursts of up to `count`.
    pub fn per_second(count: u32) -> Self {
        RateLimit::with_quota(Quota::per_second(at_least_one(count)))
    }

    /// `count` requests a minute per caller (at least one), in bursts of up to `count`.
    pub fn per_minute(count: u32) -> Self {
        RateLimit::with_quota(Quota::per_minute(at_least_one(count)))
    }

    /// One request per `period` per caller; `None` for a zero period.
    pub fn every(period: Duration) -> Option<Self> {
        Quota::with_period(period).map(RateLimit::with_quota)
    }

    /// The same rate, in bursts of up to `burst` requests (at least one).
    pub fn burst(self, burst: u32) -> Self {
        RateLimit::with_quota(self.quota.allow_burst(at_least_one(burst)))
    }

    fn with_quota(quota: Quota) -> Self {
        RateLimit {
            limiter: Arc::new(DefaultKeyedRateLimiter::keyed(quota)),
            quota,
        }
    }

    /// Counts `request`: `Ok` when it is within the rate, else how long to wait.
    fn check(&self, request: &McpRequest) -> Result<(), Duration> {
        if self.limiter.len() > REMEMBERED_CALLERS {
            // A flood of callers (addresses, say) must not grow the table without bound.
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        self.limiter
            .check_key(&CallerKey::of(request))
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

fn at_least_one(count: u32) -> NonZeroU32 {
    NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN)
}

impl Layer<Stack> for RateLimit {
    type Service = RateLimitService;

    fn layer(&self, inner: Stack) -> RateLimitService {
        RateLimitService {
            limit: self.clone(),
            inner,
        }
    }
}

/// The service of a [`RateLimit`].
#[derive(Clone, Debug)]
pub struct RateLimitService {
    limit: RateLimit,
    inner: Stack,
}

impl Service<McpRequest> for RateLimitService {
    stack_service!(ready when inner);

    fn call(&mut self, request: McpRequest) -> StackFuture {
        match self.limit.check(&request) {
            Ok(()) => self.inner.call(request),
            Err(wait) => {
                let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
                let error = ErrorObject::new(
                    OVERLOADED,
                    format!(
                        "{} refused: too many requests from this caller; retry in {millis} ms",
                        request.describe()
                    ),
                )
                .with_data(json!({ "retryAfterMs": millis }));
                Box::pin(std::future::ready(Err(error.into())))
            }
        }
    }
}
