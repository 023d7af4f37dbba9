/**
 * The obvious one-hop MCP proxy, written with the SDK as its docs show: an SDK Client to the server over
 * stdio, and an SDK low-level Server on our own stdio relaying tools/list and tools/call. The bridge rows
 * are held against it: Spillway's two hops (bridge → hub) should cost no more than this one.
 * Run: `node --import tsx test/bench/one-hop-proxy.ts <command> [args…]`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const upstream = new Client({ name: 'one-hop-proxy', version: '1' });
await upstream.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

const server = new Server({ name: 'one-hop-proxy', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
  upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, { signal: extra.signal }),
);
// The client closing our stdin ends the proxy and, with it, the server it started.
process.stdin.once('end', () => void upstream.close().then(() => process.exit(0)));
await server.connect(new StdioServerTransport());
