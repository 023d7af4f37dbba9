import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore, SpillWriteError } from '../../electron/core/spill/spill-store.js';
import type { SpillStoreOptions } from '../../electron/core/spill/spill-store.js';
import { HANDLE_PATTERN } from '../../electron/core/spill/spill-handle.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const HOUR = 3_600_000;
let root: string;
let dir: string;
let clock: number;
const now = () => clock;
const stores: SpillStore[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-spill-'));
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

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}
const meta = { server: 'fs', tool: 'read_file', client: 'claude' };

describe('SpillStore', () => {
  it('keeps the complete result, its text view and binary blocks as files, and reads them back', async () => {
    const store = await open();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'first\nsecond' },
        { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'embedded' } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
      ],
      structuredContent: { ok: true },
      _meta: { 'upstream/key': 'kept' },
    };
    const entry = await store.put(result, meta);
    expect(entry.handle).toMatch(HANDLE_PATTERN);
    expect(entry.handle).toHaveLength(12);
    expect(entry.contentType).toBe('mixed');
    expect(entry.lines).toBe(3);
    expect(entry.files).toEqual(['result.json', 'text.txt', 'block-1.png']);
    expect(await readFile(join(dir, entry.handle, 'text.txt'), 'utf8')).toBe('first\nsecond\nembedded');
    expect(await readFile(join(dir, entry.handle, 'block-1.png'))).toEqual(png);
    // The stored JSON carries neither the image bytes nor the texts a second time...
    const stored = await readFile(join(dir, entry.handle, 'result.json'), 'utf8');
    expect(stored).not.toContain(png.toString('base64'));
    expect(stored).not.toContain('second');
    expect(stored).not.toContain('embedded');
    // ...and reading it back restores the complete result.
    expect(await store.readResult(entry.handle)).toEqual(result);
    expect((await store.readDocument(entry.handle)).lines).toEqual(['first', 'second', 'embedded']);
    expect(store.list().map((e) => e.handle)).toEqual([entry.handle]);
    expect(store.diskUsage()).toEqual({ entries: 1, bytes: entry.diskBytes, quotaBytes: 1024 ** 3 });
  });

  it('stores the same content once and refreshes its owner and expiry', async () => {
    const store = await open();
    const first = await store.put(textResult('same content'), meta);
    clock += HOUR;
    const second = await store.put(textResult('same content'), { server: 'other', tool: 'cat' });
    expect(second.handle).toBe(first.handle);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.expiresAt).toBe(clock + 24 * HOUR);
    expect(second.server).toBe('other');
    expect(store.list()).toHaveLength(1);
    expect((await readdir(dir)).filter((n) => HANDLE_PATTERN.test(n))).toHaveLength(1);
    // Concurrent puts of one content also end as one entry.
    const [a, b] = await Promise.all([store.put(textResult('racing'), meta), store.put(textResult('racing'), meta)]);
    expect(a.handle).toBe(b.handle);
    expect(store.list()).toHaveLength(2);
    expect(await readFile(join(dir, a.handle, 'text.txt'), 'utf8')).toBe('racing');
  });

  it('tells the entry a result will have before writing it (plan), as write then keeps it', async () => {
    const store = await open();
    const plan = store.plan(textResult('planned\ntext'), meta);
    expect(store.lookup(plan.entry.handle)).toMatchObject({ error: 'unknown' });
    const written = await plan.write();
    expect(written).toEqual(plan.entry);
    expect(store.lookup(plan.entry.handle)).toEqual({ entry: plan.entry });
    clock += HOUR;
    const again = store.plan(textResult('planned\ntext'), { server: 'other', tool: 'cat' });
    expect(again.entry).toMatchObject({ handle: written.handle, createdAt: written.createdAt, server: 'other', expiresAt: clock + 24 * HOUR });
    expect(await again.write()).toEqual(again.entry);
  });

  it('expires entries after their TTL (injected clock) and cleans them up', async () => {
    const store = await open({ ttlMs: 2 * HOUR });
    const short = await store.put(textResult('short-lived'), { ...meta, ttlMs: HOUR });
    const normal = await store.put(textResult('normal'), meta);
    expect(normal.expiresAt - normal.createdAt).toBe(2 * HOUR);
    clock += HOUR; // exactly at expiry: expired
    expect(store.lookup(short.handle)).toMatchObject({ error: 'expired' });
    expect(store.lookup(normal.handle)).toHaveProperty('entry');
    expect(store.list().map((e) => e.handle)).toEqual([normal.handle]);
    const report = await store.cleanup();
    expect(report.expired).toBe(1);
    await expect(stat(join(dir, short.handle))).rejects.toThrow();
    clock += 2 * HOUR;
    expect((await store.cleanup()).expired).toBe(1);
    expect(store.diskUsage().entries).toBe(0);
  });

  it('evicts the least recently used entries over the quota', async () => {
    const body = (c: string) => textResult(c.repeat(1000));
    const probe = await open({ dir: join(root, 'probe') });
    const size = (await probe.put(body('x'), meta)).diskBytes;
    const store = await open({ quotaBytes: size * 3 + 10 });
    const a = await store.put(body('a'), meta);
    clock += 1;
    const b = await store.put(body('b'), meta);
    clock += 1;
    const c = await store.put(body('c'), meta);
    clock += 1;
    await store.readDocument(a.handle); // a is now more recently used than b
    clock += 1;
    const d = await store.put(body('d'), meta);
    const kept = store
      .list()
      .map((e) => e.handle)
      .sort();
    expect(kept).toEqual([a.handle, c.handle, d.handle].sort());
    expect(store.lookup(b.handle)).toMatchObject({ error: 'unknown' });
    await expect(stat(join(dir, b.handle))).rejects.toThrow();
    expect(store.diskUsage().bytes).toBeLessThanOrEqual(store.quotaBytes);
  });

  it('refuses a result larger than the whole quota', async () => {
    const store = await open({ quotaBytes: 1000 });
    await expect(store.put(textResult('x'.repeat(5000)), meta)).rejects.toBeInstanceOf(SpillWriteError);
    expect(store.list()).toEqual([]);
  });

  it('survives a restart; entries whose files vanished and leftover folders are dropped', async () => {
    const store = await open();
    const kept = await store.put(textResult('kept across restarts'), meta);
    const lost = await store.put(textResult('files deleted behind our back'), meta);
    await store.setTokens(kept.handle, { tokens: 4, estimated: false });
    await store.close();
    await rm(join(dir, lost.handle), { recursive: true });
    await mkdir(join(dir, '.tmp-crashed'));
    await mkdir(join(dir, 'abcdefghijkl')); // a handle-shaped folder the index does not know
    await writeFile(join(dir, 'README.not-ours'), 'left alone');

    const reopened = await open();
    expect(reopened.list().map((e) => e.handle)).toEqual([kept.handle]);
    expect(reopened.lookup(kept.handle)).toMatchObject({ entry: { tokens: 4, tokensEstimated: false, server: 'fs' } });
    expect((await reopened.readDocument(kept.handle)).text).toBe('kept across restarts');
    const names = await readdir(dir);
    expect(names).not.toContain('.tmp-crashed');
    expect(names).not.toContain('abcdefghijkl');
    expect(names).toContain('README.not-ours');
  });

  it('starts empty from a corrupt index without failing', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.json'), '{"version":1,"entries":[{"handle":"../../etc"');
    const messages: string[] = [];
    const store = await open({ log: (m) => messages.push(m) });
    expect(store.list()).toEqual([]);
    expect(messages.join()).toMatch(/index/);
    await store.put(textResult('works again'), meta);
    expect(store.list()).toHaveLength(1);
  });

  it('sets a damaged index aside and leaves the result folders it may have listed for that run', async () => {
    const first = await open();
    const a = await first.put(textResult('aaa'), meta);
    const b = await first.put(textResult('bbb'), meta);
    await first.close();
    const damaged = `{"version":1,"entries":[{"handle":"${a.handle}"`;
    await writeFile(join(dir, 'index.json'), damaged);
    const messages: string[] = [];
    const store = await open({ log: (m) => messages.push(m) });
    expect(store.list()).toEqual([]);
    await store.cleanup(); // nor does the periodic cleanup take them for leftovers
    const names = await readdir(dir);
    expect(names).toEqual(expect.arrayContaining([a.handle, b.handle]));
    const copies = names.filter((n) => n.startsWith('index.json.corrupt-'));
    expect(copies).toEqual(['index.json.corrupt-2026-01-01T00-00-00-000Z']);
    expect(await readFile(join(dir, copies[0]!), 'utf8')).toBe(damaged);
    expect(messages.join('\n')).toContain(`set aside as ${copies[0]}`);
    const fresh = await store.put(textResult('kept after it'), meta);
    await store.close();
    // The next start has the index this run wrote: the old folders are removed then, never listed again (README).
    const next = await open();
    expect(next.list().map((e) => e.handle)).toEqual([fresh.handle]);
    expect((await readdir(dir)).filter((n) => HANDLE_PATTERN.test(n))).toEqual([fresh.handle]);
  });

  it('keeps the newest three copies of damaged or newer-version indexes', async () => {
    const bad = ['not json', '{"version":2,"entries":[]}', '{"version":1}', '[]', '{"version":1,"entries":{}}'];
    for (const [i, text] of bad.entries()) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'index.json'), text);
      clock += HOUR;
      await (await open()).close();
      expect((await readdir(dir)).filter((n) => n.startsWith('index.json.corrupt-'))).toHaveLength(Math.min(i + 1, 3));
    }
    const kept = (await readdir(dir)).filter((n) => n.startsWith('index.json.corrupt-')).sort();
    expect(await Promise.all(kept.map((n) => readFile(join(dir, n), 'utf8')))).toEqual(bad.slice(2));
  });

  it('drops index entries whose handle would leave the folder', async () => {
    const store = await open();
    const entry = await store.put(textResult('legit'), meta);
    await store.close();
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
    index.entries.push({ ...index.entries[0], handle: '../../../etc', hash: '../../../etc' });
    index.entries.push({ ...index.entries[0], handle: 'zzzzzzzzzzzz', hash: 'zzzzzzzzzzzz', files: ['../../passwd'] });
    await writeFile(join(dir, 'index.json'), JSON.stringify(index));
    const reopened = await open();
    expect(reopened.list().map((e) => e.handle)).toEqual([entry.handle]);
  });

  it('validates handles before touching the disk', async () => {
    const store = await open();
    for (const bad of ['../etc/passwd', '..', '', 'ABCDEFGHIJKL', 'abc/def', 'abcdefghijk', 42, null, 'abcdefghijkl/../../x']) {
      expect(store.lookup(bad)).toMatchObject({ error: 'invalid' });
    }
    await expect(store.readDocument('../etc/passwd')).rejects.toThrow(/not a spill handle/);
    expect(await store.delete('../etc/passwd')).toBe(false);
    expect(store.lookup('abcdefghijkl')).toMatchObject({ error: 'unknown' });
  });

  it('deletes one, clears all, and previews by tokens', async () => {
    const store = await open();
    const text = Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n');
    const a = await store.put(textResult(text), meta);
    const b = await store.put(textResult('other'), meta);
    const preview = await store.preview(a.handle, 50);
    expect(preview.truncated).toBe(true);
    expect(text.startsWith(preview.text)).toBe(true);
    expect(await counter.count(preview.text)).toBeLessThanOrEqual(50);
    expect(await store.delete(a.handle)).toBe(true);
    expect(await store.delete(a.handle)).toBe(false);
    await expect(stat(join(dir, a.handle))).rejects.toThrow();
    expect(await store.clear()).toBe(1);
    expect(store.lookup(b.handle)).toMatchObject({ error: 'unknown' });
    expect(store.diskUsage()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('fails puts with SpillWriteError when the folder cannot be created (path under a regular file)', async () => {
    const file = join(root, 'not-a-folder');
    await writeFile(file, 'x');
    const store = await open({ dir: join(file, 'spill') });
    await expect(store.put(textResult('nowhere to go'), meta)).rejects.toBeInstanceOf(SpillWriteError);
    expect(store.list()).toEqual([]);
  });

  it('fails puts when the folder turns unwritable after opening, keeping the old entries', async () => {
    const store = await open();
    const before = await store.put(textResult('before'), meta);
    const moved = join(root, 'moved');
    await rm(moved, { force: true, recursive: true });
    // Replace the folder by a regular file: mkdir and writes below it fail even as root.
    const { rename } = await import('node:fs/promises');
    await rename(dir, moved);
    await writeFile(dir, 'blocked');
    await expect(store.put(textResult('after'), meta)).rejects.toBeInstanceOf(SpillWriteError);
    expect(store.list().map((e) => e.handle)).toEqual([before.handle]);
  });

  it('counts a stored text without reading it here: the tokenizer thread reads the file', async () => {
    const store = await open();
    const text = 'line of log output — ünïcödé ✓ 日本語 🚀\n'.repeat(20_000);
    const entry = await store.put(textResult(text), meta);
    expect(await store.countText(entry.handle)).toEqual({ tokens: await counter.count(text), estimated: false });
    await store.delete(entry.handle);
    await expect(store.countText(entry.handle)).rejects.toThrow(/No spilled result/);
  });
});
