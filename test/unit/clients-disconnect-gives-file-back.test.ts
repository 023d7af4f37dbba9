/**
 * Disconnect gives an app's file back as Connect found it, when nothing else changed it meanwhile: a servers
 * object Connect had to create (`mcpServers` in Gemini's settings and ~/.claude.json, Zed's
 * `context_servers`, VS Code's `servers`) goes again once Spillway's entry was its only server, and the
 * mode Connect narrowed to owner-only for the token (0644 → 0600) is put back, the token being gone.
 * A servers object the file had before, and a mode the user set since, stay.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClientRegistry, type ClientRegistry, type SpillwayEntry } from '../../electron/core/clients/index.js';
import type { ClientId } from '../../electron/core/clients/types.js';

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:47821/mcp', headers: { Authorization: 'Bearer tok_abcdefghijklmnop' } };

let root: string;
let home: string;
let registry: ClientRegistry;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-give-back-'));
  home = join(root, 'home');
  registry = createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(root, 'backups') });
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function place(file: string, text: string, mode = 0o644): Promise<string> {
  const path = join(home, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('Disconnect after Connect', () => {
  it.each<[ClientId, string, string]>([
    ['gemini-cli', '.gemini/settings.json', '{"theme":"dark"}\n'],
    ['zed', '.config/zed/settings.json', '// zed\n{\n  "theme": "One Dark"\n}\n'],
    ['claude-code', '.claude.json', '{"numStartups": 3}\n'],
    ['vscode', '.config/Code/User/mcp.json', '{}\n'],
  ])('%s: takes out the servers object Connect created, and puts the mode back', async (id, file, text) => {
    const path = await place(file, text);
    expect((await registry.connect(id, HTTP)).changed).toBe(true);
    expect(await modeOf(path)).toBe(0o600);
    expect((await registry.disconnect(id)).changed).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(await modeOf(path)).toBe(0o644);
  });

  it('keeps a servers object the file had before, empty now as then', async () => {
    const text = '{\n  "mcpServers": {}\n}\n';
    const path = await place('.cursor/mcp.json', text);
    await registry.connect('cursor', HTTP);
    await registry.disconnect('cursor');
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('keeps the servers object when the user added a server to it since', async () => {
    const path = await place('.gemini/settings.json', '{"theme":"dark"}\n');
    await registry.connect('gemini-cli', HTTP);
    const connected = JSON.parse(await readFile(path, 'utf8'));
    connected.mcpServers.mine = { command: 'mine' };
    await writeFile(path, JSON.stringify(connected, null, 2));
    await registry.disconnect('gemini-cli');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ theme: 'dark', mcpServers: { mine: { command: 'mine' } } });
  });

  it('keeps a mode the user set after Connect', async () => {
    const path = await place('.gemini/settings.json', '{"theme":"dark"}\n');
    await registry.connect('gemini-cli', HTTP);
    await chmod(path, 0o640);
    await registry.disconnect('gemini-cli');
    expect(await modeOf(path)).toBe(0o640);
  });

  it('a file Connect created, owner-only, goes at Disconnect once it holds nothing else', async () => {
    const path = join(home, '.gemini', 'settings.json');
    await mkdir(dirname(path), { recursive: true });
    await registry.connect('gemini-cli', HTTP);
    expect(await modeOf(path)).toBe(0o600);
    await registry.disconnect('gemini-cli');
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file the user added a secret to since Connect keeps its owner-only mode (written in place, as editors do)', async () => {
    const path = join(home, '.gemini', 'settings.json');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify({ theme: 'dark' }), { mode: 0o644 });
    await registry.connect('gemini-cli', HTTP);
    expect(await modeOf(path)).toBe(0o600);
    const withSecret = JSON.parse(await readFile(path, 'utf8')) as { mcpServers: Record<string, unknown> };
    withSecret.mcpServers.github = { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp_usersOwnSecret' } };
    await writeFile(path, JSON.stringify(withSecret));
    await registry.disconnect('gemini-cli');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      theme: 'dark',
      mcpServers: { github: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp_usersOwnSecret' } } },
    });
    expect(await modeOf(path)).toBe(0o600);
  });
});
