// Drives the `notes-server` example with the official TypeScript client (@modelcontextprotocol/sdk)
// and prints what it saw as one JSON object (the transcript) on stdout. The Rust interop test
// (tests/tests/interop_clients.rs) compares the transcript with the values it expects.
//
// Usage: node interop/notes_client.mjs stdio <server command> [args...]
//        node interop/notes_client.mjs http <MCP endpoint URL>
//
// The scenario is the same as interop/notes_client.py's, step for step, so that both clients must
// produce the same transcript.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [mode, target, ...args] = process.argv.slice(2);
if (!['stdio', 'http'].includes(mode) || !target) {
  console.error('usage: node notes_client.mjs stdio <command> [args...] | http <url>');
  process.exit(2);
}

/** Every message the server sent and the client sent, and every error the client reported. */
const received = [];
const sent = [];
const transportErrors = [];

/** The transport class `Base`, recording the messages both ways. */
function recording(Base) {
  return class extends Base {
    async send(message, options) {
      sent.push(message);
      return super.send(message, options);
    }
    set onmessage(handler) {
      this._recordedHandler = handler;
    }
    get onmessage() {
      const handler = this._recordedHandler;
      return handler && ((message) => {
        received.push(message);
        handler(message);
      });
    }
  };
}

const transport = mode === 'stdio'
  ? new (recording(StdioClientTransport))({ command: target, args, stderr: 'inherit' })
  : new (recording(StreamableHTTPClientTransport))(new URL(target));

const client = new Client(
  { name: 'interop-ts', version: '1.0.0' },
  { capabilities: { sampling: {}, elicitation: { form: {} } } },
);

client.onerror = (error) => {
  // The TypeScript client handles a notification a microtask after reading it but a response at
  // once, so a progress notification that arrives in the same read as its response finds its
  // handler gone (typescript-sdk issue #2580). The wire order is checked from `received` instead.
  if (!String(error).includes('progress notification for an unknown token')) {
    transportErrors.push(String(error));
  }
};

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

/** The JSON-RPC error of a request that must fail. */
async function failure(promise) {
  try {
    const result = await promise;
    return { unexpectedResult: result };
  } catch (error) {
    // The SDK prefixes the server's message with "MCP error <code>: ".
    return { code: error.code, message: error.message.replace(/^MCP error -?\d+: /, '') };
  }
}

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
// Progress as it came on the wire, for the request just answered (see client.onerror above).
const wordCountId = received.findLast((m) => m.id !== undefined && m.result).id;
transcript.wordCountProgress = received
  .filter((m) => m.method === 'notifications/progress' && m.params.progressToken === wordCountId)
  .map(({ params: { progressToken, ...rest } }) => rest);
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
transcript.wire = { received, sent };
await client.close();
process.stdout.write(JSON.stringify(transcript) + '\n');
