/**
 * Disconnect of a file Spillway created (clients-disconnect-created-file.test.ts): the preview says the file
 * will be deleted (the window and `spillway clients disconnect` both show it before anything is written),
 * and the decision never flips to deleting a file that existed before the latest Connect once older backup
 * records are pruned (pruning folded a dropped write into the record kept before it, which then said the
 * file did not exist; now it folds the Connect into a later record, which the search passes over).
 * Real files in a temp HOME, through the ClientsService the hub runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ClientsService } from '../../electron/core/clients/clients-service.js';
import { clientsServiceOn } from '../support/clients-service.js';

let root: string;
let home: string;
let file: string;

function service(keepBackups?: number): Promise<ClientsService> {
  return clientsServiceOn({
    home,
    dataDir: join(root, 'data'),
    backupDir: join(root, 'backups'),
    tokensFile: join(root, 'client-tokens.json'),
    ...(keepBackups !== undefined ? { keepBackups } : {}),
  });
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-deletes-said-'));
  home = join(root, 'home');
  file = join(home, '.cursor', 'mcp.json');
  await mkdir(dirname(file), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('Disconnect of a file Spillway created', () => {
  it('the preview says the file will be deleted, and only when Disconnect deletes it', async () => {
    const clients = await service();
    await clients.connect('cursor');
    const preview = await clients.previewDisconnect('cursor');
    expect(preview.deletes).toEqual([file]);
    expect(preview.notes?.join('\n')).toContain(
      `Spillway created ${file} when it connected Cursor and nothing else is in it: Disconnect deletes the file.`,
    );

    // The user added a setting: the file stays, and the preview says nothing of deleting it.
    await writeFile(file, (await readFile(file, 'utf8')).replace('{', '{\n  "theme": "dark",'));
    const kept = await clients.previewDisconnect('cursor');
    expect(kept.deletes).toBeUndefined();
    expect(kept.notes ?? []).toEqual([]);
  });

  it('a file that existed before the latest Connect is kept after older records are pruned', async () => {
    const clients = await service(4);
    await clients.connect('cursor'); // creates the file: the oldest record, never pruned, says it did not exist
    await writeFile(file, (await readFile(file, 'utf8')).replace('{', '{\n  "theme": "dark",'));
    await clients.disconnect('cursor'); // the setting keeps the file
    await writeFile(file, '{}\n'); // the user (or the app) leaves it as an empty document
    await clients.connect('cursor'); // this Connect found the file there
    // Disconnect and Restore, a few times: the records in between are pruned (folded into the ones kept before them).
    for (let i = 0; i < 4; i++) {
      await clients.disconnect('cursor');
      expect(await readFile(file, 'utf8')).toBe('{}\n');
      await clients.restore('cursor');
    }
    expect((await clients.previewDisconnect('cursor')).deletes).toBeUndefined();
    await clients.disconnect('cursor');
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });
});
