// Tasks (DESIGN §17) with the official TypeScript task client, @modelcontextprotocol/ext-tasks
// (pinned in package.json), over the official v2 SDK client, against `toolwire serve`'s demo
// tools (by 0 %: the gateway is shared with other clients' checks). On 2026-07-28 (the tasks
// extension): `catalog_reprice` called through a task session comes back as a task, is polled
// to its end and its result read (`resultFromTaskOutcome`); a second one is cancelled through
// the session and settles `cancelled`; a tool that is never a task settles as an immediate
// result. The package's raw V2 dispatch (which the SDK's own codecs do not carry yet) is a
// plain fetch of one JSON-RPC request, as the package's guide describes. On 2025-11-25 (the
// experimental tasks, the SDK client's legacy mode): `capabilities.tasks` and the tool's
// `execution.taskSupport` are read, and the same task is run to its end and cancelled.
//
// Usage: node ts_tasks.mjs URL WRITER_TOKEN
// Exits 0 when every check passed, 1 otherwise.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
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

// 2025-11-25's experimental tasks: the same package over the SDK client in its legacy mode,
// the task asked for with `params.task` and its result fetched with `tasks/result`.
const legacy = new Client(CLIENT_INFO, {
  versionNegotiation: { mode: 'legacy' },
  capabilities: { tasks: {} },
});
await legacy.connect(
  new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);
const legacySession = createTaskSessionFromClient(legacy, { endpointId: 'toolwire-demo-2025' });
// The package asks for a task where the tool's declaration (its `execution.taskSupport` in
// `tools/list`) allows one and the call prefers it.
let asTask;
try {
  await check('2025-11-25: the server advertises tasks and the tool its taskSupport', async () => {
    assert.equal(legacy.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.deepEqual(legacy.getServerCapabilities().tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await legacy.listTools();
    const reprice = tools.find((tool) => tool.name === 'catalog_reprice');
    assert.deepEqual(reprice.execution, { taskSupport: 'optional' });
    asTask = { declaration: toolDeclarationFromMcpTool(reprice), task: { preference: 'require' } };
  });
  await check('2025-11-25: catalog_reprice runs as a task and its result is read', async () => {
    const execution = await legacySession.callTool(
      'catalog_reprice',
      { category: 'chairs', percent: 0 },
      asTask,
    );
    assert.equal(execution.kind, 'task');
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed');
    const result = resultFromTaskOutcome(outcome);
    assert.deepEqual(result.structuredContent, { category: 'chairs', percent: 0, changed: 400 });
  });
  await check('2025-11-25: a cancelled task settles cancelled', async () => {
    const execution = await legacySession.callTool(
      'catalog_reprice',
      { category: 'tables', percent: 0 },
      asTask,
    );
    assert.equal(execution.kind, 'task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'cancelled');
  });
} finally {
  await legacySession.close();
  await legacy.close();
}
console.log(`TypeScript task client: ${failures === 0 ? 'all checks passed' : `${failures} failed`}`);
process.exit(failures === 0 ? 0 : 1);
