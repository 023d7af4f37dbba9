/**
 * After Spillway's data folder is moved (copied to B, the app run with B), a bridge entry still names the
 * old folder A. The hub on B does not repair it (it is not B's), but says so at its start-up repair, naming
 * the missing folder and what to do; and the bridge the app runs refuses to make a new, empty data folder
 * (and hub) at A that the app would then silently use.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRefusal } from '../../electron/cli/bridge/command.js';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';
import { ClientsService } from '../../electron/core/clients/clients-service.js';
import { createClientRegistry } from '../../electron/core/clients/index.js';

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-moved-folder-'));
  home = join(root, 'home');
  await mkdir(join(home, '.codex'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function serviceOn(dataDir: string) {
  await mkdir(dataDir, { recursive: true });
  return new ClientsService({
    registry: createClientRegistry({ os: { home, platform: 'linux', env: { HOME: home } }, backupDir: join(dataDir, 'backups') }),
    tokens: await ClientTokens.open(join(dataDir, 'client-tokens.json')),
    host: {
      endpoint: () => ({ url: 'http://127.0.0.1:47821/mcp' }),
      upstreamConfigs: () => ({}),
      addUpstream: async () => ({ id: 'x' }),
      lastSeen: () => undefined,
    },
    bridge: { command: '/opt/Spillway/spillway', args: ['/opt/Spillway/spillway.js', 'bridge', '--data-dir', dataDir] },
    dataDir,
    platform: 'linux',
  });
}

const codexEntry = (dataDir: string) =>
  `model = "o3"\n\n[mcp_servers.spillway]\ncommand = "/opt/Spillway/spillway"\nargs = ["/opt/Spillway/spillway.js", "bridge", "--data-dir", "${dataDir}", "--client", "codex"]\n`;

describe('the start-up repair after the data folder moved', () => {
  it('says an entry names a data folder that no longer exists, and what to do; the file stays as it is', async () => {
    const gone = join(root, 'A');
    const file = join(home, '.codex', 'config.toml');
    await writeFile(file, codexEntry(gone));
    const repaired = await (await serviceOn(join(root, 'B'))).repair();
    expect(repaired).toEqual([
      {
        id: 'codex',
        repaired: false,
        error: expect.stringMatching(new RegExp(`${gone}.*no longer exists.*Connect Codex CLI again in Spillway`)),
      },
    ]);
    expect(await readFile(file, 'utf8')).toBe(codexEntry(gone));
  });

  it('says nothing about an entry of another Spillway whose folder is there', async () => {
    const other = join(root, 'other');
    await mkdir(other);
    await writeFile(join(home, '.codex', 'config.toml'), codexEntry(other));
    expect(await (await serviceOn(join(root, 'B'))).repair()).toEqual([]);
  });
});

describe('the bridge of an entry naming a missing data folder', () => {
  it('refuses to start a hub that would make the folder anew, saying to connect the app again', () => {
    const said = startRefusal({ dataDir: '/gone/A', explicit: true, exists: false, hadHub: false });
    expect(said).toMatch(/\/gone\/A does not exist/);
    expect(said).toMatch(/connect this app again in Spillway/);
  });

  it('says the folder was deleted when its hub ran before', () => {
    expect(startRefusal({ dataDir: '/gone/A', explicit: true, exists: false, hadHub: true })).toMatch(
      /was deleted, so no new Spillway is started there/,
    );
  });

  it('starts one where the folder exists, or where none was named (the default folder is made on first use)', () => {
    expect(startRefusal({ dataDir: '/here', explicit: true, exists: true, hadHub: false })).toBeUndefined();
    expect(startRefusal({ dataDir: '/default', explicit: false, exists: false, hadHub: false })).toBeUndefined();
  });
});
