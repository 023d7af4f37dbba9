import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore, type SpillEntry } from '../../electron/core/spill/spill-store.js';

// Issue: the index is saved up to a second after a put whose answer (with its handle) already went out;
// a hub killed in between used to delete the result's folder at the next start as a leftover.

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
const clock = Date.UTC(2026, 0, 1);
const now = () => clock;
const stores: SpillStore[] = [];
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-crash-'));
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

async function open(dir: string): Promise<SpillStore> {
  const store = await SpillStore.open({ dir, now, counter });
  stores.push(store);
  return store;
}

/** Puts `results` and copies the spill folder as it is right after: what a hub killed then leaves on disk. */
async function putThenCrash(results: CallToolResult[]): Promise<{ dir: string; entries: SpillEntry[] }> {
  const store = await open(join(root, 'live'));
  const entries: SpillEntry[] = [];
  for (const result of results) entries.push(await store.put(result, meta));
  const dir = join(root, 'after-crash');
  await cp(join(root, 'live'), dir, { recursive: true });
  expect((await readdir(dir)).includes('index.json')).toBe(false); // the index was not written yet
  return { dir, entries };
}

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
const results: CallToolResult[] = [
  { content: [{ type: 'text', text: '{"rows":[1,2,3]}\n' }] },
  {
    content: [
      { type: 'text', text: 'first\nsecond' },
      { type: 'text', text: '' },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'embedded' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: png.toString('base64') } },
    ],
    structuredContent: { ok: true },
  },
  { content: [], structuredContent: { big: 'x'.repeat(200_000), n: [1, 2] } },
  { content: [{ type: 'text', text: 'line\n'.repeat(100_000) }] },
];

describe('spilled results the index did not list yet', () => {
  it('are listed again at the next start, complete and readable', async () => {
    const { dir, entries } = await putThenCrash(results);
    const store = await open(dir);
    expect(
      store
        .list()
        .map((e) => e.handle)
        .sort(),
    ).toEqual(entries.map((e) => e.handle).sort());
    for (const [i, entry] of entries.entries()) {
      const found = store.lookup(entry.handle);
      expect(found).toMatchObject({
        entry: {
          hash: entry.hash,
          textBytes: entry.textBytes,
          diskBytes: entry.diskBytes,
          lines: entry.lines,
          contentType: entry.contentType,
          textFromStructured: entry.textFromStructured,
          files: entry.files,
          binary: entry.binary,
        },
      });
      expect(await store.readResult(entry.handle)).toEqual(results[i]);
    }
    // A put of the same content finds it (same handle) and the index written next lists it.
    expect((await store.put(results[0]!, meta)).handle).toBe(entries[0]!.handle);
    await store.close();
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as { entries: SpillEntry[] };
    expect(index.entries.map((e) => e.handle).sort()).toEqual(entries.map((e) => e.handle).sort());
  });

  it('are removed when their files are incomplete or not what their handle names', async () => {
    const { dir, entries } = await putThenCrash(results);
    const [whole, cutText, badJson, changed] = entries.map((e) => e.handle);
    await truncate(join(dir, cutText!, 'text.txt'), 3);
    const json = await readFile(join(dir, badJson!, 'result.json'), 'utf8');
    await writeFile(join(dir, badJson!, 'result.json'), json.slice(0, -1));
    await writeFile(join(dir, changed!, 'text.txt'), 'LINE\n'.repeat(100_000));
    const store = await open(dir);
    expect(store.list().map((e) => e.handle)).toEqual([whole]);
    expect((await readdir(dir)).sort()).toEqual([whole, 'index.json'].sort());
  });
});
