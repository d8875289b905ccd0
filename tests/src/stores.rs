//! What every store must do, whichever keeps the data: checks run against the in-memory stores
//! and the Redis ones alike (`tests/tests/all/stores.rs`).

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::protocol::input::{InputRequest, InputResponse};
use mcp_runtime::protocol::params::RequestParams;
use mcp_runtime::protocol::tasks::{Task, TaskStatus};
use mcp_runtime::protocol::{JsonObject, ProtocolVersion};
use mcp_runtime::store::{
    EventStore, TaskChange, TaskLimits, TaskOutcome, TaskRecord, TaskStore, TaskStoreError,
};

/// A working task `id` of `owner`, kept for `ttl`.
pub fn record(id: &str, owner: &str, ttl: Duration) -> TaskRecord {
    TaskRecord::new(
        Task::new(id, TaskStatus::Working, "2026-07-28T00:00:00Z"),
        owner.into(),
        ProtocolVersion::V2026_07_28,
        ttl,
    )
}

const HOUR: Duration = Duration::from_secs(3600);

/// The ids of a page of `owner`'s tasks.
async fn listed(
    store: &dyn TaskStore,
    owner: &str,
    after: Option<&str>,
    limit: usize,
) -> (Vec<String>, Option<String>) {
    let page = store.list(owner, after, limit).await.unwrap();
    let ids = page.tasks.into_iter().map(|t| t.task_id).collect();
    (ids, page.next)
}

/// Each owner runs so many tasks at once; ended ones stay readable and listed until their TTL.
pub async fn an_owner_runs_so_many_tasks_and_ended_ones_are_kept(store: &dyn TaskStore) {
    let limits = TaskLimits::new(2, 100);
    store.create(record("a", "s1", HOUR), limits).await.unwrap();
    store.create(record("b", "s1", HOUR), limits).await.unwrap();
    // Another owner is not affected by s1's cap.
    store.create(record("c", "s2", HOUR), limits).await.unwrap();
    let refused = store.create(record("d", "s1", HOUR), limits).await;
    assert_eq!(refused, Err(TaskStoreError::TooManyRunning { limit: 2 }));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "too many tasks: this caller already runs 2 that have not ended; wait for one to end or cancel one"
    );
    // Once one ends, another may start; the ended one stays readable.
    store.update("a", TaskChange::Cancel).await.unwrap();
    store.create(record("d", "s1", HOUR), limits).await.unwrap();
    let kept = store.get("a").await.unwrap().unwrap();
    assert_eq!(kept.task.status, TaskStatus::Cancelled);
    assert_eq!(
        listed(store, "s1", None, 10).await,
        (vec!["a".into(), "b".into(), "d".into()], None)
    );
}

/// Pages of an owner's tasks, oldest first, each naming where the next starts.
pub async fn an_owners_tasks_are_listed_in_pages(store: &dyn TaskStore) {
    let limits = TaskLimits::new(10, 100);
    for id in ["t1", "t2", "u1", "t3", "t4", "t5"] {
        let owner = if id.starts_with('t') { "s1" } else { "s2" };
        store.create(record(id, owner, HOUR), limits).await.unwrap();
    }
    let first = listed(store, "s1", None, 2).await;
    assert_eq!(first, (vec!["t1".into(), "t2".into()], Some("t2".into())));
    let second = listed(store, "s1", Some("t2"), 2).await;
    assert_eq!(second, (vec!["t3".into(), "t4".into()], Some("t4".into())));
    let last = listed(store, "s1", Some("t4"), 2).await;
    assert_eq!(last, (vec!["t5".into()], None));
    assert_eq!(
        listed(store, "s2", None, 2).await,
        (vec!["u1".into()], None)
    );
    assert_eq!(listed(store, "nobody", None, 2).await, (vec![], None));
}

/// The store keeps so many tasks in all, ended or not.
pub async fn the_store_keeps_so_many_tasks_ended_or_not(store: &dyn TaskStore) {
    let limits = TaskLimits::new(10, 1);
    store.create(record("a", "s1", HOUR), limits).await.unwrap();
    store.update("a", TaskChange::Cancel).await.unwrap();
    let refused = store.create(record("b", "s2", HOUR), limits).await;
    assert_eq!(refused, Err(TaskStoreError::Full { limit: 1 }));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "too many tasks: the server keeps 1 until their TTL passes; try again later"
    );
}

/// A task that ended never changes again, and its revision says so.
pub async fn an_ended_task_never_changes_again(store: &dyn TaskStore) {
    store
        .create(record("a", "s", HOUR), TaskLimits::new(5, 5))
        .await
        .unwrap();
    let cancelled = store
        .update("a", TaskChange::Cancel)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled);
    assert_eq!(cancelled.revision, 1);
    let finished = store.update("a", completed()).await.unwrap().unwrap();
    assert_kept_cancelled(store, "a", finished).await;
    assert_eq!(store.update("unknown", TaskChange::Cancel).await, Ok(None));
}

/// The change that ends a task completed, with an empty result.
fn completed() -> TaskChange {
    TaskChange::Finish {
        status: TaskStatus::Completed,
        outcome: TaskOutcome::Result(JsonObject::new()),
        message: None,
    }
}

/// `finished`, what a change made of the task `id` cancelled at revision 1, is that task still
/// cancelled, as the store keeps it.
async fn assert_kept_cancelled(store: &dyn TaskStore, id: &str, finished: TaskRecord) {
    assert_eq!(finished.task.status, TaskStatus::Cancelled);
    assert_eq!(finished.outcome, None);
    assert_eq!(finished.revision, 1);
    assert_eq!(store.get(id).await.unwrap(), Some(finished));
}

/// A change written over the task as this instance created it lands while no other change came
/// between, and is applied to the task as it is when one did.
pub async fn a_change_over_the_created_task_sees_a_change_made_meanwhile(store: &dyn TaskStore) {
    let untouched = record("a", "s", HOUR);
    store
        .create(untouched.clone(), TaskLimits::new(5, 5))
        .await
        .unwrap();
    let finished = store
        .update_known(&untouched, completed())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(finished.task.status, TaskStatus::Completed);
    assert_eq!(finished.revision, 1);
    assert_eq!(store.get("a").await.unwrap(), Some(finished));

    let cancelled_meanwhile = record("b", "s", HOUR);
    store
        .create(cancelled_meanwhile.clone(), TaskLimits::new(5, 5))
        .await
        .unwrap();
    store.update("b", TaskChange::Cancel).await.unwrap();
    let finished = store
        .update_known(&cancelled_meanwhile, completed())
        .await
        .unwrap()
        .unwrap();
    assert_kept_cancelled(store, "b", finished).await;
}

/// Answers go to the keys the task waits for; it works again once nothing is outstanding.
pub async fn answers_go_to_outstanding_keys_only(store: &dyn TaskStore) {
    store
        .create(record("a", "s", HOUR), TaskLimits::new(5, 5))
        .await
        .unwrap();
    for key in ["one", "two"] {
        let ask = TaskChange::Ask {
            key: key.into(),
            request: Box::new(InputRequest::ListRoots(RequestParams::default())),
        };
        store.update("a", ask).await.unwrap();
    }
    let answer = |key: &str| TaskChange::Answer {
        responses: [(
            key.to_owned(),
            serde_json::from_value::<InputResponse>(serde_json::json!({"roots": []})).unwrap(),
        )]
        .into_iter()
        .collect(),
    };
    let unknown = store.update("a", answer("three")).await.unwrap().unwrap();
    assert_eq!(unknown.revision, 2);
    let partial = store.update("a", answer("one")).await.unwrap().unwrap();
    assert_eq!(partial.task.status, TaskStatus::InputRequired);
    assert_eq!(partial.input_requests.keys().collect::<Vec<_>>(), ["two"]);
    assert_eq!(partial.input_responses.keys().collect::<Vec<_>>(), ["one"]);
    let all = store.update("a", answer("two")).await.unwrap().unwrap();
    assert_eq!(all.task.status, TaskStatus::Working);
    let taken = store
        .update("a", TaskChange::Take { key: "one".into() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken.input_responses.keys().collect::<Vec<_>>(), ["two"]);
    assert_eq!(store.get("a").await.unwrap(), Some(taken));
}

/// A task lives until its TTL and not after; a waiter hears of a change made through `other`
/// (the same store, or another instance's handle on it), and of the task being gone.
pub async fn a_task_lives_until_its_ttl_and_waiters_see_changes(
    store: Arc<dyn TaskStore>,
    other: Arc<dyn TaskStore>,
) {
    store
        .create(
            record("short", "s", Duration::from_millis(300)),
            TaskLimits::new(5, 5),
        )
        .await
        .unwrap();
    assert!(store.get("short").await.unwrap().is_some());
    let waiter = {
        let store = store.clone();
        tokio::spawn(async move { store.changed("short", 0).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    other.update("short", TaskChange::Cancel).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the waiter heard of the change")
        .unwrap();
    // Waiting for a revision already passed returns at once.
    store.changed("short", 0).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.get("short").await.unwrap(), None);
    assert_eq!(other.get("short").await.unwrap(), None);
    // Waiting on a task that is gone returns at once.
    store.changed("short", 0).await;
}

/// `data` of `n` bytes.
fn event(n: usize) -> Arc<str> {
    Arc::from("x".repeat(n))
}

/// The sequence numbers of the events of `stream` kept after `seq`.
async fn kept(store: &dyn EventStore, stream: &str, seq: u64) -> Vec<u64> {
    store.after(stream, seq).await.iter().map(|e| e.0).collect()
}

/// Events come back after a sequence number, in order, per stream, until the stream is removed.
pub async fn events_are_replayed_after_a_sequence_number(store: &dyn EventStore) {
    for seq in 1..=3 {
        store.append("s", "a", seq, format!("a{seq}").into()).await;
    }
    store.append("s", "b", 1, "b:1 with: colons".into()).await;
    assert_eq!(
        store.after("a", 1).await,
        vec![(2, Arc::from("a2")), (3, Arc::from("a3"))]
    );
    assert_eq!(store.after("a", 3).await, vec![]);
    store.remove("a").await;
    assert!(store.after("a", 0).await.is_empty());
    assert_eq!(
        store.after("b", 0).await,
        vec![(1, Arc::from("b:1 with: colons"))]
    );
    assert_eq!(store.after("unknown", 0).await, vec![]);
}

/// A session holds at most its share (3 events of 100 bytes in stream `a`: 165 bytes each); past
/// it its own oldest events go, another session's stay, an event larger than the share is not
/// kept, and a removed stream frees its share.
pub async fn a_session_over_its_share_loses_its_own_oldest_events(store: &dyn EventStore) {
    assert!(store.append("other", "o", 1, event(100)).await);
    for seq in 1..=5 {
        assert!(store.append("s", "a", seq, event(100)).await);
    }
    assert_eq!(kept(store, "a", 0).await, [3, 4, 5]);
    assert_eq!(kept(store, "o", 0).await, [1]);
    // Larger than a session's share: not kept at all, and nothing else goes.
    assert!(!store.append("s", "a", 6, event(1000)).await);
    assert_eq!(kept(store, "a", 0).await, [3, 4, 5]);
    // Removing the stream frees its share: three new events fit.
    store.remove("a").await;
    for seq in 1..=3 {
        store.append("s", "b", seq, event(100)).await;
    }
    assert_eq!(kept(store, "b", 0).await, [1, 2, 3]);
}
