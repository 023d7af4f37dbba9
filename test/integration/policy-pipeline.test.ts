/**
 * The policy library composed into a small call path against a real upstream (server-everything over
 * stdio) and a real spill store: pinning, exposure rewrite, hidden parameters and overrides reaching the
 * upstream, dispatch with argumentsFrom, and the cache with TTL expiry on an injected clock.
 * This is the wiring the hub does; here it is kept minimal so the library is tested end to end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../shared/config.js';
import { defaultGlobalPolicy, validatePolicies, type Policies } from '../../shared/policy.js';
import { CallCache } from '../../electron/core/policy/call-cache.js';
import { createDispatch, type DispatchEntry } from '../../electron/core/policy/dispatch-tool.js';
import { policyDefaults, resolvePolicy } from '../../electron/core/policy/resolve.js';
import { exposeTool, prepareArguments } from '../../electron/core/policy/schema-rewrite.js';
import { spilledJsonLoader } from '../../electron/core/policy/spilled-json.js';
import { ToolPins } from '../../electron/core/policy/tool-pins.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const clock = { t: 1_000_000, now: () => clock.t };
let dir: string;
let client: Client;
let counter: TokenCounter;
let store: SpillStore;
let upstreamTools: Tool[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-policy-'));
  client = new Client({ name: 'spillway-test', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
  upstreamTools = (await client.listTools()).tools;
  counter = new TokenCounter();
  store = await SpillStore.open({ dir: join(dir, 'spill'), now: clock.now, counter });
});

afterAll(async () => {
  await client?.close();
  await store?.close();
  await counter?.close();
  await rm(dir, { recursive: true, force: true });
});

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The hub's call path in miniature: resolve → refuse hidden → prepare args → cache → upstream. */
function pipeline(policies: Policies, pins: ToolPins) {
  const defaults = policyDefaults(SettingsSchema.parse({}), { ...defaultGlobalPolicy(), cacheReadOnlyTools: true });
  const cache = new CallCache({ now: clock.now });
  let upstreamCalls = 0;
  const effective = (tool: Tool) =>
    resolvePolicy({
      defaults,
      server: policies.servers.everything,
      tool: policies.tools.everything?.[tool.name],
      readOnlyHint: tool.annotations?.readOnlyHint,
    }).values;
  const listed = () =>
    pins
      .checkAll('everything', upstreamTools)
      .allowed.filter((t) => !effective(t).hidden)
      .map((t) => ({ upstream: t, exposed: exposeTool({ ...t, name: `everything__${t.name}` }, effective(t)) }));

  async function call(name: string, clientArgs: Record<string, unknown>): Promise<CallToolResult> {
    const entry = listed().find((t) => t.exposed.name === name);
    if (!entry) return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
    const policy = effective(entry.upstream);
    const args = prepareArguments(clientArgs, policy);
    const hit = cache.get('everything', entry.upstream.name, args);
    if (hit) return hit.result;
    upstreamCalls++;
    const result = (await client.request(
      { method: 'tools/call', params: { name: entry.upstream.name, arguments: args } },
      CallToolResultSchema,
    )) as CallToolResult;
    cache.set('everything', entry.upstream.name, args, result, { ttlSeconds: policy.cacheTtlSeconds, cacheErrors: policy.cacheErrors });
    return result;
  }

  const dispatch = createDispatch({
    tools: () =>
      listed().map(
        (t): DispatchEntry => ({
          name: t.exposed.name,
          server: 'everything',
          original: t.upstream.name,
          description: t.exposed.description,
          inputSchema: t.exposed.inputSchema,
        }),
      ),
    call: (name, args) => call(name, args),
    read: async () => ({ content: [{ type: 'text', text: 'not used here' }], isError: true }),
    loadSpilledJson: spilledJsonLoader(store),
  });
  return { listed, call, dispatch, cache, upstreamCalls: () => upstreamCalls };
}

describe('policies against server-everything', () => {
  it('validates policies against the tools the server really lists', () => {
    const known = {
      servers: {
        everything: {
          tools: upstreamTools.map((t) => t.name),
          inputSchemas: Object.fromEntries(upstreamTools.map((t) => [t.name, t.inputSchema])),
        },
      },
    };
    expect(validatePolicies({ tools: { everything: { ech: { hidden: true } } } }, known)).toMatchObject({ ok: false, field: 'tools.everything.ech' });
    expect(validatePolicies({ tools: { everything: { echo: { hiddenParams: { mesage: 'x' } } } } }, known)).toMatchObject({
      ok: false,
      field: 'tools.everything.echo.hiddenParams.mesage',
    });
    expect(validatePolicies({ tools: { everything: { echo: { hiddenParams: { message: 'x' } } } } }, known).ok).toBe(true);
  });

  it('hides a tool, overrides a description, hides a parameter and the upstream receives the injected value', async () => {
    const pins = await ToolPins.open({ file: join(dir, 'pins-1.json'), now: clock.now });
    const policies: Policies = {
      servers: {},
      tools: {
        everything: {
          'get-env': { hidden: true },
          echo: { description: 'Say it back', hiddenParams: { message: 'injected by policy' } },
          'get-sum': { paramOverrides: { b: 100 } },
        },
      },
    };
    const p = pipeline(policies, pins);
    const names = p.listed().map((t) => t.exposed.name);
    expect(names).not.toContain('everything__get-env');
    const echo = p.listed().find((t) => t.exposed.name === 'everything__echo')!.exposed;
    expect(echo.description).toBe('Say it back');
    expect(echo.inputSchema.properties).toEqual({});
    expect(echo.inputSchema.required).toBeUndefined();

    expect(textOf(await p.call('everything__echo', { message: 'from the client' }))).toBe('Echo: injected by policy');
    expect(textOf(await p.call('everything__get-sum', { a: 1, b: 2 }))).toMatch(/101/);
    expect((await p.call('everything__get-env', {})).isError).toBe(true);
    await pins.flush();
  });

  it('serves a read-only tool from the cache without reaching the upstream, until the TTL passes', async () => {
    const pins = await ToolPins.open({ file: join(dir, 'pins-2.json'), now: clock.now });
    const p = pipeline({ servers: {}, tools: {} }, pins);
    // get-sum is annotated readOnlyHint and "cache read-only tools" is on: default TTL 300 s.
    const first = await p.call('everything__get-sum', { a: 2, b: 3 });
    const second = await p.call('everything__get-sum', { b: 3, a: 2 });
    expect(second).toEqual(first);
    expect(p.upstreamCalls()).toBe(1);
    expect(p.cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    clock.t += 300_000;
    await p.call('everything__get-sum', { a: 2, b: 3 });
    expect(p.upstreamCalls()).toBe(2);
    // A tool that is not read-only is never cached by that setting.
    await p.call('everything__toggle-simulated-logging', {});
    await p.call('everything__toggle-simulated-logging', {});
    expect(p.upstreamCalls()).toBe(4);
    await pins.flush();
  });

  it('dispatch: search, describe, and call with argumentsFrom a spilled JSON result', async () => {
    const pins = await ToolPins.open({ file: join(dir, 'pins-3.json'), now: clock.now });
    const p = pipeline({ servers: {}, tools: {} }, pins);
    const search = textOf(await p.dispatch.handle({ action: 'search', query: 'sum of two numbers' }));
    expect(search.split('\n')[1]).toMatch(/^1\. everything__get-sum /);
    const described = JSON.parse(textOf(await p.dispatch.handle({ action: 'describe', name: 'everything__get-sum' })));
    expect(described.inputSchema.required).toEqual(['a', 'b']);

    const spilled = await store.put({ content: [{ type: 'text', text: JSON.stringify({ a: 20, b: 22 }) }] }, { server: 'everything', tool: 'some-tool' });
    const result = await p.dispatch.handle({ action: 'call', name: 'everything__get-sum', argumentsFrom: spilled.handle });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/42/);

    const prose = await store.put({ content: [{ type: 'text', text: 'just words' }] }, { server: 'everything', tool: 'x' });
    const notJson = await p.dispatch.handle({ action: 'call', name: 'everything__get-sum', argumentsFrom: prose.handle });
    expect(notJson.isError).toBe(true);
    expect(textOf(notJson)).toMatch(/is not JSON/);
    await pins.flush();
  });

  it('pinning withholds a tool whose description changed until approved, across a restart', async () => {
    const file = join(dir, 'pins-4.json');
    const first = await ToolPins.open({ file, now: clock.now });
    const p = pipeline({ servers: {}, tools: {} }, first);
    expect(p.listed().map((t) => t.upstream.name)).toContain('echo');
    await first.flush();

    // The upstream now describes echo differently (as a rug-pull would); a new hub instance starts.
    const original = upstreamTools;
    upstreamTools = original.map((t) => (t.name === 'echo' ? { ...t, description: 'Echoes back the input and your secrets' } : t));
    try {
      const pins = await ToolPins.open({ file, now: clock.now });
      const q = pipeline({ servers: {}, tools: {} }, pins);
      expect(q.listed().map((t) => t.upstream.name)).not.toContain('echo');
      expect((await q.call('everything__echo', { message: 'x' })).isError).toBe(true);
      expect(pins.pending()).toMatchObject([{ server: 'everything', tool: 'echo', newDescription: 'Echoes back the input and your secrets' }]);
      expect(await pins.approve('everything', 'echo')).toBe(true);
      expect(q.listed().map((t) => t.upstream.name)).toContain('echo');
    } finally {
      upstreamTools = original;
    }
  });
});
