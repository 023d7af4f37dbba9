/**
 * Lazy start and idle stop (issue 18) through the real hub with a real stdio upstream (the fixture
 * server). Two runs share a data folder: the first lists and keeps the server's lists; in the second
 * the server starts on its first call, is stopped (its process gone) after its idle time, and starts
 * again on the next call. Waits on the hub's events, never on sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Hub } from '../../electron/core/hub.js';
import { ControlDispatcher, hubHandlers } from '../../electron/core/control/control-handlers.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady, upstreamStatus } from '../support/hub-runs.js';
import { alive } from '../support/processes.js';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-lazy-');
});
afterEach(() => runs.close());

const status = (hub: Hub, state: string) => upstreamStatus(hub, 's', state);
const startHub = (server: Record<string, unknown>) =>
  runs.start({ version: 1, servers: { s: { type: 'stdio', command: NODE, ...server } } }, { upstream: { backoffBaseMs: 60_000 } });

/** A first run that lists the server's tools and keeps them for the next start. */
async function firstRun(server: Record<string, unknown>): Promise<void> {
  const hub = await startHub(server);
  await upstreamReady(hub, 's');
  await runs.stop(hub);
}

/** The run the test is about, after a first run kept the server's lists. */
async function secondRun(server: Record<string, unknown>): Promise<Hub> {
  await firstRun(server);
  return startHub(server);
}

async function connect(hub: Hub): Promise<{ client: Client; changes: () => number }> {
  const client = new Client({ name: 'lazy-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await runs.connect(hub, client);
  return { client, changes: () => changes };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const add = async (client: Client) => (await client.callTool({ name: 's__add', arguments: { a: 2, b: 3 } })) as CallToolResult;

describe('a stdio server on first use', () => {
  it('is not started with the hub, lists its kept tools, and starts on its first call', async () => {
    const server = { args: [fixture('fixture-server.mjs')] };
    const hub = await secondRun(server);
    const up = hub.pool.get('s')!;
    expect(up.status).toBe('idle');
    expect(up.pid).toBeUndefined();
    const { client, changes } = await connect(hub);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('s__add');
    expect(hub.catalog.tool('s__add')?.kept).toBe(true);
    // The window shows the tools it serves while idle, not 0.
    const listed = (await controlParts(hub).status.listUpstreams()).find((u) => u.id === 's');
    expect(listed?.tools).toBe(names.filter((n) => n.startsWith('s__')).length);

    const result = await add(client);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('5');
    expect(up.status).toBe('ready');
    expect(alive(up.pid!)).toBe(true);
    // It offers what was kept: nothing to announce.
    await client.ping();
    expect(changes()).toBe(0);
  });

  it('tells a client that asked for progress that it starts, before the result, and shows "connecting" meanwhile', async () => {
    const server = { args: [fixture('fixture-server.mjs')] };
    const hub = await secondRun(server);
    const up = hub.pool.get('s')!;
    expect(up.status).toBe('idle');
    const statuses: string[] = [];
    hub.events.subscribe((e) => {
      if (e.type === 'upstream.status' && e.server === 's') statuses.push(e.status);
    });
    const { client } = await connect(hub);
    const seen: string[] = [];
    const result = (await client.callTool({ name: 's__add', arguments: { a: 2, b: 3 } }, undefined, {
      onprogress: (p) => seen.push(`${p.progress} ${p.message ?? ''}`),
    })) as CallToolResult;
    // Heard before the result came back.
    expect(seen).toEqual(['0 Starting s (it starts on first use)…']);
    expect(text(result)).toBe('5');
    // The window saw it go idle → connecting → ready.
    expect(statuses).toEqual(['connecting', 'ready']);
  });

  it('starts for a resource read too, as for a call of its tools', async () => {
    const server = { args: [fixture('fixture-server.mjs')] };
    const hub = await secondRun(server);
    const up = hub.pool.get('s')!;
    expect(up.status).toBe('idle');
    const { client } = await connect(hub);
    const seen: string[] = [];
    const read = await client.readResource({ uri: 'fixture://big/100' }, { onprogress: (p) => void seen.push(`${p.progress} ${p.message ?? ''}`) });
    expect((read.contents[0] as { text: string }).text).toContain('"quoted"');
    expect(seen).toEqual(['0 Starting s (it starts on first use)…']);
    expect(up.status).toBe('ready');
  });

  it('has its policies checked against its kept tools while idle', async () => {
    const hub = await secondRun({ args: [fixture('fixture-server.mjs')] });
    expect(hub.pool.get('s')?.status).toBe('idle');
    const control = new ControlDispatcher(hubHandlers(controlParts(hub)));
    const typo = await control.dispatch('policies.setTool', { server: 's', tool: 'ad', policy: { hiddenParams: { bogus: 1 } } });
    expect(typo).toMatchObject({ ok: false, code: 'invalid', field: 'tools.s.ad' });
    expect(typo.ok || typo.message).toMatch(/server "s" has no tool "ad" \(it has: .*add/);
    const param = await control.dispatch('policies.setTool', { server: 's', tool: 'add', policy: { hiddenParams: { bogus: 1 } } });
    expect(param).toMatchObject({ ok: false, code: 'invalid', field: 'tools.s.add.hiddenParams.bogus' });
    // The kept schema gives each parameter's type: text for the number `b` would fail every call.
    const mistyped = await control.dispatch('policies.setTool', { server: 's', tool: 'add', policy: { hiddenParams: { b: 'one' } } });
    expect(mistyped).toMatchObject({ ok: false, code: 'invalid', field: 'tools.s.add.hiddenParams.b' });
    expect(mistyped.ok || mistyped.message).toMatch(/The hidden value of "b" must be a number, as the tool expects; "one" is text\./);
    const good = await control.dispatch('policies.setTool', { server: 's', tool: 'add', policy: { hiddenParams: { b: 1 } } });
    expect(good.ok).toBe(true);
    // The window types hidden values by the upstream's own schema, sent with the kept tools too.
    const tools = await control.dispatch('upstreams.tools', { id: 's' });
    const add = tools.ok
      ? (tools.value as { original: string; inputSchema?: { properties?: Record<string, unknown> } }[]).find((t) => t.original === 'add')
      : undefined;
    expect(add?.inputSchema?.properties).toMatchObject({ a: { type: 'number' }, b: { type: 'number' } });
    // Checking does not start it.
    expect(hub.pool.get('s')?.status).toBe('idle');
  });

  it('with startMode "always" starts with the hub even with its lists kept', async () => {
    const server = { args: [fixture('fixture-server.mjs')], startMode: 'always' };
    const hub = await secondRun(server);
    expect(hub.pool.get('s')?.status).toBe('connecting');
    await status(hub, 'ready');
  });

  it('stops after its idle time (its process gone) and starts again on the next call', async () => {
    // 0.002 minutes: 120 ms without a call.
    const server = { args: [fixture('fixture-server.mjs')], idleStopMinutes: 0.002 };
    const hub = await secondRun(server);
    const up = hub.pool.get('s')!;
    const { client, changes } = await connect(hub);

    const idle = status(hub, 'idle');
    expect(text(await add(client))).toBe('5');
    const pid = up.pid!;
    expect(alive(pid)).toBe(true);
    await idle;
    await up.closed();
    expect(alive(pid)).toBe(false);
    // Its kept lists serve again: the same tools, no list_changed.
    expect(hub.catalog.tool('s__add')?.kept).toBe(true);
    await client.ping();
    expect(changes()).toBe(0);

    expect(text(await add(client))).toBe('5');
    expect(up.status).toBe('ready');
    expect(up.pid).not.toBe(pid);
    expect(alive(up.pid!)).toBe(true);
  });

  it('answers its first call with isError saying why when it fails to start', async () => {
    // A server that starts only while a flag file exists: the same config, a failing start.
    const flag = join(runs.dir, 'flag');
    const script = join(runs.dir, 'flagged-server.mjs');
    await writeFile(
      script,
      `import { existsSync } from 'node:fs';\n` +
        `if (!existsSync(${JSON.stringify(flag)})) { console.error('the flag file is missing'); process.exit(2); }\n` +
        `await import(${JSON.stringify(pathToFileURL(fixture('fixture-server.mjs')).href)});\n`,
    );
    await writeFile(flag, '');
    const server = { args: [script] };
    await firstRun(server);
    await rm(flag);
    const hub = await startHub(server);
    expect(hub.pool.get('s')?.status).toBe('idle');
    const { client } = await connect(hub);
    const result = await add(client);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the flag file is missing');
    expect(hub.pool.get('s')?.status).toBe('error');
  });
});
