//! The limit any MCP SDK can reach: a server with no MCP library at all, which answers every
//! JSON-RPC request with a canned result, over bare hyper or over stdio.
//!
//! ```sh
//! cargo run --release --manifest-path bench/Cargo.toml -p bare-server -- stdio
//! cargo run --release --manifest-path bench/Cargo.toml -p bare-server -- http 127.0.0.1:8000
//! cargo run --release --manifest-path bench/Cargo.toml -p bare-server -- http 127.0.0.1:8000 --stateful
//! cargo run --release --manifest-path bench/Cargo.toml -p bare-server -- http 127.0.0.1:0 --sse
//! ```
//!
//! Each message is parsed only as far as its `id` (kept as the raw JSON text received) and its
//! `method`; the rest is checked for syntax and skipped. Then:
//!
//! - `initialize` (with an id) gets the canned initialize result (protocol `2025-11-25`, a
//!   `tools` capability); over HTTP with `--stateful` it also gets a fresh `Mcp-Session-Id`;
//! - any other request gets the canned result of `add(1, 2)`: one text content `"3"`;
//! - a notification (no id) gets nothing: HTTP `202 Accepted` with an empty body;
//! - text that is not JSON gets a JSON-RPC parse error (id `null`; HTTP `400`), and JSON that
//!   is not a JSON-RPC message an invalid-request error.
//!
//! Over HTTP the endpoint is `/mcp` (POST only, else `405`; other paths `404`), answers are
//! `application/json`, or with `--sse` a `text/event-stream` of one `data:` event. Every
//! accepted socket gets `TCP_NODELAY` and its own task, on tokio's default multi-thread
//! runtime. Session ids are handed out but never checked: nothing is cheaper. The server
//! prints `MCP endpoint: http://ADDRESS/mcp` on stderr once it listens (port 0 picks a free
//! port). Over stdio every line is one message, every answer one line, flushed once the lines
//! already read are answered; stdout carries nothing else.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The part of a JSON-RPC message the server looks at; every other member is skipped.
#[derive(Deserialize)]
struct Envelope<'a> {
    /// The id exactly as received; absent (or `null`) for a notification.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    /// Borrowed from the input unless it holds escapes.
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
}

/// The text before the id in every success answer.
const RESULT_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
/// The canned result of `initialize`, after the id.
const INITIALIZE_SUFFIX: &[u8] = br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bare-server","version":"0.1.0"}}}"#;
/// The canned result of `tools/call add(1, 2)`, after the id.
const ADD_SUFFIX: &[u8] = br#","result":{"content":[{"type":"text","text":"3"}]}}"#;
/// The answer to text that is not JSON.
const PARSE_ERROR: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
/// The answer to JSON that is not a JSON-RPC message.
const INVALID_REQUEST: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#;

/// What a message calls for.
enum Answer<'a> {
    /// `initialize`: the canned initialize result, with this id.
    Initialize(&'a RawValue),
    /// Any other request: the canned `add` result, with this id.
    Result(&'a RawValue),
    /// A notification: no answer.
    Nothing,
    /// Not JSON, or not a JSON-RPC message: this error (id `null`).
    Error(&'static [u8]),
}

impl<'a> Answer<'a> {
    fn to(message: &'a [u8]) -> Self {
        match serde_json::from_slice::<Envelope<'a>>(message) {
            Ok(Envelope { id: None, .. }) => Answer::Nothing,
            Ok(Envelope {
                id: Some(id),
                method,
            }) => {
                if method.as_deref() == Some("initialize") {
                    Answer::Initialize(id)
                } else {
                    Answer::Result(id)
                }
            }
            Err(error) if error.is_data() => Answer::Error(INVALID_REQUEST),
            Err(_) => Answer::Error(PARSE_ERROR),
        }
    }
}

const USAGE: &str = "usage: bare-server stdio | bare-server http ADDRESS [--stateful] [--sse]";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => serve_stdio()?,
        ["http", address, flags @ ..] => {
            let mut mode = Mode {
                stateful: false,
                sse: false,
            };
            for flag in flags {
                match *flag {
                    "--stateful" => mode.stateful = true,
                    "--sse" => mode.sse = true,
                    other => anyhow::bail!("unknown option {other}\n{USAGE}"),
                }
            }
            // The same runtime `#[tokio::main]` builds: one worker thread per core.
            tokio::runtime::Runtime::new()?.block_on(serve_http(address, mode))?;
        }
        _ => anyhow::bail!(USAGE),
    }
    Ok(())
}

/// Answers stdin's lines on stdout until stdin closes.
fn serve_stdio() -> std::io::Result<()> {
    let mut input = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let message = line.trim_ascii();
        if !message.is_empty() {
            match Answer::to(message) {
                Answer::Initialize(id) => write_result(&mut output, id, INITIALIZE_SUFFIX)?,
                Answer::Result(id) => write_result(&mut output, id, ADD_SUFFIX)?,
                Answer::Nothing => {}
                Answer::Error(error) => {
                    output.write_all(error)?;
                    output.write_all(b"\n")?;
                }
            }
        }
        // Flush once every line already read is answered, before waiting for more.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

fn write_result(output: &mut impl Write, id: &RawValue, suffix: &[u8]) -> std::io::Result<()> {
    output.write_all(RESULT_PREFIX)?;
    output.write_all(id.get().as_bytes())?;
    output.write_all(suffix)?;
    output.write_all(b"\n")
}

/// The HTTP options.
#[derive(Clone, Copy)]
struct Mode {
    /// Hand out an `Mcp-Session-Id` on `initialize`.
    stateful: bool,
    /// Answer with `text/event-stream` instead of `application/json`.
    sse: bool,
}

/// The largest request body read; past it the answer is `413`.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

static SESSION_IDS: AtomicU64 = AtomicU64::new(1);
static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
static JSON: HeaderValue = HeaderValue::from_static("application/json");
static EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// Serves `/mcp` on `address`, one task per connection, until the process is stopped.
async fn serve_http(address: &str, mode: Mode) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(error) => {
                // Out of descriptors, or a connection reset before it was accepted: go on.
                eprintln!("accept failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(request, mode));
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(tcp), service)
                .await;
        });
    }
}

async fn handle(
    request: Request<Incoming>,
    mode: Mode,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.uri().path() != "/mcp" {
        return Ok(empty(StatusCode::NOT_FOUND));
    }
    if request.method() != Method::POST {
        let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
        response
            .headers_mut()
            .insert(hyper::header::ALLOW, HeaderValue::from_static("POST"));
        return Ok(response);
    }
    let body = match Limited::new(request.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return Ok(empty(StatusCode::PAYLOAD_TOO_LARGE));
        }
        Err(_) => return Ok(empty(StatusCode::BAD_REQUEST)),
    };
    Ok(match Answer::to(&body) {
        Answer::Initialize(id) => {
            let mut response = result(mode, id, INITIALIZE_SUFFIX);
            if mode.stateful {
                let session = SESSION_IDS.fetch_add(1, Ordering::Relaxed);
                let value = HeaderValue::from_str(&format!("bare-{session}"))
                    .expect("a session id is a valid header value");
                response.headers_mut().insert(MCP_SESSION_ID.clone(), value);
            }
            response
        }
        Answer::Result(id) => result(mode, id, ADD_SUFFIX),
        Answer::Nothing => empty(StatusCode::ACCEPTED),
        Answer::Error(message) => error(message),
    })
}

/// A `200` carrying one JSON message, `RESULT_PREFIX` + `id` + `suffix`, built in one
/// allocation: as `application/json`, or with `--sse` as the one event of a `text/event-stream`.
fn result(mode: Mode, id: &RawValue, suffix: &[u8]) -> Response<Full<Bytes>> {
    let id = id.get().as_bytes();
    let (open, close, content_type): (&[u8], &[u8], _) = if mode.sse {
        (b"data: ", b"\n\n", &EVENT_STREAM)
    } else {
        (b"", b"", &JSON)
    };
    let mut body = Vec::with_capacity(
        open.len() + RESULT_PREFIX.len() + id.len() + suffix.len() + close.len(),
    );
    for part in [open, RESULT_PREFIX, id, suffix, close] {
        body.extend_from_slice(part);
    }
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, content_type.clone());
    response
}

/// A `400` carrying a JSON-RPC error, always as `application/json`.
fn error(error: &'static [u8]) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(error)));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(CONTENT_TYPE, JSON.clone());
    response
}

fn empty(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}
