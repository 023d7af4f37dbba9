/**
 * Disconnect of an app whose config file Spillway created at Connect (it did not exist before): once
 * Spillway's entry is out and the file holds nothing else, the file goes, as if Spillway had never been
 * there, instead of staying behind as `{}`. Restore (undo the Disconnect) puts the file back with the
 * entry; a second Restore (undo the Connect) deletes it again. Anything the user put in the file since
 * Connect (a server, a setting, a comment) keeps it, and a file that existed before Connect is never deleted.
 * Real files in a temp HOME, through the ClientsService the hub runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ClientsService } from '../../electron/core/clients/clients-service.js';
import { clientsServiceOn } from '../support/clients-service.js';
import type { ClientIdName } from '../../shared/api-clients.js';

let root: string;
let home: string;
let clients: ClientsService;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-created-file-'));
  home = join(root, 'home');
  clients = await clientsServiceOn({
    home,
    dataDir: join(root, 'data'),
    backupDir: join(root, 'backups'),
    tokensFile: join(root, 'client-tokens.json'),
  });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const FILES: Partial<Record<ClientIdName, string>> = {
  'claude-desktop': '.config/Claude/claude_desktop_config.json',
  cursor: '.cursor/mcp.json',
  zed: '.config/zed/settings.json',
  codex: '.codex/config.toml',
};
/** The app's folder exists (it is installed), its config file does not. */
async function installed(id: ClientIdName): Promise<string> {
  const file = join(home, FILES[id]!);
  await mkdir(dirname(file), { recursive: true });
  return file;
}
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const servers = async (file: string) => Object.keys((JSON.parse(await readFile(file, 'utf8')) as { mcpServers: object }).mcpServers);

describe('Disconnect of a file Spillway created', () => {
  it.each<ClientIdName>(['claude-desktop', 'cursor', 'zed', 'codex'])('%s: the file goes when nothing else is in it', async (id) => {
    const file = await installed(id);
    expect((await clients.connect(id)).changed).toBe(true);
    expect(await exists(file)).toBe(true);
    expect((await clients.disconnect(id)).changed).toBe(true);
    expect(await exists(file)).toBe(false);
  });

  it('Restore brings the file back with the entry, and a second Restore deletes it again', async () => {
    const file = await installed('cursor');
    await clients.connect('cursor');
    await clients.disconnect('cursor');
    expect(await exists(file)).toBe(false);
    const undone = await clients.restore('cursor');
    expect(undone.deleted).toBe(false);
    expect(await servers(file)).toEqual(['spillway']);
    const [entry] = (await clients.list()).filter((c) => c.id === 'cursor');
    expect(entry.state).toBe('current'); // its token was revoked at Disconnect: a new one was written
    // The backups still say Connect created the file: a Disconnect now deletes it again.
    await clients.disconnect('cursor');
    expect(await exists(file)).toBe(false);
    await clients.restore('cursor'); // undoes that Disconnect
    expect(await servers(file)).toEqual(['spillway']);
    const r = await clients.restore('cursor'); // both Disconnects undone: this undoes the Connect
    expect(r.deleted).toBe(true);
    expect(await exists(file)).toBe(false);
  });

  it('keeps the file when the user added a server since Connect', async () => {
    const file = await installed('claude-desktop');
    await clients.connect('claude-desktop');
    const doc = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    doc.mcpServers.mine = { command: 'mine' };
    await writeFile(file, JSON.stringify(doc, null, 2));
    await clients.disconnect('claude-desktop');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ mcpServers: { mine: { command: 'mine' } } });
  });

  it('keeps the file when the user added a setting or a comment since Connect', async () => {
    const file = await installed('cursor');
    await clients.connect('cursor');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('{', '{\n  "theme": "dark",'));
    await clients.disconnect('cursor');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ theme: 'dark' });

    await rm(file);
    await clients.connect('cursor');
    await writeFile(file, `// my note\n${await readFile(file, 'utf8')}`);
    await clients.disconnect('cursor');
    expect(await readFile(file, 'utf8')).toMatch(/^\/\/ my note\n\{\s*\}\s*$/);
  });

  it('never deletes a file that existed before Connect, even one that held just {}', async () => {
    const file = await installed('cursor');
    await writeFile(file, '{}\n');
    await clients.connect('cursor');
    await clients.disconnect('cursor');
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });
});
