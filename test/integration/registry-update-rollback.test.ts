/**
 * Update of an npm server added from the catalog to a version that does not start (audit s19): the hub
 * watches the server after the switch, goes back to the version it ran, says so in plain words, and keeps
 * the server's settings and secret. A version that starts is kept, and the one before it stays as the
 * server's previous install: the next start does not remove it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import type { HandlerMap } from '../../electron/core/control/control-handlers.js';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import { NpmInstaller } from '../../electron/core/registry/install/npm-installer.js';
import type { Started } from '../support/processes.js';
import { callApi, startNpmFixture, startRegistryFixture, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

let registry: Started & { url: string };
let npm: Started & { url: string };
let dir: string;
let app: AppHub | undefined;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';

const start = () => startRegistryHub({ dir, registryUrl: registry.url, env: { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined } });
const dataDir = () => join(dir, 'data');
const packages = () => join(dataDir(), 'packages');
const saved = async (id: string) => JSON.parse(await readFile(join(dataDir(), 'config.json'), 'utf8')).servers[id];

/**
 * The registry methods as the app hub makes them, with the hub's start watch. Given another config file,
 * so that making them does not clean the data folder as the hub's own did when it started.
 */
function handlersOf(hub: AppHub): HandlerMap {
  return appRegistryHandlers({
    paths: { dataDir: dataDir(), configFile: join(dir, 'not-the-hub-config.json') },
    platform: process.platform,
    env: { npm_config_registry: npm.url },
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
  registry = await startRegistryFixture();
  npm = await startNpmFixture('airtable-mcp-server@1.7.3');
  dir = await mkdtemp(join(tmpdir(), 'spillway-update-rollback-'));
  app = await start();
}, 120_000);
afterAll(async () => {
  await app?.hub.stop();
  await registry?.stop();
  await npm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('an update to a version that does not start goes back to the version the server ran, settings kept', async () => {
  const add = await callApi<{ id: string }>(app!, 'registry.add', { name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(app!, id, 'ready');
  const before = await saved(id);
  // A broken release of the next version, already in place (stands in for one that crashes at start).
  const broken = join(packages(), 'airtable-mcp-server@1.7.4', 'node_modules', 'airtable-mcp-server');
  await mkdir(join(broken, 'dist'), { recursive: true });
  await writeFile(join(broken, 'package.json'), JSON.stringify({ name: 'airtable-mcp-server', version: '1.7.4', bin: 'dist/index.js' }));
  await writeFile(join(broken, 'dist', 'index.js'), 'console.error("boom: this release is broken"); process.exit(1);\n');
  await fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer: true }) });

  const errors: string[] = [];
  const off = app!.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id && e.status === 'error') errors.push(e.error ?? '');
  });
  const update = handlersOf(app!)['registry.update']!({ id });
  await expect(update).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(/^Version 1\.7\.4 of airtable-mcp-server did not start \(.*boom.*\); Spillway went back to 1\.7\.3\./s),
  });
  off();
  // Gone back only once the hub's own retries gave up (a crash loop stopped), not at the first exit;
  // the message does not tell the user to press Restart on the version it went away from.
  expect(errors.filter((e) => e.includes('boom')).length).toBeGreaterThan(1);
  expect(errors.some((e) => e.includes('stopped after'))).toBe(true);
  await expect(update).rejects.toMatchObject({ message: expect.not.stringMatching(/press Restart/) });
  const after = await saved(id);
  expect(after).toEqual(before);
  expect(after.args[0]).toContain('airtable-mcp-server@1.7.3');
  expect(await app!.hub.secretStore.get(id, 'env:AIRTABLE_API_KEY')).toBe('patXYZ');
  // Back on 1.7.3 it starts again (at once, or on first use as its lists are kept).
  app!.hub.pool.get(id)?.wake();
  await waitForStatus(app!, id, 'ready');
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.3'))).toBe(true);
  // No server runs the broken version: it goes at once.
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.4'))).toBe(false);
}, 120_000);

it('an update that starts keeps the version before it as the previous install, through the next start', async () => {
  const id = Object.keys(app!.hub.config.servers)[0]!;
  await expect(handlersOf(app!)['registry.update']!({ id })).resolves.toMatchObject({ updated: true, previous: '1.7.3', version: '1.7.4' });
  expect(app!.hub.pool.get(id)?.status).toBe('ready');
  expect((await saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');

  await app!.hub.stop();
  app = await start();
  // What the hub's start removes, decided as it decides: the previous version stays.
  const removed = await new NpmInstaller({ dataDir: dataDir(), registry: () => npm.url }).removeUnused(app.hub.config.servers);
  expect(removed).toEqual([]);
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.3'))).toBe(true);
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.4'))).toBe(true);
}, 120_000);

it('a `latest` tag moved back to an older version is no update: none is offered, and Update keeps the newer one', async () => {
  const id = Object.keys(app!.hub.config.servers)[0]!;
  expect((await saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
  // The publisher moves `latest` back to 1.7.3.
  await fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer: false }) });
  expect(await callApi(app!, 'registry.installed', { id })).toMatchObject({
    ok: true,
    value: { version: '1.7.4', latest: '1.7.3', updateAvailable: false },
  });
  expect(await callApi(app!, 'registry.update', { id })).toMatchObject({ ok: true, value: { updated: false, version: '1.7.4' } });
  expect((await saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
}, 60_000);
