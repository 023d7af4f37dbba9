/**
 * client-tokens.json is shared: `spillway clients connect` (another process) may write it while the hub
 * writes a last-seen time. Each write reads the file again and keeps what the other wrote.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';
import { lockWaits } from '../../electron/core/files/atomic-file.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokens-overlap-'));
  file = join(dir, 'client-tokens.json');
});
afterEach(async () => {
  lockWaits.held = undefined;
  await rm(dir, { recursive: true, force: true });
});

const onDisk = async () => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

it("the CLI's new token survives the hub's last-seen write that overlaps it, and the hub takes it at once", async () => {
  const hub = await ClientTokens.open(file);
  const claude = await hub.ensure('claude-desktop');
  const cli = await ClientTokens.open(file);
  // The CLI connects Cursor while Claude Desktop makes its first request in a minute.
  const [cursor] = await Promise.all([cli.ensure('cursor'), hub.noteSeen('claude-desktop')]);
  const saved = await onDisk();
  expect(saved['claude-desktop']).toBe(claude);
  expect(saved['cursor']).toBe(cursor);
  expect(saved['seen']).toHaveProperty('claude-desktop');
  expect(hub.lookup(cursor)).toBe('cursor');
});

it('two processes making tokens at the same time both keep theirs', async () => {
  const a = await ClientTokens.open(file);
  const b = await ClientTokens.open(file);
  const [cursor, windsurf] = await Promise.all([a.ensure('cursor'), b.ensure('windsurf')]);
  const saved = await onDisk();
  expect(saved['cursor']).toBe(cursor);
  expect(saved['windsurf']).toBe(windsurf);
  expect(a.lookup(windsurf)).toBe('windsurf');
  expect(b.lookup(cursor)).toBe('cursor');
});

it("a revocation made elsewhere is kept by the hub's next write, and stays refused", async () => {
  const hub = await ClientTokens.open(file);
  const cursor = await hub.ensure('cursor');
  const cli = await ClientTokens.open(file);
  // In this order: the hub's write after the revocation must keep it (the overlapping order is the first test's).
  await cli.revoke('cursor');
  await hub.noteSeen('claude-desktop');
  const saved = await onDisk();
  expect(saved['cursor']).toBeUndefined();
  expect(hub.lookup(cursor)).toBeUndefined();
  expect(hub.revokedHere('cursor', cursor)).toBe(true);
});

it('last-seen times of two processes are merged, the newer of each kept', async () => {
  const a = await ClientTokens.open(file);
  const b = await ClientTokens.open(file);
  const early = new Date('2030-01-01T10:00:00Z');
  const late = new Date('2030-01-01T11:00:00Z');
  await Promise.all([a.noteSeen('cursor', late), b.noteSeen('cursor', early), b.noteSeen('windsurf', early)]);
  const seen = (await onDisk())['seen'] as Record<string, string>;
  expect(seen['cursor']).toBe(late.toISOString());
  expect(seen['windsurf']).toBe(early.toISOString());
});

it('a lock file left by a process that stopped while writing is taken over; a held one is waited for', async () => {
  const lock = `${file}.lock`;
  await writeFile(lock, '');
  const old = new Date(Date.now() - 60_000);
  await utimes(lock, old, old);
  const tokens = await ClientTokens.open(file);
  const cursor = await tokens.ensure('cursor');
  expect((await onDisk())['cursor']).toBe(cursor);
  await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });

  await writeFile(lock, '');
  // Resolves once the writer has found the lock held twice: it tried, waited, tried again.
  let refused = 0;
  const waiting = new Promise<void>((resolve) => {
    lockWaits.held = (path) => {
      if (path === lock && ++refused === 2) resolve();
    };
  });
  let done = false;
  const writing = tokens.ensure('windsurf').then(() => (done = true));
  // A writer that did not wait for the lock would finish first.
  await Promise.race([waiting, writing]);
  expect(done).toBe(false);
  expect((await onDisk())['windsurf']).toBeUndefined();
  await rm(lock);
  await writing;
  expect((await onDisk())['windsurf']).toBe(tokens.get('windsurf'));
});
