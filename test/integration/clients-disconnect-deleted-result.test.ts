/**
 * After a Disconnect that deleted the app's file (Spillway had created it and nothing else is in it), the
 * answer says so (`deleted`), and `spillway clients disconnect` says it in words instead of "Disconnected:
 * <file>". Real files in a temp HOME; the CLI command runs in this process over the files (no hub), through
 * the control API's schema as the hub answers it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deletedNote } from '../../shared/api-clients.js';
import { clientsCommand } from '../../electron/cli/clients-command.js';
import type { ClientsService } from '../../electron/core/clients/clients-service.js';
import { clientsServiceOn } from '../support/clients-service.js';

let root: string;
let home: string;
let dataDir: string;
let file: string;
const savedHome = process.env.HOME;

function service(): Promise<ClientsService> {
  return clientsServiceOn({ home, dataDir, backupDir: join(dataDir, 'backups'), tokensFile: join(dataDir, 'client-tokens.json') });
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-deleted-result-'));
  home = join(root, 'home');
  dataDir = join(root, 'data');
  file = join(home, '.cursor', 'mcp.json');
  await mkdir(dirname(file), { recursive: true });
  await mkdir(dataDir, { recursive: true });
});
afterEach(async () => {
  process.env.HOME = savedHome;
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

const gone = (path: string) =>
  stat(path).then(
    () => false,
    (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
  );

describe('the answer of a Disconnect that deleted the file', () => {
  it('names the file deleted, and nothing when the file is kept', async () => {
    const clients = await service();
    await clients.connect('cursor');
    const r = await clients.disconnect('cursor');
    expect(await gone(file)).toBe(true);
    expect(r.changed).toBe(true);
    expect(r.deleted).toEqual([file]);

    // Restore brings the file back; with a setting of the user's in it, Disconnect keeps it and says so.
    await clients.restore('cursor');
    await writeFile(file, (await readFile(file, 'utf8')).replace('{', '{\n  "theme": "dark",'));
    const kept = await clients.disconnect('cursor');
    expect(kept.changed).toBe(true);
    expect(kept.deleted).toBeUndefined();
    expect(await readFile(file, 'utf8')).toContain('"theme"');
  });

  it('`spillway clients disconnect` says the file was deleted, and how to get it back', async () => {
    await (await service()).connect('cursor');
    process.env.HOME = home;
    const said: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void said.push(args.join(' ')));
    expect(await clientsCommand(['disconnect', 'cursor', '--yes', '--data-dir', dataDir, '--config', join(dataDir, 'config.json')])).toBe(0);
    expect(await gone(file)).toBe(true);
    const out = said.join('\n');
    expect(out).toContain(`Disconnected Cursor: deleted ${file} (Spillway had created it; Restore brings it back).`);
    expect(out).not.toContain('Disconnected: ');
  });

  it('of two files (Cline), names the one deleted and the one updated', () => {
    const r = { file: '/a/one.json', files: ['/a/one.json', '/b/two.json'], deleted: ['/b/two.json'] };
    expect(deletedNote('Cline', r)).toBe(
      'Disconnected Cline: deleted /b/two.json (Spillway had created it; Restore brings it back); updated /a/one.json.',
    );
    expect(deletedNote('Cline', { ...r, deleted: r.files })).toBe(
      'Disconnected Cline: deleted /a/one.json and /b/two.json (Spillway had created them; Restore brings them back).',
    );
    expect(deletedNote('Cline', { file: '/a/one.json' })).toBeUndefined();
  });
});
