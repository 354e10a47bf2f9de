// The official TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in package.json)
// against `toolwire serve` over Streamable HTTP, in its three negotiation modes: `legacy` (the
// initialize handshake), `auto` (probes server/discover and must adopt 2026-07-28) and pinned to
// 2026-07-28. In each: every demo data tool on its success path, a not_found failure, the dry
// run, and the stored export read back with readResource (on 2026-07-28 with `ttlMs` and
// `cacheScope: "private"`). The SDK validates results against the published outputSchema;
// any error it raises, and any warning about the published schemas, fails this script.
//
// Usage: node ts_v2_client.mjs URL WRITER_TOKEN
// Exits 0 when every check passed, 1 otherwise.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';

const [url, token] = process.argv.slice(2);
if (!url || !token) throw new Error('usage: ts_v2_client.mjs URL WRITER_TOKEN');

// The SDK's validator warns on console for formats it does not know; such a warning means a
// published schema is not portable, which this check refuses.
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.map(String).join(' '));
  warn(...args);
};

const MODES = [
  ['legacy', 'legacy', '2025-11-25'],
  ['auto', 'auto', '2026-07-28'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
];

function texts(result) {
  return result.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

async function run(label, mode, expected) {
  const client = new Client(
    { name: 'toolwire-ts-v2-check', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), expected, `${label}: negotiated version`);
    const { tools } = await client.listTools();
    for (const name of ['catalog_search', 'catalog_get', 'catalog_count', 'catalog_export']) {
      assert.ok(tools.some((t) => t.name === name), `${label}: ${name} listed`);
    }
    const exportTool = tools.find((t) => t.name === 'catalog_export');
    assert.deepEqual(
      exportTool.inputSchema,
      { type: 'object', properties: {}, additionalProperties: false },
      `${label}: a tool without arguments`,
    );
    const get = await client.callTool({ name: 'catalog_get', arguments: { id: 5 } });
    assert.ok(!get.isError, `${label}: catalog_get`);
    const count = await client.callTool({ name: 'catalog_count', arguments: {} });
    assert.ok(!count.isError, `${label}: catalog_count`);
    const search = await client.callTool({ name: 'catalog_search', arguments: { query: 'oak', limit: 5 } });
    assert.ok(!search.isError, `${label}: catalog_search`);
    assert.ok(search._meta['dev.toolwire/pagination'].total > 5, `${label}: search total`);
    const dry = await client.callTool({
      name: 'catalog_update_price',
      arguments: { id: 5, price: 12.5, dryRun: true },
    });
    assert.ok(!dry.isError && texts(dry).includes('Dry run'), `${label}: dry run`);
    const missing = await client.callTool({ name: 'catalog_get', arguments: { id: 999999 } });
    assert.equal(missing.isError, true, `${label}: not_found is an error result`);
    assert.ok(texts(missing).includes('not_found'), `${label}: not_found code in the text`);

    const exported = await client.callTool({ name: 'catalog_export', arguments: {} });
    const link = exported.content.find((b) => b.type === 'resource_link');
    assert.ok(link, `${label}: the export is stored behind a link`);
    assert.ok(texts(exported).includes(link.uri), `${label}: the link's URI is in a text block`);
    const read = await client.readResource({ uri: link.uri });
    const rows = JSON.parse(read.contents[0].text);
    assert.ok(Array.isArray(rows) && rows.length > 1000, `${label}: the export reads back`);
    if (expected === '2026-07-28') {
      assert.ok(Number.isInteger(read.ttlMs) && read.ttlMs > 0, `${label}: ttlMs ${read.ttlMs}`);
      assert.equal(read.cacheScope, 'private', `${label}: cacheScope`);
    }
    console.log(`${label}: ${expected}, every check passed`);
  } finally {
    await client.close();
  }
}

let failed = false;
for (const [label, mode, expected] of MODES) {
  try {
    await run(label, mode, expected);
  } catch (error) {
    failed = true;
    console.error(`${label}: ${error.stack ?? error}`);
  }
}
if (warnings.length > 0) {
  failed = true;
  console.error(`the SDK warned ${warnings.length} time(s); first: ${warnings[0]}`);
}
process.exit(failed ? 1 : 0);
