/**
 * A server that prints its secret while it stops (after a config change replaced it, or it was removed):
 * the hub stops it before it forgets the old values, and values replaced or forgotten stay masked for the
 * rest of the run. Neither value may show in the live events, events.query or the log files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import type { HubEvent } from '../../shared/events.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const OLD = 'fw-old-Login-7731x';
const NEW = 'fw-new-Login-8842y';
const leaks = (text: string) => [OLD, NEW].filter((s) => text.includes(s));

let hub: TestHub;
const live: HubEvent[] = [];
let off: (() => void) | undefined;

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: {
      // UPSTREAM_LOGIN is no secret-sounding name: only masking by value can catch it.
      fw: {
        type: 'stdio',
        ...nodeServer(fixture('farewell-server.mjs'), ['--say', 'UPSTREAM_LOGIN']),
        env: { UPSTREAM_LOGIN: OLD },
        startMode: 'always',
      },
    },
  });
  off = hub.hub.events.subscribe((e) => live.push(e));
  await hub.waitForStatus('fw', 'ready');
});
afterAll(async () => {
  off?.();
  await hub?.stop();
});

/** Resolves once `count` farewell lines have been published. */
async function farewells(count: number): Promise<void> {
  const said = (e: HubEvent) => e.type === 'upstream.stderr' && e.server === 'fw' && e.line.includes('farewell-server: stopping');
  while (live.filter(said).length < count) await hub.waitFor(said, 'the farewell line');
}

describe('a server printing its secret while it stops', () => {
  it('replaced by a new value, then removed: neither value is in any event or log file', async () => {
    const list = await hub.api<{ id: string; config: ServerConfig }[]>('upstreams.list');
    const shown = list.value!.find((u) => u.id === 'fw')!.config;
    expect(shown.type).toBe('stdio');
    const ready = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'fw' && e.status === 'ready', 'fw restarted');
    const updated = await hub.api('upstreams.update', { id: 'fw', config: { ...shown, env: { UPSTREAM_LOGIN: NEW } } });
    expect(updated.ok).toBe(true);
    await farewells(1);
    await ready;

    const removed = await hub.api('upstreams.remove', { id: 'fw' });
    expect(removed.ok).toBe(true);
    await farewells(2);

    const said = live.filter((e) => e.type === 'upstream.stderr' && e.line.includes('farewell-server: stopping'));
    expect(said.map((e) => (e.type === 'upstream.stderr' ? e.line : ''))).toEqual([
      'farewell-server: stopping, I was signed in with ***',
      'farewell-server: stopping, I was signed in with ***',
    ]);
    expect(leaks(JSON.stringify(live))).toEqual([]);
    const queried = await hub.api<HubEvent[]>('events.query', { limit: 10_000 });
    expect(leaks(JSON.stringify(queried.value))).toEqual([]);
    await hub.hub.events.flush();
    const logDir = join(hub.dir, 'logs');
    const files = (await readdir(logDir)).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect({ file, leaks: leaks(await readFile(join(logDir, file), 'utf8')) }).toEqual({ file, leaks: [] });
  });
});
