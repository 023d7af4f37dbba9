/**
 * Lazy start and idle stop (issue 18) through the real hub with a real stdio upstream (the fixture
 * server). Two runs share a data folder: the first lists and keeps the server's lists; in the second
 * the server starts on its first call, is stopped (its process gone) after its idle time, and starts
 * again on the next call. Waits on the hub's events, never on sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { Hub } from '../../electron/core/hub.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import { NODE, fixture } from '../support/hub-harness.js';

let dir: string;
const hubs: Hub[] = [];
const clients: Client[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-lazy-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const hub of hubs.splice(0)) await hub.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves on the hub's first event that matches (subscribed before whatever causes it). */
const event = (hub: Hub, match: (e: HubEvent) => boolean) =>
  new Promise<HubEvent>((resolve) => {
    const off = hub.events.subscribe((e) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });
const status = (hub: Hub, state: string) => event(hub, (e) => e.type === 'upstream.status' && e.server === 's' && e.status === state);

async function startHub(server: Record<string, unknown>): Promise<Hub> {
  const paths = resolvePaths({ dataDir: dir, os: { home: homedir(), platform: process.platform, env: {} } });
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: { s: { type: 'stdio', command: NODE, ...server } } }));
  const hub = await Hub.create({
    paths,
    version: '0.0.0-test',
    platform: process.platform,
    env: process.env,
    listen: false,
    upstream: { backoffBaseMs: 60_000 },
  });
  hubs.push(hub);
  await hub.start();
  return hub;
}

/** A first run that lists the server's tools and keeps them for the next start. */
async function firstRun(server: Record<string, unknown>): Promise<void> {
  const hub = await startHub(server);
  if (hub.pool.get('s')?.status !== 'ready') await status(hub, 'ready');
  hubs.splice(hubs.indexOf(hub), 1);
  await hub.stop();
}

async function connect(hub: Hub): Promise<{ client: Client; changes: () => number }> {
  const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lazy-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
  clients.push(client);
  return { client, changes: () => changes };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const add = async (client: Client) => (await client.callTool({ name: 's__add', arguments: { a: 2, b: 3 } })) as CallToolResult;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a stdio server on first use', () => {
  it('is not started with the hub, lists its kept tools, and starts on its first call', async () => {
    const server = { args: [fixture('fixture-server.mjs')] };
    await firstRun(server);
    const hub = await startHub(server);
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
    await firstRun(server);
    const hub = await startHub(server);
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
    await firstRun(server);
    const hub = await startHub(server);
    const up = hub.pool.get('s')!;
    expect(up.status).toBe('idle');
    const { client } = await connect(hub);
    const seen: string[] = [];
    const read = await client.readResource({ uri: 'fixture://big/100' }, { onprogress: (p) => void seen.push(`${p.progress} ${p.message ?? ''}`) });
    expect((read.contents[0] as { text: string }).text).toContain('"quoted"');
    expect(seen).toEqual(['0 Starting s (it starts on first use)…']);
    expect(up.status).toBe('ready');
  });

  it('with startMode "always" starts with the hub even with its lists kept', async () => {
    const server = { args: [fixture('fixture-server.mjs')], startMode: 'always' };
    await firstRun(server);
    const hub = await startHub(server);
    expect(hub.pool.get('s')?.status).toBe('connecting');
    await status(hub, 'ready');
  });

  it('stops after its idle time (its process gone) and starts again on the next call', async () => {
    // 0.002 minutes: 120 ms without a call.
    const server = { args: [fixture('fixture-server.mjs')], idleStopMinutes: 0.002 };
    await firstRun(server);
    const hub = await startHub(server);
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
    const flag = join(dir, 'flag');
    const script = join(dir, 'flagged-server.mjs');
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
