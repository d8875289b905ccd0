//! The accept loop of [`serve_http`](super::serve_http) and [`HttpTransport::serve`]
//! (super::HttpTransport::serve): one hyper HTTP/1.1 connection per accepted socket, with limits
//! that keep slow or silent clients from holding the server.
//!
//! - At most [`ConnectionLimits::max_connections`] connections are open; beyond, the loop stops
//!   accepting until one closes (new ones wait in the operating system's backlog).
//! - hyper's header read timeout closes a connection that has not sent a complete request head
//!   in time, whether it is half-way through one or idle between requests.
//! - A write that waits longer than the write timeout for the client to read fails, which closes
//!   the connection: a client that stops reading a stream lets go of it.
//!
//! Each request carries the address of its client as axum's `ConnectInfo<SocketAddr>` (which
//! the cap on sessions per client reads, and handlers may too, through
//! [`HttpRequest::extension`](crate::extract::HttpRequest::extension)).
//!
//! The timers are tokio's (through hyper-util and tokio-io-timeout). The request body's deadline
//! is the POST handler's ([`HttpOptions::body_read_timeout`](super::HttpOptions)), so that it
//! holds wherever the router is mounted.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;

/// The limits on the connections of a served transport.
#[derive(Clone, Debug)]
pub(crate) struct ConnectionLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            max_connections: default_max_connections(),
        }
    }
}

/// The most connections by default: 10,000, or fewer when the process may open fewer files
/// (its soft `RLIMIT_NOFILE`, less 64 for everything else it opens).
pub(crate) fn default_max_connections() -> usize {
    const MOST: usize = 10_000;
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct it is given, nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            let files = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
            return files.saturating_sub(64).clamp(1, MOST);
        }
    }
    MOST
}

/// Serves `app` on the connections `listener` accepts, within `limits`, until `shutdown`
/// completes; then waits for the open connections to finish their responses.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "could not set TCP_NODELAY");
        }
        let mut stream = TimeoutStream::new(stream);
        stream.set_write_timeout(Some(limits.write_timeout));
        let connection = http.serve_connection(
            TokioIo::new(Box::pin(stream)),
            TowerToHyperService::new(tower::Layer::layer(
                &axum::Extension(ConnectInfo(peer)),
                app.clone(),
            )),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, %error, "a connection ended with an error");
            }
            drop(slot);
        });
    }
    graceful.shutdown().await;
    Ok(())
}

/// Waits after a failed accept: not for a connection the peer reset, a second when the process
/// ran out of something (open files, memory), so that the loop does not spin.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "accepting a connection failed; retrying in a second");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
