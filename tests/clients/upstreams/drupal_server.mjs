// A stdio MCP server in the style of Drupal's MCP bridge for Tool API tools, for upstreams.py.
//
// Written with the official TypeScript SDK (`@modelcontextprotocol/sdk`, its `Server`: a bridge
// builds its tool definitions from configuration, not from code). Like the bridge, every result
// is the envelope `{success, message, data}` in `structuredContent`, with the same JSON as the
// one text block, and PHP's empty array makes `"data": []` on a failure and on a result without
// outputs, where the envelope's schema promises an object. `node_load` and `node_search` publish
// that envelope as their `outputSchema` (the bridge issue's proposed resolution); `cache_clear`
// declares no outputs and publishes none (the option 4), so toolwire.toml declares it.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const NODES = {
  1: { nid: 1, title: 'About us', type: 'page' },
  2: { nid: 2, title: 'Spring sale', type: 'article' },
  3: { nid: 3, title: 'Shipping and returns', type: 'page' }
};
const FORBIDDEN = 4; // a node that exists but the caller may not view

// The envelope schema the bridge derives from a tool's output definitions.
function envelope(properties, required) {
  const data = { type: 'object', properties };
  if (required) data.required = required;
  return {
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      message: { type: 'string' },
      data,
      input_schema: { type: 'object' }
    },
    required: ['success', 'message', 'data']
  };
}

const nodeProps = { nid: { type: 'integer' }, title: { type: 'string' }, type: { type: 'string' } };

const tools = [
  {
    name: 'node_load',
    description: 'Loads a content entity (node) by its id.',
    inputSchema: { type: 'object', properties: { nid: { type: 'integer' } }, required: ['nid'] },
    outputSchema: envelope(nodeProps, ['nid', 'title']),
    annotations: { readOnlyHint: true }
  },
  {
    name: 'node_search',
    description: 'Searches nodes by title; the result may be empty.',
    inputSchema: { type: 'object', properties: { keys: { type: 'string' } }, required: ['keys'] },
    outputSchema: envelope({
      items: { type: 'array', items: { type: 'object', properties: nodeProps } },
      count: { type: 'integer' }
    }),
    annotations: { readOnlyHint: true }
  },
  {
    name: 'cache_clear',
    description: 'Clears all caches. Declares no outputs.',
    inputSchema: { type: 'object', properties: {} }
  }
];

// What Tool API's bridge answers: the envelope in structuredContent and as the text block.
function answer(success, message, data, isError = false) {
  const env = { success, message, data };
  const result = { content: [{ type: 'text', text: JSON.stringify(env) }], structuredContent: env };
  if (isError) result.isError = true;
  return result;
}

function call(name, args) {
  switch (name) {
    case 'node_load': {
      const node = NODES[args.nid];
      if (args.nid === FORBIDDEN) return answer(false, `Access denied to node ${args.nid}.`, [], true);
      if (!node) return answer(false, `Node ${args.nid} does not exist.`, [], true);
      return answer(true, `Loaded node ${node.nid}.`, node);
    }
    case 'node_search': {
      const keys = String(args.keys ?? '').toLowerCase();
      const items = Object.values(NODES).filter(n => n.title.toLowerCase().includes(keys));
      if (items.length === 0) return answer(true, `No content matches "${args.keys}".`, []);
      return answer(true, `${items.length} nodes found.`, { items, count: items.length });
    }
    case 'cache_clear':
      return answer(true, 'All caches cleared.', []);
    default:
      return answer(false, `Unknown tool ${name}.`, [], true);
  }
}

const server = new Server({ name: 'drupal-bridge', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async request =>
  call(request.params.name, request.params.arguments ?? {})
);
await server.connect(new StdioServerTransport());
