// The official TypeScript SDK client's own strict check (@modelcontextprotocol/sdk 1.x, pinned in
// package.json) against `toolwire serve`, once for every `clientInfo.name` of every host profile
// (read from `toolwire hosts --format json`, so that a profile added later is covered) and once
// for a client no profile knows (the generic profile). After listTools the SDK keeps each tool's
// outputSchema, and its callTool throws when a success of such a tool "has an output schema but
// did not return structured content" or when structuredContent does not validate: Cursor, Gemini
// CLI and ChatGPT fail the whole call the same way. Every demo tool is called on its paths that
// succeed (and the failures beside them); the count of throws must be 0.
//
// Usage:
//   node ts_strict.mjs --toolwire PATH --http URL --writer-token T --reader-token T
// Exits 0 when no call threw, 1 otherwise (each throw printed on stderr).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import { inspect } from 'node:util';

/** The name of a client no profile claims: the generic profile. */
const UNKNOWN_CLIENT = 'toolwire-strict-unknown-client';

function parseArgs(argv) {
  const opts = { toolwire: null, url: null, writer: null, reader: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (flag === '--toolwire') opts.toolwire = value;
    else if (flag === '--http') opts.url = value;
    else if (flag === '--writer-token') opts.writer = value;
    else if (flag === '--reader-token') opts.reader = value;
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!(opts.toolwire && opts.url && opts.writer && opts.reader)) {
    throw new Error('give --toolwire PATH --http URL --writer-token T --reader-token T');
  }
  return opts;
}

/** Every (profile, clientInfo.name) pair, the generic profile under a name nobody claims. */
function clientNames(toolwire) {
  const profiles = JSON.parse(execFileSync(toolwire, ['hosts', '--format', 'json'], { encoding: 'utf8' }));
  const names = [];
  for (const profile of profiles) {
    const claimed = profile.client_names.length > 0 ? profile.client_names : [UNKNOWN_CLIENT];
    for (const name of claimed) names.push({ profile: profile.name, name });
  }
  if (!names.some((n) => n.profile === 'generic')) throw new Error('no generic profile listed');
  return names;
}

/** A 1.x client named `name` that answers elicitation (`confirm`) and sampling. */
async function connect(opts, name, token, confirm) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () =>
    confirm ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Sturdy, handsome and made to last.' },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  const transport = new StreamableHTTPClientTransport(new URL(opts.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

const throws = [];
let calls = 0;
let checkedAgainstSchema = 0;

/** Calls `tool` and records a throw; counts the successes the SDK checked against a schema. */
async function call(label, client, schemas, tool, args) {
  calls++;
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 30_000 });
    if (schemas.has(tool) && result.isError !== true) checkedAgainstSchema++;
    return result;
  } catch (error) {
    throws.push(`${label} ${tool} ${JSON.stringify(args)}: ${error?.message ?? inspect(error)}`);
    return undefined;
  }
}

function firstProduct(result) {
  const data = result?.structuredContent ?? JSON.parse(result?.content?.[0]?.text ?? 'null');
  const list = Array.isArray(data) ? data : (data?.result ?? data?.data ?? data);
  return Array.isArray(list) ? list[0] : undefined;
}

async function runFor(opts, { profile, name }) {
  const label = `${profile} (${name})`;
  const writer = await connect(opts, name, opts.writer, true);
  const reader = await connect(opts, name, opts.reader, true);
  const decliner = await connect(opts, name, opts.writer, false);
  const listed = await writer.listTools();
  const schemas = new Set(listed.tools.filter((t) => t.outputSchema).map((t) => t.name));
  const before = checkedAgainstSchema;
  const w = (tool, args) => call(label, writer, schemas, tool, args);
  const r = (tool, args) => call(label, reader, schemas, tool, args);

  const page = await w('catalog_search', { limit: 5 });
  const product = firstProduct(page) ?? { id: 1, price: 10, category: 'chairs' };
  await w('catalog_search', { limit: 5, page: 2 });
  await w('catalog_search', { query: 'zz-no-such-product-zz' });
  await w('catalog_search', { limit: 0 });
  await w('catalog_count', {});
  await w('catalog_count', { category: product.category });
  await w('catalog_get', { id: product.id });
  await w('catalog_get', { id: 987654321 });
  await r('catalog_update_price', { id: product.id, price: Number(product.price), dryRun: true });
  await r('catalog_update_price', { id: product.id, price: Number(product.price) });
  await w('catalog_update_price', { id: product.id, price: Number(product.price) });
  const exported = await w('catalog_export', {});
  await w('catalog_chart', {});
  await w('legacy_echo', { text: 'héllo ✓ "quoted" 42' });
  await w('catalog_confirm_price', { id: product.id, price: Number(product.price) });
  await call(label, decliner, schemas, 'catalog_confirm_price', { id: product.id, price: Number(product.price) });
  await w('catalog_describe', { id: product.id });
  await w('catalog_describe', { id: 987654321 });
  const link = exported?.content?.find((b) => b.type === 'resource_link')?.uri;
  if (listed.tools.some((t) => t.name === 'read_result') && link) {
    await w('read_result', { uri: link });
  }
  const checked = checkedAgainstSchema - before;
  console.log(`  ${label}: ${schemas.size} tools with an outputSchema, ${checked} successes checked against it`);
  await Promise.all([writer.close(), reader.close(), decliner.close()]);
  return { label, shown: schemas.size, checked };
}

let setupFailed = false;
try {
  const opts = parseArgs(process.argv.slice(2));
  console.log(`TypeScript SDK 1.x strict check against ${opts.url}`);
  const runs = [];
  for (const client of clientNames(opts.toolwire)) runs.push(await runFor(opts, client));
  // A profile shown outputSchemas must have had successes checked against them, or this script
  // checked nothing.
  for (const run of runs) {
    if (run.shown > 0 && run.checked === 0) throws.push(`${run.label}: no success was checked against an outputSchema`);
  }
  if (!runs.some((run) => run.checked > 0)) throws.push('no profile was shown an outputSchema');
} catch (error) {
  setupFailed = true;
  console.error(`  FAIL setup: ${error?.stack ?? error}`);
}
for (const thrown of throws) console.error(`  THROW ${thrown}`);
console.log(`TypeScript SDK strict check: ${calls} calls, ${checkedAgainstSchema} checked against an outputSchema, ${throws.length} throws`);
process.exit(!setupFailed && throws.length === 0 ? 0 : 1);
