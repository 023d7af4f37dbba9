/**
 * The backup of an app's file is written before the temp copy of its new text: a crash while the backup is
 * written (a synced copy, the slowest step) then leaves no hidden copy of the new text, which holds a
 * Spillway token, beside the app's file. A backup that fails leaves neither.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { editConfigFile } from '../../electron/core/clients/safe-write.js';

/** What the app's folder held when each backup started; a backup fails while `failBackup` is set. */
const seen: string[][] = [];
let failBackup = false;
vi.mock('../../electron/core/clients/backup-store.js', async (importActual) => {
  const actual = await importActual<typeof import('../../electron/core/clients/backup-store.js')>();
  return {
    ...actual,
    saveBackup: async (...args: Parameters<typeof actual.saveBackup>) => {
      seen.push(await readdir(dirname(args[1])));
      if (failBackup) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return actual.saveBackup(...args);
    },
  };
});

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-backup-first-'));
  file = join(dir, 'app', 'mcp.json');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, '{"mcpServers":{}}\n');
  seen.length = 0;
  failBackup = false;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const connect = () =>
  editConfigFile(file, () => '{"mcpServers":{"spillway":{"headers":{"Authorization":"Bearer tok"}}}}\n', {
    backups: { dir: join(dir, 'backups') },
    reason: 'connect',
    holdsSecret: true,
  });

it('no temp copy of the new text exists while the backup is written', async () => {
  await connect();
  expect(seen).toEqual([['mcp.json']]);
});

it('a backup that fails leaves no temp copy, and the file as it was', async () => {
  failBackup = true;
  await expect(connect()).rejects.toThrow();
  expect(await readdir(dirname(file))).toEqual(['mcp.json']);
});
