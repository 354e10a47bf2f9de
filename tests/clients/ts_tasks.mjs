// Tasks (DESIGN §17) with the official TypeScript task client, @modelcontextprotocol/ext-tasks
// (pinned in package.json), over the official v2 SDK client pinned to 2026-07-28, against
// `toolwire serve`'s demo tools (by 0 %: the gateway is shared with other clients' checks):
// `catalog_reprice` called through a task session comes back as
// a task, is polled to its end and its result read (`resultFromTaskOutcome`); a second one is
// cancelled through the session and settles `cancelled`; a tool that is never a task settles
// as an immediate result. The package's raw V2 dispatch (which the SDK's own codecs do not
// carry yet) is a plain fetch of one JSON-RPC request, as the package's guide describes.
//
// Usage: node ts_tasks.mjs URL WRITER_TOKEN
// Exits 0 when every check passed, 1 otherwise.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import assert from 'node:assert/strict';

const [url, token] = process.argv.slice(2);
if (!url || !token) throw new Error('usage: ts_tasks.mjs URL WRITER_TOKEN');

const REVISION = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const CLIENT_INFO = { name: 'toolwire-ts-tasks', version: '1.0.0' };

let nextId = 1;

/** One request (method and params, as the package frames them), sent as a 2026-07-28 client
 * sends it in its JSON-RPC envelope; its result or error. */
async function rawDispatch(request, options) {
  const params = request.params ?? {};
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${token}`,
    'MCP-Protocol-Version': REVISION,
    'Mcp-Method': request.method,
  };
  const name = params.name ?? params.taskId;
  if (typeof name === 'string') headers['Mcp-Name'] = name;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...request }),
    signal: options?.signal,
  });
  const text = await response.text();
  let message;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data:'));
    message = JSON.parse(data[data.length - 1].slice(5));
  } else {
    message = JSON.parse(text);
  }
  return 'error' in message
    ? { kind: 'error', error: message.error }
    : { kind: 'result', result: message.result };
}

const client = new Client(CLIENT_INFO, {
  versionNegotiation: { mode: { pin: REVISION } },
  capabilities: TASKS,
});
await client.connect(
  new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);
const session = createTaskSessionFromClient(client, {
  endpointId: 'toolwire-demo',
  rawDispatch,
  v2RequestFraming: { protocolVersion: REVISION, clientInfo: CLIENT_INFO, clientCapabilities: TASKS },
});

let failures = 0;
async function check(label, body) {
  try {
    await body();
    console.log(`  ok   ${label}`);
  } catch (error) {
    failures += 1;
    console.log(`  FAIL ${label}: ${error?.stack ?? error}`);
    if (error?.cause) console.log(`       cause: ${error.cause?.stack ?? error.cause}`);
  }
}

try {
  await check('catalog_reprice runs as a task and its result is read', async () => {
    const execution = await session.callTool('catalog_reprice', { category: 'lamps', percent: 0 });
    assert.equal(execution.kind, 'task');
    assert.match(execution.handle.taskId, /^[0-9a-f]{32}$/);
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed');
    const result = resultFromTaskOutcome(outcome);
    assert.deepEqual(result.structuredContent, { category: 'lamps', percent: 0, changed: 400 });
    assert.ok(result.content.some((block) => block.type === 'text'));
  });
  await check('a cancelled task settles cancelled', async () => {
    const execution = await session.callTool('catalog_reprice', { category: 'desks', percent: 0 });
    assert.equal(execution.kind, 'task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'cancelled');
  });
  await check('a tool that is never a task answers at once', async () => {
    const execution = await session.callTool('catalog_get', { id: 7 });
    assert.equal(execution.kind, 'immediate');
    const { outcome } = await execution.settle();
    assert.equal(resultFromTaskOutcome(outcome).structuredContent.id, 7);
  });
} finally {
  await session.close();
  await client.close();
}
console.log(`TypeScript task client: ${failures === 0 ? 'all checks passed' : `${failures} failed`}`);
process.exit(failures === 0 ? 0 : 1);
