//! [`TaskStore`] in Redis: any instance creates, reads, changes and lists any task.
//!
//! A task is a string `PREFIX:task:ID`, its revision and its record as JSON (`7 {...}`), which
//! expires with the task's TTL; a change compares the revision in place (`GETRANGE`) and writes
//! the whole string again, keeping the expiry. Beside it, for the bounds and the listing: a
//! sorted set of every task by expiry (`tasks:expiry`, each member `ID OWNER`), each owner's
//! running tasks by expiry (`tasks:running:OWNER`) and all its tasks by creation
//! (`tasks:of:OWNER`). Creation is one Lua script: it checks both bounds (counting the tasks
//! that have not expired) and writes (`SET NX PXAT`: an id that exists is refused); every
//! [`SWEEP_EVERY`]th creation also forgets the expired tasks from the sets. A change reads the
//! record (or starts from the one this instance created, [`TaskStore::update_known`]), applies
//! the same rules as every store ([`apply`]) and writes it back only if the revision did not
//! move meanwhile (a compare-and-set script, retried). It needs Redis 6.2 or newer (`PXAT`).
//!
//! Waiters of a task ([`TaskStore::changed`]) mark it watched (`task-watched:ID`, renewed while
//! they wait) before they read its revision; a change publishes the id on `task-changed` only
//! when the task is watched, so that a task nobody waits for costs no message.

use std::io::Write;
use std::sync::Arc;
use std::time::SystemTime;

use mcp_core::ProtocolVersion;

use super::watch::RECHECK;
use super::{Lua, Shared, epoch_millis, ttl_millis, unavailable};
use crate::store::{
    StoreFuture, TaskChange, TaskLimits, TaskPage, TaskRecord, TaskStore, TaskStoreError, apply,
};

/// How many times a change is tried again when another instance changed the task meanwhile.
const MAX_ATTEMPTS: usize = 32;

/// How many expired tasks one sweep forgets, at most.
const EXPIRE_BATCH: usize = 10_000;

/// One creation in this many also forgets the expired tasks (the bounds count only the tasks
/// that have not expired, so the sweep keeps the sets small, not the bounds right).
const SWEEP_EVERY: u32 = 16;

/// How long a waiter's mark lasts: renewed every [`RECHECK`] while it waits.
const WATCHED_FOR: std::time::Duration = std::time::Duration::from_secs(3);

/// Checks the bounds, keeps a new task, and now and then forgets the expired ones.
/// KEYS: expiry, seq, running:OWNER, of:OWNER, task:ID.
/// ARGV: id, owner, now, expires, stored task, per_owner, total, prefix, batch, sweep every.
/// Returns 0 (kept), 1 (the owner runs too many), 2 (the store is full), -1 (the id exists).
const CREATE: &str = r"
local alive = '(' .. ARGV[3]
if redis.call('ZCOUNT', KEYS[3], alive, '+inf') >= tonumber(ARGV[6]) then return 1 end
if redis.call('ZCOUNT', KEYS[1], alive, '+inf') >= tonumber(ARGV[7]) then return 2 end
if not redis.call('SET', KEYS[5], ARGV[5], 'NX', 'PXAT', ARGV[4]) then return -1 end
local seq = redis.call('INCR', KEYS[2])
if seq % tonumber(ARGV[10]) == 0 then
  local prefix = ARGV[8]
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[9]))
  for _, member in ipairs(expired) do
    local id, owner = string.match(member, '^(%S+) (.*)$')
    if id then
      redis.call('ZREM', prefix .. ':tasks:running:' .. owner, id)
      redis.call('ZREM', prefix .. ':tasks:of:' .. owner, id)
    end
    redis.call('ZREM', KEYS[1], member)
  end
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1] .. ' ' .. ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
return 0
";

/// Writes a changed task if its revision is still the one read, and tells its waiters.
/// KEYS: task:ID, running:OWNER, task-watched:ID. ARGV: the stored task's start as read
/// (`REV `), the changed task stored, ended (0/1), id, channel.
/// Returns 1 (written), 0 (the task moved meanwhile), -1 (the task is gone).
const CHANGE: &str = r"
local head = redis.call('GETRANGE', KEYS[1], 0, #ARGV[1] - 1)
if head == '' then return -1 end
if head ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[3] == '1' then redis.call('ZREM', KEYS[2], ARGV[4]) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PUBLISH', ARGV[5], ARGV[4]) end
return 1
";

/// A [`TaskStore`] in Redis (see [`RedisStore`](super::RedisStore)).
pub struct RedisTaskStore {
    shared: Arc<Shared>,
    create: Lua,
    change: Lua,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.shared.options.prefix)
            .finish_non_exhaustive()
    }
}

fn failed(what: &str) -> impl FnOnce(redis::RedisError) -> TaskStoreError + '_ {
    move |error| TaskStoreError::Unavailable(unavailable(what, &error))
}

impl RedisTaskStore {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        RedisTaskStore {
            shared,
            create: Lua::new(CREATE),
            change: Lua::new(CHANGE),
        }
    }

    fn task_key(&self, id: &str) -> String {
        self.shared.key_of("task", id)
    }

    /// The mark of a task someone waits for (see the module's docs).
    fn watched_key(&self, id: &str) -> String {
        self.shared.key_of("task-watched", id)
    }

    /// The task `id` as Redis holds it: its revision and record.
    async fn read(&self, id: &str) -> Result<Option<(u64, TaskRecord)>, TaskStoreError> {
        let mut connection = self.shared.connection.clone();
        let stored: Option<String> = redis::cmd("GET")
            .arg(self.task_key(id))
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))?;
        stored.map(|stored| decode(&stored)).transpose()
    }

    /// Marks the task `id` watched (for [`WATCHED_FOR`]), then reads its current revision, in
    /// one round trip: a change written after the mark is published, one written before it is
    /// in the revision read.
    async fn watch_revision(&self, id: &str) -> Result<Option<u64>, TaskStoreError> {
        let mut connection = self.shared.connection.clone();
        let (head,): (Vec<u8>,) = redis::pipe()
            .cmd("SET")
            .arg(self.watched_key(id))
            .arg(1)
            .arg("PX")
            .arg(ttl_millis(WATCHED_FOR))
            .ignore()
            .cmd("GETRANGE")
            .arg(self.task_key(id))
            .arg(0)
            .arg(REVISION_DIGITS)
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))?;
        if head.is_empty() {
            return Ok(None);
        }
        revision_of(&head).map(Some)
    }

    async fn create_record(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> Result<(), TaskStoreError> {
        let id = &record.task.task_id;
        let owner = &record.owner;
        let shared = &self.shared;
        let mut connection = shared.connection.clone();
        let mut call = self.create.call(5);
        call.arg(shared.key("tasks:expiry"))
            .arg(shared.key("tasks:seq"))
            .arg(shared.key_of("tasks:running", owner))
            .arg(shared.key_of("tasks:of", owner))
            .arg(self.task_key(id))
            .arg(id)
            .arg(owner)
            .arg(epoch_millis(SystemTime::now()))
            .arg(epoch_millis(record.expires_at))
            .arg(encode(&record)?)
            .arg(limits.per_owner)
            .arg(limits.total)
            .arg(&shared.options.prefix)
            .arg(EXPIRE_BATCH)
            .arg(SWEEP_EVERY);
        let outcome: i64 = self
            .create
            .run(&call, &mut connection)
            .await
            .map_err(failed("keep a new task"))?;
        match outcome {
            0 => Ok(()),
            1 => Err(TaskStoreError::TooManyRunning {
                limit: limits.per_owner,
            }),
            2 => Err(TaskStoreError::Full {
                limit: limits.total,
            }),
            _ => Err(TaskStoreError::Unavailable(format!(
                "a task with the id {id} already exists"
            ))),
        }
    }

    /// Applies `change` to the task `id`: to `known` first, when given, without reading it (the
    /// write checks that the task is still at its revision), then to the task as read, until a
    /// write finds the revision it read.
    async fn update_record(
        &self,
        id: &str,
        change: TaskChange,
        mut known: Option<&TaskRecord>,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        for _ in 0..MAX_ATTEMPTS {
            let (rev, mut record) = match known.take() {
                Some(known) => (known.revision, known.clone()),
                None => match self.read(id).await? {
                    Some(read) => read,
                    None => return Ok(None),
                },
            };
            if !apply(&mut record, change.clone()) {
                return Ok(Some(record));
            }
            record.revision = rev + 1;
            let mut connection = self.shared.connection.clone();
            let mut call = self.change.call(3);
            call.arg(self.task_key(id))
                .arg(self.shared.key_of("tasks:running", &record.owner))
                .arg(self.watched_key(id))
                .arg(format!("{rev} "))
                .arg(encode(&record)?)
                .arg(u8::from(record.is_terminal()))
                .arg(id)
                .arg(self.shared.key("task-changed"));
            let written: i64 = self
                .change
                .run(&call, &mut connection)
                .await
                .map_err(failed("change a task"))?;
            match written {
                1 => return Ok(Some(record)),
                -1 => return Ok(None),
                _ => continue,
            }
        }
        Err(TaskStoreError::Unavailable(format!(
            "the task {id} kept changing under this change ({MAX_ATTEMPTS} attempts)"
        )))
    }

    async fn list_records(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<TaskPage, TaskStoreError> {
        let limit = limit.max(1);
        let of_owner = self.shared.key_of("tasks:of", owner);
        let mut connection = self.shared.connection.clone();
        let mut start: Option<f64> = match after {
            Some(after) => redis::cmd("ZSCORE")
                .arg(&of_owner)
                .arg(after)
                .query_async(&mut connection)
                .await
                .map_err(failed("list tasks"))?,
            None => None,
        };
        let mut tasks = Vec::new();
        let mut more = false;
        'pages: loop {
            let from = start.map_or_else(|| "-inf".to_owned(), |s| format!("({s}"));
            let ids: Vec<(String, f64)> = redis::cmd("ZRANGEBYSCORE")
                .arg(&of_owner)
                .arg(from)
                .arg("+inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(0)
                .arg(limit + 1)
                .query_async(&mut connection)
                .await
                .map_err(failed("list tasks"))?;
            if ids.is_empty() {
                break;
            }
            for (id, score) in ids {
                start = Some(score);
                match self.read(&id).await? {
                    Some(_) if tasks.len() == limit => {
                        more = true;
                        break 'pages;
                    }
                    Some((_, record)) => tasks.push(record.task),
                    None => {
                        // Expired: its key is gone; the index forgets it too.
                        let _: Result<i64, _> = redis::cmd("ZREM")
                            .arg(&of_owner)
                            .arg(&id)
                            .query_async(&mut connection)
                            .await;
                    }
                }
            }
        }
        let next = more
            .then(|| tasks.last().map(|t| t.task_id.clone()))
            .flatten();
        Ok(TaskPage { tasks, next })
    }

    async fn wait_for_change(&self, id: &str, revision: u64) {
        let watch = self.shared.watcher.watch(id);
        loop {
            let notified = watch.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.watch_revision(id).await {
                Ok(None) => return,
                Ok(Some(now)) if now > revision => return,
                Ok(Some(_)) => {}
                Err(error) => tracing::debug!(task = id, %error, "waiting for Redis"),
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(RECHECK) => {}
            }
        }
    }
}

/// The index of the last byte of a stored task that its revision can reach: a `u64` has at most
/// 20 digits, then the space.
const REVISION_DIGITS: usize = 20;

/// A record as Redis keeps it: its revision, a space, and the record as JSON, with the task's
/// durations under their 2026-07-28 names (read back under either).
fn encode(record: &TaskRecord) -> Result<Vec<u8>, TaskStoreError> {
    let failed = |e: std::io::Error| {
        TaskStoreError::Unavailable(format!("a task could not be encoded: {e}"))
    };
    let mut stored = Vec::with_capacity(512);
    write!(stored, "{} ", record.revision).map_err(failed)?;
    mcp_core::render::to_writer(&mut stored, record, ProtocolVersion::LATEST)
        .map_err(|e| failed(e.into()))?;
    Ok(stored)
}

/// A task as [`encode`] stored it, with its revision.
fn decode(stored: &str) -> Result<(u64, TaskRecord), TaskStoreError> {
    let rev = revision_of(stored.as_bytes())?;
    let data = stored.split_once(' ').map_or("", |(_, data)| data);
    let mut record: TaskRecord = serde_json::from_str(data).map_err(|e| {
        TaskStoreError::Unavailable(format!("a task kept in Redis could not be read: {e}"))
    })?;
    record.revision = rev;
    Ok((rev, record))
}

/// The revision at the start of a stored task (`7 {...}`, or as much of it as `GETRANGE` read).
fn revision_of(stored: &[u8]) -> Result<u64, TaskStoreError> {
    let end = stored
        .iter()
        .position(|&b| b == b' ')
        .unwrap_or(stored.len());
    std::str::from_utf8(&stored[..end])
        .ok()
        .and_then(|rev| rev.parse().ok())
        .ok_or_else(|| {
            let start = String::from_utf8_lossy(&stored[..stored.len().min(REVISION_DIGITS)]);
            TaskStoreError::Unavailable(format!(
                "a task kept in Redis could not be read: it does not start with its revision \
                 ({start:?})"
            ))
        })
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(self.create_record(record, limits))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, record)| record)) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.update_record(id, change, None))
    }

    fn update_known<'a>(
        &'a self,
        known: &'a TaskRecord,
        change: TaskChange,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.update_record(&known.task.task_id, change, Some(known)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<TaskPage, TaskStoreError>> {
        Box::pin(self.list_records(owner, after, limit))
    }

    fn changed<'a>(&'a self, id: &'a str, revision: u64) -> StoreFuture<'a, ()> {
        Box::pin(self.wait_for_change(id, revision))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_core::JsonObject;
    use mcp_core::input::InputRequest;
    use mcp_core::params::RequestParams;
    use mcp_core::tasks::{Task, TaskStatus};

    use super::*;
    use crate::store::TaskOutcome;

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let mut task = Task::new("t", TaskStatus::InputRequired, "2026-07-28T00:00:00Z");
        task.ttl = Some(60_000);
        task.poll_interval = Some(500);
        task.status_message = Some("1/2".into());
        let mut record = TaskRecord::new(
            task,
            "subject:ada".into(),
            ProtocolVersion::V2025_11_25,
            Duration::from_secs(60),
        );
        record.input_requests.insert(
            "roots".into(),
            InputRequest::ListRoots(RequestParams::default()),
        );
        record.revision = 7;
        let mut result = JsonObject::new();
        result.insert("content".into(), serde_json::json!([]));
        record.outcome = Some(TaskOutcome::Result(result));
        let stored = String::from_utf8(encode(&record).unwrap()).unwrap();
        assert!(stored.starts_with("7 {"), "{stored}");
        assert_eq!(decode(&stored).unwrap(), (7, record));
        assert_eq!(
            revision_of(&stored.as_bytes()[..=REVISION_DIGITS]).unwrap(),
            7
        );
        assert!(revision_of(b"{\"task\"").is_err());
    }
}
