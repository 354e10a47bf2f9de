// A stdio MCP server on 2025-11-25 with tools that must run as tasks (SEP-1686's experimental
// core tasks), for the gateway's tests (crates/toolwire/tests/gateway/tasks_relay.rs).
//
// Written with the official TypeScript SDK 1.x (`McpServer` and its experimental
// `registerToolTask`, an in-memory task store): it does not answer `server/discover`, so toolwire
// reaches it with `initialize`, and it refuses a call of a `required` tool made without
// `params.task`. `report` completes after `ms` milliseconds (300 unless told); `failing_report`
// ends `failed` with a tool error; `cancels` is an ordinary tool that says which tasks a client
// cancelled with `tasks/cancel` (the store notes every move to `cancelled`).
//
// The SDK answers the plain call of a `required` tool with a tool error whose text holds the
// spec's error (`MCP error -32601: …`); with `--strict` the fixture answers that error as the
// JSON-RPC error the spec asks for, as a server that follows it to the letter does.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const cancelled = [];

class NotingStore extends InMemoryTaskStore {
  async updateTaskStatus(taskId, status, statusMessage, sessionId) {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') cancelled.push(taskId);
  }
}

const server = new McpServer(
  { name: 'tasks-fixture', version: '1.0.0' },
  {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new NotingStore()
  }
);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A task tool whose work takes `ms` and ends as `status` with `result(args)`. A task cancelled
// meanwhile keeps its status: storing a result then fails, and is ignored.
function taskTool(name, description, inputSchema, status, result) {
  server.experimental.tasks.registerToolTask(
    name,
    { description, inputSchema, execution: { taskSupport: 'required' } },
    {
      async createTask(args, { taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl, pollInterval: 50 });
        (async () => {
          await sleep(args.ms ?? 300);
          await taskStore.storeTaskResult(task.taskId, status, result(args)).catch(() => {});
        })();
        return { task };
      },
      async getTask(_args, { taskId, taskStore }) {
        return await taskStore.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore }) {
        return await taskStore.getTaskResult(taskId);
      }
    }
  );
}

taskTool(
  'report',
  'Writes a report; takes ms milliseconds (300 unless told).',
  { label: z.string(), ms: z.number().optional() },
  'completed',
  ({ label }) => ({
    content: [{ type: 'text', text: `Report ${label} is ready` }],
    structuredContent: { label, pages: 3 }
  })
);

taskTool(
  'failing_report',
  'Tries to write a report and fails.',
  { ms: z.number().optional() },
  'failed',
  () => ({ content: [{ type: 'text', text: 'The report could not be written' }], isError: true })
);

server.registerTool(
  'cancels',
  { description: 'The tasks a client cancelled so far.', inputSchema: {} },
  async () => ({ content: [{ type: 'text', text: JSON.stringify(cancelled) }] })
);

if (process.argv.includes('--strict')) {
  // The SDK's own `tools/call` handler (no public getter), wrapped.
  const sdkCall = server.server._requestHandlers.get('tools/call');
  const refusal = 'MCP error -32601: ';
  server.server._requestHandlers.set('tools/call', async (request, extra) => {
    const result = await sdkCall(request, extra);
    const text = result.content?.[0]?.text ?? '';
    if (result.isError && text.startsWith(refusal)) {
      throw new McpError(ErrorCode.MethodNotFound, text.slice(refusal.length));
    }
    return result;
  });
}

await server.connect(new StdioServerTransport());
