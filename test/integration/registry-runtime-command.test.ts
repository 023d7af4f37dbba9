/**
 * Servers installed from the catalog run on the hub's own runtime, named in config.json by
 * OWN_RUNTIME_COMMAND and made the hub's executable at each start (install/own-runtime.ts). A config an
 * earlier version saved from a Linux AppImage names the executable inside that run's mount
 * (/tmp/.mount_XXXXXX), gone once the app quit: the hub starts it on its own executable and saves the name
 * in its place. Here the installed package is a small program in the data folder's packages folder that
 * serves the env-echo fixture.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { OWN_RUNTIME_COMMAND } from '../../electron/core/registry/install/own-runtime.js';
import { fixture } from '../support/hub-harness.js';
import { startRegistryHub, waitForStatus } from '../support/registry-hub.js';

const GONE_MOUNT = '/tmp/.mount_SpillwGone123/spillway';
let app: AppHub;
let dir: string;
const configFile = () => join(dir, 'data', 'config.json');

type SavedServers = Record<string, { command: string }>;

/** config.json's servers once `done` holds for them: read now, and again at each config change the hub announces. */
function savedServersWhen(done: (servers: SavedServers) => boolean): Promise<SavedServers> {
  return new Promise((resolve, reject) => {
    const check = () =>
      void readFile(configFile(), 'utf8').then((text) => {
        const servers = (JSON.parse(text) as { servers: SavedServers }).servers;
        if (!done(servers)) return;
        off();
        resolve(servers);
      }, reject);
    const off = app.hub.events.subscribe((e) => e.type === 'config.changed' && check());
    check();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-runtime-command-'));
  const program = join(dir, 'data', 'packages', 'echo-fixture@1.0.0', 'node_modules', 'echo-fixture', 'index.mjs');
  await mkdir(join(program, '..'), { recursive: true });
  await writeFile(program, `await import(${JSON.stringify(pathToFileURL(fixture('env-echo-server.mjs')).href)});\n`);
  const server = (command: string) => ({ type: 'stdio', command, args: [program], env: { ELECTRON_RUN_AS_NODE: '1' } });
  await writeFile(
    configFile(),
    JSON.stringify({ version: 1, servers: { saved: server(OWN_RUNTIME_COMMAND), 'from-appimage': server(GONE_MOUNT) }, settings: {} }),
  );
  app = await startRegistryHub({ dir, registryUrl: 'http://127.0.0.1:9/' });
}, 60_000);

afterAll(async () => {
  await app?.hub.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a server saved with the runtime’s name starts on the hub’s own executable', async () => {
  await waitForStatus(app, 'saved', 'ready');
});

it('one saved with a gone AppImage mount starts, and is saved with the runtime’s name', async () => {
  await waitForStatus(app, 'from-appimage', 'ready');
  const saved = await savedServersWhen((servers) => servers['from-appimage'].command === OWN_RUNTIME_COMMAND);
  expect(JSON.stringify(saved)).not.toContain('/tmp/.mount_');
  expect(saved.saved.command).toBe(OWN_RUNTIME_COMMAND);
});
