/**
 * Browsing offline after a visit, through the control API of a real in-process hub as the window calls
 * it, against the shared registry fixture run from its own folder, then stopped. An entry opened by
 * `latest` has its form and Add (which ask for the version the page shows) served from the answer kept
 * for `latest`. A word never searched online is looked for in the list pages kept (and in the servers
 * that come with Spillway), said to be from the cache and when.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { callApi, startRegistryHub } from '../support/registry-hub.js';

const FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');
const NEON = 'com.neon/mcp';

interface Cached {
  at: string;
  notice: string;
  builtIn?: boolean;
}

let registry: Started;
let app: AppHub;
let dir: string;
const api = <T>(method: string, body: unknown = {}) => callApi<T & { cached?: Cached }>(app, method, body);

beforeAll(async () => {
  registry = await spawnUntil(process.execPath, [FIXTURE, '--port', '0'], /REGISTRY-FIXTURE (http:\/\/\S+)/, { cwd: join(FIXTURE, '..') });
  dir = await mkdtemp(join(tmpdir(), 'spillway-registry-offline-'));
  app = await startRegistryHub({ dir, registryUrl: registry.match[1] });
  // A visit: the list, one word, the Neon page opened from the list (by `latest`) with its versions.
  for (const [method, body] of [
    ['registry.search', {}],
    ['registry.search', { query: 'airtable' }],
    ['registry.get', { name: NEON }],
    ['registry.versions', { name: NEON }],
  ] as const) {
    const answer = await api(method, body);
    expect(answer.ok, `${method} online`).toBe(true);
    expect(answer.value!.cached).toBeUndefined();
  }
  await registry.stop();
}, 60_000);

afterAll(async () => {
  await app?.hub.stop();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('an entry opened before, offline', () => {
  it('opened by latest: its form and Add for the version shown work from the cache', async () => {
    const page = await api<{ server: { version: string } }>('registry.get', { name: NEON });
    expect(page.value!.cached).toBeDefined();
    const version = page.value!.server.version;
    const form = await api<{ fields: { key: string }[] }>('registry.form', { name: NEON, version, remote: 0 });
    expect(form).toMatchObject({ ok: true });
    expect(form.value!.fields.map((f) => f.key)).toEqual(['header:Authorization', 'header:x-read-only']);
    const add = await api<{ id: string }>('registry.add', { name: NEON, version, remote: 0, values: {} });
    expect(add).toMatchObject({ ok: true, value: { id: 'neon' } });
  });
});

describe('searching offline for a word never searched online', () => {
  it('finds it in the list pages kept, said to be from the cache and when', async () => {
    const found = await api<{ servers: { name: string }[] }>('registry.search', { query: 'time' });
    expect(found.ok).toBe(true);
    expect(found.value!.servers.map((s) => s.name)).toEqual(['io.github.domdomegg/time-mcp-nuget', 'io.github.domdomegg/time-mcp-pypi']);
    expect(found.value!.cached!.builtIn).toBeUndefined();
    expect(found.value!.cached!.notice).toMatch(
      /^Cached, from today at \d\d:\d\d: Could not reach the registry at .*\. Showing the matches among the servers kept from earlier visits and those that come with Spillway\.$/,
    );
  });

  it('the servers that come with Spillway are searched too, after the kept ones', async () => {
    const both = await api<{ servers: { name: string }[] }>('registry.search', { query: 'memory' });
    expect(both.value!.servers.map((s) => s.name)).toEqual(['io.github.0spoon/seamless', 'io.github.modelcontextprotocol/server-memory']);
    expect(both.value!.cached!.builtIn).toBeUndefined();
  });

  it('words in no kept page search only the servers that come with Spillway, said so', async () => {
    const builtIn = await api<{ servers: { name: string }[] }>('registry.search', { query: 'filesystem' });
    expect(builtIn.value!.servers.map((s) => s.name)).toEqual(['io.github.modelcontextprotocol/server-filesystem']);
    expect(builtIn.value!.cached!.builtIn).toBe(true);
  });
});
