//! [`TaskStore`] in Redis: any instance creates, reads, changes and lists any task.
//!
//! A task is a stream `PREFIX:task:ID` of one entry: its record as JSON (field `t`), under the
//! entry id `REV-1`, and the key expires with the task's TTL. The stream's ids make the
//! compare-and-set without a script: a change adds the next revision's entry (`XADD … MAXLEN 1
//! NOMKSTREAM (REV+1)-1`), which Redis refuses when the stream already holds that revision or a
//! later one, that is when another change came between the read and the write. Beside it, for
//! the bounds and the listing: a sorted set of every task by expiry (`tasks:expiry`, each member
//! `ID OWNER`), each owner's running tasks by expiry (`tasks:running:OWNER`) and all its tasks by
//! creation time (`tasks:of:OWNER`, equal times in the order of their ids).
//!
//! Creation is one Lua script: it checks both bounds (counting the tasks that have not expired,
//! `ZCOUNT`), then writes the entry `0-1` (which Redis refuses when the id exists, before
//! anything else is written), the expiry and the three index entries. Every [`SWEEP_EVERY`]th
//! creation of an instance also forgets the expired tasks from the sets (another script, each
//! owner's at once). A change reads the record (or starts from the one this instance created,
//! [`TaskStore::update_known`]), applies the same rules as every store ([`apply`]) and adds it
//! (retried while another change comes between), in one round trip with the running set's
//! update and the watch check below, and no script: a script costs Redis several times the
//! commands it runs. It needs Redis 6.2 or newer (`XADD NOMKSTREAM`, exclusive ranges).
//!
//! Waiters of a task ([`TaskStore::changed`]) mark it watched (`task-watched:ID`, renewed while
//! they wait) before they read whether it moved; a change asks whether the task is watched in the
//! same round trip as it writes, and publishes the id on `task-changed` only then, so that a task
//! nobody waits for costs no message.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

use mcp_runtime_core::ProtocolVersion;
use redis::Value;

use super::watch::RECHECK;
use super::{Lua, Shared, epoch_millis, ttl_millis, unavailable};
use crate::store::{
    StoreFuture, TaskChange, TaskLimits, TaskPage, TaskRecord, TaskStore, TaskStoreError, apply,
};

/// How many times a change is tried again when another instance changed the task meanwhile.
const MAX_ATTEMPTS: usize = 32;

/// How many expired tasks one sweep forgets, at most.
const EXPIRE_BATCH: usize = 10_000;

/// One creation in this many (on each instance) also forgets the expired tasks (the bounds count
/// only the tasks that have not expired, so the sweep keeps the sets small, not the bounds right).
const SWEEP_EVERY: u32 = 16;

/// How long a waiter's mark lasts: renewed every [`RECHECK`] while it waits.
const WATCHED_FOR: std::time::Duration = std::time::Duration::from_secs(3);

/// The field of a task's entry that holds its record (the creation script names it too).
const FIELD: &str = "t";

/// Checks the bounds and keeps a new task: its entry first, which Redis refuses when the id
/// exists (then nothing is written). Its keys are named here, from the prefix, the id and the
/// owner, and the numbers come in one argument: each argument of a script costs Redis about
/// what a command inside it does.
/// ARGV: prefix, `now(ms) expires(ms) per_owner total now(µs) entry-id id`, owner, record.
/// Returns 0 (kept), 1 (the owner runs too many), 2 (the store is full).
const CREATE: &str = r"
local now, expires, per_owner, total, created, entry, id =
  string.match(ARGV[2], '^(%d+) (%d+) (%d+) (%d+) (%d+) (%S+) (%S+)$')
local prefix, owner = ARGV[1], ARGV[3]
local expiry, running = prefix .. ':tasks:expiry', prefix .. ':tasks:running:' .. owner
local alive = '(' .. now
if redis.call('ZCOUNT', running, alive, '+inf') >= tonumber(per_owner) then return 1 end
if redis.call('ZCOUNT', expiry, alive, '+inf') >= tonumber(total) then return 2 end
local task = prefix .. ':task:' .. id
redis.call('XADD', task, entry, 't', ARGV[4])
redis.call('PEXPIREAT', task, expires)
redis.call('ZADD', expiry, expires, id .. ' ' .. owner)
redis.call('ZADD', running, expires, id)
redis.call('ZADD', prefix .. ':tasks:of:' .. owner, created, id)
return 0
";

/// Forgets up to ARGV[2] tasks that expired by ARGV[1] (ms) from the sets: each owner's at once.
/// An entry of an older layout (the id alone) names no owner: only it goes.
/// KEYS: expiry. ARGV: now, batch, prefix.
const SWEEP: &str = r"
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local owners = {}
for _, member in ipairs(expired) do
  local id, owner = string.match(member, '^(%S+) (.*)$')
  if id then
    owners[owner] = owners[owner] or {}
    table.insert(owners[owner], id)
  end
end
local function forget(key, members)
  for i = 1, #members, 1000 do
    redis.call('ZREM', key, unpack(members, i, math.min(i + 999, #members)))
  end
end
for owner, ids in pairs(owners) do
  forget(ARGV[3] .. ':tasks:running:' .. owner, ids)
  forget(ARGV[3] .. ':tasks:of:' .. owner, ids)
end
forget(KEYS[1], expired)
";

/// A [`TaskStore`] in Redis (see [`RedisStore`](super::RedisStore)).
pub struct RedisTaskStore {
    shared: Arc<Shared>,
    create: Lua,
    forget_expired: Lua,
    /// Counts this instance's creations, for [`SWEEP_EVERY`].
    created: AtomicU32,
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

/// Microseconds since the epoch: a task's creation time in its owner's list.
fn epoch_micros(at: SystemTime) -> i64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_micros()).unwrap_or(i64::MAX)
        })
}

/// The entry id of a task's `revision`.
fn entry_id(revision: u64) -> String {
    format!("{revision}-1")
}

impl RedisTaskStore {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        RedisTaskStore {
            shared,
            create: Lua::new(CREATE),
            forget_expired: Lua::new(SWEEP),
            created: AtomicU32::new(0),
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
        let entries: Value = redis::cmd("XREVRANGE")
            .arg(self.task_key(id))
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))?;
        latest(&entries)?.map(decode).transpose()
    }

    /// Marks the task `id` watched (for [`WATCHED_FOR`]), then reads whether it is still there
    /// and at `revision`, in one round trip: a change written after the mark is published, one
    /// written before it is read here.
    async fn watch_moved(&self, id: &str, revision: u64) -> Result<bool, TaskStoreError> {
        let task = self.task_key(id);
        let mut connection = self.shared.connection.clone();
        let (exists, later): (bool, Value) = redis::pipe()
            .cmd("SET")
            .arg(self.watched_key(id))
            .arg(1)
            .arg("PX")
            .arg(ttl_millis(WATCHED_FOR))
            .ignore()
            .cmd("EXISTS")
            .arg(&task)
            .cmd("XRANGE")
            .arg(&task)
            .arg(format!("({}", entry_id(revision)))
            .arg("+")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))?;
        Ok(!exists || latest(&later)?.is_some())
    }

    async fn create_record(
        &self,
        record: TaskRecord,
        limits: TaskLimits,
    ) -> Result<(), TaskStoreError> {
        let id = &record.task.task_id;
        let owner = &record.owner;
        let now = SystemTime::now();
        let mut connection = self.shared.connection.clone();
        let numbers = format!(
            "{} {} {} {} {} {} {id}",
            epoch_millis(now),
            epoch_millis(record.expires_at),
            limits.per_owner,
            limits.total,
            epoch_micros(now),
            entry_id(record.revision),
        );
        let mut call = self.create.call(0);
        call.arg(&self.shared.options.prefix)
            .arg(numbers)
            .arg(owner)
            .arg(encode(&record)?);
        let outcome: Result<i64, _> = self.create.run(&call, &mut connection).await;
        match outcome {
            Ok(0) => {}
            Ok(1) => {
                return Err(TaskStoreError::TooManyRunning {
                    limit: limits.per_owner,
                });
            }
            Ok(_) => {
                return Err(TaskStoreError::Full {
                    limit: limits.total,
                });
            }
            Err(error) if error.detail().is_some_and(moved) => {
                return Err(TaskStoreError::Unavailable(format!(
                    "a task with the id {id} already exists"
                )));
            }
            Err(error) => return Err(failed("keep a new task")(error)),
        }
        if self.created.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep(epoch_millis(now)).await;
        }
        Ok(())
    }

    /// Forgets up to [`EXPIRE_BATCH`] expired tasks from the sets (their keys expired by
    /// themselves). A failure only leaves them for the next sweep.
    async fn sweep(&self, now: i64) {
        let mut connection = self.shared.connection.clone();
        let mut call = self.forget_expired.call(1);
        call.arg(self.shared.key("tasks:expiry"))
            .arg(now)
            .arg(EXPIRE_BATCH)
            .arg(&self.shared.options.prefix);
        if let Err(error) = self.forget_expired.run::<()>(&call, &mut connection).await {
            tracing::debug!(%error, "Redis did not forget the expired tasks");
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
            let mut write = redis::pipe();
            write
                .ignore_errors()
                .cmd("XADD")
                .arg(self.task_key(id))
                .arg("NOMKSTREAM")
                .arg("MAXLEN")
                .arg(1)
                .arg(entry_id(record.revision))
                .arg(FIELD)
                .arg(encode(&record)?);
            // When the write is refused, the change will be written over the task as read
            // again; an end stays an end, so the running set may forget the task already.
            if record.is_terminal() {
                let running = self.shared.key_of("tasks:running", &record.owner);
                write.cmd("ZREM").arg(running).arg(id).ignore();
            }
            let (written, watched): (Value, Value) = write
                .cmd("EXISTS")
                .arg(self.watched_key(id))
                .query_async(&mut connection)
                .await
                .map_err(failed("change a task"))?;
            match written {
                Value::Nil => return Ok(None),
                Value::ServerError(error) if error.details().is_some_and(moved) => continue,
                Value::ServerError(error) => {
                    return Err(failed("change a task")(error.into()));
                }
                _ => {}
            }
            if watched == Value::Int(1) {
                let published: Result<(), _> = redis::cmd("PUBLISH")
                    .arg(self.shared.key("task-changed"))
                    .arg(id)
                    .query_async(&mut connection)
                    .await;
                if let Err(error) = published {
                    // The waiters read the task again within RECHECK.
                    tracing::debug!(task = id, %error, "Redis did not publish a task's change");
                }
            }
            return Ok(Some(record));
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
        // Where the page starts: at the creation time of `after`, past the tasks of that same
        // time up to it (they are in the order of their ids); from the start when it is gone.
        let (mut from, mut skip) = ("-inf".to_owned(), 0);
        if let Some(after) = after {
            let score: Option<f64> = redis::cmd("ZSCORE")
                .arg(&of_owner)
                .arg(after)
                .query_async(&mut connection)
                .await
                .map_err(failed("list tasks"))?;
            if let Some(score) = score {
                from = score.to_string();
                let same: Vec<String> = redis::cmd("ZRANGEBYSCORE")
                    .arg(&of_owner)
                    .arg(&from)
                    .arg(&from)
                    .query_async(&mut connection)
                    .await
                    .map_err(failed("list tasks"))?;
                skip = same.iter().take_while(|id| id.as_str() <= after).count();
            }
        }
        let mut tasks = Vec::new();
        let mut more = false;
        'pages: loop {
            let ids: Vec<(String, f64)> = redis::cmd("ZRANGEBYSCORE")
                .arg(&of_owner)
                .arg(&from)
                .arg("+inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(skip)
                .arg(limit + 1)
                .query_async(&mut connection)
                .await
                .map_err(failed("list tasks"))?;
            if ids.is_empty() {
                break;
            }
            for (id, score) in ids {
                let at = score.to_string();
                if at == from {
                    skip += 1;
                } else {
                    (from, skip) = (at, 1);
                }
                // An expired task is passed over (the sweep forgets it); so is one that is not
                // the owner's (an entry left by a creation refused for its id).
                match self.read(&id).await? {
                    Some((_, record)) if record.owner != owner => {}
                    Some(_) if tasks.len() == limit => {
                        more = true;
                        break 'pages;
                    }
                    Some((_, record)) => tasks.push(record.task),
                    None => {}
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
            match self.watch_moved(id, revision).await {
                Ok(true) => return,
                Ok(false) => {}
                Err(error) => tracing::debug!(task = id, %error, "waiting for Redis"),
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep(RECHECK) => {}
            }
        }
    }
}

/// Whether Redis refused an entry (its error's `detail`) because the stream holds its revision
/// or a later one.
fn moved(detail: &str) -> bool {
    detail.contains("equal or smaller than the target stream top item")
}

/// A record as Redis keeps it: JSON, with the task's durations under their 2026-07-28 names
/// (read back under either).
fn encode(record: &TaskRecord) -> Result<Vec<u8>, TaskStoreError> {
    let mut stored = Vec::with_capacity(512);
    mcp_runtime_core::render::to_writer(&mut stored, record, ProtocolVersion::LATEST)
        .map_err(|e| TaskStoreError::Unavailable(format!("a task could not be encoded: {e}")))?;
    Ok(stored)
}

/// A record as [`encode`] stored it, under the entry id of its revision.
fn decode((revision, data): (u64, &[u8])) -> Result<(u64, TaskRecord), TaskStoreError> {
    let mut record: TaskRecord = serde_json::from_slice(data).map_err(|e| unreadable(&e))?;
    record.revision = revision;
    Ok((revision, record))
}

fn unreadable(detail: &dyn std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Unavailable(format!("a task kept in Redis could not be read: {detail}"))
}

fn bytes(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(bytes) => Some(bytes),
        Value::SimpleString(text) => Some(text.as_bytes()),
        _ => None,
    }
}

/// The revision and record of the first entry of an `XRANGE`/`XREVRANGE` reply, if any.
fn latest(entries: &Value) -> Result<Option<(u64, &[u8])>, TaskStoreError> {
    let Value::Array(entries) = entries else {
        return Err(unreadable(&format_args!("not a stream ({entries:?})")));
    };
    let Some(entry) = entries.first() else {
        return Ok(None);
    };
    let malformed = || unreadable(&"its entry is not a revision and a record");
    let Value::Array(parts) = entry else {
        return Err(malformed());
    };
    let [id, Value::Array(fields)] = parts.as_slice() else {
        return Err(malformed());
    };
    let [_, data] = fields.as_slice() else {
        return Err(malformed());
    };
    let revision = bytes(id)
        .and_then(|id| std::str::from_utf8(id).ok())
        .and_then(|id| id.split_once('-'))
        .and_then(|(revision, _)| revision.parse().ok())
        .ok_or_else(malformed)?;
    Ok(Some((revision, bytes(data).ok_or_else(malformed)?)))
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

    use mcp_runtime_core::JsonObject;
    use mcp_runtime_core::input::InputRequest;
    use mcp_runtime_core::params::RequestParams;
    use mcp_runtime_core::tasks::{Task, TaskStatus};

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
        let stored = encode(&record).unwrap();
        assert!(stored.starts_with(b"{\"task\""));
        assert_eq!(decode((7, &stored)).unwrap(), (7, record.clone()));
        // As XREVRANGE answers.
        let entry = |id: &str| {
            Value::Array(vec![Value::Array(vec![
                Value::BulkString(id.into()),
                Value::Array(vec![
                    Value::BulkString(FIELD.into()),
                    Value::BulkString(stored.clone()),
                ]),
            ])])
        };
        assert_eq!(
            latest(&entry(&entry_id(7))).unwrap(),
            Some((7, &stored[..]))
        );
        assert_eq!(latest(&Value::Array(vec![])).unwrap(), None);
        assert!(latest(&entry("x-1")).is_err());
        assert!(latest(&Value::Int(1)).is_err());
    }
}
