//! [`LoopbackRedirect`]: the user's browser, and a listener on `127.0.0.1` for the redirect
//! back (RFC 8252 §7.3).

use std::fmt;
use std::io::{self, Write as _};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use futures_util::future::BoxFuture;
use parking_lot::Mutex as SyncMutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, OwnedMutexGuard};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::{AuthError, UserAgent};
/// How long [`LoopbackRedirect`] waits for the user unless told otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The path of the loopback redirect URI.
const CALLBACK_PATH: &str = "/callback";

/// The user agent of desktop and command-line applications: the user's own browser, and a
/// redirect back to a listener on the loopback interface (RFC 8252 §7.3).
///
/// [`bind`](Self::bind) opens the listener at once, so the redirect URI
/// (`http://127.0.0.1:{port}/callback`) is known before the flow starts and can be registered
/// with the authorization server. Each [`authorize`](UserAgent::authorize) call then:
///
/// 1. opens the authorization URL in the user's browser (unless [`print_only`](Self::print_only)),
///    and writes `Open this URL to authorize: {url}` on one line of **stderr**, for when no
///    browser opens (stdout is left alone: a stdio MCP process speaks the protocol on it);
///    an [`on_open`](Self::on_open) hook replaces both;
/// 2. answers HTTP on the listener until the browser comes back with a `GET /callback` whose
///    `state` is the authorization URL's `state`. That request gets a small page telling the
///    user they can close the window (or that the authorization failed, when the authorization
///    server sent an `error`); a request with another `state` or none gets a `400` page and is
///    otherwise ignored, any other path a `404`;
/// 3. stops answering and returns the callback URL, `http://127.0.0.1:{port}/callback?{query}`,
///    for the client to check and to take the `code` from.
///
/// If the browser does not come back within the [`timeout`](Self::timeout) (5 minutes unless
/// set), `authorize` fails with [`AuthError::Authorization`]. The listener stays bound for the
/// next `authorize` call; calls that overlap wait for each other, so the user sees one
/// authorization page at a time. The port is closed when the `LoopbackRedirect` is dropped.
///
/// ```no_run
/// use std::time::Duration;
///
/// use mcp_runtime::client::oauth::{LoopbackRedirect, UserAgent};
///
/// # async fn run() -> std::io::Result<()> {
/// // A fixed port, so that the redirect URI can be registered with the authorization server
/// // once and for all; `bind(0)` takes any free port (fine with dynamic client registration).
/// let browser = LoopbackRedirect::bind(8765)
///     .await?
///     .timeout(Duration::from_secs(120));
/// assert_eq!(browser.redirect_uri(), "http://127.0.0.1:8765/callback");
/// # Ok(())
/// # }
/// ```
pub struct LoopbackRedirect {
    /// The bound listener; locked for the whole of an `authorize` call.
    listener: Arc<Mutex<TcpListener>>,
    redirect_uri: String,
    print_only: bool,
    timeout: Duration,
    on_open: Option<Box<OnOpen>>,
}

/// The hook [`LoopbackRedirect::on_open`] installs.
type OnOpen = dyn Fn(&Url) + Send + Sync + 'static;

impl LoopbackRedirect {
    /// Binds `127.0.0.1:{port}`; `port` 0 takes any free port. The redirect URI is
    /// `http://127.0.0.1:{port}/callback`, with the port actually bound.
    ///
    /// # Errors
    ///
    /// When the port cannot be bound (typically: another process uses it).
    pub async fn bind(port: u16) -> io::Result<Self> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackRedirect {
            listener: Arc::new(Mutex::new(listener)),
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            print_only: false,
            timeout: DEFAULT_TIMEOUT,
            on_open: None,
        })
    }

    /// Does not try to open a browser: only writes the authorization URL on stderr, for the
    /// user to open (on a machine without a desktop, or where opening a browser would be
    /// unwelcome).
    #[must_use]
    pub fn print_only(mut self) -> Self {
        self.print_only = true;
        self
    }

    /// How long [`authorize`](UserAgent::authorize) waits for the user to come back;
    /// 5 minutes unless set. The time runs from when the URL is shown.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Shows the authorization URL with `show` (in the application's own interface, say)
    /// instead of opening a browser and writing it on stderr. `show` is called once per
    /// authorization, and must not block.
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::LoopbackRedirect;
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let browser = LoopbackRedirect::bind(0).await?.on_open(|url| {
    ///     // Hand the URL to the application's UI; here, a log line.
    ///     tracing::info!(%url, "waiting for the user to authorize");
    /// });
    /// # drop(browser);
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn on_open(mut self, show: impl Fn(&Url) + Send + Sync + 'static) -> Self {
        self.on_open = Some(Box::new(show));
        self
    }

    /// Shows the user `authorization_url`. `Ok(None)` when it is shown for sure; otherwise the
    /// browser being opened, which the caller watches.
    fn show(&self, authorization_url: &Url) -> Result<Option<Opening>, AuthError> {
        if let Some(show) = &self.on_open {
            show(authorization_url);
            return Ok(None);
        }
        let printed = writeln!(
            io::stderr().lock(),
            "Open this URL to authorize: {authorization_url}"
        );
        if self.print_only {
            return match printed {
                Ok(()) => Ok(None),
                Err(e) => Err(AuthError::Authorization {
                    detail: format!(
                        "cannot show the authorization URL: writing it to stderr failed ({e}); \
                         use LoopbackRedirect::on_open to show it another way"
                    ),
                }),
            };
        }
        let url = authorization_url.to_string();
        Ok(Some(Opening {
            browser: tokio::task::spawn_blocking(move || webbrowser::open(&url)),
            printed: printed.err(),
        }))
    }

    async fn run(&self, authorization_url: &Url) -> Result<Url, AuthError> {
        let expected_state = authorization_url
            .query_pairs()
            .find(|(name, _)| name == "state")
            .map(|(_, value)| value.into_owned())
            .ok_or_else(|| AuthError::Authorization {
                detail: "the authorization URL carries no `state`, so the redirect back \
                         cannot be told apart from a forged one"
                    .to_owned(),
            })?;

        // One authorization at a time on the listener: a later call waits here, before its
        // URL is shown.
        let listener = Arc::clone(&self.listener).lock_owned().await;

        let stop = CancellationToken::new();
        // Whatever way this call ends, the server stops, and its open connections close once
        // they have answered.
        let _stop_on_exit = stop.clone().drop_guard();
        let received = Arc::new(SyncMutex::new(None));
        let app = Router::new()
            .route(CALLBACK_PATH, get(callback))
            .fallback(not_found)
            .with_state(Callback {
                expected_state: expected_state.into(),
                received: Arc::clone(&received),
                stop: stop.clone(),
            });
        let server = axum::serve(HeldListener(listener), app)
            .with_graceful_shutdown(stop.clone().cancelled_owned())
            .into_future();
        let mut server = std::pin::pin!(server);

        let mut opening = self.show(authorization_url)?;

        let waited = tokio::time::timeout(self.timeout, async {
            loop {
                tokio::select! {
                    biased;
                    () = stop.cancelled() => return Ok(()),
                    _ = &mut server => {
                        return Err(AuthError::Authorization {
                            detail: format!(
                                "the listener for {} stopped before the browser came back",
                                self.redirect_uri
                            ),
                        });
                    }
                    opened = async { (&mut opening.as_mut().expect("guarded").browser).await },
                        if opening.is_some() =>
                    {
                        let printed = opening.take().and_then(|o| o.printed);
                        let opened = opened.unwrap_or_else(|e| Err(io::Error::other(e)));
                        match (opened, printed) {
                            (Err(browser), Some(printed)) => {
                                return Err(AuthError::Authorization {
                                    detail: format!(
                                        "cannot show the authorization URL: opening a browser \
                                         failed ({browser}) and writing it to stderr failed \
                                         ({printed}); use LoopbackRedirect::on_open to show \
                                         it another way"
                                    ),
                                });
                            }
                            (Err(browser), None) => {
                                tracing::debug!(%browser, "could not open a browser");
                            }
                            (Ok(()), _) => {}
                        }
                    }
                }
            }
        })
        .await;

        match waited {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(AuthError::Authorization {
                    detail: format!(
                        "the user did not finish authorizing within {} seconds; try again",
                        self.timeout.as_secs_f64()
                    ),
                });
            }
        }
        let query = received
            .lock()
            .take()
            .ok_or_else(|| AuthError::Authorization {
                detail: "the listener stopped without an answer".to_owned(),
            })?;
        let callback = format!("{}?{query}", self.redirect_uri);
        Url::parse(&callback).map_err(|e| AuthError::Authorization {
            detail: format!("the redirect back is not a valid URL: {e}"),
        })
    }
}

impl UserAgent for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a Url,
    ) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(self.run(authorization_url))
    }
}

impl fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackRedirect")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// A browser being opened, and why printing the URL failed, if it did.
struct Opening {
    browser: JoinHandle<io::Result<()>>,
    printed: Option<io::Error>,
}

/// The loopback listener, held for one `authorize` call and served by axum.
struct HeldListener(OwnedMutexGuard<TcpListener>);

impl axum::serve::Listener for HeldListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    fn accept(&mut self) -> impl Future<Output = (Self::Io, Self::Addr)> + Send {
        axum::serve::Listener::accept(&mut *self.0)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// What the `/callback` route needs.
#[derive(Clone)]
struct Callback {
    expected_state: Arc<str>,
    /// The query of the matching request, once it came.
    received: Arc<SyncMutex<Option<String>>>,
    /// Cancelled on the matching request: the server stops.
    stop: CancellationToken,
}

async fn callback(
    method: Method,
    State(callback): State<Callback>,
    RawQuery(query): RawQuery,
) -> Response {
    // axum answers HEAD with the GET route; only a GET completes the authorization.
    if method != Method::GET {
        return page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed",
            "The authorization response comes with a GET request.",
        );
    }
    let query = query.unwrap_or_default();
    let mut states = Vec::new();
    let mut error = None;
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match &*name {
            "state" => states.push(value),
            "error" if error.is_none() => error = Some(value.into_owned()),
            _ => {}
        }
    }
    if states.len() != 1 || *states[0] != *callback.expected_state {
        return page(
            StatusCode::BAD_REQUEST,
            "Unexpected authorization response",
            "This is not the authorization response the application is waiting for: its \
             state does not match. If you are authorizing, start again from the application.",
        );
    }
    {
        let mut received = callback.received.lock();
        if received.is_none() {
            *received = Some(query);
        }
    }
    callback.stop.cancel();
    match error {
        None => page(
            StatusCode::OK,
            "Authorization complete",
            "Authorization complete. You can close this window.",
        ),
        Some(error) => page(
            StatusCode::OK,
            "Authorization failed",
            &format!(
                "Authorization failed: {}. You can close this window.",
                escape_html(&error)
            ),
        ),
    }
}

async fn not_found() -> Response {
    page(StatusCode::NOT_FOUND, "Not found", "Not found.")
}

/// A small HTML page; `body` is HTML already.
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Html(format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
             <body><p>{body}</p></body></html>\n"
        )),
    )
        .into_response()
}

fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GET with a fresh client (no pooled connection outlives a server), without proxies.
    async fn get_page(url: &str) -> (StatusCode, String) {
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let response = client.get(url).send().await.unwrap();
        let status = response.status();
        (status, response.text().await.unwrap())
    }

    fn authorization_url(state: &str) -> Url {
        Url::parse(&format!(
            "https://auth.example/authorize?response_type=code&client_id=c1&state={state}"
        ))
        .unwrap()
    }

    fn start(agent: &Arc<LoopbackRedirect>, state: &str) -> JoinHandle<Result<Url, AuthError>> {
        let agent = Arc::clone(agent);
        let url = authorization_url(state);
        tokio::spawn(async move { agent.authorize(&url).await })
    }

    #[tokio::test]
    async fn loopback_returns_the_callback_with_the_matching_state() {
        let agent = Arc::new(LoopbackRedirect::bind(0).await.unwrap().print_only());
        let redirect_uri = agent.redirect_uri();
        let port = agent.listener.lock().await.local_addr().unwrap().port();
        assert_eq!(redirect_uri, format!("http://127.0.0.1:{port}/callback"));
        assert_eq!(
            format!("{agent:?}"),
            format!("LoopbackRedirect {{ redirect_uri: \"{redirect_uri}\", .. }}")
        );

        let task = start(&agent, "s-123");

        let (status, body) = get_page(&format!("{redirect_uri}?code=abc&state=WRONG")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body.contains("state does not match"), "{body}");
        let (status, _) = get_page(&format!("{redirect_uri}?code=abc")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let (status, _) = get_page(&format!("http://127.0.0.1:{port}/favicon.ico")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(!task.is_finished());

        let (status, body) = get_page(&format!("{redirect_uri}?code=abc&state=s-123")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            body.contains("Authorization complete. You can close this window."),
            "{body}"
        );
        let back = task.await.unwrap().unwrap();
        assert_eq!(
            back.as_str(),
            format!("http://127.0.0.1:{port}/callback?code=abc&state=s-123")
        );
        assert_eq!(back.query(), Some("code=abc&state=s-123"));
    }

    #[tokio::test]
    async fn loopback_shows_an_error_response_escaped_and_returns_it() {
        let agent = Arc::new(LoopbackRedirect::bind(0).await.unwrap().print_only());
        let redirect_uri = agent.redirect_uri();
        let task = start(&agent, "s-err");

        let (status, body) = get_page(&format!(
            "{redirect_uri}?error=%3Cb%3Eaccess_denied%3C%2Fb%3E&state=s-err"
        ))
        .await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            body.contains(
                "Authorization failed: &lt;b&gt;access_denied&lt;/b&gt;. You can close this window."
            ),
            "{body}"
        );
        let back = task.await.unwrap().unwrap();
        assert_eq!(
            back.as_str(),
            format!("{redirect_uri}?error=%3Cb%3Eaccess_denied%3C%2Fb%3E&state=s-err")
        );
    }

    #[tokio::test]
    async fn loopback_times_out() {
        let agent = LoopbackRedirect::bind(0)
            .await
            .unwrap()
            .print_only()
            .timeout(Duration::from_millis(200));
        let error = agent
            .authorize(&authorization_url("s-late"))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            AuthError::Authorization {
                detail: "the user did not finish authorizing within 0.2 seconds; try again"
                    .to_owned(),
            }
        );
    }

    #[tokio::test]
    async fn loopback_serves_a_second_authorization_after_a_timeout() {
        let agent = LoopbackRedirect::bind(0)
            .await
            .unwrap()
            .print_only()
            .timeout(Duration::from_millis(100));
        let redirect_uri = agent.redirect_uri();
        assert!(agent.authorize(&authorization_url("first")).await.is_err());

        let agent = Arc::new(agent.timeout(Duration::from_secs(30)));
        let task = start(&agent, "second");
        let (status, _) = get_page(&format!("{redirect_uri}?code=c&state=second")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            task.await.unwrap().unwrap().as_str(),
            format!("{redirect_uri}?code=c&state=second")
        );
    }

    #[tokio::test]
    async fn loopback_serves_authorizations_one_after_the_other() {
        let agent = Arc::new(LoopbackRedirect::bind(0).await.unwrap().print_only());
        let redirect_uri = agent.redirect_uri();

        let first = start(&agent, "one");
        // The first call is serving once it answers.
        let (status, _) = get_page(&format!("{redirect_uri}?code=x&state=two")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let second = start(&agent, "two");

        let (status, _) = get_page(&format!("{redirect_uri}?code=a&state=one")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            first.await.unwrap().unwrap().as_str(),
            format!("{redirect_uri}?code=a&state=one")
        );

        let (status, _) = get_page(&format!("{redirect_uri}?code=b&state=two")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            second.await.unwrap().unwrap().as_str(),
            format!("{redirect_uri}?code=b&state=two")
        );
    }

    #[tokio::test]
    async fn loopback_shows_the_url_with_the_on_open_hook() {
        let (shown_tx, mut shown_rx) = tokio::sync::mpsc::unbounded_channel();
        let agent = Arc::new(
            LoopbackRedirect::bind(0)
                .await
                .unwrap()
                .on_open(move |url| shown_tx.send(url.clone()).unwrap()),
        );
        let redirect_uri = agent.redirect_uri();
        let task = start(&agent, "hooked");

        let shown = shown_rx.recv().await.unwrap();
        assert_eq!(shown, authorization_url("hooked"));
        let (status, _) = get_page(&format!("{redirect_uri}?code=h&state=hooked")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            task.await.unwrap().unwrap().as_str(),
            format!("{redirect_uri}?code=h&state=hooked")
        );
        assert!(shown_rx.try_recv().is_err());
    }

    #[tokio::test]
    async fn loopback_refuses_an_authorization_url_without_state() {
        let agent = LoopbackRedirect::bind(0).await.unwrap().print_only();
        let url = Url::parse("https://auth.example/authorize?response_type=code").unwrap();
        assert_eq!(
            agent.authorize(&url).await.unwrap_err(),
            AuthError::Authorization {
                detail: "the authorization URL carries no `state`, so the redirect back cannot \
                         be told apart from a forged one"
                    .to_owned(),
            }
        );
    }
}
