/**
 * npm servers without Node (issue 16): a catalog entry from the shared registry fixture is installed from
 * the local npm registry fixture (a real MCP server package, server-memory, published there under the
 * entry's name, with its whole dependency tree) into the data folder, with no node or npx on the hub's
 * PATH, and runs with the hub's own runtime. A checksum mismatch leaves nothing behind; an interrupted
 * install is cleaned at the next start; Update switches to the registry's newer version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { OWN_RUNTIME_COMMAND } from '../../electron/core/registry/install/own-runtime.js';
import { fixture, ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { callApi, hubToolNames, nextHubEvent, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

const REGISTRY_FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');
const AIRTABLE = 'io.github.domdomegg/airtable-mcp-server';

let registry: Started & { url: string };
let npm: Started & { url: string };
let app: AppHub;
let dir: string;
let dataDir: string;
const packages = () => join(dataDir, 'packages');
const api = <T>(method: string, body: unknown = {}) => callApi<T>(app, method, body);
const toolNames = () => hubToolNames(app, 'registry-install-test');

const setNpmFixture = (change: { corrupt?: boolean; newer?: boolean }) =>
  fetch(`${npm.url}/-/fixture`, { method: 'POST', body: JSON.stringify(change) }).then((r) => r.json());

beforeAll(async () => {
  const started = await spawnUntil(process.execPath, [REGISTRY_FIXTURE, '--port', '0'], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  registry = { ...started, url: started.match[1] };
  const npmStarted = await spawnUntil(
    process.execPath,
    [fixture('npm-registry-fixture.mjs'), '--port', '0', '--as', 'airtable-mcp-server@1.7.3'],
    /NPM-REGISTRY-FIXTURE (http:\/\/\S+)/,
  );
  npm = { ...npmStarted, url: npmStarted.match[1] };

  dir = await mkdtemp(join(tmpdir(), 'spillway-install-'));
  dataDir = join(dir, 'data');
  // What an install interrupted half-way left in the data folder before this start.
  await mkdir(join(dataDir, 'packages', '.installing-interrupted', 'node_modules'), { recursive: true });
  await writeFile(join(dataDir, 'packages', '.installing-interrupted', 'package.json'), '{}');
  app = await startRegistryHub({ dir, registryUrl: registry.url, env: { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined } });
}, 60_000);

afterAll(async () => {
  await app?.hub.stop();
  await npm?.stop();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm packages installed into the data folder', () => {
  it('an install interrupted before this start was cleaned as the hub started', () => {
    expect(existsSync(join(packages(), '.installing-interrupted'))).toBe(false);
  });

  it('the detail page says the package is installed and run with the app’s own runtime, no runtime to find', async () => {
    const r = await api<{ options: { summary: string; runtime?: unknown; installs?: unknown }[] }>('registry.get', { name: AIRTABLE });
    expect(r.ok).toBe(true);
    expect(r.value!.options[0].summary).toBe(
      "Installs airtable-mcp-server 1.7.3 into Spillway's data folder and runs it on this computer with Spillway's own runtime (Node.js is not needed), with the variable AIRTABLE_API_KEY (secret) set.",
    );
    expect(r.value!.options[0].runtime).toBeUndefined();
    expect(r.value!.options[0]).toMatchObject({ installs: { name: 'airtable-mcp-server', version: '1.7.3' } });
  });

  it('a checksum mismatch is refused in plain words, nothing left behind and nothing added', async () => {
    await setNpmFixture({ corrupt: true });
    try {
      const r = await api('registry.add', { name: AIRTABLE, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patSECRET-1' } });
      expect(r).toMatchObject({
        ok: false,
        code: 'unavailable',
        message: expect.stringMatching(/did not match its checksum.*Nothing was installed/),
      });
      expect((await readdir(packages())).filter((n) => !n.startsWith('.npm-cache'))).toEqual([]);
      expect(Object.keys(app.hub.config.servers)).toEqual([]);
    } finally {
      await setNpmFixture({ corrupt: false });
    }
  }, 120_000);

  it('adds the entry: installed into the data folder, started with the hub’s own runtime, its tools listed', async () => {
    const installing = nextHubEvent(app, (e) => e.type === 'log' && e.message.startsWith('Installing airtable-mcp-server 1.7.3'), 'installing');
    const r = await api<{ id: string; installed: { name: string; version: string }; secrets: string }>('registry.add', {
      name: AIRTABLE,
      package: 0,
      values: { 'env:AIRTABLE_API_KEY': 'patSECRET-2' },
    });
    expect(r.ok).toBe(true);
    await installing;
    expect(r.value).toMatchObject({ id: 'airtable-mcp-server', installed: { name: 'airtable-mcp-server', version: '1.7.3' } });
    const folder = join(packages(), 'airtable-mcp-server@1.7.3');
    expect(existsSync(join(folder, 'node_modules', 'airtable-mcp-server', 'package.json'))).toBe(true);
    expect(existsSync(join(folder, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))).toBe(true);

    const onDisk = JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8'));
    const saved = onDisk.servers['airtable-mcp-server'];
    // The hub's own executable as Node, by its name (every env value goes to the secret store; config.json holds a reference).
    expect(saved).toMatchObject({ type: 'stdio', command: OWN_RUNTIME_COMMAND, env: { ELECTRON_RUN_AS_NODE: expect.any(String) } });
    expect(saved.args[0].startsWith(join(folder, 'node_modules', 'airtable-mcp-server'))).toBe(true);
    expect(JSON.stringify(onDisk)).not.toContain('patSECRET-2');

    await waitForStatus(app, 'airtable-mcp-server', 'ready');
    expect((await toolNames()).some((n) => n.endsWith('create_entities'))).toBe(true);
    const installed = await api('registry.installed', { id: 'airtable-mcp-server' });
    expect(installed.value).toEqual({ name: 'airtable-mcp-server', version: '1.7.3', latest: '1.7.3', updateAvailable: false });
    const detail = await api<{ options: { installed?: unknown }[] }>('registry.get', { name: AIRTABLE });
    expect(detail.value!.options[0].installed).toEqual([{ id: 'airtable-mcp-server', version: '1.7.3' }]);
  }, 120_000);

  it('Update: the newer version is installed, the server switched to it, the old folder kept until the next start', async () => {
    await setNpmFixture({ newer: true });
    const before = await api('registry.installed', { id: 'airtable-mcp-server' });
    expect(before.value).toMatchObject({ version: '1.7.3', latest: '1.7.4', updateAvailable: true });

    const installing = nextHubEvent(app, (e) => e.type === 'log' && e.message.startsWith('Installing airtable-mcp-server 1.7.4'), 'installing');
    const updating = api('registry.update', { id: 'airtable-mcp-server' });
    // A change made while the new version downloads is kept: the update replaces only the program.
    await installing;
    expect(await api('policies.setServer', { server: 'airtable-mcp-server', policy: { timeoutMs: 4321 } })).toMatchObject({ ok: true });
    const r = await updating;
    expect(app.hub.config.servers['airtable-mcp-server']).toMatchObject({ timeoutMs: 4321 });
    expect(r).toEqual({
      ok: true,
      value: { id: 'airtable-mcp-server', name: 'airtable-mcp-server', version: '1.7.4', previous: '1.7.3', updated: true },
    });
    expect((await readdir(packages())).filter((n) => !n.startsWith('.npm-cache'))).toEqual([
      'airtable-mcp-server@1.7.3',
      'airtable-mcp-server@1.7.4',
    ]);
    expect(app.hub.config.servers['airtable-mcp-server']).toMatchObject({
      args: [join(packages(), 'airtable-mcp-server@1.7.4', 'node_modules', 'airtable-mcp-server', 'dist', 'index.js')],
    });
    await waitForStatus(app, 'airtable-mcp-server', 'ready');
    expect((await toolNames()).some((n) => n.endsWith('create_entities'))).toBe(true);
    expect((await api('registry.installed', { id: 'airtable-mcp-server' })).value).toMatchObject({ version: '1.7.4', updateAvailable: false });
    expect(await api('registry.update', { id: 'airtable-mcp-server' })).toMatchObject({ ok: true, value: { updated: false } });
  }, 120_000);

  it('a server that runs no installed package has nothing to update', async () => {
    expect(await api('registry.update', { id: 'nothing-here' })).toMatchObject({ ok: false, code: 'not_found' });
  });
});
