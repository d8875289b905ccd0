// Drives the official `server-everything` through every feature with the official TypeScript
// client, and prints what it saw as one JSON transcript: run against the server itself and
// against `mcp proxy` in front of it, the two transcripts must be the same.
//
//   node everything_client.mjs stdio <command> [args...] | http <url> | sse <url>

import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { setUp, failure } from './common.mjs';

const { client, transport, transportErrors } = setUp('everything_client.mjs', {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
});

client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
  role: 'assistant',
  content: { type: 'text', text: `echo: ${request.params.messages[0].content.text}` },
  model: 'test-model',
  stopReason: 'endTurn',
}));
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  if (request.params.mode === 'url') {
    return { action: 'accept' };
  }
  return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: 'file:///work/project', name: 'project' }],
}));
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
let listChanges = 0;
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { listChanges += 1; });

/** Waits until `done()` holds, at most `ms`. */
async function until(done, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return done();
}

const texts = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text);

await client.connect(transport);
const t = {};
t.server = client.getServerVersion();
t.instructions = client.getInstructions() ?? null;
const capabilities = client.getServerCapabilities();
t.capabilities = Object.keys(capabilities).sort();

const { tools } = await client.listTools();
t.tools = tools.map((tool) => tool.name).sort();
t.echoSchema = tools.find((tool) => tool.name === 'echo').inputSchema;
t.echo = texts(await client.callTool({ name: 'echo', arguments: { message: 'hello' } }));
t.sum = texts(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }));
const structured = await client.callTool({
  name: 'get-structured-content', arguments: { location: 'New York' },
});
t.structured = structured.structuredContent;
const image = await client.callTool({ name: 'get-tiny-image', arguments: {} });
t.image = image.content.map((c) => [c.type, c.mimeType ?? null, (c.data ?? c.text ?? '').length]);
t.annotated = (await client.callTool({
  name: 'get-annotated-message', arguments: { messageType: 'error', includeImage: false },
})).content;

const progress = [];
const long = await client.callTool(
  { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
  undefined,
  { onprogress: (p) => progress.push([p.progress, p.total]) },
);
t.long = texts(long);
await until(() => progress.length >= 3, 2000);
// The last one may come with the result, where the TypeScript client drops it (see common.mjs).
t.progress = progress.slice(0, 2);

t.sampling = texts(await client.callTool({
  name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 10 },
}));
t.elicitation = texts(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
t.roots = texts(await client.callTool({ name: 'get-roots-list', arguments: {} }));
t.urlElicitation = texts(await client.callTool({
  name: 'trigger-url-elicitation', arguments: { url: 'https://example.com/consent', elicitationId: 'e-1' },
}));
// The error path: -32042 names the URL to open first; the retry goes ahead.
const urlRequest = {
  name: 'trigger-url-elicitation',
  arguments: { url: 'https://example.com/consent', elicitationId: 'e-2', errorPath: true },
};
t.urlRequired = await failure(client.callTool(urlRequest));
t.urlRetried = texts(await client.callTool(urlRequest));

// Arguments the server refuses.
t.badArguments = await client.callTool({ name: 'get-sum', arguments: { a: 'two' } })
  .then((r) => ({ isError: r.isError ?? false, text: texts(r) }), (e) => ({ code: e.code }));

const resources = await client.listResources();
t.resources = resources.resources.slice(0, 3).map((r) => [r.uri, r.name, r.mimeType]);
const first = resources.resources[0].uri;
const read = await client.readResource({ uri: first });
t.read = read.contents.map((c) => [c.uri, c.mimeType, (c.text ?? c.blob).length]);
const { resourceTemplates } = await client.listResourceTemplates();
t.templates = resourceTemplates.map((r) => r.uriTemplate).sort();
const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/1' });
t.dynamic = dynamic.contents.map((c) => [c.uri, c.text.replace(/at [0-9:]+ [AP]M$/, 'at TIME')]);
t.missing = await failure(client.readResource({ uri: 'demo://resource/dynamic/text/x' }));

const { prompts } = await client.listPrompts();
t.prompts = prompts.map((p) => p.name).sort();
t.simplePrompt = (await client.getPrompt({ name: 'simple-prompt' })).messages;
t.argsPrompt = (await client.getPrompt({
  name: 'args-prompt', arguments: { city: 'Paris', state: 'Texas' },
})).messages;
t.completion = (await client.complete({
  ref: { type: 'ref/prompt', name: 'completable-prompt' },
  argument: { name: 'department', value: 'E' },
})).completion.values;

await client.setLoggingLevel('debug');
await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
t.logged = await until(() => logs.some((l) => /level[- ]message/i.test(String(l.data))));
await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });

await client.subscribeResource({ uri: first });
await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
t.updated = await until(() => updates.includes(first));
await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
await client.unsubscribeResource({ uri: first });
t.subscribeLog = logs.map((l) => String(l.data).replace(/ from session .*$/, ' '))
  .filter((d) => d.startsWith('Received Subscribe'));

// A resource added during the session is announced, and listed.
const gzipped = await client.callTool({
  name: 'gzip-file-as-resource',
  arguments: { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resourceLink' },
});
t.gzip = gzipped.content.map((c) => [c.type, c.uri ?? null, c.name ?? null]);
t.listChanged = await until(() => listChanges > 0);
const after = await client.listResources();
t.sessionResource = after.resources.some((r) => r.uri === gzipped.content[0]?.uri);

// A call cancelled by the client ends with the client's abort.
const controller = new AbortController();
const cancelled = client.callTool(
  { name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } },
  undefined,
  { signal: controller.signal, onprogress: () => controller.abort('enough') },
);
t.cancelled = await cancelled.then(() => 'finished', (e) => String(e).includes('enough'));
// The cancellation is a notification of its own: let it arrive before the client goes.
await new Promise((resolve) => setTimeout(resolve, 200));
await client.ping();

t.transportErrors = transportErrors;
console.log(JSON.stringify(t));
await client.close();
