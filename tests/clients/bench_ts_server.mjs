// The benchmark's TypeScript server: the official TypeScript SDK (@modelcontextprotocol/sdk,
// pinned in tests/clients/package.json) serving toolwire's demo catalog tools over Streamable
// HTTP the way its documentation shows (McpServer, registerTool with zod input and output
// schemas, one transport per session on the SDK's Express app): the same products (the same
// rule as toolwire's demo catalog) and fields.
//
// It lives here, beside package.json, so that Node resolves the pinned SDK.
//
// Usage: node bench_ts_server.mjs PORT
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const CATEGORIES = ['chairs', 'tables', 'lamps', 'desks', 'shelves'];
const NOUNS = ['chair', 'table', 'lamp', 'desk', 'shelf'];
const ADJECTIVES = ['Oak', 'Walnut', 'Steel', 'Linen', 'Birch', 'Brass', 'Velvet', 'Maple'];

const catalog = [];
for (let id = 1; id <= 2000; id++) {
  const adjective = ADJECTIVES[Math.floor(id / 5) % 8];
  const noun = NOUNS[id % 5];
  catalog.push({
    id,
    name: `${adjective} ${noun} ${id}`,
    category: CATEGORIES[id % 5],
    price: (500 + ((id * 7919) % 99500)) / 100,
    stock: (id * 31) % 120,
    description: `From the ${adjective} line: a ${noun} made to order and shipped within ${2 + (id % 12)} days.`,
  });
}

const product = z.object({
  id: z.number().int(),
  name: z.string(),
  category: z.string(),
  price: z.number(),
  stock: z.number().int(),
  description: z.string(),
});

function result(structured) {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function newServer() {
  const server = new McpServer({ name: 'bench-typescript', version: '1' });
  server.registerTool(
    'catalog_get',
    { description: 'Get one product by its id.', inputSchema: { id: z.number().int() }, outputSchema: product.shape },
    async ({ id }) => {
      const found = catalog[id - 1];
      if (!found) return { content: [{ type: 'text', text: `No product ${id}` }], isError: true };
      return result(found);
    },
  );
  server.registerTool(
    'catalog_search',
    {
      description: 'Search the product catalog by words and category; results come a page at a time.',
      inputSchema: {
        query: z.string().optional(),
        category: z.string().optional(),
        limit: z.number().int().min(1).max(100).default(20),
        page: z.number().int().min(1).default(1),
      },
      outputSchema: { result: z.array(product) },
    },
    async ({ query, category, limit, page }) => {
      const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const matches = catalog.filter(
        (p) =>
          (category === undefined || p.category === category) &&
          words.every((w) => `${p.name} ${p.description}`.toLowerCase().includes(w)),
      );
      const start = (page - 1) * limit;
      return result({ result: matches.slice(start, start + limit) });
    },
  );
  server.registerTool(
    'catalog_export',
    { description: 'Export the whole catalog.', outputSchema: { result: z.array(product) } },
    async () => result({ result: catalog }),
  );
  return server;
}

const transports = new Map();
const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let transport = id ? transports.get(id) : undefined;
  if (!transport) {
    if (id || !isInitializeRequest(req.body)) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => transports.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});
app.listen(Number(process.argv[2]), '127.0.0.1', () => {
  console.log(`serving MCP on http://127.0.0.1:${process.argv[2]}/mcp`);
});
