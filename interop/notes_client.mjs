// Drives the `notes-server` example with the official TypeScript client (@modelcontextprotocol/sdk)
// and prints what it saw as one JSON object (the transcript) on stdout. The Rust interop test
// (tests/tests/all/interop_clients.rs) compares the transcript with the values it expects.
//
// Usage: node interop/notes_client.mjs stdio <server command> [args...]
//        node interop/notes_client.mjs http <MCP endpoint URL>
//
// The scenario is the same as interop/notes_client.py's, step for step, so that both clients must
// produce the same transcript.

import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { failure, lastProgress, setUp } from './common.mjs';

const { client, transport, wire, transportErrors } = setUp('notes_client.mjs', {
  sampling: {},
  elicitation: { form: {} },
});
const { received } = wire;

const elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicitations.push(request.params);
  return { action: 'accept', content: { delete: true } };
});
const samplings = [];
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  samplings.push(request.params);
  return {
    role: 'assistant',
    content: { type: 'text', text: 'A note about ideas.' },
    model: 'interop-model',
    stopReason: 'endTurn',
  };
});
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logs.push(notification.params);
});

const transcript = {};
await client.connect(transport);
const initialize = received.find((m) => m.id !== undefined && m.result?.protocolVersion);
transcript.initialize = initialize.result;

transcript.ping = await client.ping();
transcript.tools = (await client.listTools()).tools;
transcript.add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
transcript.addDefault = await client.callTool({ name: 'add', arguments: { a: 7 } });
transcript.addInvalid = await client.callTool({ name: 'add', arguments: { a: 'two' } });
transcript.unknownTool = await failure(client.callTool({ name: 'nope', arguments: {} }));
transcript.addNote = await client.callTool({
  name: 'add_note',
  arguments: { title: 'Rust', body: 'Ownership and borrowing.', tags: ['rust', 'lang'] },
});
transcript.search = await client.callTool({ name: 'search_notes', arguments: { text: 'rust' } });

transcript.wordCount = await client.callTool(
  { name: 'word_count', arguments: {} },
  undefined,
  { onprogress: () => {} },
);
// Progress as it came on the wire (see setUp in common.mjs).
transcript.wordCountProgress = lastProgress(wire);
transcript.wordCountLogs = logs.splice(0);

transcript.setLevel = await client.setLoggingLevel('warning');
await client.callTool({ name: 'word_count', arguments: {} });
transcript.logsAfterSetLevel = logs.splice(0);

transcript.deleteNote = await client.callTool({ name: 'delete_note', arguments: { id: 1 } });
transcript.elicitations = elicitations;
transcript.summarize = await client.callTool({ name: 'summarize_note', arguments: { id: 2 } });
transcript.samplings = samplings;

transcript.prompts = (await client.listPrompts()).prompts;
transcript.prompt = await client.getPrompt({
  name: 'review_note',
  arguments: { id: '2', focus: 'tone' },
});
transcript.promptBadArgument = await failure(
  client.getPrompt({ name: 'review_note', arguments: { id: 'two' } }),
);
transcript.completeFocus = await client.complete({
  ref: { type: 'ref/prompt', name: 'review_note' },
  argument: { name: 'focus', value: 't' },
});
transcript.completeNoteId = await client.complete({
  ref: { type: 'ref/resource', uri: 'notes://{id}' },
  argument: { name: 'id', value: '' },
});

transcript.resources = (await client.listResources()).resources;
transcript.templates = (await client.listResourceTemplates()).resourceTemplates;
transcript.readNote = await client.readResource({ uri: 'notes://3' });
transcript.readMissing = await failure(client.readResource({ uri: 'notes://99' }));

transcript.transportErrors = transportErrors;
transcript.wire = wire;
await client.close();
process.stdout.write(JSON.stringify(transcript) + '\n');
