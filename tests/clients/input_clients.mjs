// Input required (DESIGN §10) with the official TypeScript SDK clients against `toolwire serve`:
// - the v2 client (@modelcontextprotocol/client) pinned to 2026-07-28 answers the
//   InputRequiredResult of catalog_confirm_price through its elicitation handler (and of
//   catalog_describe through its sampling handler) and gets the final result;
// - the 1.x client (@modelcontextprotocol/sdk) on 2025-11-25 answers the gateway's
//   elicitation/create request on the connection and gets the final result;
// - a 1.x client that declared no elicitation capability gets the failure input_required at
//   once, not a hang.
//
// Usage: node input_clients.mjs URL WRITER_TOKEN
// Exits 0 when every check passed, 1 otherwise (each failure printed on stderr).

import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

const [url, token] = process.argv.slice(2);
if (!url || !token) {
  console.error('usage: node input_clients.mjs URL WRITER_TOKEN');
  process.exit(2);
}
const headers = { Authorization: `Bearer ${token}` };
const failures = [];

async function check(name, body) {
  try {
    await body();
    console.log(`  ok   ${name}`);
  } catch (error) {
    failures.push(name);
    console.error(`  FAIL ${name}: ${inspect(error, { depth: 6 })}`);
  }
}

/** The handlers' log: which requests reached the client, in order. */
function recorder() {
  const seen = [];
  return {
    seen,
    elicit: (params) => {
      seen.push(['elicitation/create', params.message]);
      assert.match(params.message, /^Change the price of /);
      assert.equal(params.requestedSchema.properties.confirm.type, 'boolean');
      return { action: 'accept', content: { confirm: true } };
    },
    sample: (params) => {
      seen.push(['sampling/createMessage', params.messages[0].content.text]);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Sturdy, handsome and made to last.' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    },
  };
}

function priceChange(result, price) {
  assert.notEqual(result.isError, true, inspect(result, { depth: 6 }));
  assert.equal(result.structuredContent.newPrice, price, inspect(result, { depth: 6 }));
  assert.equal(result._meta['dev.toolwire/dryRun'], false);
}

async function v2() {
  console.log(`TypeScript SDK v2 client (2026-07-28) against ${url}`);
  const log = recorder();
  const client = new ClientV2(
    { name: 'toolwire-input-v2', version: '1.0.0' },
    {
      capabilities: { elicitation: {}, sampling: {} },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => log.elicit(request.params));
  client.setRequestHandler('sampling/createMessage', async (request) => log.sample(request.params));
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  await check('v2: tools/list has the demo tools that ask for input', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('catalog_confirm_price') && names.includes('catalog_describe'), names);
  });
  await check('v2: catalog_confirm_price asks the user, then changes the price', async () => {
    const result = await client.callTool({ name: 'catalog_confirm_price', arguments: { id: 11, price: 31.5 } });
    priceChange(result, 31.5);
    assert.deepEqual(log.seen.map(([method]) => method), ['elicitation/create']);
  });
  await check('v2: catalog_describe asks the client model', async () => {
    const result = await client.callTool({ name: 'catalog_describe', arguments: { id: 11 } });
    assert.notEqual(result.isError, true, inspect(result, { depth: 6 }));
    assert.equal(result.structuredContent.blurb, 'Sturdy, handsome and made to last.');
    assert.equal(log.seen.at(-1)[0], 'sampling/createMessage');
  });
  await client.close();
}

async function v1() {
  console.log(`TypeScript SDK 1.x client (2025-11-25) against ${url}`);
  const log = recorder();
  const client = new ClientV1(
    { name: 'toolwire-input-v1', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => log.elicit(request.params));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => log.sample(request.params));
  const transport = new TransportV1(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  await check('v1: the session is 2025-11-25', async () => {
    assert.equal(transport.protocolVersion, '2025-11-25');
  });
  await check('v1: catalog_confirm_price asks over the connection, then changes the price', async () => {
    await client.listTools();
    const result = await client.callTool({ name: 'catalog_confirm_price', arguments: { id: 12, price: 41.25 } });
    priceChange(result, 41.25);
    assert.deepEqual(log.seen.map(([method]) => method), ['elicitation/create']);
  });
  await client.close();

  const bare = new ClientV1({ name: 'toolwire-input-bare', version: '1.0.0' }, { capabilities: {} });
  await bare.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  await check('v1 without elicitation: the failure input_required, not a hang', async () => {
    const started = Date.now();
    const result = await bare.callTool(
      { name: 'catalog_confirm_price', arguments: { id: 13, price: 51 } },
      undefined,
      { timeout: 10_000 },
    );
    assert.equal(result.isError, true, inspect(result, { depth: 6 }));
    const envelope = JSON.parse(result.content[0].text);
    assert.equal(envelope.code, 'input_required', result.content[0].text);
    assert.equal(envelope.details.inputRequests.confirm.method, 'elicitation/create');
    assert.ok(Date.now() - started < 10_000);
  });
  await bare.close();
}

try {
  await v2();
  await v1();
} catch (error) {
  failures.push('setup');
  console.error(`  FAIL setup: ${inspect(error, { depth: 6 })}`);
}
if (failures.length > 0) {
  console.error(`${failures.length} check(s) failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('every input-required check passed');
