// A server written with the official TypeScript SDK, for the interop test of our McpClient
// (tests/tests/all/interop_server.rs): a tool with typed output, one that reports progress and logs,
// one that asks the client (sampling, elicitation, roots), a prompt, a resource and a template.
//
//   node interop/ts_server.mjs stdio
//   node interop/ts_server.mjs http      # prints "MCP endpoint: http://127.0.0.1:PORT/mcp" on stderr
//   node interop/ts_server.mjs sse       # the HTTP+SSE transport of 2024-11-05: prints
//                                        # "MCP endpoint: http://127.0.0.1:PORT/sse" on stderr

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function build() {
  const server = new McpServer(
    { name: 'ts-interop-server', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );

  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'count',
    { description: 'Count to n, reporting progress and logging each step', inputSchema: { n: z.number().int() } },
    async ({ n }, extra) => {
      for (let i = 1; i <= n; i++) {
        const token = extra._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: n },
          });
        }
        // On the request's own stream, before its result: sent apart from the request
        // (sendLoggingMessage), a log goes on the session's GET stream, and may arrive after the
        // result, when a client that has its answer may already have gone (mcp call does).
        await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `step ${i}` } });
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    },
  );

  server.registerTool(
    'ask',
    { description: 'Ask the client for a completion, a name and its roots', inputSchema: {} },
    async () => {
      const sampled = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
        maxTokens: 10,
      });
      const elicited = await server.server.elicitInput({
        message: 'Who are you?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            language: { type: 'string', default: 'Rust' },
          },
          required: ['name'],
        },
      });
      const roots = await server.server.listRoots();
      const text = [
        sampled.content.text,
        elicited.action,
        elicited.content?.name,
        elicited.content?.language,
        roots.roots.map((root) => root.uri).join(','),
      ].join(' | ');
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerPrompt(
    'greet',
    { description: 'Greet someone', argsSchema: { who: z.string() } },
    ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}!` } }],
    }),
  );

  server.registerResource(
    'motd',
    'test://motd',
    { description: 'The message of the day', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Keep calm.' }] }),
  );

  server.registerResource(
    'user',
    new ResourceTemplate('test://users/{id}', { list: undefined }),
    { description: 'A user by id' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `user ${id}` }] }),
  );

  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  await build().connect(new StdioServerTransport());
} else if (mode === 'http') {
  // One server and transport per session, as the SDK's examples do.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = id && sessions.get(id);
    if (!transport) {
      if (id || body?.method !== 'initialize') {
        res.writeHead(id ? 404 : 400).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => {
    console.error(`MCP endpoint: http://127.0.0.1:${http.address().port}/mcp`);
  });
} else if (mode === 'sse') {
  // One server and transport per connection: GET /sse opens it, POST /messages feeds it.
  const connections = new Map();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      connections.set(transport.sessionId, transport);
      transport.onclose = () => connections.delete(transport.sessionId);
      await build().connect(transport);
    } else if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = connections.get(url.searchParams.get('sessionId'));
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  http.listen(0, '127.0.0.1', () => {
    console.error(`MCP endpoint: http://127.0.0.1:${http.address().port}/sse`);
  });
} else {
  console.error('usage: node ts_server.mjs stdio | http | sse');
  process.exit(2);
}
