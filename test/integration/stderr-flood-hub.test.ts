/**
 * A server that floods its stderr does not grow the hub's memory or its log folder (audit s11, item 1):
 * a real hub runs a real server that writes 100,000 lines; every line is accounted for (shown as an
 * event or counted in a "not logged" event), but only a bounded number become events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HubEvent } from '../../shared/events.js';
import { STDERR_BURST_LINES, STDERR_LINES_PER_SECOND } from '../../electron/core/log/stderr-events.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const LINES = 100_000;
let hub: TestHub;
let client: Client;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { flood: { type: 'stdio', ...nodeServer(fixture('stderr-flood-server.mjs')) } } });
  await hub.waitForStatus('flood', 'ready');
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
});

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const f of await readdir(dir)) bytes += (await stat(join(dir, f))).size;
  return bytes;
}

const skippedIn = (e: HubEvent): number =>
  e.type === 'upstream.stderr' && e.level === 'warn' ? Number(/^\[Spillway\] ([\d,]+) lines?/.exec(e.line)?.[1].replace(/,/g, '') ?? 0) : 0;

describe('a server flooding its stderr', () => {
  it('becomes a bounded number of events, all lines counted, and the log folder stays small', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    let shown = 0;
    let skipped = 0;
    let mostQueued = 0;
    let accounted: () => void = () => {};
    const allAccounted = new Promise<void>((resolve) => (accounted = resolve));
    const off = hub.hub.events.subscribe((e) => {
      if (e.type !== 'upstream.stderr' || e.server !== 'flood') return;
      if (e.level === 'debug') shown++;
      skipped += skippedIn(e);
      mostQueued = Math.max(mostQueued, hub.hub.events.queued);
      if (shown + skipped >= LINES) accounted();
    });
    const started = Date.now();
    const r = await client.callTool({ name: 'flood__flood', arguments: { lines: LINES } });
    expect(r.isError).toBeFalsy();
    await allAccounted;
    off();
    const seconds = (Date.now() - started) / 1000;

    expect(shown + skipped).toBe(LINES);
    expect(shown).toBeLessThanOrEqual(STDERR_BURST_LINES + Math.ceil(seconds + 1) * STDERR_LINES_PER_SECOND);
    expect(mostQueued).toBeLessThan(1000);
    await hub.hub.events.flush();
    expect(await folderBytes(hub.hub.options.paths.logDir)).toBeLessThan(1024 * 1024);
    // Generous: what matters is that it does not grow with the number of lines (it did by hundreds of MB).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(100 * 1024 * 1024);
    // The server's own tail still holds its newest lines.
    expect(hub.hub.pool.get('flood')!.stderrTail().at(-1)).toMatch(/^DEBUG some chatty library/);
  });
});
