/**
 * Pruning keeps the records of one action that wrote two files (Cline's Disconnect, a `group`) together:
 * it dropped one half and folded it into another action's record, and one Restore then gave back only
 * the other file.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listBackups } from '../../electron/core/clients/backup-store.js';
import { createClientRegistry, type SpillwayEntry } from '../../electron/core/clients/index.js';

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-prune-group-'));
  home = join(root, 'home');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const extensionFile = () => join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
const cliFile = () => join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
const put = async (file: string, text: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
};
const http: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok' } };
const entry = { type: 'streamableHttp', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok' } };
const registryFor = (keepBackups: number) =>
  createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(root, 'backups'), keepBackups });

/** Every group in the backup folder has all its records (two: one per file). */
async function groupsWhole(): Promise<void> {
  const records = await listBackups(join(root, 'backups', 'cline'));
  const sizes = new Map<string, number>();
  for (const r of records) if (r.group) sizes.set(r.group, (sizes.get(r.group) ?? 0) + 1);
  for (const size of sizes.values()) expect(size).toBe(2);
}

it('after pruning, one Restore still gives back both files of the last Disconnect', async () => {
  await put(extensionFile(), JSON.stringify({ mcpServers: { a: { command: 'x' }, spillway: entry } }, null, 2));
  await put(cliFile(), JSON.stringify({ mcpServers: { b: { command: 'y' }, spillway: entry } }, null, 2));
  const registry = registryFor(3);
  await registry.disconnect('cline');
  await registry.connect('cline', http);
  // The CLI's file gets the entry too (the user copied it, or Cline's CLI was set up by hand).
  await put(cliFile(), JSON.stringify({ mcpServers: { b: { command: 'y' }, spillway: entry } }, null, 2));
  const connectedExt = await readFile(extensionFile(), 'utf8');
  const connectedCli = await readFile(cliFile(), 'utf8');
  await registry.disconnect('cline');
  await groupsWhole();
  const r = await registry.restore('cline');
  expect(r.files).toHaveLength(2);
  expect([await readFile(extensionFile(), 'utf8'), await readFile(cliFile(), 'utf8')]).toEqual([connectedExt, connectedCli]);
});

it('many two-file Disconnects are pruned a whole group at a time', async () => {
  await put(extensionFile(), JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, 2));
  await put(cliFile(), JSON.stringify({ mcpServers: { b: { command: 'y' } } }, null, 2));
  const registry = registryFor(5);
  for (let i = 0; i < 5; i++) {
    await put(extensionFile(), JSON.stringify({ mcpServers: { a: { command: 'x' }, spillway: entry } }, null, 2));
    await put(cliFile(), JSON.stringify({ mcpServers: { b: { command: 'y' }, spillway: entry } }, null, 2));
    await registry.disconnect('cline');
    await groupsWhole();
  }
  // At most one over the limit: a group is kept until dropping it leaves no fewer than 5.
  expect((await listBackups(join(root, 'backups', 'cline'))).length).toBeLessThanOrEqual(6);
});
