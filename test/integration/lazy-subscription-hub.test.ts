/**
 * A subscription keeps a server on first use up (issue 18), through the real hub with real stdio
 * upstreams: `s` (the conformance fixture, which takes subscriptions) and `t` (the fixture server), both
 * with a 120 ms idle stop. Without sleeps: `t` is started after `s` took its subscription, so when `t`
 * has been stopped for idleness, `s`'s idle time has passed too; `s` is still up, and stops once the
 * client unsubscribes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { Hub } from '../../electron/core/hub.js';
import { NODE, fixture } from '../support/hub-harness.js';

/** 0.002 minutes: 120 ms without a call. */
const SERVERS = {
  s: { type: 'stdio', command: NODE, args: [fixture('conformance-server.mjs')], idleStopMinutes: 0.002 },
  t: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')], idleStopMinutes: 0.002 },
};
const WATCHED = 'test://watched-resource';

let dir: string;
const hubs: Hub[] = [];
const clients: Client[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-lazy-sub-'));
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
const status = (hub: Hub, server: string, state: string) =>
  event(hub, (e) => e.type === 'upstream.status' && e.server === server && e.status === state);

async function startHub(): Promise<Hub> {
  const paths = resolvePaths({ dataDir: dir, os: { home: homedir(), platform: process.platform, env: {} } });
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: SERVERS }));
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

/** A first run that lists both servers and keeps their lists, so the next run starts them on first use. */
async function firstRun(): Promise<void> {
  const hub = await startHub();
  await Promise.all(['s', 't'].map((id) => (hub.pool.get(id)?.status === 'ready' ? undefined : status(hub, id, 'ready'))));
  hubs.splice(hubs.indexOf(hub), 1);
  await hub.stop();
}

async function connect(hub: Hub): Promise<Client> {
  const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lazy-subscription-test', version: '1.0.0' });
  await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
  clients.push(client);
  return client;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a server on first use with a subscribed resource', () => {
  it('is not stopped for idleness while a client holds the subscription, and is once it unsubscribes', async () => {
    await firstRun();
    const hub = await startHub();
    const s = hub.pool.get('s')!;
    const t = hub.pool.get('t')!;
    expect([s.status, t.status]).toEqual(['idle', 'idle']);
    const client = await connect(hub);
    const stopped: string[] = [];
    hub.events.subscribe((e) => {
      if (e.type === 'upstream.status' && e.status === 'idle') stopped.push(e.server!);
    });

    // The subscription starts `s` (its resource is known from the kept lists) and holds it.
    await client.subscribeResource({ uri: WATCHED });
    expect(s.status).toBe('ready');
    const pid = s.pid!;

    // `t` starts after that and is stopped after its idle time: by then `s`'s has passed as well.
    const tIdle = status(hub, 't', 'idle');
    const result = (await client.callTool({ name: 't__add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await tIdle;
    expect(stopped).toEqual(['t']);
    expect(s.status).toBe('ready');
    expect(alive(pid)).toBe(true);

    // Unsubscribed: nothing holds it, it stops after its idle time and its process ends.
    const sIdle = status(hub, 's', 'idle');
    await client.unsubscribeResource({ uri: WATCHED });
    await sIdle;
    await s.closed();
    expect(alive(pid)).toBe(false);
    expect(stopped).toEqual(['t', 's']);
  });
});
