//! [`TaskStore`] in Redis: any instance creates, reads, changes and lists any task.
//!
//! A task is a hash `PREFIX:task:ID` holding its record as JSON (`data`) and its revision
//! (`rev`), which expires with the task's TTL. Beside it, for the bounds and the listing: a
//! sorted set of every task by expiry (`tasks:expiry`) with each one's owner (`tasks:owner-of`),
//! each owner's running tasks by expiry (`tasks:running:OWNER`) and all its tasks by creation
//! (`tasks:of:OWNER`). Creation is one Lua script (it forgets the expired tasks, checks both
//! bounds and writes). A change reads the record, applies the same rules as every store
//! ([`apply`]) and writes it back only if the revision did not move meanwhile (a compare-and-set
//! script, retried), then publishes the id for the waiters of every instance.

use std::sync::Arc;
use std::time::SystemTime;

use mcp_core::ProtocolVersion;
use redis::Script;

use super::watch::RECHECK;
use super::{Shared, epoch_millis, unavailable};
use crate::store::{
    StoreFuture, TaskChange, TaskLimits, TaskPage, TaskRecord, TaskStore, TaskStoreError, apply,
};

/// How many times a change is tried again when another instance changed the task meanwhile.
const MAX_ATTEMPTS: usize = 32;

/// How many expired tasks one creation forgets, at most.
const EXPIRE_BATCH: usize = 10_000;

/// Forgets expired tasks, checks the bounds, and keeps a new task.
/// KEYS: expiry, owner-of, seq, running:OWNER, of:OWNER, task:ID.
/// ARGV: id, owner, now, expires, data, per_owner, total, prefix, batch.
/// Returns 0 (kept), 1 (the owner runs too many), 2 (the store is full), -1 (the id exists).
const CREATE: &str = r"
local now = tonumber(ARGV[3])
local prefix = ARGV[8]
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[9]))
for _, id in ipairs(expired) do
  local owner = redis.call('HGET', KEYS[2], id)
  if owner then
    redis.call('ZREM', prefix .. ':tasks:running:' .. owner, id)
    redis.call('ZREM', prefix .. ':tasks:of:' .. owner, id)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
  redis.call('DEL', prefix .. ':task:' .. id)
end
if redis.call('EXISTS', KEYS[6]) == 1 then return -1 end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[7]) then return 2 end
local seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
redis.call('HSET', KEYS[6], 'rev', 0, 'data', ARGV[5])
redis.call('PEXPIREAT', KEYS[6], ARGV[4])
return 0
";

/// Writes a changed record if its revision is still the one read, and tells the waiters.
/// KEYS: task:ID, running:OWNER. ARGV: revision read, data, ended (0/1), id, channel.
/// Returns 1 (written), 0 (the task moved meanwhile), -1 (the task is gone).
const CHANGE: &str = r"
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(ARGV[1]) + 1, 'data', ARGV[2])
if ARGV[3] == '1' then redis.call('ZREM', KEYS[2], ARGV[4]) end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return 1
";

/// A [`TaskStore`] in Redis (see [`RedisStore`](super::RedisStore)).
pub struct RedisTaskStore {
    shared: Arc<Shared>,
    create: Script,
    change: Script,
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
            create: Script::new(CREATE),
            change: Script::new(CHANGE),
        }
    }

    fn task_key(&self, id: &str) -> String {
        self.shared.key_of("task", id)
    }

    /// The task `id` as Redis holds it: its revision and record.
    async fn read(&self, id: &str) -> Result<Option<(u64, TaskRecord)>, TaskStoreError> {
        let mut connection = self.shared.connection.clone();
        let (rev, data): (Option<u64>, Option<String>) = redis::cmd("HMGET")
            .arg(self.task_key(id))
            .arg("rev")
            .arg("data")
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))?;
        let (Some(rev), Some(data)) = (rev, data) else {
            return Ok(None);
        };
        let mut record = decode(&data)?;
        record.revision = rev;
        Ok(Some((rev, record)))
    }

    /// The current revision of the task `id`, if it is kept.
    async fn revision(&self, id: &str) -> Result<Option<u64>, TaskStoreError> {
        let mut connection = self.shared.connection.clone();
        redis::cmd("HGET")
            .arg(self.task_key(id))
            .arg("rev")
            .query_async(&mut connection)
            .await
            .map_err(failed("read a task"))
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
        let outcome: i64 = self
            .create
            .key(shared.key("tasks:expiry"))
            .key(shared.key("tasks:owner-of"))
            .key(shared.key("tasks:seq"))
            .key(shared.key_of("tasks:running", owner))
            .key(shared.key_of("tasks:of", owner))
            .key(self.task_key(id))
            .arg(id)
            .arg(owner)
            .arg(epoch_millis(SystemTime::now()))
            .arg(epoch_millis(record.expires_at))
            .arg(encode(&record)?)
            .arg(limits.per_owner)
            .arg(limits.total)
            .arg(&shared.options.prefix)
            .arg(EXPIRE_BATCH)
            .invoke_async(&mut connection)
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
            let written: i64 = self
                .change
                .key(self.task_key(id))
                .key(self.shared.key_of("tasks:running", &record.owner))
                .arg(rev)
                .arg(encode(&record)?)
                .arg(u8::from(record.is_terminal()))
                .arg(id)
                .arg(self.shared.key("task-changed"))
                .invoke_async(&mut connection)
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
            match self.revision(id).await {
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

/// A record as Redis keeps it: JSON, with the task's durations under their 2026-07-28 names
/// (read back under either).
fn encode(record: &TaskRecord) -> Result<String, TaskStoreError> {
    mcp_core::render::to_string(record, ProtocolVersion::LATEST)
        .map_err(|e| TaskStoreError::Unavailable(format!("a task could not be encoded: {e}")))
}

fn decode(data: &str) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(data).map_err(|e| {
        TaskStoreError::Unavailable(format!("a task kept in Redis could not be read: {e}"))
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
        let read = decode(&encode(&record).unwrap()).unwrap();
        assert_eq!(read, record);
    }
}
