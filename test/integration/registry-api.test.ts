/**
 * The registry methods of the control API (issue 16) against the shared registry fixture, run as a real
 * process from its own folder (never the network): search with paging and malformed items skipped and
 * counted, the detail page, the form, adding an entry through the path upstreams.add takes (secrets out
 * of config.json), a missing runtime refused with the next step, and cached answers with a notice when
 * the registry is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RegistryOption, RegistryServer } from '../../shared/api-registry.js';
import { ControlDispatcher } from '../../electron/core/control/control-handlers.js';
import { registryHandlers, type RegistrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { RegistryCatalog } from '../../electron/core/registry/registry-catalog.js';
import { ROOT, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');

async function startRegistry(...flags: string[]): Promise<Started & { url: string }> {
  const started = await spawnUntil(process.execPath, [FIXTURE, '--port', '0', ...flags], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  return { ...started, url: started.match[1] };
}

type Page = { servers: RegistryServer[]; nextCursor?: string; skipped: number; cached?: { at: string; notice: string } };

let registry: Started & { url: string };
let hub: TestHub;

beforeAll(async () => {
  registry = await startRegistry('--malformed', '--page-size', '5');
  hub = await startTestHub({ version: 1, settings: { registryUrl: registry.url } });
});
afterAll(async () => {
  await hub?.stop();
  await registry?.stop();
});

describe('registry.search', () => {
  it('pages through the latest versions; malformed items are skipped and counted, never shown', async () => {
    const first = await hub.api<Page>('registry.search', {});
    expect(first.ok).toBe(true);
    expect(first.value!.skipped).toBe(3);
    expect(first.value!.servers).toHaveLength(5);
    expect(first.value!.nextCursor).toBeTruthy();
    const names = first.value!.servers.map((s) => s.name);
    let cursor = first.value!.nextCursor;
    while (cursor) {
      const page = await hub.api<Page>('registry.search', { cursor });
      expect(page.ok).toBe(true);
      expect(page.value!.skipped).toBe(0);
      names.push(...page.value!.servers.map((s) => s.name));
      cursor = page.value!.nextCursor;
    }
    // 20 servers, one latest version each (polymarket's deleted 0.1.0 is hidden).
    expect(names).toHaveLength(20);
    expect(new Set(names).size).toBe(20);
    expect(names).not.toContain('io.github.registry-fixture/bad-packages-type');
  });

  it('searches names, and lists what each entry is (kinds, icon, repository)', async () => {
    const r = await hub.api<Page>('registry.search', { query: 'context7' });
    expect(r.value!.servers).toEqual([
      {
        name: 'io.github.upstash/context7',
        version: '2.0.0',
        title: 'Context7',
        description: 'Up-to-date code docs for any prompt',
        icon: { src: 'https://raw.githubusercontent.com/upstash/context7/master/public/icon.png', mimeType: 'image/png' },
        websiteUrl: 'https://context7.com',
        repository: 'https://github.com/upstash/context7',
        kinds: ['npm', 'mcpb', 'remote'],
        status: 'active',
      },
    ]);
  });

  it('the registry URL is a setting, checked with the field named', async () => {
    const r = await hub.api('settings.set', { registryUrl: 'ftp://registry.example' });
    expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'registryUrl' });
    expect((await hub.api<{ registryUrl: string }>('settings.get')).value!.registryUrl).toBe(registry.url);
  });
});

describe('registry.get and registry.form', () => {
  it('the detail page says exactly what each option runs or connects to', async () => {
    const r = await hub.api<{ server: RegistryServer; options: RegistryOption[] }>('registry.get', {
      name: 'io.github.domdomegg/airtable-mcp-server',
    });
    expect(r.ok).toBe(true);
    expect(r.value!.server.version).toBe('1.7.3');
    const [npm, oci, mcpb] = r.value!.options;
    expect(npm).toMatchObject({
      kind: 'package',
      index: 0,
      label: 'npm package airtable-mcp-server 1.7.3',
      supported: true,
      // The app installs npm packages into its data folder and runs them itself (registry-install.test.ts).
      summary:
        "Installs airtable-mcp-server 1.7.3 into Spillway's data folder and runs it on this computer with Spillway's own runtime (Node.js is not needed), with the variable AIRTABLE_API_KEY (secret) set.",
    });
    expect(npm.runtime).toBeUndefined();
    expect(oci.summary).toContain('docker run -i --rm -e AIRTABLE_API_KEY docker.io/domdomegg/airtable-mcp-server:1.7.3');
    // Bundles are downloaded and run by the app itself (registry-mcpb-add.test.ts).
    expect(mcpb).toMatchObject({
      supported: true,
      summary:
        "Downloads airtable-mcp-server.mcpb (checked against its published SHA-256) into Spillway's data folder and runs the command its manifest names; the form shows that command before anything runs.",
    });
    expect(mcpb.runtime).toBeUndefined();
  });

  it('registry.versions lists every published version, newest first, the latest marked (the version picker)', async () => {
    const r = await hub.api<{ versions: { version: string; latest: boolean; status?: string }[] }>('registry.versions', {
      name: 'io.github.domdomegg/airtable-mcp-server',
    });
    expect(r.ok).toBe(true);
    expect(r.value!.versions.map((v) => [v.version, v.latest])).toEqual([
      ['1.7.3', true],
      ['1.7.2', false],
    ]);
    const older = await hub.api<{ server: RegistryServer; options: RegistryOption[] }>('registry.get', {
      name: 'io.github.domdomegg/airtable-mcp-server',
      version: '1.7.2',
    });
    expect(older.value!.options[0].label).toBe('npm package airtable-mcp-server 1.7.2');
    expect(await hub.api('registry.versions', { name: 'io.github.nobody/nothing' })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('an older version by number; an unknown server is not_found in plain words', async () => {
    const old = await hub.api<{ server: RegistryServer }>('registry.get', { name: 'com.neon/mcp', version: '0.8.0' });
    expect(old.value!.server.version).toBe('0.8.0');
    const missing = await hub.api('registry.get', { name: 'io.github.nobody/nothing' });
    expect(missing).toMatchObject({
      ok: false,
      code: 'not_found',
      message: expect.stringContaining('The registry has no server "io.github.nobody/nothing"'),
    });
  });

  it('the form of a remote with a secret header', async () => {
    const r = await hub.api<{ option: RegistryOption; fields: { key: string; secret: boolean }[] }>('registry.form', {
      name: 'com.neon/mcp',
      remote: 0,
    });
    expect(r.value!.option.summary).toBe('Connects to https://mcp.neon.tech/mcp over Streamable HTTP, sending the header x-read-only.');
    expect(r.value!.fields.map((f) => [f.key, f.secret])).toEqual([
      ['header:Authorization', true],
      ['header:x-read-only', false],
    ]);
    expect(await hub.api('registry.form', { name: 'com.neon/mcp' })).toMatchObject({ ok: false, code: 'invalid', field: 'package' });
    expect(await hub.api('registry.form', { name: 'com.neon/mcp', remote: 5 })).toMatchObject({ ok: false, code: 'not_found' });
  });
});

describe('registry.add', () => {
  const stored = new Map<string, unknown>();
  const store: RegistrySecretStore = { put: async (id, secrets) => void stored.set(id, secrets) };
  let dispatcher: ControlDispatcher;
  let emptyBin: string;

  beforeAll(async () => {
    emptyBin = await mkdtemp(join(tmpdir(), 'spillway-nobin-'));
    dispatcher = new ControlDispatcher(
      registryHandlers({
        catalog: () => new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(hub.dir, 'registry-cache') }),
        // npx and docker are "installed" where this test says; dnx is not.
        pathFacts: () => ({ path: emptyBin, platform: 'linux', isFile: (f) => f.endsWith('/npx') || f.endsWith('/docker') }),
        // Added disabled, so that nothing is downloaded and no remote is dialled: never the network in tests.
        addUpstream: (req) => hub.control.addUpstream({ ...req, config: { ...req.config, enabled: false } }),
        secrets: store,
      }),
    );
  });
  afterAll(() => rm(emptyBin, { recursive: true, force: true }));

  const config = async () => JSON.parse(await readFile(join(hub.dir, 'config.json'), 'utf8'));

  it('a remote with a secret header: an HTTP upstream, the secret in the secret store and absent from config.json', async () => {
    const r = await dispatcher.dispatch('registry.add', {
      name: 'io.github.upstash/context7',
      remote: 0,
      values: { 'header:Authorization': 'Bearer ctx7-SECRET-value' },
    });
    expect(r).toEqual({
      ok: true,
      value: {
        id: 'context7',
        summary: 'Connects to https://mcp.context7.com/mcp over Streamable HTTP, sending the header Authorization (secret).',
        secrets: 'secret-store',
      },
    });
    const onDisk = await config();
    expect(onDisk.servers.context7).toMatchObject({ type: 'http', url: 'https://mcp.context7.com/mcp', headers: {}, label: 'Context7' });
    expect(JSON.stringify(onDisk)).not.toContain('ctx7-SECRET-value');
    expect(stored.get('context7')).toEqual({ env: {}, headers: { Authorization: 'Bearer ctx7-SECRET-value' } });
  });

  it('an npm entry with a secret variable: the npx command line, the key kept apart', async () => {
    const r = await dispatcher.dispatch('registry.add', {
      name: 'io.github.domdomegg/airtable-mcp-server',
      package: 0,
      values: { 'env:AIRTABLE_API_KEY': 'patAIRTABLE-SECRET' },
    });
    expect(r).toMatchObject({ ok: true, value: { id: 'airtable-mcp-server', secrets: 'secret-store' } });
    const onDisk = await config();
    expect(onDisk.servers['airtable-mcp-server']).toMatchObject({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'airtable-mcp-server@1.7.3'],
      env: {},
    });
    expect(JSON.stringify(onDisk)).not.toContain('patAIRTABLE-SECRET');
  });

  it('refuses a form with a bad value (the field named) or a missing runtime (with the next step), changing nothing', async () => {
    const before = await readFile(join(hub.dir, 'config.json'), 'utf8');
    const bad = await dispatcher.dispatch('registry.add', {
      name: 'io.github.hashicorp/terraform-mcp-server',
      package: 0,
      values: { 'var:enabled': 'maybe' },
    });
    expect(bad).toEqual({
      ok: false,
      code: 'invalid',
      message: 'ENABLE_TF_OPERATIONS (enabled): must be true or false',
      field: 'values.var:enabled',
    });
    const missing = await dispatcher.dispatch('registry.add', { name: 'io.github.domdomegg/time-mcp-nuget', package: 0, values: {} });
    expect(missing).toMatchObject({
      ok: false,
      code: 'unavailable',
      message: expect.stringMatching(/needs the \.NET 10 SDK.*dotnet\.microsoft\.com/),
    });
    const required = await dispatcher.dispatch('registry.add', { name: 'io.github.domdomegg/airtable-mcp-server', package: 1, values: {} });
    expect(required).toMatchObject({ ok: false, code: 'invalid', field: 'values.env:AIRTABLE_API_KEY' });
    expect(await readFile(join(hub.dir, 'config.json'), 'utf8')).toBe(before);
  });
});

describe('registry down', () => {
  it('serves cached answers with a "cached, from <time>" notice; what was never cached comes from the curated list', async () => {
    // Two answers, then 503 for everything.
    const flaky = await startRegistry('--fail-after', '2');
    const cacheDir = await mkdtemp(join(tmpdir(), 'spillway-registry-cache-'));
    try {
      const catalog = new RegistryCatalog({ baseUrl: () => flaky.url, cacheDir });
      const live = await catalog.search('terraform');
      expect(live.cached).toBeUndefined();
      await catalog.get('io.github.hashicorp/terraform-mcp-server');
      expect((await readdir(cacheDir)).filter((f) => f.endsWith('.json'))).toHaveLength(2);

      const cached = await catalog.search('terraform');
      expect(cached.servers).toEqual(live.servers);
      expect(cached.cached!.notice).toMatch(
        /^Cached, from today at \d\d:\d\d: The registry at http:\/\/127\.0\.0\.1:\d+ is having trouble \(HTTP 503\)/,
      );
      expect((await catalog.get('io.github.hashicorp/terraform-mcp-server')).cached).toBeDefined();
      // Never cached: the servers that come with the app (none match here), with why the registry was not asked.
      const curated = await catalog.search('neon');
      expect(curated.servers).toEqual([]);
      expect(curated.cached!.notice).toMatch(/having trouble \(HTTP 503\).*Try again in a few minutes.*come with Spillway/);
      expect((await catalog.search('memory')).servers.map((s) => s.name)).toEqual(['io.github.modelcontextprotocol/server-memory']);
      expect((await catalog.get('io.github.modelcontextprotocol/server-filesystem')).response.server.packages![0]!.identifier).toBe(
        '@modelcontextprotocol/server-filesystem',
      );
      await expect(catalog.get('io.github.neondatabase/mcp-server-neon')).rejects.toThrow(/having trouble \(HTTP 503\)/);

      await flaky.stop();
      const offline = await catalog.search('terraform');
      expect(offline.cached!.notice).toMatch(
        /Could not reach the registry at http:\/\/127\.0\.0\.1:\d+: nothing answered at that address\. Check your internet connection/,
      );
      expect(offline.cached!.notice).not.toMatch(/ECONN/);
    } finally {
      await flaky.stop();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
