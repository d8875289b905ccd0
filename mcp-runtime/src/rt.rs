//! The platform's clocks, timers and tasks, decided once per target.
//!
//! On an operating system they are std's clocks and tokio's timers and tasks. WebAssembly run by
//! a JavaScript host (`wasm32-unknown-unknown`: Cloudflare Workers, a browser, Node) has neither:
//! std's clocks panic there, and no tokio runtime drives timers or tasks. There the clocks are the
//! host's (`performance.now()` and `Date.now()`, through web-time), a timer is its `setTimeout`
//! (gloo-timers), and a task runs on its event loop (wasm-bindgen-futures). The host's futures are
//! not `Send`; WebAssembly runs one thread, where wrapping them to be is sound (send_wrapper).
//!
//! The rest of the crate takes its time and its tasks from here, never from std or tokio directly.

use std::future::Future;
use std::time::Duration;

/// A point in time, for durations: std's, or the JavaScript host's `performance.now()`.
pub(crate) use web_time::Instant;
/// The wall clock: std's, or the JavaScript host's `Date.now()`.
pub(crate) use web_time::{SystemTime, UNIX_EPOCH};

/// A [`timeout`] that ran out before its future completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elapsed;

/// Waits for `duration`.
pub(crate) async fn sleep(duration: Duration) {
    #[cfg(not(target_family = "wasm"))]
    tokio::time::sleep(duration).await;
    #[cfg(target_family = "wasm")]
    {
        // setTimeout takes milliseconds in a signed 32-bit integer (~24.8 days), and fires at
        // once when given more: a longer wait is cut to the longest it takes.
        let millis = u32::try_from(duration.as_millis())
            .unwrap_or(u32::MAX)
            .min(i32::MAX.unsigned_abs());
        send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(millis)).await;
    }
}

/// Waits until `deadline` (at once when it has passed).
pub(crate) async fn sleep_until(deadline: Instant) {
    sleep(deadline.saturating_duration_since(Instant::now())).await;
}

/// Runs `future` for at most `duration`: its output, or [`Elapsed`] (and `future` dropped).
pub(crate) async fn timeout<F: Future>(
    duration: Duration,
    future: F,
) -> Result<F::Output, Elapsed> {
    #[cfg(not(target_family = "wasm"))]
    return tokio::time::timeout(duration, future)
        .await
        .map_err(|_| Elapsed);
    #[cfg(target_family = "wasm")]
    {
        use futures_util::future::{Either, select};
        let future = std::pin::pin!(future);
        let timer = std::pin::pin!(sleep(duration));
        match select(future, timer).await {
            Either::Left((output, _)) => Ok(output),
            Either::Right(((), _)) => Err(Elapsed),
        }
    }
}

/// A timer that can be pushed back: a [`sleep`] kept as a value, for a stream's keep-alive.
pub(crate) struct Timer {
    #[cfg(not(target_family = "wasm"))]
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    #[cfg(target_family = "wasm")]
    sleep: std::pin::Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl Timer {
    /// A timer that goes off after `duration`.
    pub(crate) fn new(duration: Duration) -> Self {
        #[cfg(not(target_family = "wasm"))]
        return Timer {
            sleep: Box::pin(tokio::time::sleep(duration)),
        };
        #[cfg(target_family = "wasm")]
        Timer {
            sleep: Box::pin(sleep(duration)),
        }
    }

    /// Sets the timer to go off `duration` from now.
    pub(crate) fn reset(&mut self, duration: Duration) {
        #[cfg(not(target_family = "wasm"))]
        self.sleep
            .as_mut()
            .reset(tokio::time::Instant::now() + duration);
        #[cfg(target_family = "wasm")]
        {
            self.sleep = Box::pin(sleep(duration));
        }
    }

    /// Ready once the timer went off (and until it is reset).
    pub(crate) fn poll_elapsed(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        self.sleep.as_mut().poll(cx)
    }
}

/// A task started by [`spawn`]: it runs to its end whether or not it is awaited (dropping the
/// handle detaches it), and awaiting it gives its output, or `None` when it panicked.
pub(crate) struct Task<T> {
    #[cfg(not(target_family = "wasm"))]
    handle: tokio::task::JoinHandle<T>,
    #[cfg(target_family = "wasm")]
    output: tokio::sync::oneshot::Receiver<T>,
}

/// Runs `future` as a task of its own, beside the one that spawns it.
pub(crate) fn spawn<F>(future: F) -> Task<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    #[cfg(not(target_family = "wasm"))]
    return Task {
        handle: tokio::spawn(future),
    };
    #[cfg(target_family = "wasm")]
    {
        let (send, output) = tokio::sync::oneshot::channel();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = send.send(future.await);
        });
        Task { output }
    }
}

impl<T> Future for Task<T> {
    type Output = Option<T>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<T>> {
        #[cfg(not(target_family = "wasm"))]
        return std::pin::Pin::new(&mut self.handle)
            .poll(cx)
            .map(Result::ok);
        #[cfg(target_family = "wasm")]
        std::pin::Pin::new(&mut self.output)
            .poll(cx)
            .map(Result::ok)
    }
}
