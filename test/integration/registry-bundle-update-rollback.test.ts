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
import { fixture } from '../support/hub-harness.js';
import { buildFixtureBundle, sha256 } from '../support/mcpb-bundle.js';
import { callApi, nextHubEvent, waitForStatus } from '../support/registry-hub.js';
import { startUpdateHub, type UpdateHub } from '../support/update-hub.js';

const NAME = 'io.github.spillway-tests/fixture-bundle';
/** Where the bundles are built (the hub's own temp folder is the helper's). */
let work: string;
let registry: Server;
let base: string;
let h: UpdateHub;
const files = new Map<string, Buffer>();
let entry: unknown;

const folder = (version: string) => join(h.dataDir, 'bundles', `${NAME.replace('/', '+')}@${version}`);

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

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-bundle-rollback-'));
  // A variable holding a path into the bundle's folder, which the switch and the switch back both move.
  const env = { FIXTURE_GREETING: '${user_config.greeting}', FIXTURE_DATA: '${__dirname}/data' };
  files.set('fixture-1.0.mcpb', await buildFixtureBundle(work, { env }));
  const crash = join(work, 'crash-server.mjs');
  await writeFile(crash, 'console.error("boom: this bundle is broken"); process.exit(1);\n');
  files.set('fixture-1.1.mcpb', await buildFixtureBundle(work, { version: '1.1.0', env, entry: relative(fixture(''), crash) }));
  files.set('fixture-1.2.mcpb', await buildFixtureBundle(work, { version: '1.2.0', env, entry: relative(fixture(''), crash) }));
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
  h = await startUpdateHub({ prefix: 'spillway-bundle-rollback-', registryUrl: base });
}, 120_000);
afterAll(async () => {
  await h?.stop();
  registry?.closeAllConnections();
  await new Promise((ok) => registry?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

it('an update to a bundle that does not start goes back to the bundle the server ran, its paths moved back', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { name: NAME, package: 0 });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(h.app, id, 'ready');
  const before = h.app.hub.config.servers[id];
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));

  entry = entryOf('1.1.0', 'fixture-1.1.mcpb');
  await expect(h.handlers()['registry.update']!({ id })).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(
      /^Version 1\.1\.0 of io\.github\.spillway-tests\/fixture-bundle did not start \(.*boom.*\); Spillway went back to 1\.0\.0\./s,
    ),
  });
  expect(h.app.hub.config.servers[id]).toEqual(before);
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));
  h.app.hub.pool.get(id)?.wake();
  await waitForStatus(h.app, id, 'ready');
  expect(existsSync(join(folder('1.0.0'), 'manifest.json'))).toBe(true);
  expect(existsSync(folder('1.1.0'))).toBe(false);
  // The version that did not start is not offered to this server again (audit s20).
  expect(await callApi(h.app, 'registry.installed', { id })).toMatchObject({
    ok: true,
    value: { version: '1.0.0', latest: '1.1.0', updateAvailable: false, notice: expect.stringMatching(/^Version 1\.1\.0 did not start/) },
  });
  expect(await callApi(h.app, 'registry.update', { id })).toMatchObject({ ok: true, value: { updated: false, version: '1.0.0' } });
  expect(existsSync(folder('1.1.0'))).toBe(false);
}, 120_000);

it('a hub stopped while the Update waits for a bundle goes back at its next start, its paths moved back', async () => {
  const id = Object.keys(h.app.hub.config.servers)[0]!;
  const before = h.app.hub.config.servers[id];
  entry = entryOf('1.2.0', 'fixture-1.2.mcpb');
  const failed = nextHubEvent(h.app, (e) => e.type === 'upstream.status' && e.server === id && e.status === 'error', `${id} failing`);
  const update = Promise.resolve(h.handlers()['registry.update']!({ id }));
  update.catch(() => undefined);
  await failed;
  await h.app.hub.stop();
  await expect(update).rejects.toMatchObject({ message: expect.stringMatching(/not confirmed/) });
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.2.0'), 'data'));

  const app = await h.restart();
  const back = () => JSON.stringify(app.hub.config.servers[id]) === JSON.stringify(before);
  if (!back()) await nextHubEvent(app, (e) => e.type === 'upstream.status' && e.server === id && back(), `${id} back on 1.0.0`);
  expect(await app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));
  expect(await callApi(app, 'registry.installed', { id })).toMatchObject({ ok: true, value: { version: '1.0.0', updateAvailable: false } });
  app.hub.pool.get(id)?.wake();
  await waitForStatus(app, id, 'ready');
}, 120_000);
