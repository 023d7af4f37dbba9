/**
 * A server's policies go with it (a real hub, server-everything from npm): once it is removed, a server
 * added later under the same id gets none of them — a hidden value (often a key) is never sent to
 * whatever server takes the id next; Undo puts them back with the server.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policies } from '../../shared/policy.js';
import { EVERYTHING, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

const KEY = 'API-KEY-OF-OLD-SERVER';
const everything = { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] };

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe("a removed server's policies", () => {
  let t: TestHub;
  let client: Client;

  beforeAll(async () => {
    t = await startTestHub({
      version: 1,
      servers: { everything },
      // Left by an older version, which kept a removed server's policies: "ghost" is no longer configured.
      policies: { tools: { ghost: { echo: { hiddenParams: { message: KEY } } } } },
      settings: { port: 0 },
    });
    await t.waitForStatus('everything', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => t?.stop());

  const policies = async () => (await t.api<{ policies: Policies }>('policies.get')).value?.policies;
  const echo = async (name: string) => textOf(await client.callTool({ name, arguments: { message: 'hello' } }));

  async function setOldPolicies(server: string): Promise<void> {
    expect((await t.api('policies.setTool', { server, tool: 'echo', policy: { hiddenParams: { message: KEY } } })).ok).toBe(true);
    expect((await t.api('policies.setTool', { server, tool: 'get-sum', policy: { hidden: true } })).ok).toBe(true);
    expect((await t.api('policies.setServer', { server, policy: { exposure: 'direct' } })).ok).toBe(true);
  }

  it('are removed with it, and a new server under the same id gets none of them', async () => {
    await setOldPolicies('everything');
    expect(await echo('everything__echo')).toBe(`Echo: ${KEY}`);

    expect((await t.api('upstreams.remove', { id: 'everything' })).ok).toBe(true);
    const left = await policies();
    expect(left?.tools.everything).toBeUndefined();
    expect(left?.servers.everything).toBeUndefined();

    expect((await t.api('upstreams.add', { id: 'everything', config: everything })).ok).toBe(true);
    await t.waitForStatus('everything', 'ready');
    expect((await client.listTools()).tools.map((x) => x.name)).toContain('everything__get-sum');
    expect(await echo('everything__echo')).toBe('Echo: hello');
  });

  it('come back with the server on Undo', async () => {
    expect((await t.api('upstreams.add', { id: 'kept', config: everything })).ok).toBe(true);
    await t.waitForStatus('kept', 'ready');
    await setOldPolicies('kept');
    expect((await t.api('upstreams.remove', { id: 'kept' })).ok).toBe(true);
    expect((await policies())?.tools.kept).toBeUndefined();

    const ready = t.waitForStatus('kept', 'ready');
    expect((await t.api('upstreams.undoRemove', { id: 'kept' })).ok).toBe(true);
    await ready;
    const back = await policies();
    expect(back?.tools.kept).toEqual({ echo: { hiddenParams: { message: KEY } }, 'get-sum': { hidden: true } });
    expect(back?.servers.kept).toEqual({ exposure: 'direct' });
    expect(await echo('kept__echo')).toBe(`Echo: ${KEY}`);
  });

  it('left in the config by an older version are dropped when a server is added under their id', async () => {
    expect((await policies())?.tools.ghost).toBeDefined();
    expect((await t.api('upstreams.add', { id: 'ghost', config: everything })).ok).toBe(true);
    await t.waitForStatus('ghost', 'ready');
    expect((await policies())?.tools.ghost).toBeUndefined();
    expect(await echo('ghost__echo')).toBe('Echo: hello');
  });
});
