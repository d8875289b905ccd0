//! The client side of the HTTP+SSE transport of 2024-11-05, for servers that still serve only
//! it: a `GET` opens an event stream whose first event, `endpoint`, names the URI to POST
//! messages to; the server's messages arrive as the stream's `message` events.
//!
//! The connection is bridged to the line transport the client speaks on stdio: one task writes
//! each `message` event's data as a line of the client's input, another POSTs each line the
//! client writes. Both end with the client (its input or output closes) or with the stream.

use futures_util::StreamExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::connect::McpClientBuilder;
use super::{ClientError, McpClient};
use crate::sse::Decoder;

/// The longest event the stream may carry, as the Streamable HTTP client allows.
const MAX_EVENT: usize = 64 * 1024 * 1024;

/// How many bytes of messages wait between the bridge and the client in each direction.
const PIPE_BUFFER: usize = 64 * 1024;

impl McpClientBuilder {
    /// Connects to a server of the HTTP+SSE transport of 2024-11-05 (cargo feature
    /// `client-http`): `url` is its SSE endpoint (often `…/sse`). The headers of
    /// [`http_headers`](Self::http_headers) go with every request.
    pub async fn connect_sse(mut self, url: impl Into<String>) -> Result<McpClient, ClientError> {
        let url = url.into();
        let failed = |detail: String| ClientError::Transport {
            method: "connect",
            detail,
        };
        let http = reqwest::Client::builder()
            .default_headers(std::mem::take(&mut self.http_headers))
            .build()
            .map_err(|e| failed(format!("cannot set up the HTTP client: {e}")))?;
        let base = reqwest::Url::parse(&url).map_err(|e| failed(format!("{url}: {e}")))?;
        let response = http
            .get(base.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| failed(format!("GET {url}: {e}")))?;
        if !response.status().is_success() {
            return Err(failed(format!("GET {url} answered {}", response.status())));
        }
        let mut body = response.bytes_stream();
        let mut decoder = Decoder::new(MAX_EVENT);
        let mut pending = Vec::new();
        // The first event names where messages go.
        let endpoint = crate::rt::timeout(self.discovery_timeout, async {
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(|e| failed(format!("GET {url}: {e}")))?;
                let mut events = decoder
                    .feed(&chunk)
                    .map_err(|e| failed(format!("GET {url}: {e}")))?
                    .into_iter();
                if let Some(first) = events.next() {
                    pending.extend(events);
                    return if first.event.as_deref() == Some("endpoint") {
                        Ok(first.data)
                    } else {
                        Err(failed(format!(
                            "{url} sent no endpoint event first: is it an SSE endpoint of the \
                             HTTP+SSE transport?"
                        )))
                    };
                }
            }
            Err(failed(format!(
                "{url} closed the stream before its endpoint event"
            )))
        })
        .await
        .map_err(|_| failed(format!("{url} sent no endpoint event in time")))??;
        let endpoint = base
            .join(&endpoint)
            .map_err(|e| failed(format!("the endpoint {endpoint:?} is not a URI: {e}")))?;

        let (ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
        let (client_input, client_output) = tokio::io::split(theirs);
        let (from_client, mut to_client) = tokio::io::split(ours);
        // The server's messages, to the client.
        crate::rt::spawn(async move {
            let mut events = std::collections::VecDeque::from(pending);
            loop {
                while let Some(event) = events.pop_front() {
                    if event.event.as_deref().is_some_and(|e| e != "message") {
                        continue;
                    }
                    let mut line = event.data.into_bytes();
                    line.push(b'\n');
                    if to_client.write_all(&line).await.is_err() {
                        return;
                    }
                }
                let Some(Ok(chunk)) = body.next().await else {
                    return;
                };
                match decoder.feed(&chunk) {
                    Ok(more) => events.extend(more),
                    Err(error) => {
                        tracing::warn!(%error, "the server's stream broke; the connection ends");
                        return;
                    }
                }
            }
        });
        // The client's messages, to the server, in order.
        crate::rt::spawn(async move {
            let mut lines = BufReader::new(from_client).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let sent = http
                    .post(endpoint.clone())
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(line)
                    .send()
                    .await;
                match sent {
                    Ok(response) if response.status().is_success() => {}
                    Ok(response) => {
                        tracing::warn!(status = %response.status(), "the server refused a message");
                    }
                    Err(error) => {
                        tracing::warn!(%error, "a message could not be sent; the connection ends");
                        break;
                    }
                }
            }
        });
        self.connect_io(client_input, client_output).await
    }
}
