/**
 * A tools/call cancelled while its server is still starting stops waiting at once (audit s19, defect 3):
 * its request is settled while the server is still held at its gate (so its session, idle, is closed
 * then), the server's start goes on for other calls, and the cancelled call is never sent once the
 * server is up. Both ways a client gives up: notifications/cancelled, and the HTTP client going away
 * (DELETE of its session). A real hub over HTTP, raw HTTP sessions, and a stdio server that answers
 * nothing, not even initialize, until the test opens its gate (gated-server.mjs). Also a call of a tool
 * known only from the last run's kept lists (an in-process hub run, the SDK Client aborting its call).
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { within } from '../support/bounded-wait.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';
import { HubRuns, hubEvent, upstreamReady } from '../support/hub-runs.js';
import { RawHttpSession } from '../support/raw-http-session.js';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

/** A hub whose server `g` waits for a gate file; `ran` is written when its `hold` tool runs. */
async function gatedHub(): Promise<{ t: TestHub; gate: string; ran: string }> {
  let gate = '';
  let ran = '';
  const config = (dir: string) => {
    gate = join(dir, 'gate');
    ran = join(dir, 'ran');
    return { version: 1, servers: { g: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate, '--calls', ran] } } };
  };
  const t = await startTestHub(config, { httpSessions: { idleTimeoutMs: 1000 } });
  hub = t;
  return { t, gate, ran };
}

describe('a call cancelled while its server starts stops waiting at once', () => {
  for (const progress of [false, true]) {
    const path = progress ? 'the SDK path (a progress token)' : 'the lean path';
    it(`settles before the server is up, and is never sent to it (${path})`, async () => {
      const { t, gate, ran } = await gatedHub();
      const session = await RawHttpSession.open(t.url, t.token, 'canceller');
      const waiting = t.waitFor((e) => e.type === 'log' && /A call waits for "g" to start/.test(e.message), 'the call waits');
      const meta = progress ? { _meta: { progressToken: 'p1' } } : {};
      const call = session.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'g__hold', arguments: {}, ...meta } });
      await waiting;

      const reaped = t.waitFor((e) => e.type === 'session.reaped' && e.session === session.id, 'the session reaped');
      await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } })).text();
      // The gate is still closed: only a call that stopped waiting leaves its session idle, and reaped.
      await within(reaped, 5000, 'the session reaped while its server still starts');
      expect(await within((await call).text(), 5000, 'the cancelled call answered')).not.toContain('"id":7');
      expect(t.hub.pool.get('g')?.status).toBe('connecting');

      // The start went on: the server comes up for other calls, and the cancelled one never ran.
      await writeFile(gate, '');
      await t.waitForStatus('g', 'ready');
      const other = await RawHttpSession.open(t.url, t.token, 'other');
      expect((await other.request({ id: 1, method: 'tools/call', params: { name: 'g__ping', arguments: {} } })).body).toMatchObject({
        result: { content: [{ type: 'text', text: 'pong' }] },
      });
      expect(existsSync(ran)).toBe(false);
      await other.close();
    });
  }

  it('stops waiting when the HTTP client goes away (its session deleted)', async () => {
    const { t, gate, ran } = await gatedHub();
    const session = await RawHttpSession.open(t.url, t.token, 'leaver');
    const waiting = t.waitFor((e) => e.type === 'log' && /A call waits for "g" to start/.test(e.message), 'the call waits');
    const call = session.post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'g__hold', arguments: {} } });
    await waiting;
    const stopped = t.waitFor((e) => e.type === 'log' && /cancelled while it waited for "g" to start/.test(e.message), 'the wait stopped');
    await session.close();
    await within(stopped, 5000, 'the wait stopped while the server still starts');
    await within(
      call.then((r) => r.text()).catch(() => ''),
      5000,
      'the call ended',
    );
    expect(t.hub.pool.get('g')?.status).toBe('connecting');

    await writeFile(gate, '');
    await t.waitForStatus('g', 'ready');
    const other = await RawHttpSession.open(t.url, t.token, 'other');
    expect((await other.request({ id: 1, method: 'tools/call', params: { name: 'g__ping', arguments: {} } })).body).toMatchObject({
      result: { content: [{ type: 'text', text: 'pong' }] },
    });
    expect(existsSync(ran)).toBe(false);
    await other.close();
  });
});

describe('a call of a tool kept from the last run, cancelled while its server starts', () => {
  let runs: HubRuns | undefined;
  afterEach(async () => {
    await runs?.close();
    runs = undefined;
  });

  it('is recorded cancelled while the server still starts, and never sent to it', async () => {
    runs = await HubRuns.open('spillway-cancel-kept-');
    const gate = join(runs.dir, 'gate');
    const ran = join(runs.dir, 'ran');
    const config = {
      version: 1,
      servers: { g: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate, '--calls', ran], startMode: 'always' } },
    };
    // The first run lists the server's tools, and keeps them.
    await writeFile(gate, '');
    const first = await runs.start(config);
    await upstreamReady(first, 'g');
    await runs.stop(first);
    await rm(gate);

    // The second run knows `hold` from the kept lists while `g` waits at its gate.
    const second = await runs.start(config);
    expect(second.catalog.tool('g__hold')?.kept).toBe(true);
    const client = await runs.connect(second);
    const waiting = hubEvent(second, (e) => e.type === 'log' && /A call waits for "g" to start/.test(e.message));
    const abort = new AbortController();
    const call = client.callTool({ name: 'g__hold', arguments: {} }, undefined, { signal: abort.signal }).catch((err: unknown) => err);
    await waiting;
    const finished = hubEvent(second, (e) => e.type === 'call.finished' && e.exposedName === 'g__hold');
    abort.abort('user');
    expect(await call).toBeInstanceOf(Error);
    // Settled while the gate is still closed: the call stopped waiting.
    expect(await within(finished, 5000, 'the call recorded while its server still starts')).toMatchObject({ action: 'cancelled' });
    expect(second.pool.get('g')?.status).toBe('connecting');

    await writeFile(gate, '');
    await upstreamReady(second, 'g');
    const other = await runs.connect(second, new Client({ name: 'other', version: '1.0.0' }));
    expect(await other.callTool({ name: 'g__ping', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
    expect(existsSync(ran)).toBe(false);
  });
});
