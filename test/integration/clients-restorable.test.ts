/**
 * The client list says whether Restore has a change of Spillway's to undo (`restorable`): the window offers
 * Restore backup only then. Not before any Connect (a Restore would only say there is no earlier version),
 * and still after a Disconnect that deleted the file Spillway had created (the note says "Restore brings it
 * back", so Restore must be offered though the file is gone). Real files in a temp HOME, through the
 * ClientsService the hub runs.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientsService } from '../../electron/core/clients/clients-service.js';
import { clientsServiceOn } from '../support/clients-service.js';
import type { ClientIdName } from '../../shared/api-clients.js';

let root: string;
let home: string;
let clients: ClientsService;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-restorable-'));
  home = join(root, 'home');
  clients = await clientsServiceOn({
    home,
    dataDir: join(root, 'data'),
    backupDir: join(root, 'backups'),
    tokensFile: join(root, 'client-tokens.json'),
  });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
async function restorable(id: ClientIdName): Promise<boolean | undefined> {
  return (await clients.list()).find((c) => c.id === id)?.restorable;
}

it('Cursor with a fresh folder: not restorable before Connect, restorable after Connect and after a Disconnect that deleted the file', async () => {
  const file = join(home, '.cursor', 'mcp.json');
  await mkdir(join(home, '.cursor'), { recursive: true });
  expect(await restorable('cursor')).toBe(false);

  await clients.connect('cursor');
  expect(await restorable('cursor')).toBe(true);

  const off = await clients.disconnect('cursor');
  expect(off.deleted).toEqual([file]);
  expect(await exists(file)).toBe(false);
  const cursor = (await clients.list()).find((c) => c.id === 'cursor')!;
  expect([cursor.configPresent, cursor.restorable]).toEqual([false, true]);

  // Restore undoes the Disconnect (the file is back); the Connect is still there to undo, then nothing is.
  await clients.restore('cursor');
  expect(await exists(file)).toBe(true);
  expect(await restorable('cursor')).toBe(true);
  await clients.restore('cursor');
  expect(await exists(file)).toBe(false);
  expect(await restorable('cursor')).toBe(false);
});

it('a client whose file exists but that Spillway never changed is not restorable', async () => {
  const file = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await writeFile(file, JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } }));
  const desktop = (await clients.list()).find((c) => c.id === 'claude-desktop')!;
  expect([desktop.configPresent, desktop.restorable]).toEqual([true, false]);
  await expect(clients.restore('claude-desktop')).rejects.toThrow(/no earlier version/);
});
