/**
 * Update of an MCPB bundle added from the catalog to a version that does not start (audit s19): the hub
 * watches the server after the switch and goes back to the bundle it ran, its stored variable that holds
 * a path into the bundle's folder moved back too, and says so in plain words. A tiny local registry
 * serves the entry and its bundles (real ones, test/support/mcpb-bundle.ts); the newer one exits at start.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import type { HandlerMap } from '../../electron/core/control/control-handlers.js';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import { fixture } from '../support/hub-harness.js';
import { buildFixtureBundle, sha256 } from '../support/mcpb-bundle.js';
import { callApi, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

const NAME = 'io.github.spillway-tests/fixture-bundle';
let work: string;
let registry: Server;
let base: string;
let app: AppHub | undefined;
const files = new Map<string, Buffer>();
let entry: unknown;

const dataDir = () => join(work, 'data');
const folder = (version: string) => join(dataDir(), 'bundles', `${NAME.replace('/', '+')}@${version}`);

/** The entry with one bundle of this version. */
function entryOf(version: string, file: string) {
  const pkg = {
    registryType: 'mcpb',
    identifier: `${base}/files/${file}`,
    version,
    fileSha256: sha256(files.get(file)!),
    transport: { type: 'stdio' },
  };
  return {
    server: { name: NAME, description: 'The fixture server as a bundle.', version, packages: [pkg] },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
  };
}

/** The registry methods as the app hub makes them, with the hub's start watch (another config file: no clean at start). */
function handlersOf(hub: AppHub): HandlerMap {
  return appRegistryHandlers({
    paths: { dataDir: dataDir(), configFile: join(work, 'not-the-hub-config.json') },
    platform: process.platform,
    env: {},
    serverPath: () => hub.hub.serverPath.current({ reread: true }),
    settings: () => hub.hub.settings,
    addUpstream: (req) => hub.control.addUpstream(req),
    secrets: registrySecretStore(hub.hub.secretStore),
    upstreamConfigs: () => hub.hub.config.servers,
    updateUpstream: (req) => hub.control.updateUpstream(req),
    startOutcome: serverStartOutcome(hub.hub),
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-bundle-rollback-'));
  // A variable holding a path into the bundle's folder, which the switch and the switch back both move.
  const env = { FIXTURE_GREETING: '${user_config.greeting}', FIXTURE_DATA: '${__dirname}/data' };
  files.set('fixture-1.0.mcpb', await buildFixtureBundle(work, { env }));
  const crash = join(work, 'crash-server.mjs');
  await writeFile(crash, 'console.error("boom: this bundle is broken"); process.exit(1);\n');
  files.set('fixture-1.1.mcpb', await buildFixtureBundle(work, { version: '1.1.0', env, entry: relative(fixture(''), crash) }));
  registry = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const file = url.pathname.startsWith('/files/') ? files.get(url.pathname.slice('/files/'.length)) : undefined;
    if (file) return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length }).end(file);
    if (url.pathname === `/v0.1/servers/${encodeURIComponent(NAME)}/versions/latest`)
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entry));
    res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ detail: 'Server not found' }));
  });
  await new Promise<void>((ok) => registry.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  entry = entryOf('1.0.0', 'fixture-1.0.mcpb');
  app = await startRegistryHub({ dir: work, registryUrl: base });
}, 120_000);
afterAll(async () => {
  await app?.hub.stop();
  registry?.closeAllConnections();
  await new Promise((ok) => registry?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

it('an update to a bundle that does not start goes back to the bundle the server ran, its paths moved back', async () => {
  const add = await callApi<{ id: string }>(app!, 'registry.add', { name: NAME, package: 0 });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(app!, id, 'ready');
  const before = app!.hub.config.servers[id];
  expect(await app!.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));

  entry = entryOf('1.1.0', 'fixture-1.1.mcpb');
  await expect(handlersOf(app!)['registry.update']!({ id })).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(
      /^Version 1\.1\.0 of io\.github\.spillway-tests\/fixture-bundle did not start \(.*boom.*\); Spillway went back to 1\.0\.0\./s,
    ),
  });
  expect(app!.hub.config.servers[id]).toEqual(before);
  expect(await app!.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));
  app!.hub.pool.get(id)?.wake();
  await waitForStatus(app!, id, 'ready');
  expect(existsSync(join(folder('1.0.0'), 'manifest.json'))).toBe(true);
  expect(existsSync(folder('1.1.0'))).toBe(false);
}, 120_000);
