/**
 * Update of an npm server to a version whose first start fails once (a one-time migration that exits
 * and asks to be run again), as the hub's own retry then starts it (review of 62783d3): the Update waits
 * for the retries instead of going back at the first failure, keeps the new version and its folder.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import type { HandlerMap } from '../../electron/core/control/control-handlers.js';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import type { Started } from '../support/processes.js';
import { callApi, startNpmFixture, startRegistryFixture, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

let registry: Started & { url: string };
let npm: Started & { url: string };
let dir: string;
let app: AppHub | undefined;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';

const dataDir = () => join(dir, 'data');
const packages = () => join(dataDir(), 'packages');
const saved = async (id: string) => JSON.parse(await readFile(join(dataDir(), 'config.json'), 'utf8')).servers[id];

/** The registry methods as the app hub makes them, with the hub's start watch (another config file: no clean at start). */
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
  dir = await mkdtemp(join(tmpdir(), 'spillway-update-transient-'));
  app = await startRegistryHub({ dir, registryUrl: registry.url, env: { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined } });
}, 120_000);
afterAll(async () => {
  await app?.hub.stop();
  await registry?.stop();
  await npm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a version whose first start fails once, and whose retry starts, is kept', async () => {
  const add = await callApi<{ id: string }>(app!, 'registry.add', { name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(app!, id, 'ready');
  const oldScript = (await saved(id)).args[0] as string;
  // The next version: its first run migrates and exits 1 ("run me again"); every later run is the working server.
  const marker = join(dir, 'first-run-done');
  const next = join(packages(), 'airtable-mcp-server@1.7.4', 'node_modules', 'airtable-mcp-server');
  await mkdir(join(next, 'dist'), { recursive: true });
  await writeFile(join(next, 'package.json'), JSON.stringify({ name: 'airtable-mcp-server', version: '1.7.4', bin: 'dist/index.js' }));
  await writeFile(
    join(next, 'dist', 'index.js'),
    `const fs = require('fs');\n` +
      `if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); console.error('migrated settings, run me again'); process.exit(1); }\n` +
      `import(${JSON.stringify('file://' + oldScript)});\n`,
  );
  await fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer: true }) });
  const statuses: string[] = [];
  const off = app!.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id) statuses.push(e.status);
  });

  await expect(handlersOf(app!)['registry.update']!({ id })).resolves.toMatchObject({ updated: true, previous: '1.7.3', version: '1.7.4' });
  off();
  // It did fail once on its way: the retry, not a first start that worked, made it ready.
  expect(existsSync(marker)).toBe(true);
  expect(statuses).toContain('error');
  expect(statuses.at(-1)).toBe('ready');
  expect(app!.hub.pool.get(id)?.status).toBe('ready');
  expect((await saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.4'))).toBe(true);
  expect(existsSync(join(packages(), 'airtable-mcp-server@1.7.3'))).toBe(true);
}, 120_000);

it('a server still failing and trying again at the deadline has not started', async () => {
  // A port nothing listens on: an HTTP server is never given up on, it is tried again and again.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const { id } = await app!.control.addUpstream({ id: 'unreachable', config: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
  const errors: string[] = [];
  const off = app!.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id && e.status === 'error') errors.push(e.error ?? '');
  });
  const outcome = await serverStartOutcome(app!.hub, 1_500)(id);
  off();
  expect(outcome).toMatchObject({ started: false });
  // It waited through the retries (the first error was not the end), and says why without the retry note.
  expect(errors.length).toBeGreaterThan(1);
  expect(errors.at(-1)).toMatch(/Spillway tries again/);
  expect(outcome && !outcome.started && outcome.reason).not.toMatch(/tries again|press Restart/);
  expect(app!.hub.pool.get(id)?.reconnecting).toBe(true);
}, 60_000);
