// Drives a serverless example (examples/serverless: the Cloudflare Worker in workerd, the AWS
// Lambda function in cargo-lambda's emulator) with the official TypeScript client v2
// (@modelcontextprotocol/client 2.4, which speaks 2026-07-28) and prints what it saw as one JSON
// object (the transcript) on stdout. The Rust test (tests/tests/all/serverless.rs) compares it
// with tests/expected/edge-transcript.json; the Python client 2.x plays the same scenario
// (interop/edge_client.py) and must see the same.
//
// Usage: node interop/edge_client.mjs <MCP endpoint URL> [bearer token]

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token] = process.argv.slice(2);
if (!url) {
  console.error('usage: node edge_client.mjs <MCP endpoint URL> [bearer token]');
  process.exit(2);
}

const client = new Client(
  { name: 'interop-ts2-edge', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);
const asked = [];
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params.message);
  return { action: 'accept', content: { name: 'Ada' } };
});
const headers = token ? { Authorization: `Bearer ${token}` } : {};
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));

const transcript = {};
transcript.protocolVersion = client.getNegotiatedProtocolVersion();
transcript.serverInfo = client.getServerVersion();
const tools = (await client.listTools()).tools;
transcript.tools = tools.map((tool) => tool.name).sort();
transcript.forecastOutputSchema = tools.find((tool) => tool.name === 'forecast').outputSchema;
const forecast = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
transcript.forecast = { structuredContent: forecast.structuredContent, isError: forecast.isError ?? false };
const greeting = await client.callTool({ name: 'greet', arguments: {} });
transcript.greet = greeting.content.map((block) => block.text);
transcript.greetAsked = asked;
const about = await client.readResource({ uri: 'edge://about' });
transcript.about = about.contents.map(({ uri, mimeType, text }) => ({ uri, mimeType, text }));
const haiku = await client.getPrompt({ name: 'haiku', arguments: { topic: 'the sea' } });
transcript.haiku = haiku.messages.map(({ role, content }) => ({ role, text: content.text }));
const whoami = await client.callTool({ name: 'whoami', arguments: {} });
transcript.whoami = whoami.content.map((block) => block.text);
await client.close();
console.log(JSON.stringify(transcript));
