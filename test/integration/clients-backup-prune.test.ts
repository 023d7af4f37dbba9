/**
 * Backups are pruned to the newest 50, but never so that Restore loses the file as it was before Spillway
 * first wrote it (audit s17, connect item 1): 50 start-up repairs (a new port or path written into the
 * entry) pushed out the record of the user's own Connect, and Restore then said there was no earlier
 * version. Repairs go first, the oldest record of each file never, and a dropped record's write is folded
 * into the one kept before it, so Restore still gives back the exact bytes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listBackups } from '../../electron/core/clients/backup-store.js';
import { createClientRegistry, type SpillwayEntry } from '../../electron/core/clients/index.js';

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-prune-'));
  home = join(root, 'home');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The bridge entry of an app installed at `dir` (a moved app, or a new port, makes the entry stale: a repair). */
const bridge = (dir: string): SpillwayEntry => ({
  kind: 'stdio',
  command: `${dir}/spillway`,
  args: [`${dir}/resources/app.asar.unpacked/electron/cli/spillway.js`, 'bridge', '--data-dir', '/home/u/.config/Spillway'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
});

const registryFor = (keepBackups?: number) =>
  createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(root, 'backups'), keepBackups });

describe('pruning backups', () => {
  it('Restore still undoes setup after 50 start-up repairs, byte for byte', async () => {
    const file = join(home, '.codex', 'config.toml');
    await mkdir(join(home, '.codex'), { recursive: true });
    const ORIGINAL = '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n';
    await writeFile(file, ORIGINAL);
    const registry = registryFor();
    await registry.connect('codex', bridge('/opt/Spillway-0'));
    for (let i = 1; i <= 50; i++) await registry.connect('codex', bridge(`/opt/Spillway-${i}`), 'repair');
    expect((await registry.backups('codex')).length).toBe(50);
    // It threw NoBackupError: "There is no earlier version of Codex CLI's configuration to restore."
    const r = await registry.restore('codex');
    expect(await readFile(file, 'utf8')).toBe(ORIGINAL);
    // The chain of Spillway's writes is whole: the exact bytes, not an undo inside a file changed since.
    expect(r.changedSinceWrite).toBe(false);
  });

  it('drops repairs first, then the oldest, and never the first record of each file', async () => {
    const file = join(home, '.cursor', 'mcp.json');
    await mkdir(join(home, '.cursor'), { recursive: true });
    await writeFile(file, '{\n  "mcpServers": {}\n}\n');
    const registry = registryFor(4);
    const http = (port: number): SpillwayEntry => ({ kind: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer tok' } });
    await registry.connect('cursor', http(1)); // 1 connect (the first: kept)
    await registry.disconnect('cursor'); // 2 disconnect
    await registry.connect('cursor', http(2)); // 3 connect
    await registry.connect('cursor', http(3), 'repair'); // 4 repair
    await registry.connect('cursor', http(4), 'repair'); // 5 repair: one over, the oldest repair goes
    expect((await registry.backups('cursor')).map((r) => `${r.seq} ${r.reason}`)).toEqual(['5 repair', '3 connect', '2 disconnect', '1 connect']);
    await registry.disconnect('cursor'); // 6: the other repair goes
    await registry.connect('cursor', http(5)); // 7: no repair left, the oldest but the first goes
    expect((await registry.backups('cursor')).map((r) => `${r.seq} ${r.reason}`)).toEqual(['7 connect', '6 disconnect', '3 connect', '1 connect']);
    // Each record kept still starts from the bytes the one kept before it left.
    const chain = (await listBackups(join(root, 'backups', 'cursor'))).reverse();
    for (let i = 1; i < chain.length; i++) expect(chain[i].sha256Before).toBe(chain[i - 1].sha256After);
  });
});
