// Drives the task tools of `conformance-server` with the official TypeScript client's task API
// (@modelcontextprotocol/sdk's `client.experimental.tasks`, 2025-11-25 tasks) over Streamable HTTP,
// and prints what it saw as JSON lines on stdout: one line per step, then one line with the wire.
// The Rust test (tests/tests/all/interop_tasks.rs) compares the steps with
// tests/expected/tasks-transcript.jsonl exactly and checks the wire against the official schema.
//
// Usage: node interop/tasks_client.mjs http <MCP endpoint URL>
//
// Only what is deterministic is printed: task ids become "<32 hex>" (wherever they occur in a
// string) and timestamps "<ISO 8601>", and the statuses a poll loop saw are listed without
// repeats (how many polls saw `working` depends on timing). Every wait is bounded.

import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { failure, setUp } from './common.mjs';

/** The longest any one request may take (`tasks/result` waits for its task to end). */
const REQUEST = { timeout: 20_000 };
/** The longest a poll loop or a wait for a notification may take. */
const DEADLINE_MS = 20_000;

const [mode] = process.argv.slice(2);
if (mode !== 'http') {
  console.error('usage: node tasks_client.mjs http <url>');
  process.exit(2);
}
const { client, transport, wire, transportErrors } = setUp('tasks_client.mjs', {
  elicitation: { form: {} },
});

const elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicitations.push(request.params);
  return { action: 'accept', content: { confirm: true } };
});
/** Every `notifications/tasks/status` received, by task id. */
const statusNotifications = new Map();
client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
  const { taskId, status } = notification.params;
  if (!statusNotifications.has(taskId)) statusNotifications.set(taskId, []);
  statusNotifications.get(taskId).push(status);
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** `value` with its task ids and timestamps replaced by their shape. */
function shape(value) {
  if (typeof value === 'string') {
    if (TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value))) return '<ISO 8601>';
    return value.replace(/\b[0-9a-f]{32}\b/g, '<32 hex>');
  }
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  }
  return value;
}

/** `statuses` without consecutive repeats. */
function distinct(statuses) {
  return statuses.filter((status, i) => i === 0 || status !== statuses[i - 1]);
}

function print(step, fields) {
  process.stdout.write(JSON.stringify({ step, ...shape(fields) }) + '\n');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (bounded) until `predicate()` holds; returns whether it did. */
async function until(predicate) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

/**
 * The statuses that `notifications/tasks/status` announced for task `id` (each change once, in
 * order), once one is terminal (bounded wait).
 */
async function notifiedStatuses(id) {
  await until(() => TERMINAL.includes(statusNotifications.get(id)?.at(-1)));
  return statusNotifications.get(id) ?? [];
}

/** Polls `tasks/get` until the task `id` ends; returns the statuses seen and the last task. */
async function pollUntilTerminal(id) {
  const statuses = [];
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const task = await client.experimental.tasks.getTask(id, REQUEST);
    statuses.push(task.status);
    if (TERMINAL.includes(task.status)) return { statuses: distinct(statuses), task };
    if (Date.now() > deadline) return { statuses: distinct(statuses), task, timedOut: true };
    await sleep(task.pollInterval ?? 500);
  }
}

/**
 * Runs `callToolStream(params)` to its end: the messages it yielded (a message's type, and the
 * task's status for task messages, without consecutive repeats), the task it created, and its
 * last message.
 */
async function stream(params) {
  const seen = [];
  let created;
  let last;
  for await (const message of client.experimental.tasks.callToolStream(
    params,
    CallToolResultSchema,
    // The stream polls until the task ends: the signal bounds the whole of it.
    { ...REQUEST, signal: AbortSignal.timeout(DEADLINE_MS) },
  )) {
    if (message.type === 'taskCreated') created = message.task;
    seen.push(message.task ? `${message.type}:${message.task.status}` : message.type);
    last = message;
  }
  const outcome = last.type === 'error'
    ? { code: last.error.code, message: last.error.message.replace(/^MCP error -?\d+: /, '') }
    : last.result;
  return { messages: distinct(seen), created, outcome };
}

/**
 * Creates a task with `callTool` and a `task: {ttl}` option (a task-augmented `tools/call`,
 * answered by a CreateTaskResult); `onprogress`, when given, receives the task's progress (its
 * token stays valid for the task's lifetime).
 */
async function createTask(name, args, ttl, onprogress) {
  const { task } = await client.callTool(
    { name, arguments: args },
    CreateTaskResultSchema,
    { ...REQUEST, task: { ttl }, ...(onprogress && { onprogress }) },
  );
  return task;
}

/** The task id the related-task `_meta` of `result` names. */
const relatedTask = (result) => result?._meta?.['io.modelcontextprotocol/related-task']?.taskId;

/** Which step created each task, to name them in `tasks/list`. */
const labels = new Map();

await client.connect(transport);
const initialize = wire.received.find((m) => m.id !== undefined && m.result?.protocolVersion);
print('initialize', {
  protocolVersion: initialize.result.protocolVersion,
  tasks: client.getServerCapabilities().tasks ?? null,
});

const { tools } = await client.listTools(undefined, REQUEST);
print('tools', {
  taskSupport: Object.fromEntries(
    tools
      .filter((t) => t.execution?.taskSupport !== undefined || t.name === 'greet')
      .map((t) => [t.name, t.execution?.taskSupport ?? null]),
  ),
});

// 1. callToolStream: a task created, polled to its end, and its result.
{
  const { messages, created, outcome } = await stream({
    name: 'slow_compute',
    arguments: { seconds: 2, label: 'streamed' },
  });
  labels.set(created.taskId, 'streamed');
  print('callToolStream slow_compute', {
    messages,
    created,
    result: outcome,
    relatedTaskIsCreated: relatedTask(outcome) === created.taskId,
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 2. A task-augmented tools/call with a TTL and a progress token, polled with tasks/get, then
// tasks/result.
{
  const progress = [];
  const created = await createTask(
    'slow_compute',
    { seconds: 2, label: 'polled' },
    60_000,
    (p) => progress.push(p),
  );
  labels.set(created.taskId, 'polled');
  const { statuses, task, timedOut } = await pollUntilTerminal(created.taskId);
  const result = await client.experimental.tasks.getTaskResult(
    created.taskId,
    CallToolResultSchema,
    REQUEST,
  );
  print('tools/call with task, tasks/get, tasks/result', {
    created,
    polled: statuses,
    ...(timedOut && { timedOut }),
    final: task,
    sameTask: task.taskId === created.taskId,
    result,
    relatedTaskIsCreated: relatedTask(result) === created.taskId,
    progress,
    progressRelatedTaskIsCreated: progress.every((p) => relatedTask(p) === created.taskId),
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 3. tasks/list: this session's tasks, oldest first.
{
  const { tasks, nextCursor } = await client.experimental.tasks.listTasks(undefined, REQUEST);
  print('tasks/list', {
    tasks: tasks.map((t) => ({ of: labels.get(t.taskId) ?? 'unknown', ...t })),
    nextCursor: nextCursor ?? null,
  });
}

// 4. tasks/cancel of a long task; the cancelled task stays cancelled and has no result.
{
  const created = await createTask('slow_compute', { seconds: 60, label: 'cancelled' }, 60_000);
  labels.set(created.taskId, 'cancelled');
  const before = await client.experimental.tasks.getTask(created.taskId, REQUEST);
  const cancelled = await client.experimental.tasks.cancelTask(created.taskId, REQUEST);
  const after = await client.experimental.tasks.getTask(created.taskId, REQUEST);
  print('tasks/cancel slow_compute', {
    before: before.status,
    cancelled,
    after: after.status,
    cancelAgain: await failure(client.experimental.tasks.cancelTask(created.taskId, REQUEST)),
    result: await failure(
      client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema, REQUEST),
    ),
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 5. A tool error: the task fails, and its result is the tool's, with isError.
{
  const { messages, created, outcome } = await stream({ name: 'failing_job', arguments: {} });
  const task = await client.experimental.tasks.getTask(created.taskId, REQUEST);
  const result = await client.experimental.tasks.getTaskResult(
    created.taskId,
    CallToolResultSchema,
    REQUEST,
  );
  print('callToolStream failing_job', {
    messages,
    created,
    error: outcome,
    task,
    result,
    relatedTaskIsCreated: relatedTask(result) === created.taskId,
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 6. A protocol error: the task fails, and tasks/result answers with the error.
{
  const { messages, created, outcome } = await stream({
    name: 'protocol_error_job',
    arguments: {},
  });
  const task = await client.experimental.tasks.getTask(created.taskId, REQUEST);
  // The job fails 100 ms in: whether the first poll still sees it working depends on timing.
  print('callToolStream protocol_error_job', {
    first: messages[0],
    last: messages.slice(-2),
    error: outcome,
    task,
    result: await failure(
      client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema, REQUEST),
    ),
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 7. A task that asks the client: the elicitation comes tagged with the task, is answered, and
// the task completes with the answer. When the client sees `input_required` (or whether it does
// at all) depends on timing, so only the ends of the stream are printed.
{
  const { messages, created, outcome } = await stream({
    name: 'confirm_delete',
    arguments: { filename: 'report.txt' },
  });
  print('callToolStream confirm_delete', {
    first: messages[0],
    last: messages.at(-1),
    created,
    result: outcome,
    relatedTaskIsCreated: relatedTask(outcome) === created.taskId,
    elicitations,
    elicitationRelatedTaskIsCreated: elicitations.every(
      (e) => e._meta?.['io.modelcontextprotocol/related-task']?.taskId === created.taskId,
    ),
    notifications: await notifiedStatuses(created.taskId),
  });
}

// 8. A tool without task support, called as a task.
print('greet as a task', {
  error: await failure(createTask('greet', { name: 'Ada' }, 60_000)),
});

print('errors', { transportErrors });
await client.close();
process.stdout.write(JSON.stringify({ step: 'wire', ...wire }) + '\n');
