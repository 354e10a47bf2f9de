// The official TypeScript SDK client (@modelcontextprotocol/sdk, pinned in package.json) against
// `toolwire serve`: lists the tools, calls every demo tool on a path that succeeds and on each
// path that fails, and reads the stored export back. The SDK validates every result itself (zod
// shapes, and structuredContent against the published outputSchema once listTools has run); any
// error it raises fails this script, and so does any answer whose content is not what toolwire
// promises.
//
// Usage:
//   node ts_client.mjs [--phase compat|spec] --http URL --writer-token T --reader-token T
//   node ts_client.mjs [--phase compat|spec] --stdio -- COMMAND ARG...
// --phase names the phase the gateway runs in (default compat).
// Exits 0 when every check passed, 1 otherwise (each failure printed on stderr).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

const PREFIX = 'dev.toolwire';
const DEMO_TOOLS = [
  'catalog_search',
  'catalog_get',
  'catalog_count',
  'catalog_update_price',
  'catalog_reprice',
  'catalog_export',
  'catalog_chart',
  'legacy_echo',
  'catalog_confirm_price',
  'catalog_describe',
];

function parseArgs(argv) {
  const opts = { mode: null, url: null, writer: null, reader: null, command: [], phase: 'compat' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--http') {
      opts.mode = 'http';
      opts.url = argv[++i];
    } else if (a === '--writer-token') {
      opts.writer = argv[++i];
    } else if (a === '--reader-token') {
      opts.reader = argv[++i];
    } else if (a === '--phase') {
      opts.phase = argv[++i];
    } else if (a === '--stdio') {
      opts.mode = 'stdio';
    } else if (a === '--') {
      opts.command = argv.slice(i + 1);
      break;
    } else {
      throw new Error(`unknown argument ${a}`);
    }
  }
  if (opts.mode === 'http' && !(opts.url && opts.writer && opts.reader)) {
    throw new Error('--http needs URL, --writer-token and --reader-token');
  }
  if (opts.mode === 'stdio' && opts.command.length === 0) {
    throw new Error('--stdio needs -- COMMAND ARG...');
  }
  if (!opts.mode) throw new Error('give --http URL or --stdio -- COMMAND');
  if (!['compat', 'spec'].includes(opts.phase)) throw new Error(`unknown phase ${opts.phase}`);
  return opts;
}

async function connect(opts, token) {
  const client = new Client({ name: 'toolwire-ts-check', version: '1.0.0' });
  let transport;
  if (opts.mode === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(opts.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
  } else {
    transport = new StdioClientTransport({
      command: opts.command[0],
      args: opts.command.slice(1),
      stderr: 'inherit',
    });
  }
  await client.connect(transport);
  return client;
}

// ---- reading toolwire's answers (both phases) -------------------------------------------------

function textBlocks(result) {
  return result.content.filter((b) => b.type === 'text').map((b) => b.text);
}

function tryJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Phase compat: the first text block is the legacy envelope (an object with a boolean success).
function legacyEnvelope(result) {
  const first = result.content[0];
  if (!first || first.type !== 'text') return undefined;
  const v = tryJson(first.text);
  return v && typeof v === 'object' && !Array.isArray(v) && typeof v.success === 'boolean'
    ? v
    : undefined;
}

function isWrapping(outputSchema) {
  return (
    outputSchema &&
    outputSchema.type === 'object' &&
    Object.keys(outputSchema.properties ?? {}).join() === 'result' &&
    (outputSchema.required ?? []).join() === 'result'
  );
}

// The tool's data as toolwire sent it, read from the text copy and from structuredContent; the
// two must agree, because hosts read only one of them.
function dataOf(result, tool) {
  const env = legacyEnvelope(result);
  const fromText = env ? env.data : tryJson(textBlocks(result)[0] ?? '');
  const sc = result.structuredContent;
  if (sc === undefined) return fromText;
  const wrapped = tool.outputSchema ? isWrapping(tool.outputSchema) : !isPlainObject(fromText);
  const fromStructured = wrapped ? sc.result : sc;
  assert.deepEqual(fromText, fromStructured, 'text copy and structuredContent disagree');
  return fromStructured;
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// The failure code, from the envelope (compat) or the `{"error":{"code"}}` text (spec).
function errorCode(result) {
  const env = legacyEnvelope(result);
  if (env && env.success === false) {
    if (isPlainObject(env.error) && env.error.code) return env.error.code;
    if (env.code) return env.code;
  }
  for (const t of textBlocks(result)) {
    const v = tryJson(t);
    if (isPlainObject(v) && isPlainObject(v.error) && typeof v.error.code === 'string') {
      return v.error.code;
    }
  }
  return result.structuredContent?.error?.code;
}

function items(data) {
  if (Array.isArray(data)) return data;
  for (const key of ['items', 'products', 'results']) {
    if (isPlainObject(data) && Array.isArray(data[key])) return data[key];
  }
  throw new Error(`no list of items in ${inspect(data, { depth: 2 })}`);
}

function countOf(data) {
  if (typeof data === 'number') return data;
  for (const key of ['count', 'total']) {
    if (isPlainObject(data) && typeof data[key] === 'number') return data[key];
  }
  throw new Error(`no count in ${inspect(data)}`);
}

// ---- the checks ------------------------------------------------------------------------------

const failures = [];
let passed = 0;

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`  ok   ${name}`);
  } catch (e) {
    failures.push(name);
    console.error(`  FAIL ${name}: ${e?.stack ?? e}`);
  }
}

function expectFailure(result, code) {
  assert.equal(result.isError, true, `expected isError, got ${inspect(result, { depth: 4 })}`);
  assert.equal(errorCode(result), code);
  assert.ok(textBlocks(result).length > 0, 'a failure carries its message as text');
}

async function run(opts) {
  const label = opts.mode === 'http' ? `http ${opts.url}` : `stdio ${opts.command.join(' ')}`;
  console.log(`TypeScript SDK client over ${label}, phase ${opts.phase}`);
  const client = await connect(opts, opts.writer);
  const reader = opts.mode === 'http' ? await connect(opts, opts.reader) : client;
  const version = client.transport?.protocolVersion;
  console.log(`  negotiated ${version ?? '(stdio: see server)'}; server ${JSON.stringify(client.getServerVersion())}`);

  const tools = {};
  await check('tools/list publishes every demo tool with a description', async () => {
    const listed = await client.listTools();
    for (const t of listed.tools) tools[t.name] = t;
    for (const name of DEMO_TOOLS) {
      assert.ok(tools[name], `tool ${name} missing`);
      assert.ok(tools[name].description, `tool ${name} has no description`);
    }
    assert.equal(tools.catalog_export.outputSchema, undefined, 'catalog_export publishes no outputSchema');
    for (const name of ['catalog_search', 'catalog_get', 'catalog_count']) {
      assert.equal(tools[name].outputSchema?.type, 'object', `${name} publishes an object outputSchema`);
    }
    if (opts.mode === 'http') await reader.listTools();
  });

  const call = (c, name, args) => c.callTool({ name, arguments: args });
  let total;
  let first;
  await check('catalog_count {} counts the catalog', async () => {
    const r = await call(client, 'catalog_count', {});
    assert.notEqual(r.isError, true);
    total = countOf(dataOf(r, tools.catalog_count));
    assert.ok(Number.isInteger(total) && total > 0, `count ${total}`);
  });

  await check('catalog_search pages through the catalog', async () => {
    const r1 = await call(client, 'catalog_search', { limit: 5 });
    assert.notEqual(r1.isError, true);
    const page1 = items(dataOf(r1, tools.catalog_search));
    assert.equal(page1.length, 5);
    first = page1[0];
    const pagination = r1._meta?.[`${PREFIX}/pagination`];
    assert.ok(pagination, `pagination in _meta: ${inspect(r1._meta)}`);
    assert.equal(pagination.total, total);
    assert.equal(pagination.limit, 5);
    const r2 = await call(client, 'catalog_search', { limit: 5, page: 2 });
    const page2 = items(dataOf(r2, tools.catalog_search));
    assert.equal(page2.length, 5);
    const ids1 = new Set(page1.map((p) => p.id));
    assert.ok(page2.every((p) => !ids1.has(p.id)), 'page 2 repeats page 1');
  });

  await check('catalog_search with a category counts like catalog_count', async () => {
    const category = first.category;
    assert.ok(typeof category === 'string', `item has a category: ${inspect(first)}`);
    const c = countOf(dataOf(await call(client, 'catalog_count', { category }), tools.catalog_count));
    const r = await call(client, 'catalog_search', { category, limit: 100 });
    const found = items(dataOf(r, tools.catalog_search));
    assert.ok(found.every((p) => p.category === category));
    assert.equal(r._meta?.[`${PREFIX}/pagination`]?.total, c);
  });

  await check('catalog_search for nothing finds an empty list', async () => {
    const r = await call(client, 'catalog_search', { query: 'zz-no-such-product-zz' });
    assert.notEqual(r.isError, true);
    assert.deepEqual(items(dataOf(r, tools.catalog_search)), []);
  });

  await check('catalog_get {id} returns the product', async () => {
    const r = await call(client, 'catalog_get', { id: first.id });
    assert.notEqual(r.isError, true);
    assert.deepEqual(dataOf(r, tools.catalog_get), first);
  });

  await check('catalog_get of an unknown id is not_found', async () => {
    expectFailure(await call(client, 'catalog_get', { id: 987654321 }), 'not_found');
  });

  await check('arguments outside the input schema are invalid_arguments results', async () => {
    for (const [name, args] of [
      ['catalog_search', { limit: 0 }],
      ['catalog_search', { limit: 101 }],
      ['catalog_search', { page: 0 }],
      ['catalog_get', {}],
      ['catalog_update_price', { id: first.id, price: -3 }],
      ['catalog_update_price', { id: first.id, price: 0 }],
    ]) {
      const r = await call(client, name, args);
      expectFailure(r, 'invalid_arguments');
      assert.match(JSON.stringify(r.content), /invalid/, `${name} ${JSON.stringify(args)} names what was invalid`);
    }
  });

  const newPrice = 4321.5;
  await check('catalog_update_price dry run changes nothing and says so', async () => {
    const r = await call(reader, 'catalog_update_price', { id: first.id, price: newPrice, dryRun: true });
    assert.notEqual(r.isError, true, inspect(r, { depth: 4 }));
    assert.equal(r._meta?.[`${PREFIX}/dryRun`], true);
    const after = dataOf(await call(client, 'catalog_get', { id: first.id }), tools.catalog_get);
    assert.deepEqual(after, first);
  });

  await check('catalog_update_price without catalog:write is missing_privilege', async () => {
    const r = await call(reader, 'catalog_update_price', { id: first.id, price: newPrice });
    expectFailure(r, 'missing_privilege');
    assert.match(JSON.stringify(r.content), /catalog:write/);
  });

  if (opts.mode === 'http') {
    await check('catalog_update_price with catalog:write updates the price', async () => {
      const r = await call(client, 'catalog_update_price', { id: first.id, price: newPrice });
      assert.notEqual(r.isError, true, inspect(r, { depth: 4 }));
      assert.notEqual(r._meta?.[`${PREFIX}/dryRun`], true);
      const after = dataOf(await call(client, 'catalog_get', { id: first.id }), tools.catalog_get);
      assert.equal(Number(after.price), newPrice);
    });
  }

  await check('catalog_chart sends a PNG image with a summary', async () => {
    const r = await call(client, 'catalog_chart', {});
    assert.notEqual(r.isError, true);
    const img = r.content.find((b) => b.type === 'image');
    assert.ok(img, `an image block: ${inspect(r.content.map((b) => b.type))}`);
    assert.equal(img.mimeType, 'image/png');
    assert.deepEqual([...Buffer.from(img.data, 'base64').subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
    assert.ok(textBlocks(r).length > 0, 'a text block (the summary)');
  });

  await check('legacy_echo answers with its hand-built legacy string', async () => {
    const text = 'héllo ✓ "quoted" 42';
    const r = await call(client, 'legacy_echo', { text });
    assert.notEqual(r.isError, true);
    assert.deepEqual(dataOf(r, tools.legacy_echo), { text });
    if (opts.phase === 'compat') {
      assert.equal(legacyEnvelope(r)?.success, true, "the tool's own envelope comes first");
    } else {
      assert.deepEqual(JSON.parse(r.content[0].text), { text }, 'the data comes first as JSON');
    }
  });

  await check('catalog_export is stored behind a link and read back whole', async () => {
    const r = await call(client, 'catalog_export', {});
    assert.notEqual(r.isError, true, inspect(r, { depth: 4 }));
    const link = r.content.find((b) => b.type === 'resource_link');
    assert.ok(link, `a resource_link block: ${inspect(r.content, { depth: 3 })}`);
    assert.match(link.uri, /^toolwire:\/\/results\/[^?]+\?exp=\d+&kid=[^&]+&sig=[A-Za-z0-9_-]+$/);
    assert.ok(r._meta?.[`${PREFIX}/responseSize`] > 262144, 'responseSize says what did not fit');
    const read = await client.readResource({ uri: link.uri });
    assert.equal(read.contents[0].uri, link.uri);
    assert.equal(read.contents[0].mimeType, 'application/json');
    const data = JSON.parse(read.contents[0].text);
    assert.equal(items(data).length, total);
    if (opts.mode === 'http') {
      await assert.rejects(reader.readResource({ uri: link.uri }), (e) => {
        assert.equal(e.code, -32002);
        return true;
      });
    }
    const tampered = link.uri.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    await assert.rejects(client.readResource({ uri: tampered }), (e) => {
      assert.equal(e.code, -32002);
      return true;
    });
  });

  await check('resources/templates/list names the stored-result template', async () => {
    const t = await client.listResourceTemplates();
    assert.ok(
      t.resourceTemplates.some((x) => x.uriTemplate === 'toolwire://results/{id}{?exp,kid,sig}'),
      inspect(t),
    );
  });

  await check('an unknown tool is JSON-RPC -32602', async () => {
    await assert.rejects(call(client, 'no_such_tool', {}), (e) => {
      assert.equal(e.code, -32602);
      return true;
    });
  });

  await client.close();
  if (reader !== client) await reader.close();
}

try {
  await run(parseArgs(process.argv.slice(2)));
} catch (e) {
  failures.push('setup');
  console.error(`  FAIL setup: ${e?.stack ?? e}`);
}
console.log(`TypeScript SDK client: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
