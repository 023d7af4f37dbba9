/**
 * A dotfiles manager's symlink whose target does not exist yet (~/.cursor/mcp.json -> ~/dotfiles/cursor-mcp.json):
 * Connect writes the target (creating it and its folder) and keeps the link; Restore deletes the target it
 * created, and the link stays as the user made it. A relative link is followed from where its folder really is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientRegistry, type ClientRegistry } from '../../electron/core/clients/registry.js';
import { readSnapshot } from '../../electron/core/clients/safe-write.js';

const HTTP = { kind: 'http' as const, url: 'http://127.0.0.1:48123/mcp', headers: { Authorization: 'Bearer tok-aaaaaaaaaaaaaaaaaaaa' } };

let home: string;
let registry: ClientRegistry;
const link = () => join(home, '.cursor', 'mcp.json');

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-dangling-'));
  registry = createClientRegistry({ os: { home, platform: 'linux', env: {} }, backupDir: join(home, 'backups') });
  await mkdir(join(home, '.cursor'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('a symlinked config file whose target does not exist yet', () => {
  it('is written through the link, and Restore gives back the link alone', async () => {
    await mkdir(join(home, 'dotfiles'));
    const target = join(home, 'dotfiles', 'cursor-mcp.json');
    await symlink(target, link());
    await registry.connect('cursor', HTTP);
    expect((await lstat(link())).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(target, 'utf8')).mcpServers.spillway.url).toBe(HTTP.url);
    const r = await registry.restore('cursor');
    expect(r.deleted).toBe(true);
    expect(await readlink(link())).toBe(target);
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('follows a relative link, and a link to a link, to a folder that does not exist yet', async () => {
    await symlink('../dotfiles/next.json', link());
    await mkdir(join(home, 'dotfiles'));
    await symlink('cursor/mcp.json', join(home, 'dotfiles', 'next.json'));
    const snapshot = await readSnapshot(link());
    expect(snapshot).toMatchObject({ realPath: join(home, 'dotfiles', 'cursor', 'mcp.json'), bytes: null });
    await registry.connect('cursor', HTTP);
    expect(await readlink(link())).toBe('../dotfiles/next.json');
    expect(JSON.parse(await readFile(join(home, 'dotfiles', 'cursor', 'mcp.json'), 'utf8')).mcpServers.spillway).toBeDefined();
  });

  it('follows a relative link inside a linked folder from where that folder really is', async () => {
    // ~/.cursor is a link to ~/dotfiles/cursor; in it, mcp.json -> ../shared/mcp.json (not made yet), which
    // the app reads as ~/dotfiles/shared/mcp.json, not ~/shared/mcp.json (another folder of the user's).
    await rm(join(home, '.cursor'), { recursive: true });
    await mkdir(join(home, 'dotfiles', 'cursor'), { recursive: true });
    await mkdir(join(home, 'dotfiles', 'shared'));
    await mkdir(join(home, 'shared'));
    await symlink(join(home, 'dotfiles', 'cursor'), join(home, '.cursor'));
    await symlink('../shared/mcp.json', join(home, 'dotfiles', 'cursor', 'mcp.json'));
    await registry.connect('cursor', HTTP);
    await expect(lstat(join(home, 'shared', 'mcp.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(JSON.parse(await readFile(join(home, 'dotfiles', 'shared', 'mcp.json'), 'utf8')).mcpServers.spillway.url).toBe(HTTP.url);
    expect(JSON.parse(await readFile(link(), 'utf8')).mcpServers.spillway.url).toBe(HTTP.url);
    expect(await readlink(join(home, 'dotfiles', 'cursor', 'mcp.json'))).toBe('../shared/mcp.json');
  });
});
