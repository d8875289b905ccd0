// Drives the `conformance-server` example with the official TypeScript client (@modelcontextprotocol/sdk)
// through every fixture the conformance suite uses, and prints what it saw as one JSON object (the
// transcript) on stdout. The Rust interop test (tests/tests/all/interop_clients.rs) compares it with
// exact expected values, which the suite's own checks do not always look at.
//
// Usage: node interop/conformance_client.mjs stdio <server command> [args...]
//        node interop/conformance_client.mjs http <MCP endpoint URL>
//
// The scenario is the same as interop/conformance_client.py's, step for step.

import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { failure, lastProgress, setUp } from './common.mjs';

const { client, transport, wire, transportErrors } = setUp('conformance_client.mjs', {
  sampling: {},
  elicitation: { form: {} },
});

/** The answers of the user, by the first property of the form asked. */
const FORMS = {
  username: { username: 'testuser', email: 'test@example.com' },
  name: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false },
  untitledSingle: {
    untitledSingle: 'option1',
    titledSingle: 'value1',
    legacyEnum: 'opt1',
    untitledMulti: ['option1', 'option2'],
    titledMulti: ['value1', 'value2'],
  },
};
const elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicitations.push(request.params);
  const first = Object.keys(request.params.requestedSchema.properties)[0];
  return { action: 'accept', content: FORMS[first] };
});
const samplings = [];
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  samplings.push(request.params);
  return {
    role: 'assistant',
    content: { type: 'text', text: 'This is a test response from the client' },
    model: 'test-model',
    stopReason: 'endTurn',
  };
});
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logs.push(notification.params);
});
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  updates.push(notification.params);
});

const call = (name, args = {}) => client.callTool({ name, arguments: args });

const transcript = {};
await client.connect(transport);
transcript.serverInfo = client.getServerVersion();
transcript.capabilities = client.getServerCapabilities();

const { tools } = await client.listTools();
transcript.toolNames = tools.map((t) => t.name);
transcript.jsonSchemaTool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
for (const name of [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
]) {
  transcript[name] = await call(name);
}
transcript.jsonSchemaValid = await call('json_schema_2020_12_tool', { name: 'Ada', email: 'a@b.c' });
transcript.jsonSchemaInvalid = await call('json_schema_2020_12_tool', { name: 'Ada' });

transcript.setLevel = await client.setLoggingLevel('debug');
transcript.test_tool_with_logging = await call('test_tool_with_logging');
transcript.logs = logs.splice(0);
transcript.test_tool_with_progress = await client.callTool(
  { name: 'test_tool_with_progress', arguments: {} },
  undefined,
  { onprogress: () => {} },
);
transcript.progress = lastProgress(wire);

transcript.test_sampling = await call('test_sampling', { prompt: 'Test prompt for sampling' });
transcript.samplings = samplings;
transcript.test_elicitation = await call('test_elicitation', { message: 'Please provide your information' });
transcript.test_elicitation_sep1034_defaults = await call('test_elicitation_sep1034_defaults');
transcript.test_elicitation_sep1330_enums = await call('test_elicitation_sep1330_enums');
transcript.elicitations = elicitations;

transcript.resources = (await client.listResources()).resources;
transcript.templates = (await client.listResourceTemplates()).resourceTemplates;
for (const uri of ['test://static-text', 'test://static-binary', 'test://template/123/data']) {
  transcript[uri] = await client.readResource({ uri });
}
transcript.readMissing = await failure(client.readResource({ uri: 'test://missing' }));
transcript.subscribe = await client.subscribeResource({ uri: 'test://watched-resource' });
transcript.unsubscribe = await client.unsubscribeResource({ uri: 'test://watched-resource' });
transcript.updates = updates;

transcript.prompts = (await client.listPrompts()).prompts;
transcript.test_simple_prompt = await client.getPrompt({ name: 'test_simple_prompt' });
transcript.test_prompt_with_arguments = await client.getPrompt({
  name: 'test_prompt_with_arguments',
  arguments: { arg1: 'testValue1', arg2: 'testValue2' },
});
transcript.test_prompt_with_embedded_resource = await client.getPrompt({
  name: 'test_prompt_with_embedded_resource',
  arguments: { resourceUri: 'test://example-resource' },
});
transcript.test_prompt_with_image = await client.getPrompt({ name: 'test_prompt_with_image' });
transcript.complete = await client.complete({
  ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
  argument: { name: 'arg1', value: 'test' },
});

transcript.transportErrors = transportErrors;
transcript.wire = wire;
await client.close();
process.stdout.write(JSON.stringify(transcript) + '\n');
