/**
 * A damaged spill index is set aside and the result folders it listed stay on disk for that run: the
 * disk use Settings shows counts them, and Clear removes them (it used to report an empty store).
 */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { HANDLE_PATTERN } from '../../electron/core/spill/spill-handle.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let dir: string;
const now = () => Date.UTC(2026, 0, 1);
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-spill-usage-'));
  dir = join(root, 'spill');
});
afterEach(() => rm(root, { recursive: true, force: true }));

it("counts a damaged index's result folders in the disk use until Clear removes them", async () => {
  const first = await SpillStore.open({ dir, now, counter });
  const a = await first.put({ content: [{ type: 'text', text: 'a'.repeat(5000) }] }, meta);
  const b = await first.put({ content: [{ type: 'text', text: 'b'.repeat(3000) }] }, meta);
  await first.close();
  await writeFile(join(dir, 'index.json'), '{"version":1,"entries":[');

  const store = await SpillStore.open({ dir, now, counter });
  expect(store.list()).toEqual([]);
  const usage = store.diskUsage();
  expect(usage.entries).toBe(0);
  expect(usage.unlisted).toBe(2);
  // Every file of their folders: the result's own and the small records kept beside them.
  const onDisk = (await folderBytes(a.handle)) + (await folderBytes(b.handle));
  expect(onDisk).toBeGreaterThanOrEqual(a.diskBytes + b.diskBytes);
  expect(usage.bytes).toBe(onDisk);
  expect(usage.unlistedBytes).toBe(onDisk);

  // A result kept in this run adds to them.
  const c = await store.put({ content: [{ type: 'text', text: 'c'.repeat(1000) }] }, meta);
  expect(store.diskUsage()).toMatchObject({ entries: 1, unlisted: 2, bytes: onDisk + c.diskBytes });

  expect(await store.clear()).toBe(3);
  expect(store.diskUsage()).toEqual({ entries: 0, bytes: 0, quotaBytes: store.quotaBytes });
  expect((await readdir(dir)).filter((n) => HANDLE_PATTERN.test(n))).toEqual([]);
  await store.close();
});

it('reports nothing unlisted when the index was read', async () => {
  const first = await SpillStore.open({ dir, now, counter });
  const a = await first.put({ content: [{ type: 'text', text: 'a'.repeat(5000) }] }, meta);
  await first.close();
  const store = await SpillStore.open({ dir, now, counter });
  expect(store.diskUsage()).toEqual({ entries: 1, bytes: a.diskBytes, quotaBytes: store.quotaBytes });
  await store.close();
});

async function folderBytes(handle: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(join(dir, handle))) bytes += (await stat(join(dir, handle, name))).size;
  return bytes;
}
