//! The stores' contract (`tests::stores`), checked against the in-memory stores and against the
//! Redis ones on a real `redis-server` each test starts; then what only Redis faces: several
//! instances sharing it, Redis going away and coming back, passwords and unreachable URLs.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::store::{
    EventStore, InMemoryTaskStore, RedisOptions, RedisStore, TaskChange, TaskLimits, TaskStore,
    TaskStoreError,
};
use tests::redis::RedisServer;
use tests::stores::{self, record};

/// A session's share of events in the checks: three events of 100 bytes on a one-letter stream.
const SHARE: usize = 3 * 165;

/// A Redis store on `server`, as one instance of a deployment would hold it.
async fn connect(server: &RedisServer) -> RedisStore {
    let options = RedisOptions::new().max_session_event_bytes(SHARE);
    RedisStore::connect_with(&server.url(), options)
        .await
        .unwrap()
}

macro_rules! task_checks {
    ($($check:ident),* $(,)?) => {
        mod in_memory {
            $(
                #[tokio::test]
                async fn $check() {
                    tests::stores::$check(&mcp_runtime::store::InMemoryTaskStore::new()).await
                }
            )*
        }
        mod in_redis {
            $(
                #[tokio::test]
                async fn $check() {
                    let server = tests::redis::RedisServer::start();
                    tests::stores::$check(&super::connect(&server).await.task_store()).await
                }
            )*
        }
    };
}

task_checks!(
    an_owner_runs_so_many_tasks_and_ended_ones_are_kept,
    an_owners_tasks_are_listed_in_pages,
    the_store_keeps_so_many_tasks_ended_or_not,
    an_ended_task_never_changes_again,
    a_change_over_the_created_task_sees_a_change_made_meanwhile,
    answers_go_to_outstanding_keys_only,
);

macro_rules! event_checks {
    ($($check:ident),* $(,)?) => {
        mod events_in_memory {
            $(
                #[tokio::test]
                async fn $check() {
                    let store = mcp_runtime::store::InMemoryEventStore::new(10_000, super::SHARE);
                    tests::stores::$check(&store).await
                }
            )*
        }
        mod events_in_redis {
            $(
                #[tokio::test]
                async fn $check() {
                    let server = tests::redis::RedisServer::start();
                    tests::stores::$check(&*super::connect(&server).await.event_store()).await
                }
            )*
        }
    };
}

event_checks!(
    events_are_replayed_after_a_sequence_number,
    a_session_over_its_share_loses_its_own_oldest_events,
);

#[tokio::test]
async fn in_memory_a_task_lives_until_its_ttl_and_waiters_see_changes() {
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    stores::a_task_lives_until_its_ttl_and_waiters_see_changes(store.clone(), store).await;
}

#[tokio::test]
async fn in_redis_a_task_lives_until_its_ttl_and_a_waiter_hears_of_another_instances_change() {
    let server = RedisServer::start();
    let one: Arc<dyn TaskStore> = Arc::new(connect(&server).await.task_store());
    let two: Arc<dyn TaskStore> = Arc::new(connect(&server).await.task_store());
    stores::a_task_lives_until_its_ttl_and_waiters_see_changes(one, two).await;
}

#[tokio::test]
async fn in_redis_a_change_is_published_only_while_someone_waits_for_the_task() {
    let server = RedisServer::start();
    let one: Arc<dyn TaskStore> = Arc::new(connect(&server).await.task_store());
    let two: Arc<dyn TaskStore> = Arc::new(connect(&server).await.task_store());
    let hour = Duration::from_secs(3600);
    one.create(record("t", "alice", hour), TaskLimits::new(5, 5))
        .await
        .unwrap();
    let published = || server.calls("publish");
    let progress = TaskChange::Progress {
        message: "1/2".into(),
    };
    assert_eq!(
        one.update("t", progress).await.unwrap().unwrap().revision,
        1
    );
    assert_eq!(published(), 0);
    // A waiter on the other instance marks the task watched before it reads it.
    let waiter = {
        let two = two.clone();
        tokio::spawn(async move { two.changed("t", 1).await })
    };
    let watched = || server.command(&["EXISTS", "mcp:task-watched:t"]);
    for _ in 0..100 {
        if watched() == ":1" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(watched(), ":1");
    assert_eq!(
        one.update("t", TaskChange::Cancel)
            .await
            .unwrap()
            .unwrap()
            .revision,
        2
    );
    assert_eq!(published(), 1);
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the waiter heard of the change")
        .unwrap();
}

#[tokio::test]
async fn in_redis_creation_forgets_expired_tasks_and_an_index_entry_it_cannot_read() {
    let server = RedisServer::start();
    let store = connect(&server).await.task_store();
    let limits = TaskLimits::new(100, 100);
    store
        .create(record("brief", "alice", Duration::from_millis(1)), limits)
        .await
        .unwrap();
    // An entry of an older layout (the id alone), long expired.
    assert_eq!(
        server.command(&["ZADD", "mcp:tasks:expiry", "1", "old"]),
        ":1"
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    let count = |key: &str| server.command(&["ZCARD", key]);
    assert_eq!(count("mcp:tasks:running:alice"), ":1");
    // Every 16th creation sweeps.
    for n in 1..16 {
        let id = format!("t{n}");
        store
            .create(record(&id, "bob", Duration::from_secs(60)), limits)
            .await
            .unwrap();
    }
    assert_eq!(count("mcp:tasks:expiry"), ":15");
    assert_eq!(count("mcp:tasks:running:alice"), ":0");
    assert_eq!(count("mcp:tasks:of:alice"), ":0");
    assert_eq!(store.get("brief").await.unwrap(), None);
}

#[tokio::test]
async fn in_redis_an_id_that_exists_is_refused_and_its_task_left_as_it_was() {
    let server = RedisServer::start();
    let store = connect(&server).await.task_store();
    let limits = TaskLimits::new(5, 5);
    let hour = Duration::from_secs(3600);
    store
        .create(record("t", "alice", hour), limits)
        .await
        .unwrap();
    let again = store.create(record("t", "bob", hour), limits).await;
    assert_eq!(
        again,
        Err(TaskStoreError::Unavailable(
            "a task with the id t already exists".into()
        ))
    );
    let kept = store.get("t").await.unwrap().unwrap();
    assert_eq!((kept.owner.as_str(), kept.revision), ("alice", 0));
    // Nothing of bob's was written.
    assert_eq!(server.command(&["EXISTS", "mcp:tasks:running:bob"]), ":0");
    assert_eq!(server.command(&["ZCARD", "mcp:tasks:expiry"]), ":1");
}

#[tokio::test]
async fn in_redis_tasks_created_at_the_same_time_are_listed_in_pages_by_id() {
    let server = RedisServer::start();
    let store = connect(&server).await.task_store();
    let limits = TaskLimits::new(10, 10);
    let hour = Duration::from_secs(3600);
    for id in ["e", "a", "d", "b", "c"] {
        store
            .create(record(id, "alice", hour), limits)
            .await
            .unwrap();
        // All of them at one creation time, as a busy server makes them.
        let same = server.command(&["ZADD", "mcp:tasks:of:alice", "XX", "CH", "7", id]);
        assert_eq!(same, ":1");
    }
    let page = |after: Option<&'static str>| {
        let store = &store;
        async move {
            let page = store.list("alice", after, 2).await.unwrap();
            let ids: Vec<String> = page.tasks.into_iter().map(|t| t.task_id).collect();
            (ids, page.next)
        }
    };
    assert_eq!(
        page(None).await,
        (vec!["a".into(), "b".into()], Some("b".into()))
    );
    assert_eq!(
        page(Some("b")).await,
        (vec!["c".into(), "d".into()], Some("d".into()))
    );
    assert_eq!(page(Some("d")).await, (vec!["e".into()], None));
}

#[tokio::test]
async fn instances_share_tasks_and_events_and_prefixes_keep_deployments_apart() {
    let server = RedisServer::start();
    let (one, two) = (connect(&server).await, connect(&server).await);
    let limits = TaskLimits::new(1, 10);
    one.task_store()
        .create(record("t", "alice", Duration::from_secs(60)), limits)
        .await
        .unwrap();
    // The owner's cap holds across instances.
    let refused = two
        .task_store()
        .create(record("u", "alice", Duration::from_secs(60)), limits)
        .await;
    assert_eq!(refused, Err(TaskStoreError::TooManyRunning { limit: 1 }));
    let cancelled = two.task_store().update("t", TaskChange::Cancel).await;
    assert_eq!(cancelled.unwrap().unwrap().revision, 1);
    assert_eq!(
        one.task_store().get("t").await.unwrap().unwrap().revision,
        1
    );
    one.event_store()
        .append("s", "stream", 1, Arc::from("one"))
        .await;
    assert_eq!(
        two.event_store().after("stream", 0).await,
        vec![(1, Arc::from("one"))]
    );
    // Another deployment on the same Redis sees none of it.
    let other = RedisStore::connect_with(&server.url(), RedisOptions::new().prefix("other"))
        .await
        .unwrap();
    assert_eq!(other.task_store().get("t").await.unwrap(), None);
    assert_eq!(other.event_store().after("stream", 0).await, vec![]);
}

#[tokio::test]
async fn redis_lost_mid_run_fails_the_requests_meanwhile_and_service_resumes_by_itself() {
    let mut server = RedisServer::start();
    let redis = connect(&server).await;
    let tasks = redis.task_store();
    let limits = TaskLimits::new(10, 10);
    tasks
        .create(record("before", "s", Duration::from_secs(60)), limits)
        .await
        .unwrap();
    server.kill();
    let failed = tasks.get("before").await.unwrap_err();
    let TaskStoreError::Unavailable(detail) = &failed else {
        panic!("{failed:?}")
    };
    assert!(
        detail.starts_with("Redis could not read a task: "),
        "{detail}"
    );
    assert!(
        failed
            .to_string()
            .starts_with("the task store is unavailable: Redis could not read a task"),
        "{failed}"
    );
    let events = redis.event_store();
    // Events are not kept meanwhile, and reading finds none; nothing panics.
    assert!(!events.append("s", "e", 1, Arc::from("lost")).await);
    assert_eq!(events.after("e", 0).await, vec![]);
    server.restart();
    // The next requests reconnect (the restarted Redis is empty: it saves nothing).
    let mut resumed = None;
    for _ in 0..50 {
        if let Ok(got) = tasks.get("before").await {
            resumed = Some(got);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(resumed, Some(None));
    tasks
        .create(record("after", "s", Duration::from_secs(60)), limits)
        .await
        .unwrap();
    assert!(events.append("s", "e", 2, Arc::from("kept")).await);
    assert_eq!(events.after("e", 0).await, vec![(2, Arc::from("kept"))]);
}

#[tokio::test]
async fn a_password_in_the_url_is_used_and_never_shown() {
    let server = RedisServer::with_password("s3cret-pw");
    let redis = RedisStore::connect(&server.url()).await.unwrap();
    redis
        .task_store()
        .create(
            record("t", "s", Duration::from_secs(60)),
            TaskLimits::new(1, 1),
        )
        .await
        .unwrap();
    assert!(!format!("{redis:?}").contains("s3cret"));
    let wrong = server.url().replace("s3cret-pw", "wrong-pw");
    let error = RedisStore::connect(&wrong).await.unwrap_err().to_string();
    assert!(!error.contains("wrong-pw"), "{error}");
    assert!(
        error.starts_with(&format!(
            "could not connect to Redis at redis://***@127.0.0.1:{}/: ",
            server
                .url()
                .rsplit(':')
                .next()
                .unwrap()
                .trim_end_matches('/')
        )),
        "{error}"
    );
}

#[tokio::test]
async fn an_unreachable_redis_is_a_clear_error_naming_the_url() {
    // A port nothing listens on: the server was started, then killed.
    let mut server = RedisServer::start();
    let url = server.url();
    server.kill();
    let error = RedisStore::connect(&url).await.unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("could not connect to Redis at {url}: ")),
        "{error}"
    );
    assert!(
        error.ends_with(
            "; check that Redis runs there and that the URL's password and database are right"
        ),
        "{error}"
    );
    let invalid = RedisStore::connect("http://example/").await.unwrap_err();
    assert!(
        invalid
            .to_string()
            .starts_with("http://example/ is not a Redis URL ("),
        "{invalid}"
    );
}

#[tokio::test]
async fn a_stream_that_several_instances_write_is_numbered_by_redis() {
    let server = RedisServer::start();
    let (one, two) = (
        connect(&server).await.event_store(),
        connect(&server).await.event_store(),
    );
    assert_eq!(one.latest("shared").await, 0);
    assert_eq!(
        one.append_next("s", "shared", Arc::from("a")).await,
        Some(1)
    );
    assert_eq!(
        two.append_next("s", "shared", Arc::from("b")).await,
        Some(2)
    );
    assert_eq!(one.latest("shared").await, 2);
    assert_eq!(
        two.after("shared", 0).await,
        vec![(1, Arc::from("a")), (2, Arc::from("b"))]
    );
    assert_eq!(two.session_of("shared").await.as_deref(), Some("s"));
    assert_eq!(two.session_of("unknown").await, None);
    // Larger than the session's share: not kept, and not numbered.
    let large = Arc::from("x".repeat(SHARE));
    assert_eq!(one.append_next("s", "shared", large).await, None);
    assert_eq!(one.latest("shared").await, 2);
    two.remove("shared").await;
    assert_eq!(one.latest("shared").await, 0);
    assert_eq!(one.session_of("shared").await, None);
    // The in-memory store, for one process, numbers nothing.
    let memory = mcp_runtime::store::InMemoryEventStore::default();
    assert_eq!(
        memory.append_next("s", "shared", Arc::from("a")).await,
        None
    );
}

#[tokio::test]
async fn rediss_urls_connect_over_tls_to_a_server_a_private_authority_signed() {
    let server = RedisServer::with_tls();
    // The system's roots do not know the test's authority: refused, saying where.
    let untrusted = RedisStore::connect(&server.tls_url()).await.unwrap_err();
    assert!(
        untrusted.to_string().starts_with(&format!(
            "could not connect to Redis at {}: ",
            server.tls_url()
        )),
        "{untrusted}"
    );
    let options = RedisOptions::new().tls_root_certificate(server.ca_certificate());
    let redis = RedisStore::connect_with(&server.tls_url(), options)
        .await
        .unwrap();
    let tasks = redis.task_store();
    tasks
        .create(
            record("t", "s", Duration::from_secs(60)),
            TaskLimits::new(1, 1),
        )
        .await
        .unwrap();
    assert_eq!(tasks.get("t").await.unwrap().unwrap().task.task_id, "t");
}
