/**
 * `spillway clients` with no hub running works on the files, and must keep them as the hub would: an
 * imported server's env value goes to the secret store, config.json holds "<secret>" in its place (README),
 * and a hub started later runs the server with the value; `list` on a data folder that does not exist (a
 * mistyped --data-dir) creates nothing there, no folder and no token.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SECRET_REF } from '../../shared/config.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { openSecretStore } from '../../electron/core/secrets/open-secret-store.js';
import { BIN } from '../support/bridge-client.js';
import { createTestAppHub, fixture, NODE } from '../support/hub-harness.js';
import { stderrPrinted, upstreamReady } from '../support/hub-runs.js';

const PAT = 'ghp_ImportedSecret0Value9xyz';
let home: string;
let dataDir: string;
let hub: AppHub | undefined;

function run(args: string[]) {
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SPILLWAY_DATA_DIR: dataDir };
  const child = spawn(NODE, [BIN, 'clients', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return once(child, 'exit').then(([code]) => ({ code: code as number, out, err }));
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-cli-no-hub-'));
  dataDir = join(home, 'data');
  await mkdir(join(home, '.cursor'), { recursive: true });
  const gh = { command: NODE, args: [fixture('env-echo-server.mjs'), '--echo', 'GITHUB_PAT'], env: { GITHUB_PAT: PAT } };
  await writeFile(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { gh } }));
});
afterEach(async () => {
  await hub?.hub.stop();
  hub = undefined;
});
afterAll(() => rm(home, { recursive: true, force: true }));

it('import keeps the env value in the secret store, never in config.json; a hub started later runs the server with it', async () => {
  const r = await run(['import', 'cursor', '--yes']);
  expect(r.err).toBe('');
  expect(r.out).toContain('Imported: gh');
  const text = await readFile(join(dataDir, 'config.json'), 'utf8');
  expect(text).not.toContain(PAT);
  expect(JSON.parse(text).servers.gh.env).toEqual({ GITHUB_PAT: SECRET_REF });
  // Told apart by its value, as the hub does it: the server is not imported a second time.
  expect((await run(['import', 'cursor', '--yes'])).out).toContain('cursor has no servers to import');
  // Asked after the commands ran: on Linux a keychain probe's kernel keyring is inherited by the processes
  // started after it, which would then find a keychain this process has not.
  expect(await (await openSecretStore({ dataDir })).get('gh', 'env:GITHUB_PAT')).toBe(PAT);

  hub = await createTestAppHub(dataDir);
  await hub.hub.start();
  await upstreamReady(hub.hub, 'gh');
  // The server prints its variables, then `ready` once it serves.
  await stderrPrinted(hub.hub, 'gh', 'env-echo-server: ready');
  expect(hub.hub.pool.get('gh')!.stderrTail().join('\n')).toContain(`GITHUB_PAT=${PAT}`);
});

it('list on a data folder that does not exist creates nothing there', async () => {
  const typo = join(home, 'Spilway');
  const r = await run(['list', '--data-dir', typo]);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/cursor\s+Cursor\s+not connected/);
  await expect(stat(typo)).rejects.toThrow(/ENOENT/);
});
