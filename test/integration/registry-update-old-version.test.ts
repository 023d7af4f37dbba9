/**
 * Update of an npm server added from the catalog (audit s15): the newer version is installed and the
 * server switched to it, the user's edits kept; the old version's folder stays, as the previous install
 * an update that does not start goes back to.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import type { Started } from '../support/processes.js';
import { callApi, startNpmFixture, startRegistryFixture, startRegistryHub } from '../support/registry-hub.js';

let registry: Started & { url: string };
let npm: Started & { url: string };
let dir: string;
let app: AppHub | undefined;

const start = () => startRegistryHub({ dir, registryUrl: registry.url, env: { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined } });

beforeAll(async () => {
  registry = await startRegistryFixture();
  npm = await startNpmFixture('airtable-mcp-server@1.7.3');
  dir = await mkdtemp(join(tmpdir(), 'spillway-update-old-'));
  app = await start();
}, 120_000);
afterAll(async () => {
  await app?.hub.stop();
  await registry?.stop();
  await npm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('Update keeps the edits, and the old version as the previous install', async () => {
  const add = await callApi<{ id: string }>(app!, 'registry.add', {
    name: 'io.github.domdomegg/airtable-mcp-server',
    package: 0,
    values: { 'env:AIRTABLE_API_KEY': 'patXYZ' },
  });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  const saved = async () => JSON.parse(await readFile(join(dir, 'data', 'config.json'), 'utf8')).servers[id];
  const before = await saved();
  const edited = { ...before, args: [...before.args, '--my-flag'], label: 'My Airtable' };
  expect(await callApi(app!, 'upstreams.update', { id, config: edited })).toMatchObject({ ok: true });

  await fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer: true }) });
  expect(await callApi(app!, 'registry.update', { id })).toMatchObject({ ok: true, value: { updated: true, previous: '1.7.3', version: '1.7.4' } });
  const after = await saved();
  expect(after.args.slice(1)).toEqual(edited.args.slice(1));
  expect(after.label).toBe('My Airtable');
  const packages = join(dir, 'data', 'packages');
  expect(existsSync(join(packages, 'airtable-mcp-server@1.7.4'))).toBe(true);
  expect(existsSync(join(packages, 'airtable-mcp-server@1.7.3'))).toBe(true);

  // The version the update replaced is kept as the previous install, so the server can go back to it
  // (registry-update-rollback.test.ts follows it through the next start).
}, 120_000);
