/**
 * What interrupted or short writes leave behind never outlives a start (issue 13 item 11): temp files of
 * an atomic save cut short (`index.json.<n>`, `config.json.<n>`) are removed when the store or the config
 * is opened, a spill entry whose files are shorter than its index says is dropped with its folder, and a
 * short write is continued rather than taken for the whole.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigFile } from '../../electron/core/files/config-file.js';
import { maskConfigSecrets } from '../../electron/core/secrets/mask-config-secrets.js';
import { writeAll, type ByteSink } from '../../electron/core/files/atomic-file.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-interrupted-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes a file dated a minute ago, as a write cut short by a crash would have left it. */
async function leftover(path: string, text = '{"partial'): Promise<void> {
  await writeFile(path, text);
  const then = new Date(Date.now() - 60_000);
  await utimes(path, then, then);
}

describe('temp files of interrupted saves', () => {
  it('are removed from the spill folder when the store opens; a fresh one and foreign files are left', async () => {
    const dir = join(root, 'spill');
    await mkdir(dir);
    await leftover(join(dir, 'index.json.1234567890'));
    await leftover(join(dir, 'index.json.98765'));
    // Younger than a write can take: another process may be writing it right now.
    await writeFile(join(dir, 'index.json.4242'), '{"in progress');
    await leftover(join(dir, 'index.json.bak'));
    await leftover(join(dir, 'notes.txt'));
    const store = await SpillStore.open({ dir, now: Date.now, counter });
    await store.close();
    expect((await readdir(dir)).sort()).toEqual(['index.json.4242', 'index.json.bak', 'notes.txt']);
  });

  it('are removed beside the config file when it loads; backups are left', async () => {
    const path = join(root, 'config.json');
    await writeFile(path, JSON.stringify({ version: 1, servers: {} }));
    await leftover(`${path}.3141592653`);
    await leftover(`${path}.2026-01-01T00-00-00-000Z.bak`);
    await new ConfigFile(path, { maskSecrets: maskConfigSecrets }).load();
    expect((await readdir(root)).sort()).toEqual(['config.json', 'config.json.2026-01-01T00-00-00-000Z.bak']);
  });
});

describe('a spilled entry shorter than its index says', () => {
  it('is dropped with its folder when the store opens; a complete one stays', async () => {
    const dir = join(root, 'spill');
    const first = await SpillStore.open({ dir, now: Date.now, counter });
    const whole = await first.put({ content: [{ type: 'text', text: 'complete\n'.repeat(1000) }] }, { server: 's', tool: 't' });
    const cut = await first.put({ content: [{ type: 'text', text: 'cut short\n'.repeat(1000) }] }, { server: 's', tool: 't' });
    await first.close();
    // What a short write used to leave: the text file holds only part of the text.
    const text = join(dir, cut.handle, 'text.txt');
    await writeFile(text, (await readFile(text)).subarray(0, 4096));

    const store = await SpillStore.open({ dir, now: Date.now, counter });
    expect(store.list().map((e) => e.handle)).toEqual([whole.handle]);
    expect(store.lookup(cut.handle)).toMatchObject({ error: 'unknown' });
    expect((await readdir(dir)).filter((name) => name !== 'index.json')).toEqual([whole.handle]);
    await store.close();
    const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as { entries: { handle: string }[] };
    expect(index.entries.map((e) => e.handle)).toEqual([whole.handle]);
  });
});

describe('writeAll', () => {
  it('continues a short write until every byte is written', async () => {
    const got: number[] = [];
    const sink: ByteSink = {
      // Takes at most 3 bytes per call, as a disk filling up takes part of a write.
      async write(data, offset, length) {
        const n = Math.min(3, length);
        got.push(...data.subarray(offset, offset + n));
        return { bytesWritten: n };
      },
    };
    await writeAll(sink, Buffer.from('0123456789'));
    expect(Buffer.from(got).toString()).toBe('0123456789');
  });

  it('fails when a write makes no progress, instead of taking part for the whole', async () => {
    const sink: ByteSink = { write: async () => ({ bytesWritten: 0 }) };
    await expect(writeAll(sink, Buffer.from('abc'))).rejects.toThrow(/short write: 0 of 3 bytes/);
  });
});
