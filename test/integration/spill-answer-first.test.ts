/**
 * A spilled answer goes out before its files are written when the disk has room to spare (issue 12):
 * the handle it gives reads the whole result at once (reads wait for the files), and a write that fails
 * after all leaves a handle that says why, never one that reads something else.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { ROOM_TO_SPARE_BYTES } from '../../electron/core/spill/pending-puts.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let dir: string;
const now = () => Date.UTC(2026, 0, 1);
const stores: SpillStore[] = [];
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };
const text = 'line of a long result, number N\n'.repeat(40_000);
const result: CallToolResult = { content: [{ type: 'text', text }] };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-answer-first-'));
  dir = join(root, 'spill');
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

async function open(): Promise<SpillStore> {
  const store = await SpillStore.open({ dir, now, counter });
  stores.push(store);
  return store;
}

/** Whether the test folder's disk has the room the store asks for before it answers first. */
async function diskHasRoom(): Promise<boolean> {
  const fs = await statfs(root);
  return fs.bavail * fs.bsize >= ROOM_TO_SPARE_BYTES + 2 * Buffer.byteLength(text);
}

describe('a spill answered before its files are written', () => {
  it('reads back whole through the handle given before the write is done', async (t) => {
    if (!(await diskHasRoom())) t.skip();
    const store = await open();
    const plan = store.plan(result, meta);
    expect(plan.answerFirst).toBe(true);
    const writing = plan.write();
    const { handle } = plan.entry;
    // Known by its handle at once, not listed until its files are in place.
    expect(store.lookup(handle)).toMatchObject({ entry: { handle } });
    expect(store.list()).toEqual([]);
    const [doc] = await Promise.all([store.readDocument(handle), writing]);
    expect(doc.text).toBe(text);
    expect(store.list().map((e) => e.handle)).toEqual([handle]);
  });

  it('a second put of the same content is looked up as its newest owner while it is under way', async (t) => {
    if (!(await diskHasRoom())) t.skip();
    const store = await open();
    await store.put(result, meta);
    const again = store.plan(result, { server: 'plain', tool: 'read_all', client: 'cursor' });
    const writing = again.write();
    // What the answer named is what a read_result asked at once finds (its owner picks the read-back encoding).
    expect(store.lookup(again.entry.handle)).toMatchObject({ entry: { server: 'plain', tool: 'read_all', client: 'cursor' } });
    await writing;
    expect(store.lookup(again.entry.handle)).toMatchObject({ entry: { server: 'plain', tool: 'read_all' } });
  });

  it('leaves a handle that says why when the write fails after the answer', async (t) => {
    if (!(await diskHasRoom())) t.skip();
    const store = await open();
    const plan = store.plan(result, meta);
    expect(plan.answerFirst).toBe(true);
    // The folder is gone and a file stands where it was: the entry's folder cannot be made.
    await rm(dir, { recursive: true, force: true });
    await writeFile(dir, 'not a folder');
    const writing = plan.write();
    const { handle } = plan.entry;
    const reading = store.readDocument(handle);
    await expect(writing).rejects.toThrow(/could not be written/);
    await expect(reading).rejects.toThrow(new RegExp(`The full result "${handle}" could not be kept \\(.*ENOTDIR`));
    const found = store.lookup(handle);
    expect(found).toMatchObject({ error: 'unknown' });
    expect('message' in found && found.message).toMatch(/call the tool again with narrower arguments/);
    expect(store.list()).toEqual([]);
  });

  it('waits for the files when the disk is short of room', async () => {
    // A store whose folder cannot be measured (it does not exist as a folder) does not know it has room.
    await writeFile(join(root, 'file'), 'x');
    dir = join(root, 'file', 'spill');
    const store = await open();
    const plan = store.plan(result, meta);
    expect(plan.answerFirst).toBe(false);
    await expect(plan.write()).rejects.toThrow(/could not be written/);
  });
});
