/**
 * A subscription keeps a server on first use up (issue 18), through the real hub with real stdio
 * upstreams: `s` (the conformance fixture, which takes subscriptions) and `t` (the fixture server), both
 * with a 120 ms idle stop. Without sleeps: `t` is started after `s` took its subscription, so when `t`
 * has been stopped for idleness, `s`'s idle time has passed too; `s` is still up, and stops once the
 * client unsubscribes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady, upstreamStatus } from '../support/hub-runs.js';
import { alive } from '../support/processes.js';

/** 0.002 minutes: 120 ms without a call. */
const SERVERS = {
  s: { type: 'stdio', command: NODE, args: [fixture('conformance-server.mjs')], idleStopMinutes: 0.002 },
  t: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')], idleStopMinutes: 0.002 },
};
const WATCHED = 'test://watched-resource';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-lazy-sub-');
});
afterEach(() => runs.close());

const startHub = () => runs.start({ version: 1, servers: SERVERS }, { upstream: { backoffBaseMs: 60_000 } });

/** A first run that lists both servers and keeps their lists, so the next run starts them on first use. */
async function firstRun(): Promise<void> {
  const hub = await startHub();
  await Promise.all(['s', 't'].map((id) => upstreamReady(hub, id)));
  await runs.stop(hub);
}

describe('a server on first use with a subscribed resource', () => {
  it('is not stopped for idleness while a client holds the subscription, and is once it unsubscribes', async () => {
    await firstRun();
    const hub = await startHub();
    const s = hub.pool.get('s')!;
    const t = hub.pool.get('t')!;
    expect([s.status, t.status]).toEqual(['idle', 'idle']);
    const client = await runs.connect(hub, new Client({ name: 'lazy-subscription-test', version: '1.0.0' }));
    const stopped: string[] = [];
    hub.events.subscribe((e) => {
      if (e.type === 'upstream.status' && e.status === 'idle') stopped.push(e.server!);
    });

    // The subscription starts `s` (its resource is known from the kept lists) and holds it.
    await client.subscribeResource({ uri: WATCHED });
    expect(s.status).toBe('ready');
    const pid = s.pid!;

    // `t` starts after that and is stopped after its idle time: by then `s`'s has passed as well.
    const tIdle = upstreamStatus(hub, 't', 'idle');
    const result = (await client.callTool({ name: 't__add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await tIdle;
    expect(stopped).toEqual(['t']);
    expect(s.status).toBe('ready');
    expect(alive(pid)).toBe(true);

    // Unsubscribed: nothing holds it, it stops after its idle time and its process ends.
    const sIdle = upstreamStatus(hub, 's', 'idle');
    await client.unsubscribeResource({ uri: WATCHED });
    await sIdle;
    await s.closed();
    expect(alive(pid)).toBe(false);
    expect(stopped).toEqual(['t', 's']);
  });

  it('is stopped once a client that subscribed twice closes its session', async () => {
    await firstRun();
    const hub = await startHub();
    const s = hub.pool.get('s')!;
    const client = await runs.connect(hub, new Client({ name: 'lazy-subscription-twice', version: '1.0.0' }));
    await client.subscribeResource({ uri: WATCHED });
    await client.subscribeResource({ uri: WATCHED });
    expect(s.status).toBe('ready');
    const pid = s.pid!;

    // The session's one subscription ends with it, however often it subscribed: nothing holds `s` then.
    const sIdle = upstreamStatus(hub, 's', 'idle');
    await client.close();
    await sIdle;
    await s.closed();
    expect(alive(pid)).toBe(false);
  });
});
