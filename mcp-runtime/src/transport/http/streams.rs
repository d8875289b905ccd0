//! SSE streams: what the server writes on a POST's response stream or on the standalone GET
//! stream, kept in the event store so that a client can resume after `Last-Event-ID`.
//!
//! A [`StreamEntry`] outlives the HTTP response that carries it: when the client's connection
//! drops (or the server closes it early so that the client polls, SEP-1699), the entry keeps
//! collecting events, and a later GET with `Last-Event-ID` replays what was missed and carries the
//! rest. Event ids are `<stream>:<sequence>`, so an id tells which stream it belongs to.
//!
//! When several instances serve a session (see [`shared`](super::shared)), its standalone stream
//! is one stream for all of them: its id is the session's, every instance appends what it sends
//! the client to the event store, which numbers the events, and the response that carries the
//! stream, on whichever instance, follows the store (woken when an instance says it appended).
//!
//! Between the entry and its response is a [`Queue`] of at most
//! [`HttpOptions::stream_buffer`](super::HttpOptions::stream_buffer) events, weighed against the
//! queued-events share of the memory budget. A client that lets it fill up is dropped from a
//! resumable stream (what was queued for it is dropped, the response ends, and the client resumes
//! from the event store with `Last-Event-ID`), and slows down the writers of a stream that cannot
//! be resumed, which stores nothing.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use std::future::Future as _;
use std::pin::Pin;
use std::task::Poll;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;

use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::queue::{Queue, Reader, Refused, Weigh};
use crate::memory::{EVENT_OVERHEAD, Pool};
use crate::sse;
use crate::store::{EventStore, SessionMessage, SessionStore, Wakes, Watch};

/// What an SSE response writes.
pub(crate) enum Frame {
    /// An event with its id.
    Event { id: String, data: Arc<str> },
    /// An event of a resumable stream that the store could not keep: sent without an id, so
    /// that the client never resumes after an event it could not get again.
    Unkept { data: Arc<str> },
    /// The `retry` field, sent before the server closes a stream early.
    Retry(Duration),
}

impl Weigh for Frame {
    fn weight(&self) -> usize {
        EVENT_OVERHEAD
            + match self {
                Frame::Event { id, data } => id.len() + data.len(),
                Frame::Unkept { data } => data.len(),
                Frame::Retry(_) => 0,
            }
    }
}

/// A stream's mutable state.
struct StreamState {
    next_seq: u64,
    live: Option<Arc<Queue<Frame>>>,
    finished: bool,
    /// The task that follows the store for the attached response (a shared stream): what
    /// stops it, and the response's queue, which the task alone writes (and closes when it
    /// ends).
    follower: Option<(CancellationToken, Arc<Queue<Frame>>)>,
}

impl StreamState {
    /// Whether a response reads the stream.
    fn is_attached(&self) -> bool {
        self.live.as_ref().is_some_and(|live| live.is_open())
            || self
                .follower
                .as_ref()
                .is_some_and(|(_, queue)| queue.is_open())
    }

    /// Stops the task that follows the store, if one does, after it sends `last`.
    fn stop_following(&mut self, last: Option<Frame>) {
        if let Some((stop, queue)) = self.follower.take() {
            if let Some(frame) = last {
                let _ = queue.try_push(frame);
            }
            queue.close();
            stop.cancel();
        }
    }
}

/// What a stream that several instances write needs: where to say that an event was appended,
/// and the wake-ups of the responses that follow the store.
#[derive(Clone)]
pub(crate) struct SharedStreams {
    pub(crate) bus: Arc<dyn SessionStore>,
    pub(crate) wakes: Wakes,
}

/// One SSE stream, attached to an HTTP response or not.
pub(crate) struct StreamEntry {
    id: String,
    /// The session whose stream it is; `None` when it cannot be resumed (then nothing is stored).
    session: Option<String>,
    store: Arc<dyn EventStore>,
    buffer: usize,
    /// The queued-events share of the memory budget.
    pool: Arc<Pool>,
    state: tokio::sync::Mutex<StreamState>,
    /// Set on a session's standalone stream that several instances write.
    shared: Option<SharedStreams>,
}

/// What a response carries: the frames known when it attached (priming, replayed events),
/// then those that come while it is attached.
pub(crate) struct Frames {
    backlog: VecDeque<Frame>,
    live: Option<Reader<Frame>>,
    /// Ends the stream when it fires (see [`until`](Self::until)).
    stop: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
}

impl Frames {
    /// The same frames, ending when `token` fires: a stream that only the client would end
    /// (the standalone GET stream) ends when the server shuts down, so that the shutdown does
    /// not wait for it forever. The client reconnects, with `Last-Event-ID`, elsewhere.
    pub(crate) fn until(mut self, token: CancellationToken) -> Self {
        self.stop = Some(Box::pin(token.cancelled_owned()));
        self
    }

    fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> Poll<Option<Frame>> {
        if let Some(stop) = &mut self.stop
            && stop.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(None);
        }
        if let Some(frame) = self.backlog.pop_front() {
            return Poll::Ready(Some(frame));
        }
        match &mut self.live {
            Some(live) => live.poll_next(cx),
            None => Poll::Ready(None),
        }
    }
}

/// The stream is already being read by another response.
#[derive(Debug)]
pub(crate) struct AlreadyAttached;

impl StreamEntry {
    fn new(
        id: String,
        session: Option<String>,
        streams: &Streams,
        shared: Option<SharedStreams>,
    ) -> Self {
        StreamEntry {
            id,
            session,
            store: streams.store.clone(),
            buffer: streams.buffer,
            pool: streams.pool.clone(),
            state: tokio::sync::Mutex::new(StreamState {
                next_seq: 1,
                live: None,
                finished: false,
                follower: None,
            }),
            shared,
        }
    }

    /// The stream's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Appends an event, keeping it for resumption and sending it to the attached response. A
    /// response too far behind is dropped from a resumable stream, and waited for on another.
    pub(crate) async fn push(&self, data: Arc<str>) {
        if let (Some(shared), Some(session)) = (&self.shared, &self.session) {
            // The store numbers the event; the response following the store sends it.
            if self
                .store
                .append_next(session, &self.id, data)
                .await
                .is_some()
            {
                shared.wakes.wake(session);
                let appended = SessionMessage::Appended {
                    session: session.clone(),
                };
                if let Err(error) = shared.bus.publish(appended).await {
                    tracing::warn!(%error, "could not tell the other instances of a new event");
                }
            }
            return;
        }
        let mut state = self.state.lock().await;
        let seq = state.next_seq;
        let kept = match &self.session {
            Some(session) => {
                self.store
                    .append(session, &self.id, seq, data.clone())
                    .await
            }
            // A stream that cannot be resumed keeps nothing; its ids only name its events.
            None => true,
        };
        if kept {
            state.next_seq += 1;
        }
        let Some(live) = &state.live else { return };
        let frame = if kept {
            Frame::Event {
                id: format!("{}:{seq}", self.id),
                data,
            }
        } else {
            Frame::Unkept { data }
        };
        let sent = match self.session {
            Some(_) => match live.try_push(frame) {
                Err(Refused::Full) => {
                    tracing::debug!(
                        stream = %self.id,
                        "dropped a client that fell behind (the stream's buffer, or the memory \
                         budget's share for queued events, is full); it can resume the stream"
                    );
                    live.discard();
                    false
                }
                sent => sent.is_ok(),
            },
            None => live.push(frame).await.is_ok(),
        };
        if !sent {
            state.live = None;
        }
    }

    /// Whether a response reads the stream now (or may: a stream being written to counts).
    pub(crate) fn is_attached(&self) -> bool {
        self.state
            .try_lock()
            .map_or(true, |state| state.is_attached())
    }

    /// Marks the stream complete: its response ends after what was sent.
    pub(crate) async fn finish(&self) {
        let mut state = self.state.lock().await;
        state.finished = true;
        if let Some(live) = state.live.take() {
            live.close();
        }
        state.stop_following(None);
    }

    /// Ends the attached response early, telling the client when to come back (SEP-1699); the
    /// stream goes on collecting events for the client's resumption.
    pub(crate) async fn detach(&self, retry: Duration) {
        let mut state = self.state.lock().await;
        if let Some(live) = state.live.take() {
            // The response may already be gone, or too far behind to be told; then it ends
            // without the field, and the client reconnects after its own delay.
            let _ = live.try_push(Frame::Retry(retry));
            live.close();
        }
        state.stop_following(Some(Frame::Retry(retry)));
    }

    /// Attaches a response: an optional priming event (an id and empty data, with `retry`), then
    /// the kept events numbered above `after`, then whatever comes next (unless the stream is
    /// finished). Fails when another response still reads the stream.
    pub(crate) async fn attach(
        &self,
        after: Option<u64>,
        priming: Option<Duration>,
    ) -> Result<Frames, AlreadyAttached> {
        let mut state = self.state.lock().await;
        if state.is_attached() {
            return Err(AlreadyAttached);
        }
        if let (Some(shared), Some(session)) = (&self.shared, &self.session) {
            return Ok(self
                .follow(&mut state, shared, session, after, priming)
                .await);
        }
        let mut backlog = VecDeque::new();
        if let Some(retry) = priming {
            backlog.push_back(Frame::Event {
                id: format!("{}:{}", self.id, state.next_seq - 1),
                data: Arc::from(""),
            });
            backlog.push_back(Frame::Retry(retry));
        }
        if let Some(after) = after {
            for (seq, data) in self.store.after(&self.id, after).await {
                backlog.push_back(Frame::Event {
                    id: format!("{}:{seq}", self.id),
                    data,
                });
            }
        }
        let live = (!state.finished).then(|| {
            let (queue, reader) = Queue::new(self.buffer, self.pool.clone());
            state.live = Some(queue);
            reader
        });
        Ok(Frames {
            backlog,
            live,
            stop: None,
        })
    }
}

impl StreamEntry {
    /// Attaches a response to a stream that several instances write: the priming event, then
    /// the events kept after `after` (after the latest, without it) as the store has them, and
    /// the next ones as they are appended, by any instance.
    async fn follow(
        &self,
        state: &mut StreamState,
        shared: &SharedStreams,
        session: &str,
        after: Option<u64>,
        priming: Option<Duration>,
    ) -> Frames {
        let start = match after {
            Some(after) => after,
            None => self.store.latest(&self.id).await,
        };
        let mut backlog = VecDeque::new();
        if let Some(retry) = priming {
            backlog.push_back(Frame::Event {
                id: format!("{}:{start}", self.id),
                data: Arc::from(""),
            });
            backlog.push_back(Frame::Retry(retry));
        }
        let (queue, reader) = Queue::new(self.buffer, self.pool.clone());
        let stop = CancellationToken::new();
        state.follower = Some((stop.clone(), queue.clone()));
        crate::rt::spawn(follow_store(
            self.id.clone(),
            start,
            self.store.clone(),
            shared.wakes.watch(session),
            queue,
            stop,
        ));
        Frames {
            backlog,
            live: Some(reader),
            stop: None,
        }
    }
}

/// Sends the events of `stream` after `last` to `queue` as the store has them, looking again
/// whenever an instance says it appended one (and every [`FOLLOW_RECHECK`] in any case), until
/// the response is gone, falls behind (it is dropped, and resumes with `Last-Event-ID`), or
/// `stop` fires; then the response ends.
async fn follow_store(
    stream: String,
    mut last: u64,
    store: Arc<dyn EventStore>,
    watch: Watch,
    queue: Arc<Queue<Frame>>,
    stop: CancellationToken,
) {
    loop {
        let notified = watch.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        for (seq, data) in store.after(&stream, last).await {
            let frame = Frame::Event {
                id: format!("{stream}:{seq}"),
                data,
            };
            if queue.try_push(frame).is_err() {
                queue.discard();
                return;
            }
            last = seq;
        }
        tokio::select! {
            () = notified => {}
            () = crate::rt::sleep(FOLLOW_RECHECK) => {}
            () = queue.reader_gone() => return,
            () = stop.cancelled() => {
                queue.close();
                return;
            }
        }
    }
}

/// How often a response following the store looks again without having been woken.
const FOLLOW_RECHECK: Duration = Duration::from_secs(1);

/// The streams of the server that can be resumed, by id.
pub(crate) struct Streams {
    store: Arc<dyn EventStore>,
    buffer: usize,
    /// The queued-events share of the memory budget, which every stream's queue draws from.
    pool: Arc<Pool>,
    entries: Mutex<HashMap<String, Arc<StreamEntry>>>,
    /// Set when several instances serve the sessions.
    shared: Option<SharedStreams>,
}

impl Streams {
    /// The streams of a transport keeping events in `store`, each buffering at most `buffer`
    /// events for its response, and all of them together what `pool` allows.
    pub(crate) fn new(
        store: Arc<dyn EventStore>,
        buffer: usize,
        pool: Arc<Pool>,
        shared: Option<SharedStreams>,
    ) -> Self {
        Streams {
            store,
            buffer,
            pool,
            entries: Mutex::new(HashMap::new()),
            shared,
        }
    }

    /// The queued-events share of the memory budget.
    pub(crate) fn pool(&self) -> &Arc<Pool> {
        &self.pool
    }

    /// What streams that several instances write share, when they do.
    pub(crate) fn shared(&self) -> Option<&SharedStreams> {
        self.shared.as_ref()
    }

    /// A new stream; those of a `session` can be resumed, and are registered for
    /// `Last-Event-ID`.
    pub(crate) fn open(&self, session: Option<&str>) -> Arc<StreamEntry> {
        self.register(StreamEntry::new(
            crate::random::random_id::<8>(),
            session.map(str::to_owned),
            self,
            None,
        ))
    }

    /// The standalone stream of `session`: a stream of its own, or, when several instances
    /// serve the session, the one they all write, named after the session.
    pub(crate) fn open_standalone(&self, session: &str) -> Arc<StreamEntry> {
        match &self.shared {
            Some(shared) => self.register(StreamEntry::new(
                session.to_owned(),
                Some(session.to_owned()),
                self,
                Some(shared.clone()),
            )),
            None => self.open(Some(session)),
        }
    }

    fn register(&self, entry: StreamEntry) -> Arc<StreamEntry> {
        let entry = Arc::new(entry);
        if entry.session.is_some() {
            self.entries.lock().insert(entry.id.clone(), entry.clone());
        }
        entry
    }

    /// The events of `stream` after `seq`, a stream that no response of this instance writes
    /// (it finished, or another instance wrote it), when it is `session`'s: one `session`
    /// remembers (`owned`), or one the store says is `session`'s. The priming event and the
    /// replay, after which the response ends (the client comes back with the last id it got).
    /// `None` when it is not `session`'s.
    pub(crate) async fn replay(
        &self,
        session: &str,
        stream: &str,
        owned: bool,
        seq: u64,
        priming: Option<Duration>,
    ) -> Option<Frames> {
        if !owned && self.store.session_of(stream).await.as_deref() != Some(session) {
            return None;
        }
        let mut backlog = VecDeque::new();
        if let Some(retry) = priming {
            backlog.push_back(Frame::Event {
                id: format!("{stream}:{seq}"),
                data: Arc::from(""),
            });
            backlog.push_back(Frame::Retry(retry));
        }
        for (seq, data) in self.store.after(stream, seq).await {
            backlog.push_back(Frame::Event {
                id: format!("{stream}:{seq}"),
                data,
            });
        }
        Some(Frames {
            backlog,
            live: None,
            stop: None,
        })
    }

    /// The stream id and sequence number of an event id.
    pub(crate) fn parse_event_id(last_event_id: &str) -> Option<(&str, u64)> {
        let (stream, seq) = last_event_id.rsplit_once(':')?;
        Some((stream, seq.parse().ok()?))
    }

    /// The stream an event id belongs to, and the event's sequence number.
    pub(crate) fn find(&self, last_event_id: &str) -> Option<(Arc<StreamEntry>, u64)> {
        let (stream, seq) = Self::parse_event_id(last_event_id)?;
        let entry = self.entries.lock().get(stream).cloned()?;
        Some((entry, seq))
    }

    /// Lets go of the stream `id`, which finished: its events stay in the store, which replays
    /// them to a client that resumes it ([`replay`](Self::replay)).
    pub(crate) fn forget(&self, id: &str) {
        self.entries.lock().remove(id);
    }

    /// Forgets streams (their session ended).
    pub(crate) async fn close(&self, ids: &[String]) {
        {
            let mut entries = self.entries.lock();
            for id in ids {
                entries.remove(id);
            }
        }
        for id in ids {
            self.store.remove(id).await;
        }
    }
}

/// How often an idle stream gets a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Runs a closure when dropped.
struct OnDrop(Option<Box<dyn FnOnce() + Send>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(action) = self.0.take() {
            action();
        }
    }
}

/// The HTTP response that carries `frames` as server-sent events, with a keep-alive comment
/// after every 15 seconds without one. `on_close` runs when the response body is dropped: when
/// the stream ended, or when the client went away before.
pub(crate) fn sse_response(
    mut frames: Frames,
    on_close: Option<Box<dyn FnOnce() + Send>>,
) -> Response {
    let mut keep_alive = crate::rt::Timer::new(KEEP_ALIVE);
    let on_close = OnDrop(on_close);
    let body = futures_util::stream::poll_fn(move |cx| match frames.poll_next(cx) {
        Poll::Ready(Some(frame)) => {
            let _ = &on_close;
            keep_alive.reset(KEEP_ALIVE);
            Poll::Ready(Some(Ok::<_, std::convert::Infallible>(encode(&frame))))
        }
        Poll::Ready(None) => Poll::Ready(None),
        Poll::Pending => keep_alive.poll_elapsed(cx).map(|()| {
            keep_alive.reset(KEEP_ALIVE);
            Some(Ok(Bytes::from_static(sse::KEEP_ALIVE_COMMENT)))
        }),
    });
    let mut response = Body::from_stream(body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// One frame in the `text/event-stream` format.
fn encode(frame: &Frame) -> Bytes {
    match frame {
        Frame::Event { id, data } => sse::encode_event(id, data),
        Frame::Unkept { data } => sse::encode_data(data),
        Frame::Retry(retry) => sse::encode_retry(*retry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::InMemoryEventStore;

    fn ids(frames: &mut Frames) -> Vec<String> {
        let mut out = Vec::new();
        let waker = futures_util::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        while let Poll::Ready(Some(frame)) = frames.poll_next(&mut cx) {
            out.push(match frame {
                Frame::Event { id, data } => format!("{id}={data}"),
                Frame::Unkept { data } => format!("(unkept)={data}"),
                Frame::Retry(d) => format!("retry={}", d.as_millis()),
            });
        }
        out
    }

    #[tokio::test]
    async fn a_detached_stream_is_resumed_after_the_last_event() {
        let streams = Streams::new(
            Arc::new(InMemoryEventStore::default()),
            8,
            Pool::new(1 << 20),
            None,
        );
        let entry = streams.open(Some("session"));
        let id = entry.id().to_owned();
        let mut live = entry
            .attach(None, Some(Duration::from_millis(500)))
            .await
            .unwrap();
        entry.push(Arc::from("one")).await;
        entry.detach(Duration::from_millis(500)).await;
        entry.push(Arc::from("two")).await;
        entry.push(Arc::from("three")).await;
        entry.finish().await;
        assert_eq!(
            ids(&mut live),
            [
                format!("{id}:0="),
                "retry=500".into(),
                format!("{id}:1=one"),
                "retry=500".into()
            ]
        );
        let (found, seq) = streams.find(&format!("{id}:1")).unwrap();
        let mut resumed = found.attach(Some(seq), None).await.unwrap();
        assert_eq!(
            ids(&mut resumed),
            [format!("{id}:2=two"), format!("{id}:3=three")]
        );
        // The stream was finished: the resumed response ends after the replay.
        assert!(resumed.live.is_none());
        assert!(streams.find("nope:1").is_none());
        assert!(streams.find(&format!("{id}:x")).is_none());
        streams.close(std::slice::from_ref(&id)).await;
        assert!(streams.find(&format!("{id}:1")).is_none());
    }

    #[tokio::test]
    async fn an_event_the_store_could_not_keep_goes_out_without_an_id() {
        // A session keeps 200 bytes of events: a larger one is not kept.
        let store = Arc::new(InMemoryEventStore::new(10_000, 200));
        let streams = Streams::new(store, 8, Pool::new(1 << 20), None);
        let entry = streams.open(Some("session"));
        let id = entry.id().to_owned();
        let mut live = entry.attach(None, None).await.unwrap();
        entry.push(Arc::from("one")).await;
        entry.push(Arc::from("x".repeat(300))).await;
        entry.push(Arc::from("two")).await;
        entry.finish().await;
        assert_eq!(
            ids(&mut live),
            [
                format!("{id}:1=one"),
                format!("(unkept)={}", "x".repeat(300)),
                format!("{id}:2=two")
            ]
        );
        let (found, seq) = streams.find(&format!("{id}:1")).unwrap();
        let mut resumed = found.attach(Some(seq), None).await.unwrap();
        assert_eq!(ids(&mut resumed), [format!("{id}:2=two")]);
    }

    #[tokio::test]
    async fn one_reader_at_a_time() {
        let streams = Streams::new(
            Arc::new(InMemoryEventStore::default()),
            8,
            Pool::new(1 << 20),
            None,
        );
        let entry = streams.open(Some("session"));
        let first = entry.attach(None, None).await.unwrap();
        assert!(entry.attach(None, None).await.is_err());
        drop(first);
        assert!(entry.attach(None, None).await.is_ok());
    }
}
