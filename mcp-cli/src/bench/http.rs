//! The HTTP mode: closed-loop `tools/call` over keep-alive HTTP/1.1 connections, and the client
//! pieces the sessions mode shares (connecting, posting, opening a session).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::protocol::{self, CallTemplate, ErrorKind};
use super::stats::{Summary, Tally, Window, http_details, show_first_error};
use super::{Load, Wire};

/// `Mcp-Session-Id`.
pub const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`.
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The `Accept` of every POST.
const ACCEPT_BOTH: HeaderValue = HeaderValue::from_static("application/json, text/event-stream");
/// The `Content-Type` of every POST.
const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");

/// How long the end-of-run `DELETE` of a session may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(1);
/// How long after the window a request in flight may take to finish (it is not counted, but
/// a connection left in a clean state can end its session).
const DRAIN: Duration = Duration::from_secs(1);
/// The pause after a failed connect or session open, so that a dead server is not hammered.
const RETRY_PAUSE: Duration = Duration::from_millis(10);

/// A connection's request sender.
pub type Sender = SendRequest<Full<Bytes>>;

/// Where the server listens: resolved once, so that reconnecting costs no name lookup.
#[derive(Clone, Debug)]
pub struct Target {
    /// The address connected to.
    addr: SocketAddr,
    /// The path (and query) of the endpoint, sent in the request line.
    path: Uri,
    /// The `Host` header.
    host: HeaderValue,
    /// The headers the user asked for (`-H`), sent with every request.
    extra: HeaderMap,
}

impl Target {
    /// Parses an `http://HOST[:PORT]/PATH` URL and resolves its host; every request will carry
    /// the `extra` headers.
    pub async fn resolve(url: &str, extra: HeaderMap) -> anyhow::Result<Target> {
        let uri: Uri = url.parse().with_context(|| format!("bad URL {url}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => bail!(
                "mcp bench speaks plain http, not {other}: bench the server on its http address \
                 (for example before the TLS proxy)"
            ),
            None => bail!("no scheme in {url}: expected http://HOST:PORT/PATH"),
        }
        let authority = uri
            .authority()
            .with_context(|| format!("no host in {url}"))?;
        let port = authority.port_u16().unwrap_or(80);
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let addr = tokio::net::lookup_host((host, port))
            .await
            .with_context(|| format!("cannot resolve {host}"))?
            .next()
            .with_context(|| format!("no address for {host}"))?;
        let path = uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .parse()
            .context("bad path")?;
        Ok(Target {
            addr,
            path,
            host: HeaderValue::from_str(authority.as_str()).context("bad host")?,
            extra,
        })
    }

    /// Opens a keep-alive HTTP/1.1 connection, its driver spawned on the runtime.
    pub async fn connect(&self) -> std::io::Result<Sender> {
        let stream = TcpStream::connect(self.addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(std::io::Error::other)?;
        tokio::spawn(async move {
            // The connection ends when the sender is dropped or the peer closes it; either way
            // the next request on it reports the failure.
            let _ = connection.await;
        });
        Ok(sender)
    }

    /// The headers every POST carries: `Host`, `Content-Type`, `Accept`, and the user's.
    pub fn post_headers(&self) -> HeaderMap {
        let mut headers = self.headers();
        headers.insert(CONTENT_TYPE, APPLICATION_JSON);
        headers.insert(ACCEPT, ACCEPT_BOTH);
        headers
    }

    /// The headers every request carries: `Host` and the user's.
    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(8 + self.extra.len());
        headers.insert(HOST, self.host.clone());
        headers.extend(self.extra.clone());
        headers
    }

    /// A request to the endpoint.
    pub fn request(&self, method: Method, headers: HeaderMap, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = self.path.clone();
        *request.headers_mut() = headers;
        request
    }
}

/// An HTTP answer, read to its end.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`, empty when absent.
    pub content_type: HeaderValue,
    /// The `Mcp-Session-Id`, if any.
    pub session_id: Option<HeaderValue>,
    /// The whole body.
    pub body: Bytes,
}

/// Sends a request on a ready connection and reads the whole answer.
pub async fn exchange(sender: &mut Sender, request: Request<Full<Bytes>>) -> hyper::Result<Answer> {
    let response = sender.send_request(request).await?;
    let (mut parts, body) = response.into_parts();
    let body = body.collect().await?.to_bytes();
    Ok(Answer {
        status: parts.status.as_u16(),
        content_type: parts
            .headers
            .remove(CONTENT_TYPE)
            .unwrap_or(HeaderValue::from_static("")),
        session_id: parts.headers.remove(SESSION_ID),
        body,
    })
}

/// Waits until a connection can take a request; `false` if it is closed.
pub async fn ready(sender: &mut Sender) -> bool {
    !sender.is_closed() && sender.ready().await.is_ok()
}

/// Opens a session on a connection: `initialize` (the body given, asking for `version`), then
/// `notifications/initialized`. Returns the `Mcp-Session-Id` the server gave, if any.
///
/// Fails with [`ErrorKind::Transport`] when the connection fails (it should be replaced), and
/// with [`ErrorKind::Initialize`] when the server refuses; the first failure of the run is shown.
pub async fn open_session(
    sender: &mut Sender,
    target: &Target,
    initialize: &Bytes,
    version: &HeaderValue,
) -> Result<Option<HeaderValue>, ErrorKind> {
    if !ready(sender).await {
        return Err(ErrorKind::Transport);
    }
    let request = target.request(Method::POST, target.post_headers(), initialize.clone());
    let answer = exchange(sender, request).await.map_err(|e| {
        show_first_error(ErrorKind::Transport, || format!("initialize: {e}"));
        ErrorKind::Transport
    })?;
    if let Err(why) = protocol::classify_http(
        answer.status,
        answer.content_type.as_bytes(),
        &answer.body,
        protocol::INITIALIZE_ID,
    ) {
        show_first_error(ErrorKind::Initialize, || {
            format!(
                "initialize ({why}): {}",
                http_details(answer.status, &answer.body)
            )
        });
        return Err(ErrorKind::Initialize);
    }
    let session = answer.session_id;
    let mut headers = target.post_headers();
    headers.insert(PROTOCOL_VERSION, version.clone());
    if let Some(id) = &session {
        headers.insert(SESSION_ID, id.clone());
    }
    if !ready(sender).await {
        return Err(ErrorKind::Transport);
    }
    let request = target.request(
        Method::POST,
        headers,
        Bytes::from_static(protocol::INITIALIZED_BODY.as_bytes()),
    );
    let answer = exchange(sender, request).await.map_err(|e| {
        show_first_error(ErrorKind::Transport, || {
            format!("notifications/initialized: {e}")
        });
        ErrorKind::Transport
    })?;
    if !(200..300).contains(&answer.status) {
        show_first_error(ErrorKind::Initialize, || {
            format!(
                "notifications/initialized: {}",
                http_details(answer.status, &answer.body)
            )
        });
        return Err(ErrorKind::Initialize);
    }
    Ok(session)
}

/// Ends a session with `DELETE`, on `sender` if it is usable or else on a new connection;
/// the outcome is ignored, and it gives up after a second.
pub async fn delete_session(
    sender: Option<&mut Sender>,
    target: &Target,
    session: HeaderValue,
    version: &HeaderValue,
) {
    let attempt = async {
        let mut fresh;
        let sender = match sender {
            Some(sender) if !sender.is_closed() => sender,
            _ => {
                fresh = target.connect().await.ok()?;
                &mut fresh
            }
        };
        if !ready(sender).await {
            return None;
        }
        let mut headers = target.headers();
        headers.insert(PROTOCOL_VERSION, version.clone());
        headers.insert(SESSION_ID, session);
        exchange(
            sender,
            target.request(Method::DELETE, headers, Bytes::new()),
        )
        .await
        .ok()
    };
    let _ = tokio::time::timeout(DELETE_TIMEOUT, attempt).await;
}

/// What every connection shares: the target, the request template and the headers.
struct Plan {
    target: Target,
    wire: Wire,
    template: CallTemplate,
    /// The headers of a `tools/call` (without the session id).
    call_headers: HeaderMap,
    initialize: Bytes,
    /// The revision of the session wire, as a header value.
    version: HeaderValue,
    window: Window,
}

/// Runs `load` against the endpoint at `url` on the current runtime, every request carrying
/// the `extra` headers.
pub async fn run(url: &str, extra: HeaderMap, load: &Load) -> anyhow::Result<Summary> {
    let target = Target::resolve(url, extra).await?;
    let stateless = load.wire == Wire::Stateless;
    let version = HeaderValue::from_str(load.version).context("bad protocol version")?;
    let mut call_headers = target.post_headers();
    if stateless {
        call_headers.insert(
            PROTOCOL_VERSION,
            HeaderValue::from_static(protocol::STATELESS_VERSION),
        );
        call_headers.insert(MCP_METHOD, HeaderValue::from_static("tools/call"));
        call_headers.insert(
            MCP_NAME,
            HeaderValue::from_str(&load.tool)
                .context("the tool name is not a valid header value")?,
        );
    } else {
        call_headers.insert(PROTOCOL_VERSION, version.clone());
    }
    let window = Window::after_warmup(load.warmup, load.duration);
    let plan = std::sync::Arc::new(Plan {
        target,
        wire: load.wire,
        template: CallTemplate::new(&load.tool, &load.args, stateless, load.tasks),
        call_headers,
        initialize: Bytes::from(protocol::initialize_body(load.version)),
        version,
        window,
    });
    let tasks: Vec<_> = (0..load.concurrency)
        .map(|_| tokio::spawn(connection(plan.clone())))
        .collect();
    let mut tally = Tally::default();
    for task in tasks {
        tally.merge(&task.await.context("a connection task panicked")?);
    }
    Ok(Summary::new(
        "http",
        load.wire.name(),
        Some(load.tool.clone()),
        load.concurrency,
        load.duration,
        &tally,
    ))
}

/// A live connection, with its session if the wire has one.
struct Live {
    sender: Sender,
    session: Option<HeaderValue>,
    /// The call headers, with the session id.
    headers: HeaderMap,
}

/// Opens a connection (and a session, on the session wire); the failure kind if it fails.
async fn open(plan: &Plan) -> Result<Live, ErrorKind> {
    let mut sender = plan.target.connect().await.map_err(|e| {
        show_first_error(ErrorKind::Connect, || {
            format!("connecting to {}: {e}", plan.target.addr)
        });
        ErrorKind::Connect
    })?;
    let mut headers = plan.call_headers.clone();
    let session = match plan.wire {
        Wire::Stateless => None,
        Wire::Session => {
            let session = open_session(&mut sender, &plan.target, &plan.initialize, &plan.version)
                .await
                .map_err(|kind| match kind {
                    ErrorKind::Transport => ErrorKind::Connect,
                    other => other,
                })?;
            if let Some(id) = &session {
                headers.insert(SESSION_ID, id.clone());
            }
            session
        }
    };
    Ok(Live {
        sender,
        session,
        headers,
    })
}

/// One closed-loop connection: sends `tools/call` after `tools/call` until the window ends,
/// reconnecting when the connection fails, and returns its tally.
async fn connection(plan: std::sync::Arc<Plan>) -> Tally {
    let window = plan.window;
    let mut tally = Tally::default();
    let mut live: Option<Live> = None;
    let mut buf = Vec::with_capacity(512);
    let mut id: u64 = 0;
    // Nothing may keep a connection past this, not even a server that stops answering.
    let deadline = tokio::time::Instant::from_std(window.end + DRAIN);
    while Instant::now() < window.end {
        let usable = match &mut live {
            Some(conn) => tokio::time::timeout_at(deadline, ready(&mut conn.sender))
                .await
                .unwrap_or(false),
            None => false,
        };
        if !usable {
            // A connection the server closed between requests is replaced without counting a
            // failure; its session, if any, is left to expire.
            live = None;
            match tokio::time::timeout_at(deadline, open(&plan)).await {
                Err(_) => break,
                Ok(Ok(conn)) => live = Some(conn),
                Ok(Err(kind)) => {
                    if window.covers(Instant::now()) {
                        tally.failure(kind);
                    }
                    tokio::time::sleep(RETRY_PAUSE).await;
                    continue;
                }
            }
        }
        let Some(conn) = live.as_mut() else {
            continue;
        };
        id += 1;
        plan.template.write(id, &mut buf);
        let request = plan.target.request(
            Method::POST,
            conn.headers.clone(),
            Bytes::copy_from_slice(&buf),
        );
        let sent = Instant::now();
        let answer = tokio::time::timeout_at(deadline, exchange(&mut conn.sender, request)).await;
        let done = Instant::now();
        let answer = match answer {
            // The request was still in flight well after the window ended: it would not count
            // anyway, and the connection is now in an unknown state.
            Err(_) => {
                live = None;
                break;
            }
            Ok(Err(e)) => {
                if window.contains(sent, done) {
                    tally.failure(ErrorKind::Transport);
                }
                show_first_error(ErrorKind::Transport, || format!("tools/call: {e}"));
                live = None;
                continue;
            }
            Ok(Ok(answer)) => answer,
        };
        let verdict = protocol::classify_http(
            answer.status,
            answer.content_type.as_bytes(),
            &answer.body,
            id,
        );
        if let Err(kind) = tally.record(&window, sent, done, verdict) {
            show_first_error(kind, || {
                format!("tools/call: {}", http_details(answer.status, &answer.body))
            });
            // A session the server no longer knows answers 404: open a new one.
            if plan.wire == Wire::Session && answer.status == 404 {
                live = None;
            }
        }
    }
    if let Some(Live {
        mut sender,
        session: Some(session),
        ..
    }) = live
    {
        delete_session(Some(&mut sender), &plan.target, session, &plan.version).await;
    }
    tally
}
