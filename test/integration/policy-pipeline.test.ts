/**
 * Policies through the real hub: an in-process SDK server (the tools of server-everything that matter
 * here) behind the hub's whole call path, an SDK client in front of it, both over the SDK's in-memory
 * pair. Pinning, exposure rewrite, hidden parameters and overrides reaching the upstream, dispatch with
 * argumentsFrom, and the cache with TTL expiry on an injected clock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validatePolicies } from '../../shared/policy.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import { startMemoryHub, type MemoryHub } from '../support/memory-hub.js';

const ECHO = 'Echoes back the input';
const clock = { t: 1_000_000, now: () => clock.t };
const dirs: string[] = [];
const hubs: MemoryHub[] = [];

afterEach(async () => {
  for (const h of hubs.splice(0)) await h.stop();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The tools of server-everything these tests use, counting the calls that reach it. */
function everything(calls: { n: number }, echoDescription = ECHO) {
  const text = (t: string): CallToolResult => {
    calls.n++;
    return { content: [{ type: 'text', text: t }] };
  };
  return () => {
    const server = new McpServer({ name: 'everything', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: echoDescription, inputSchema: { message: z.string().describe('Message to echo') } },
      async ({ message }) => text(`Echo: ${message}`),
    );
    server.registerTool(
      'get-sum',
      {
        description: 'Returns the sum of two numbers',
        inputSchema: { a: z.number().describe('First number'), b: z.number().describe('Second number') },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => text(`The sum of ${a} and ${b} is ${a + b}.`),
    );
    server.registerTool('get-env', { description: 'Returns all environment variables of the server' }, async () => text('{}'));
    server.registerTool('toggle-simulated-logging', { description: 'Toggles simulated, random-leveled logging on or off' }, async () =>
      text('Simulated logging toggled'),
    );
    return server;
  };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-policy-'));
  dirs.push(dir);
  return dir;
}

async function open(options: { dir?: string; calls?: { n: number }; echo?: string; settings?: unknown; policies?: unknown }) {
  const h = await startMemoryHub({
    dir: options.dir ?? (await tempDir()),
    servers: { everything: everything(options.calls ?? { n: 0 }, options.echo) },
    config: { ...(options.settings ? { settings: options.settings } : {}), ...(options.policies ? { policies: options.policies } : {}) },
    cacheClock: clock.now,
  });
  hubs.push(h);
  return { ...h, client: await h.connect() };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema) as Promise<CallToolResult>;

const listed = async (client: Client) => (await client.listTools()).tools;

describe('policies against an in-process server, through the hub', () => {
  it('validates policies against the tools the server really lists', async () => {
    const { hub } = await open({});
    const known = hub.policy.known(hub.pool, hub.catalog);
    expect(validatePolicies({ tools: { everything: { ech: { hidden: true } } } }, known)).toMatchObject({ ok: false, field: 'tools.everything.ech' });
    expect(validatePolicies({ tools: { everything: { echo: { hiddenParams: { mesage: 'x' } } } } }, known)).toMatchObject({
      ok: false,
      field: 'tools.everything.echo.hiddenParams.mesage',
    });
    expect(validatePolicies({ tools: { everything: { echo: { hiddenParams: { message: 'x' } } } } }, known).ok).toBe(true);
  });

  it('hides a tool, overrides a description, hides a parameter and the upstream receives the injected value', async () => {
    const { client } = await open({
      policies: {
        servers: {},
        tools: {
          everything: {
            'get-env': { hidden: true },
            echo: { description: 'Say it back', hiddenParams: { message: 'injected by policy' } },
            'get-sum': { paramOverrides: { b: 100 } },
          },
        },
      },
    });
    const tools = await listed(client);
    expect(tools.map((t) => t.name)).not.toContain('everything__get-env');
    const echo = tools.find((t) => t.name === 'everything__echo')!;
    expect(echo.description).toBe('Say it back');
    expect(echo.inputSchema.properties).toEqual({});
    expect(echo.inputSchema.required).toBeUndefined();

    expect(textOf(await call(client, 'everything__echo', { message: 'from the client' }))).toBe('Echo: injected by policy');
    expect(textOf(await call(client, 'everything__get-sum', { a: 1, b: 2 }))).toMatch(/101/);
    expect((await call(client, 'everything__get-env')).isError).toBe(true);
  });

  it('serves a read-only tool from the cache without reaching the upstream, until the TTL passes', async () => {
    const calls = { n: 0 };
    // get-sum is annotated readOnlyHint and "cache read-only tools" is on: default TTL 300 s.
    const { hub, client } = await open({ calls, settings: { policy: { cacheReadOnlyTools: true } } });
    const first = await call(client, 'everything__get-sum', { a: 2, b: 3 });
    const second = await call(client, 'everything__get-sum', { b: 3, a: 2 });
    expect(second).toEqual(first);
    expect(calls.n).toBe(1);
    expect(hub.policy.cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    clock.t += 300_000;
    await call(client, 'everything__get-sum', { a: 2, b: 3 });
    expect(calls.n).toBe(2);
    // A tool that is not read-only is never cached by that setting.
    await call(client, 'everything__toggle-simulated-logging');
    await call(client, 'everything__toggle-simulated-logging');
    expect(calls.n).toBe(4);
  });

  it('dispatch: search, describe, and call with argumentsFrom a spilled JSON result', async () => {
    const { hub, client } = await open({ policies: { servers: { everything: { exposure: 'dispatch' } }, tools: {} } });
    const dispatch = (args: Record<string, unknown>) => call(client, 'spillway__dispatch', args);
    const search = textOf(await dispatch({ action: 'search', query: 'sum of two numbers' }));
    expect(search.split('\n')[1]).toMatch(/^1\. everything__get-sum /);
    const described = JSON.parse(textOf(await dispatch({ action: 'describe', name: 'everything__get-sum' })));
    expect(described.inputSchema.required).toEqual(['a', 'b']);

    const store = hub.spill.store;
    const spilled = await store.put(
      { content: [{ type: 'text', text: JSON.stringify({ a: 20, b: 22 }) }] },
      { server: 'everything', tool: 'some-tool' },
    );
    const result = await dispatch({ action: 'call', name: 'everything__get-sum', argumentsFrom: spilled.handle });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/42/);

    const prose = await store.put({ content: [{ type: 'text', text: 'just words' }] }, { server: 'everything', tool: 'x' });
    const notJson = await dispatch({ action: 'call', name: 'everything__get-sum', argumentsFrom: prose.handle });
    expect(notJson.isError).toBe(true);
    expect(textOf(notJson)).toMatch(/is not JSON/);
  });

  it('pinning withholds a tool whose description changed until approved, across a restart', async () => {
    const dir = await tempDir();
    const first = await open({ dir });
    expect((await listed(first.client)).map((t) => t.name)).toContain('everything__echo');
    await first.stop(); // stopping again after the test is harmless

    // The upstream now describes echo differently (as a rug-pull would); a new hub starts on the same files.
    const { hub, client } = await open({ dir, echo: 'Echoes back the input and your secrets' });
    expect((await listed(client)).map((t) => t.name)).not.toContain('everything__echo');
    expect((await call(client, 'everything__echo', { message: 'x' })).isError).toBe(true);
    expect(hub.policy.pins.pending()).toMatchObject([
      { server: 'everything', tool: 'echo', newDescription: 'Echoes back the input and your secrets' },
    ]);
    expect(await controlParts(hub).control.approvePin('everything', 'echo')).toBe(true);
    expect((await listed(client)).map((t) => t.name)).toContain('everything__echo');
  });
});
