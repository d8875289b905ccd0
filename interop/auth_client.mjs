// Drives `notes-server` under authorization with the official TypeScript client
// (@modelcontextprotocol/sdk) and prints what it saw as one JSON object on stdout. The Rust test
// (tests/tests/all/auth_interop.rs) starts the test authorization server and the notes server, then
// compares the transcript with the values it expects.
//
// Usage: node interop/auth_client.mjs <MCP endpoint URL> <issuer> <client id> <client secret> [scope]
//
// The client starts without a token: the server's 401 names its protected resource metadata and
// the scopes it wants, the client finds the authorization server through that metadata, gets a
// token with the client-credentials grant (RFC 8707 `resource` included), and retries. The same
// happens on its own when the token expires or lacks a scope (403, step-up). The client's
// token requests name no scope unless `scope` is given: this version of the SDK sends the scope
// it was configured with, not the one a challenge asks for, so an authorization server that
// grants no scope by default needs it.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, issuer, clientId, clientSecret, scope] = process.argv.slice(2);
if (!clientSecret) {
  console.error('usage: node auth_client.mjs <url> <issuer> <client id> <client secret> [scope]');
  process.exit(2);
}

/** The HTTP exchanges the client made: method, URL path and status (never headers: secrets). */
const exchanges = [];
const recordingFetch = async (input, init) => {
  const response = await fetch(input, init);
  const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  exchanges.push(`${init?.method ?? 'GET'} ${target.pathname} ${response.status}`);
  return response;
};

const provider = new ClientCredentialsProvider({
  clientId,
  clientSecret,
  expectedIssuer: issuer,
  scope,
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  authProvider: provider,
  fetch: recordingFetch,
});
const client = new Client({ name: 'interop-ts-auth', version: '1.0.0' }, { capabilities: {} });

const transcript = {};
await client.connect(transport);
transcript.tools = (await client.listTools()).tools.map((tool) => tool.name);
transcript.added = await client.callTool({
  name: 'add_note',
  arguments: { title: 'Authorized', body: 'Written with a token.', tags: ['auth'] },
});
transcript.search = await client.callTool({ name: 'search_notes', arguments: { text: 'token' } });
transcript.read = await client.readResource({ uri: 'notes://3' });
transcript.scope = provider.tokens()?.scope;
transcript.exchanges = exchanges;
await client.close();
process.stdout.write(JSON.stringify(transcript) + '\n');
