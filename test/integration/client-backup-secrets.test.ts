/**
 * Import with "Also replace them" moves an app's servers, with their env values, into Spillway. The app's
 * file loses them and config.json never holds them; the one copy left is the backup Restore needs to give
 * the file back byte for byte, and it is owner-only (0600 in a 0700 folder, also a folder that existed
 * with looser modes), as the README says.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE, fixture, freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

const KEY = 'claude-env-key-8080x';

let hub: TestHub | undefined;
let home: string | undefined;
afterAll(async () => {
  await hub?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The files under `dir` (names relative to it) that contain `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const found: string[] = [];
  for (const e of entries) {
    const path = join(e.parentPath, e.name);
    if (e.isFile() && (await readFile(path, 'latin1')).includes(needle)) found.push(path.slice(dir.length + 1));
  }
  return found;
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('the backup of an app file whose servers were imported and replaced', () => {
  it('is the only copy of their secrets, owner-only, and Restore gives them back', async () => {
    home = await mkdtemp(join(tmpdir(), 'spillway-home-'));
    const claude = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    await mkdir(join(home, '.config', 'Claude'), { recursive: true });
    const original = JSON.stringify({ mcpServers: { fx: { command: NODE, args: [fixture('fixture-server.mjs')], env: { MY_KEY: KEY } } } }, null, 2);
    await writeFile(claude, original);
    hub = await startTestHub(
      async (dir: string) => {
        // A backup folder left with looser modes (made by hand, or copied): the next backup makes it owner-only.
        await mkdir(join(dir, 'backups', 'claude-desktop'), { recursive: true });
        await chmod(join(dir, 'backups', 'claude-desktop'), 0o755);
        return { version: 1, servers: {} };
      },
      { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() },
    );
    expect(await hub.api('clients.import', { id: 'claude-desktop', names: ['fx'], replace: true })).toMatchObject({ ok: true });
    expect(await readFile(claude, 'utf8')).not.toContain(KEY);
    const holding = await filesHolding(hub.dir, KEY);
    expect(holding).toEqual([expect.stringMatching(/^backups\/claude-desktop\/\d{6}-.*\.bak$/)]);
    if (process.platform !== 'win32') {
      expect(await mode(join(hub.dir, holding[0]!))).toBe(0o600);
      expect(await mode(join(hub.dir, 'backups', 'claude-desktop'))).toBe(0o700);
    }
    expect(await hub.api('clients.restore', { id: 'claude-desktop' })).toMatchObject({ ok: true });
    expect(await readFile(claude, 'utf8')).toBe(original);
  });
});
