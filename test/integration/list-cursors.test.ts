/**
 * Audit (s19, downstream): the hub ignored the `cursor` of a client's tools/list, resources/list,
 * resources/templates/list and prompts/list and answered the whole list again, which a client paginating
 * appends to what it has (its list doubled). The hub gives every list whole, with no `nextCursor`, so no
 * cursor it could be sent is one it gave: per the spec's pagination section, an invalid cursor is refused
 * with -32602 (Invalid params). A list asked for without a cursor still comes whole, over HTTP and the bridge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let clients: Record<string, Client>;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
  clients = { http: await hub.connect(undefined, 'cursor-http'), bridge: await hub.connectInProcess('cursor-bridge', 'bridge') };
});

afterAll(async () => {
  await hub?.stop();
});

/** Each paginated list, asked for with `params`: what it lists. */
const lists = {
  'tools/list': (c: Client, params?: { cursor?: string }) => c.listTools(params).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })),
  'resources/list': (c: Client, params?: { cursor?: string }) =>
    c.listResources(params).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })),
  'resources/templates/list': (c: Client, params?: { cursor?: string }) =>
    c.listResourceTemplates(params).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })),
  'prompts/list': (c: Client, params?: { cursor?: string }) => c.listPrompts(params).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })),
};

describe('a list request with a cursor the hub never gave', () => {
  for (const entrance of ['http', 'bridge']) {
    it(`is refused with -32602 on every list, over ${entrance}; without a cursor the list comes whole`, async () => {
      const client = clients[entrance];
      const whole = await lists['tools/list'](client);
      expect(whole.items.map((t) => t.name)).toContain('fx__noop');
      expect(whole.nextCursor).toBeUndefined();
      expect((await lists['resources/templates/list'](client)).items.map((t) => t.uriTemplate)).toContain('fixture://big/{bytes}');
      for (const [method, list] of Object.entries(lists)) {
        // An empty string is a cursor too (the spec: only its absence ends a list).
        for (const cursor of ['eyJwYWdlIjogMn0=', '']) {
          const error = await list(client, { cursor }).then(
            (r) => `answered ${r.items.length} items`,
            (e: unknown) => e,
          );
          expect(error, `${method} with cursor ${JSON.stringify(cursor)}`).toBeInstanceOf(McpError);
          expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
          expect((error as McpError).message).toMatch(/cursor/);
        }
        expect((await list(client)).nextCursor, method).toBeUndefined();
      }
      // The session goes on.
      expect((await lists['tools/list'](client)).items).toEqual(whole.items);
    });
  }
});
