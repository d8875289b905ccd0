// What the interop clients share: a connection through the official TypeScript client that records
// every message both ways, and the error of a request that must fail.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

/** The transport class `Base`, recording the messages both ways into `wire`. */
function recording(Base, wire) {
  return class extends Base {
    async send(message, options) {
      wire.sent.push(message);
      return super.send(message, options);
    }
    set onmessage(handler) {
      this._recordedHandler = handler;
    }
    get onmessage() {
      const handler = this._recordedHandler;
      return handler && ((message) => {
        wire.received.push(message);
        handler(message);
      });
    }
  };
}

/**
 * Parses `[mode, target, ...args]` from the command line (`stdio <command> [args...]`,
 * `http <url>`, or `sse <url>` for the HTTP+SSE transport of 2024-11-05) and returns an unconnected client with the given capabilities, its transport,
 * the recorded wire and the errors the client reported.
 */
export function setUp(usage, capabilities) {
  const [mode, target, ...args] = process.argv.slice(2);
  if (!['stdio', 'http', 'sse'].includes(mode) || !target) {
    console.error(`usage: node ${usage} stdio <command> [args...] | http <url> | sse <url>`);
    process.exit(2);
  }
  const wire = { received: [], sent: [] };
  const transport = {
    stdio: () => new (recording(StdioClientTransport, wire))({ command: target, args, stderr: 'inherit' }),
    http: () => new (recording(StreamableHTTPClientTransport, wire))(new URL(target)),
    sse: () => new (recording(SSEClientTransport, wire))(new URL(target)),
  }[mode]();
  const client = new Client({ name: 'interop-ts', version: '1.0.0' }, { capabilities });
  const transportErrors = [];
  client.onerror = (error) => {
    // The TypeScript client handles a notification a microtask after reading it but a response at
    // once, so a progress notification that arrives in the same read as its response finds its
    // handler gone (typescript-sdk issue #2580). The wire order is checked from `wire` instead.
    if (!String(error).includes('progress notification for an unknown token')) {
      transportErrors.push(String(error));
    }
  };
  return { client, transport, wire, transportErrors };
}

/** The JSON-RPC error of a request that must fail. */
export async function failure(promise) {
  try {
    const result = await promise;
    return { unexpectedResult: result };
  } catch (error) {
    // The SDK prefixes the server's message with "MCP error <code>: ".
    return { code: error.code, message: error.message.replace(/^MCP error -?\d+: /, '') };
  }
}

/** The progress notifications of the request answered last, as they came on the wire. */
export function lastProgress(wire) {
  const id = wire.received.findLast((m) => m.id !== undefined && m.result).id;
  return wire.received
    .filter((m) => m.method === 'notifications/progress' && m.params.progressToken === id)
    .map(({ params: { progressToken, ...rest } }) => rest);
}
