/**
 * Limits changed in Settings apply once saved, on a real hub (README: "a new quota applying at once"): a
 * lower spill quota evicts the kept results over it, and a shorter "Keep the activity log for (days)"
 * deletes the older log files, both before settings.set answers. Both used to wait for the next spill, the
 * 15-minute cleanup or a restart.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import type { Settings } from '../../shared/config.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

const MiB = 1024 * 1024;
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };
/** About `bytes` of text in lines, different for each `seed` (so each is its own entry). */
const lines = (seed: string, bytes: number) => `${seed}: a line of a long tool result\n`.repeat(Math.ceil(bytes / (seed.length + 33)));
const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

it('a lower spill quota evicts the kept results over it before the change is answered', async () => {
  hub = await startTestHub({ version: 1, settings: { port: 0 }, servers: {} });
  const { store } = hub.hub.spill;
  const kept = [];
  for (const seed of ['a', 'b', 'c']) kept.push(await store.put(textResult(lines(seed, 600_000)), meta));
  expect(store.diskUsage().bytes).toBeGreaterThan(MiB);

  const r = await hub.api<Settings>('settings.set', { spill: { quotaBytes: MiB } });
  expect(r.ok).toBe(true);
  expect(r.value?.spill.quotaBytes).toBe(MiB);
  const usage = store.diskUsage();
  expect(usage.quotaBytes).toBe(MiB);
  expect(usage.bytes).toBeLessThanOrEqual(MiB);
  // Least recently used first: the newest is the one kept.
  expect(store.list().map((e) => e.handle)).toEqual([kept[2].handle]);
});

it('a shorter spill retention ends the results kept longer ago before the change is answered', async () => {
  const HOUR = 3_600_000;
  let old = '';
  hub = await startTestHub(async (dir: string) => {
    // Kept two hours ago by an earlier run (this hub's clock is the real one).
    const counter = new TokenCounter();
    const store = await SpillStore.open({ dir: join(dir, 'spill'), now: () => Date.now() - 2 * HOUR, counter });
    old = (await store.put(textResult(lines('old', 100_000)), meta)).handle;
    await store.close();
    await counter.close();
    return { version: 1, settings: { port: 0 }, servers: {} };
  });
  const { store } = hub.hub.spill;
  const recent = await store.put(textResult(lines('recent', 100_000)), meta);
  expect(store.list()).toHaveLength(2);

  expect((await hub.api('settings.set', { spill: { ttlHours: 1 } })).ok).toBe(true);
  expect(store.list().map((e) => e.handle)).toEqual([recent.handle]);
  expect(await readdir(join(hub.dir, 'spill'))).not.toContain(old);
});

it('a shorter log retention deletes the older log files before the change is answered', async () => {
  hub = await startTestHub({ version: 1, settings: { port: 0 }, servers: {} });
  const logDir = join(hub.dir, 'logs');
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const file = (daysAgo: number) => `events-${day(daysAgo)}.jsonl`;
  await mkdir(logDir, { recursive: true });
  for (const daysAgo of [5, 10]) await writeFile(join(logDir, file(daysAgo)), '{"seq":1,"type":"log","time":"x","level":"info","message":"old"}\n');

  expect((await hub.api('settings.set', { logRetentionDays: 7 })).ok).toBe(true);
  let names = await readdir(logDir);
  expect(names).not.toContain(file(10));
  expect(names).toContain(file(5));

  expect((await hub.api('settings.set', { logRetentionDays: 1 })).ok).toBe(true);
  names = await readdir(logDir);
  expect(names).not.toContain(file(5));
});
