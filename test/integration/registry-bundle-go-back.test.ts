/**
 * Going back from an Update of an MCPB bundle that started (registry.goBack), as for npm packages
 * (registry-go-back.test.ts): the server runs the bundle it ran before again, from its kept folder, its
 * stored variable that holds a path into the bundle's folder moved back; the record of the previous
 * install goes, the newer bundle's folder goes, and the newer version is offered as an Update again. A
 * tiny local registry serves the entry and its bundles (real ones, test/support/mcpb-bundle.ts); each
 * bundle's server names itself after its version, so the running process shows which one runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fixture } from '../support/hub-harness.js';
import { buildFixtureBundle, sha256 } from '../support/mcpb-bundle.js';
import { callApi, waitForStatus } from '../support/registry-hub.js';
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
const previousRecord = async () => JSON.parse(await readFile(join(h.dataDir, 'bundles-previous.json'), 'utf8').catch(() => '{}'));
/** The name the running server gave itself (its bundle's version). */
const runningName = (id: string) => h.app.hub.pool.get(id)?.serverInfo?.name;

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

/** The fixture server as a bundle of `version` that names itself `fixture-<version>` (the same start for both: it switches in place). */
async function namedBundle(version: string): Promise<Buffer> {
  // Imports run in order: the name is in argv before the fixture server reads it.
  const naming = join(work, `name-${version}.mjs`);
  await writeFile(naming, `process.argv.push('--name', 'fixture-${version}');\n`);
  const server = join(work, `server-${version}.mjs`);
  await writeFile(server, `import ${JSON.stringify(naming)};\nimport ${JSON.stringify(fixture('fixture-server.mjs'))};\n`);
  const env = { FIXTURE_GREETING: '${user_config.greeting}', FIXTURE_DATA: '${__dirname}/data' };
  return buildFixtureBundle(work, { version, env, entry: relative(fixture(''), server) });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-bundle-go-back-'));
  files.set('fixture-1.0.mcpb', await namedBundle('1.0.0'));
  files.set('fixture-1.1.mcpb', await namedBundle('1.1.0'));
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
  h = await startUpdateHub({ prefix: 'spillway-bundle-go-back-', registryUrl: base });
}, 120_000);
afterAll(async () => {
  await h?.stop();
  registry?.closeAllConnections();
  await new Promise((ok) => registry?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

it('a bundle server goes back after an Update that started: the bundle before runs again from its kept folder, its paths moved back', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { name: NAME, package: 0 });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(h.app, id, 'ready');
  expect(runningName(id)).toBe('fixture-1.0.0');
  const before = h.app.hub.config.servers[id];
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));

  entry = entryOf('1.1.0', 'fixture-1.1.mcpb');
  await expect(h.handlers()['registry.update']!({ id })).resolves.toMatchObject({ updated: true, version: '1.1.0', previous: '1.0.0' });
  await waitForStatus(h.app, id, 'ready');
  expect(runningName(id)).toBe('fixture-1.1.0');
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.1.0'), 'data'));
  expect(await previousRecord()).toEqual({ [id]: folder('1.0.0') });
  expect(await callApi(h.app, 'registry.installed', { id })).toMatchObject({
    ok: true,
    value: { version: '1.1.0', latest: '1.1.0', updateAvailable: false, previous: '1.0.0' },
  });

  expect(await callApi(h.app, 'registry.goBack', { id })).toEqual({ ok: true, value: { id, name: NAME, version: '1.0.0', previous: '1.1.0' } });
  expect(h.app.hub.config.servers[id]).toEqual(before);
  expect(await h.app.hub.secretStore.get(id, 'env:FIXTURE_DATA')).toBe(join(folder('1.0.0'), 'data'));
  h.app.hub.pool.get(id)?.wake();
  await waitForStatus(h.app, id, 'ready');
  expect(runningName(id)).toBe('fixture-1.0.0');
  // Nothing further back; no server runs 1.1.0 now, so its folder goes (an Update installs it again).
  expect(await previousRecord()).toEqual({});
  expect(existsSync(join(folder('1.0.0'), 'manifest.json'))).toBe(true);
  expect(existsSync(folder('1.1.0'))).toBe(false);
  const installed = await callApi<Record<string, unknown>>(h.app, 'registry.installed', { id });
  expect(installed).toMatchObject({ ok: true, value: { version: '1.0.0', latest: '1.1.0', updateAvailable: true } });
  expect(installed.value).not.toHaveProperty('previous');
  expect(installed.value).not.toHaveProperty('notice');
  expect(await callApi(h.app, 'registry.goBack', { id })).toMatchObject({
    ok: false,
    code: 'invalid',
    message: expect.stringMatching(/no earlier version/),
  });
}, 120_000);
