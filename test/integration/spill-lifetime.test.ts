/**
 * How long a spilled result stays, as README and Settings say (audit s18): the folders of a damaged index
 * are removed at the next start and never listed again, and Clear removes them at once; over the quota an
 * expired result goes before a live one, and the usage leaves expired results out; a shorter "Keep spilled
 * results for (hours)" ends the results already kept, running and across a restart.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore, type SpillStoreOptions } from '../../electron/core/spill/spill-store.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const HOUR = 3_600_000;
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };
const textResult = (tag: string): CallToolResult => ({ content: [{ type: 'text', text: `a line of ${tag}\n`.repeat(2000) }] });

let root: string;
let dir: string;
let clock: number;
const now = () => clock;
const stores: SpillStore[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-lifetime-'));
  dir = join(root, 'spill');
  clock = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

async function open(options: Partial<SpillStoreOptions> = {}): Promise<SpillStore> {
  const store = await SpillStore.open({ dir, now, counter, ...options });
  stores.push(store);
  return store;
}

/** Everything in the spill folder but the index and its set-aside copies. */
const resultFolders = async () => (await readdir(dir)).filter((n) => !n.startsWith('index.json')).sort();

/** Two results kept, then the index damaged (a crash in a full-disk write, an editor, a newer Spillway). */
async function keptThenIndexDamaged(): Promise<string[]> {
  const first = await open();
  const handles = [(await first.put(textResult('one'), meta)).handle, (await first.put(textResult('two'), meta)).handle];
  await first.close();
  await writeFile(join(dir, 'index.json'), '{"version":1,"entr');
  clock += 60_000;
  return handles;
}

describe('the results of a damaged index', () => {
  it('are removed at the next start and never listed again', async () => {
    const old = await keptThenIndexDamaged();
    const store = await open();
    expect(store.list()).toEqual([]);
    // Left in place for this run (someone may look into them), never read.
    expect(await resultFolders()).toEqual([...old].sort());
    for (const handle of old) expect(store.lookup(handle)).toMatchObject({ error: 'unknown' });
    const fresh = await store.put(textResult('kept after it'), meta);
    await store.close();

    clock += 60_000;
    const next = await open();
    expect(next.list().map((e) => e.handle)).toEqual([fresh.handle]);
    for (const handle of old) expect(next.lookup(handle)).toMatchObject({ error: 'unknown' });
    expect(await resultFolders()).toEqual([fresh.handle]);
  });

  it('are removed by Clear at once, with the listed ones', async () => {
    await keptThenIndexDamaged();
    const store = await open();
    const fresh = await store.put(textResult('kept after it'), meta);
    expect(await store.clear()).toBe(3);
    expect(await resultFolders()).toEqual([]);
    await store.close();
    const next = await open();
    expect(next.list()).toEqual([]);
    expect(next.lookup(fresh.handle)).toMatchObject({ error: 'unknown' });
  });
});

describe('results past their time', () => {
  it('are evicted before a live result when a put is over the quota', async () => {
    let quota = 1024 ** 3;
    const store = await open({ quotaBytes: () => quota });
    const expiring = await store.put(textResult('A'), meta);
    clock += 22 * HOUR;
    const live = await store.put(textResult('B'), meta);
    clock += 2 * HOUR - 60_000;
    await store.readText(expiring.handle); // read a minute before it expires: used more recently than B
    clock += 2 * 60_000;
    quota = expiring.diskBytes + live.diskBytes + 10; // room for two results
    const newest = await store.put(textResult('C'), meta);
    expect(store.lookup(live.handle)).toMatchObject({ entry: { handle: live.handle } });
    expect(await resultFolders()).toEqual([live.handle, newest.handle].sort());
  });

  it('are left out of the usage Settings shows', async () => {
    const store = await open();
    const expiring = await store.put(textResult('A'), meta);
    clock += 12 * HOUR;
    const live = await store.put(textResult('B'), meta);
    clock += 12 * HOUR;
    expect(store.lookup(expiring.handle)).toMatchObject({ error: 'expired' });
    expect(store.diskUsage()).toMatchObject({ entries: 1, bytes: live.diskBytes });
  });
});

describe('a shorter "Keep spilled results for (hours)"', () => {
  let ttlHours: number;
  const ttlMs = () => ttlHours * HOUR;
  beforeEach(() => {
    ttlHours = 168; // raised to a week before
  });

  it('ends the results already kept at the next cleanup, and after a restart', async () => {
    const store = await open({ ttlMs });
    const old = await store.put(textResult('private'), meta);
    clock += 2 * HOUR;
    const recent = await store.put(textResult('recent'), meta);
    ttlHours = 1;
    await store.cleanup(); // what a change in Settings runs (settings-change.ts), and the 15-minute timer
    expect(store.lookup(old.handle)).toMatchObject({ error: 'unknown' });
    expect(store.lookup(recent.handle)).toMatchObject({ entry: { expiresAt: recent.createdAt + HOUR } });
    await store.close();

    clock += HOUR;
    const next = await open({ ttlMs });
    expect(next.lookup(recent.handle)).toMatchObject({ error: 'unknown' });
    expect(await resultFolders()).toEqual([]);
  });

  it('set while Spillway was stopped, applies at the next start', async () => {
    const store = await open({ ttlMs });
    const old = await store.put(textResult('private'), meta);
    await store.close();
    ttlHours = 1;
    clock += 2 * HOUR;
    const next = await open({ ttlMs });
    expect(next.lookup(old.handle)).toMatchObject({ error: 'unknown' });
    expect(await resultFolders()).toEqual([]);
  });

  it('counts from the last time the same result was kept', async () => {
    const store = await open({ ttlMs });
    const first = await store.put(textResult('same'), meta);
    clock += 5 * HOUR;
    const again = await store.put(textResult('same'), meta);
    expect(again.handle).toBe(first.handle);
    ttlHours = 3;
    await store.cleanup();
    expect(store.lookup(first.handle)).toMatchObject({ entry: { expiresAt: clock + 3 * HOUR } });
  });
});
