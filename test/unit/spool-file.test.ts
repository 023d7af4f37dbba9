import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONGESTED_BYTES, PendingWrites } from '../../electron/core/wire/pending-writes.js';
import { SpoolFile } from '../../electron/core/wire/spool-file.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-spool-file-'));
  dirs.push(dir);
  return dir;
}

describe('SpoolFile (written off the main thread)', () => {
  it('holds every byte, in order, once `written` resolves, though the caller reuses its buffer', async () => {
    const path = join(await tempDir(), 'a.txt');
    const pending = new PendingWrites();
    const file = new SpoolFile(path, 4, pending);
    const batch = Buffer.alloc(3);
    const want: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      batch.write(String(i % 1000).padStart(3, '0'));
      want.push(Buffer.from(batch));
      file.write(batch);
    }
    const summary = file.close();
    expect(summary.bytes).toBe(600);
    expect(summary.head.toString()).toBe('0000');
    await summary.written;
    expect(await readFile(path)).toEqual(Buffer.concat(want));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(pending.bytes).toBe(0);
  });

  it('makes its folder again when it has gone', async () => {
    const path = join(await tempDir(), 'gone', 'again', 'b.txt');
    const file = new SpoolFile(path, 0, new PendingWrites());
    file.write(Buffer.from('kept'));
    await file.close().written;
    expect(await readFile(path, 'utf8')).toBe('kept');
  });

  it('rejects `written` when the disk refuses it, takes later writes without throwing, and forgets what was pending', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'blocker'), 'a file, not a folder');
    const pending = new PendingWrites();
    const file = new SpoolFile(join(dir, 'blocker', 'c.txt'), 0, pending);
    file.write(Buffer.from('lost'));
    const { written } = file.close();
    await expect(written).rejects.toThrow(/ENOTDIR/);
    expect(() => file.write(Buffer.from('more'))).not.toThrow(); // the line is read on and delivered cut (line-framer.ts)
    expect(pending.bytes).toBe(0);
    await file.discard(); // never throws
  });

  it('discard() waits for the writes, then deletes the file', async () => {
    const path = join(await tempDir(), 'd.txt');
    const file = new SpoolFile(path, 0, new PendingWrites());
    file.write(Buffer.alloc(256 * 1024, 0x61));
    await file.discard();
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });
});

describe('PendingWrites', () => {
  it('is congested past its mark and drained once half of it is written', async () => {
    const pending = new PendingWrites();
    await pending.drained(); // nothing pending: at once
    pending.add(CONGESTED_BYTES + 1);
    expect(pending.congested).toBe(true);
    let drained = false;
    const waiting = pending.drained().then(() => (drained = true));
    pending.done(CONGESTED_BYTES / 4);
    await Promise.resolve();
    expect(drained).toBe(false);
    pending.done(CONGESTED_BYTES / 4 + 1);
    await waiting;
    expect(pending.congested).toBe(false);
    expect(pending.bytes).toBe(CONGESTED_BYTES / 2);
  });
});

describe('a spool file and its pending writes', () => {
  it('counts what it handed to the disk, is congested past the mark, and drains as the writes land', async () => {
    const path = join(await tempDir(), 'e.txt');
    const pending = new PendingWrites(100 * 1024);
    const file = new SpoolFile(path, 0, pending);
    const piece = Buffer.alloc(64 * 1024, 0x62);
    for (let i = 0; i < 16; i++) file.write(piece);
    // 1 MiB handed over in 256 KiB writes while the file is still being opened: the reader should pause.
    expect(pending.bytes).toBe(1024 * 1024);
    expect(pending.congested).toBe(true);
    await pending.drained();
    expect(pending.bytes).toBeLessThanOrEqual(50 * 1024);
    await file.close().written;
    expect(pending.bytes).toBe(0);
    expect((await stat(path)).size).toBe(1024 * 1024);
  });
});
