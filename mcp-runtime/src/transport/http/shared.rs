//! Sessions that several instances serve ([`HttpOptions::session_store`](super::HttpOptions)).
//!
//! Each instance keeps a local copy of the sessions it served: a request loads its session from
//! the [`SessionStore`] (which restarts its idle time there), and a copy is made, or brought up
//! to date, from what the store holds. What the request changed (`initialized`, the log level,
//! subscriptions) is saved before the answer goes out, so that the client's next request sees it
//! on any instance. What concerns in-process state of another instance travels as a
//! [`SessionMessage`]: a client's answer to a server request that another instance sent, a
//! cancellation of a request that runs on another instance, the end of a session, which closes
//! every copy, a change to a session, which the other copies load, an event appended to a
//! session's standalone stream (see [`streams`](super::streams)), which wakes the response that
//! carries it, and the server's broadcasts, which every instance delivers to its own clients.

use std::sync::{Arc, Weak};

use mcp_runtime_core::jsonrpc::Params;
use mcp_runtime_core::messages::ServerNotification;

use super::HttpState;
use super::sessions::Session;
use crate::connection::{ConnectionState, SharedEvent};
use crate::store::{RawJson, SessionMessage, SessionRecord, SessionStore, SessionStoreError};

/// The session `id` as the store holds it, with this instance's copy brought up to date (made,
/// when this instance has none); `None` when the store has no such session (then this instance's
/// copy, if any, is ended too).
pub(crate) async fn load(
    http: &HttpState,
    store: &dyn SessionStore,
    id: &str,
) -> Result<Option<Arc<Session>>, SessionStoreError> {
    let Some(record) = store.load(id, http.options.session_idle_timeout).await? else {
        http.sessions.end(id, &http.streams).await;
        return Ok(None);
    };
    if let Some(local) = http.sessions.get_copy(id) {
        record.restore_into(&local.connection);
        return Ok(Some(local));
    }
    Ok(Some(
        http.sessions
            .adopt(&http.server, &http.streams, id, record)
            .await,
    ))
}

/// Keeps the session that `initialize` just opened, for every instance.
pub(crate) async fn keep(
    http: &HttpState,
    store: &dyn SessionStore,
    session: &Session,
) -> Result<(), SessionStoreError> {
    let Some(record) = SessionRecord::of(session.principal.clone(), &session.connection) else {
        return Ok(());
    };
    store
        .create(&session.id, &record, http.options.session_idle_timeout)
        .await
}

/// Passes on what the requests of `session` changed, and the answers and cancellations meant
/// for other instances. A failure is logged: the client's request itself was served.
pub(crate) async fn pass_on(store: &dyn SessionStore, session: &str, connection: &ConnectionState) {
    let mut changes = Vec::new();
    for event in connection.take_shared() {
        let message = match event {
            SharedEvent::Change(change) => {
                changes.push(change);
                continue;
            }
            SharedEvent::Answer(id, answer) => SessionMessage::Answer {
                session: session.to_owned(),
                id,
                answer,
            },
            SharedEvent::Cancel(id) => SessionMessage::Cancel {
                session: session.to_owned(),
                id,
            },
        };
        if let Err(error) = store.publish(message).await {
            tracing::warn!(%error, "could not tell the other instances");
        }
    }
    if changes.is_empty() {
        return;
    }
    if let Err(error) = store.change(session, &changes).await {
        tracing::warn!(%error, "could not save what a request changed in its session");
        return;
    }
    let changed = SessionMessage::Changed {
        session: session.to_owned(),
    };
    if let Err(error) = store.publish(changed).await {
        tracing::warn!(%error, "could not tell the other instances of a changed session");
    }
}

/// Has the server of `http` pass its broadcasts to the other instances, which deliver them to
/// their clients ([`hear_other_instances`]).
pub(crate) fn relay_broadcasts(http: &Arc<HttpState>, store: Arc<dyn SessionStore>) {
    let from = http.instance.clone();
    http.server.relay_broadcasts(Arc::new(move |notification| {
        let Ok(notification) = RawJson::new(notification) else {
            return;
        };
        let message = SessionMessage::Broadcast {
            from: from.clone(),
            notification,
        };
        let store = store.clone();
        crate::rt::spawn(async move {
            if let Err(error) = store.publish(message).await {
                tracing::warn!(%error, "could not pass a broadcast to the other instances");
            }
        });
    }));
}

/// Ends the session `id` on every instance: forgotten by the store, and every copy closed.
/// Whether it was alive anywhere.
pub(crate) async fn end_everywhere(
    http: &HttpState,
    store: &dyn SessionStore,
    id: &str,
) -> Result<bool, SessionStoreError> {
    let kept = store.remove(id).await?;
    let here = http.sessions.end(id, &http.streams).await;
    store
        .publish(SessionMessage::Ended {
            session: id.to_owned(),
        })
        .await?;
    Ok(kept || here)
}

/// Acts on what the other instances publish, until the transport is dropped.
pub(crate) async fn hear_other_instances(http: Weak<HttpState>, store: Arc<dyn SessionStore>) {
    let mut messages = store.messages();
    while let Some(message) = messages.recv().await {
        let Some(http) = http.upgrade() else { return };
        if let SessionMessage::Broadcast { from, notification } = &message {
            if *from != http.instance {
                deliver_broadcast(&http, notification);
            }
            continue;
        }
        if let SessionMessage::Appended { session } = &message {
            if let Some(shared) = http.streams.shared() {
                shared.wakes.wake(session);
            }
            continue;
        }
        let Some(local) = message.session().and_then(|id| http.sessions.get_copy(id)) else {
            continue;
        };
        match message {
            SessionMessage::Ended { session } => {
                http.sessions.end(&session, &http.streams).await;
            }
            SessionMessage::Answer { id, answer, .. } => {
                local.connection.resolve_here(&id, answer);
            }
            SessionMessage::Cancel { id, .. } => {
                local.connection.cancel_here(&id);
            }
            SessionMessage::Changed { session } => {
                match store
                    .load(&session, http.options.session_idle_timeout)
                    .await
                {
                    Ok(Some(record)) => record.restore_into(&local.connection),
                    Ok(None) => {
                        http.sessions.end(&session, &http.streams).await;
                    }
                    Err(error) => tracing::debug!(%error, "could not load a changed session"),
                }
            }
            SessionMessage::Appended { .. } | SessionMessage::Broadcast { .. } => {}
        }
    }
}

/// Delivers a broadcast of another instance's server to this instance's clients.
fn deliver_broadcast(http: &HttpState, notification: &RawJson) {
    /// A notification as JSON-RPC carries it, its params left as text for the method's decoder.
    #[derive(serde::Deserialize)]
    struct Relayed {
        method: String,
        params: Option<Box<serde_json::value::RawValue>>,
    }
    let decoded = serde_json::from_str::<Relayed>(notification.get())
        .map_err(|e| e.to_string())
        .and_then(|relayed| {
            let params = relayed.params.map(Params::from_raw);
            ServerNotification::decode(&relayed.method, params.as_ref()).map_err(|e| e.to_string())
        });
    match decoded {
        Ok(notification) => {
            http.server.deliver_relayed(&notification);
        }
        Err(error) => tracing::warn!(%error, "ignored a broadcast of another instance"),
    }
}
