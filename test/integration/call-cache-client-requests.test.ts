/**
 * The call cache and requests an upstream sends a client during a call (roots/list, sampling), through the
 * real hub with two SDK clients. Such a result depends on the client that answered, so it is not cached.
 * Before, the cache key was only server, tool and arguments: with cacheTtlSeconds on the fixture's
 * `roots` tool, bob was given alice's folders from the cache.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('the call cache with requests to the client', () => {
  let t: TestHub;
  let alice: Client;
  let bob: Client;
  /** Who answered a roots/list or sampling request, in order. */
  const asked: string[] = [];

  /** A client with its own folder as its root, that samples answering with its name. */
  async function client(name: string, root: string): Promise<Client> {
    const c = await t.connect({ capabilities: { roots: {}, sampling: {} } }, name);
    c.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push(`${name}: roots`);
      return { roots: [{ uri: root, name }] };
    });
    c.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push(`${name}: sampling`);
      return { role: 'assistant', model: 'm', content: { type: 'text', text: `${name}'s answer` } };
    });
    return c;
  }

  beforeAll(async () => {
    t = await startTestHub({
      version: 1,
      servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } },
      settings: { port: 0 },
      policies: { tools: { fx: { roots: { cacheTtlSeconds: 300 }, sample: { cacheTtlSeconds: 300 }, counted: { cacheTtlSeconds: 300 } } } },
    });
    await t.waitForStatus('fx', 'ready');
    alice = await client('alice', 'file:///home/alice/private');
    bob = await client('bob', 'file:///home/bob');
  }, 60_000);
  afterAll(async () => t?.stop());

  const call = async (c: Client, name: string, args: Record<string, unknown> = {}) =>
    textOf((await c.callTool({ name, arguments: args })) as CallToolResult);

  it("a result made with one client's roots is never given to another", async () => {
    asked.length = 0;
    expect(await call(alice, 'fx__roots')).toContain('file:///home/alice/private');
    const bobSees = await call(bob, 'fx__roots');
    expect(bobSees).toContain('file:///home/bob');
    expect(bobSees).not.toContain('alice');
    // Each call asked its own client: neither was answered from the cache.
    expect(await call(alice, 'fx__roots')).toContain('file:///home/alice/private');
    expect(asked).toEqual(['alice: roots', 'bob: roots', 'alice: roots']);
  });

  it("a result made with one client's sampling is never given to another", async () => {
    asked.length = 0;
    expect(await call(alice, 'fx__sample', { prompt: 'p' })).toBe("sampled: alice's answer");
    expect(await call(bob, 'fx__sample', { prompt: 'p' })).toBe("sampled: bob's answer");
    expect(asked).toEqual(['alice: sampling', 'bob: sampling']);
  });

  it('a tool that asks the client nothing is still cached', async () => {
    expect(await call(alice, 'fx__counted', { key: 'k' })).toBe('k: call 1');
    expect(await call(bob, 'fx__counted', { key: 'k' })).toBe('k: call 1');
  });
});
