/**
 * The disk quota for spilled results, as Settings sets it: a quota changed while Spillway runs applies at
 * the next put or cleanup and in the usage the Settings storage bar shows (it was read once, at start),
 * and a result larger than the whole quota is answered as not kept, never with a handle that cannot be read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SettingsSchema, type Settings } from '../../shared/config.js';
import { createSpillFeature, type SpillFeature } from '../../electron/core/spill/spill-feature.js';
import { ROOM_TO_SPARE_BYTES } from '../../electron/core/spill/pending-puts.js';

const MiB = 1024 * 1024;
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };
const ctx = { server: 'fs', tool: 'read_file', client: 'claude' };
/** About `bytes` of text in lines, different for each `seed` (so each is its own entry). */
const lines = (seed: string, bytes: number) => `${seed}: a line of a long tool result\n`.repeat(Math.ceil(bytes / (seed.length + 33)));
const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

let root: string;
let settings: Settings;
let feature: SpillFeature;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-quota-'));
  settings = SettingsSchema.parse({});
  feature = await createSpillFeature({ spillDir: join(root, 'spill'), settings: () => settings, log: () => {} });
});
afterEach(async () => {
  await feature.close();
  await rm(root, { recursive: true, force: true });
});

/** What the user does in Settings: a new quota, saved while the hub runs. */
function setQuota(quotaBytes: number): void {
  settings = { ...settings, spill: { ...settings.spill, quotaBytes } };
}

describe('a quota changed in Settings', () => {
  it('is what the usage reports at once, and the next put evicts down to it', async () => {
    const { store } = feature;
    const kept = [];
    for (const seed of ['a', 'b', 'c']) kept.push(await store.put(textResult(lines(seed, 600_000)), meta));
    expect(store.diskUsage().quotaBytes).toBe(1024 ** 3);
    setQuota(MiB);
    expect(store.diskUsage().quotaBytes).toBe(MiB);
    const newest = await store.put(textResult(lines('d', 600_000)), meta);
    expect(store.diskUsage().bytes).toBeLessThanOrEqual(MiB);
    expect(store.list().map((e) => e.handle)).toEqual([newest.handle]);
    for (const old of kept) expect(store.lookup(old.handle)).toMatchObject({ error: 'unknown' });
  });

  it('is applied by the next cleanup', async () => {
    const { store } = feature;
    for (const seed of ['a', 'b', 'c']) await store.put(textResult(lines(seed, 600_000)), meta);
    setQuota(MiB);
    expect((await store.cleanup()).evicted).toBe(2);
    expect(store.diskUsage()).toMatchObject({ entries: 1, quotaBytes: MiB });
    expect(store.diskUsage().bytes).toBeLessThanOrEqual(MiB);
  });

  it('raised again, keeps what now fits', async () => {
    setQuota(MiB);
    const { store } = feature;
    await expect(store.put(textResult(lines('big', 2 * MiB)), meta)).rejects.toThrow(/more than the whole spill quota of 1\.0 MB/);
    setQuota(4 * MiB);
    await store.put(textResult(lines('big', 2 * MiB)), meta);
    expect(store.diskUsage()).toMatchObject({ entries: 1, quotaBytes: 4 * MiB });
  });
});

describe('a result larger than the whole quota', () => {
  it('is not answered before its write, and the answer says it was not kept, with no handle', async (t) => {
    // Only a disk with room to spare answers first at all (PendingPuts.hasRoomFor).
    const fs = await statfs(root);
    if (fs.bavail * fs.bsize < ROOM_TO_SPARE_BYTES + 8 * MiB) t.skip();
    const result = textResult(lines('huge', 2 * MiB));
    // Under the default quota the same result is answered first: only the quota makes the difference.
    expect(feature.store.plan(result, meta).answerFirst).toBe(true);
    setQuota(MiB);
    expect(feature.store.plan(result, meta).answerFirst).toBe(false);

    const shaped = await feature.shaper.shape(result, { action: 'spill', thresholdTokens: 1000, previewTokens: 100 }, ctx);
    expect(shaped.outcome.action).toBe('truncate');
    expect(shaped.outcome.handle).toBeUndefined();
    expect(shaped.delivered.content.some((c) => c.type === 'resource_link')).toBe(false);
    expect(shaped.delivered._meta?.['spillway/handle']).toBeUndefined();
    expect(textOf(shaped.delivered)).toMatch(
      /The full result could not be kept \(the result is \d\.\d MB, more than the whole spill quota of 1\.0 MB/,
    );
    expect(feature.store.list()).toEqual([]);
  });
});
