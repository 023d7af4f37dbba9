/**
 * Going back from an Update that started (registry.goBack): the server runs the version it ran before,
 * from its kept folder, settings and secret kept; the record of the previous install goes (nothing is
 * further back) and the newer version is offered as an Update again. Refused, with the next step, when
 * nothing is kept, while an Update of the server switches, and when the server was changed since.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome, type StartWatch } from '../../electron/core/control/registry-update.js';
import { callApi, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';
const id = 'airtable-back';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-go-back-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

const previousRecord = async () => JSON.parse(await readFile(join(h.dataDir, 'packages-previous.json'), 'utf8').catch(() => '{}'));
const folder = (version: string) => join(h.packages, `airtable-mcp-server@${version}`);

/** The registry methods as update-hub.ts makes them, with a start watch that waits for `gate` first (an Update held while it switches). */
function heldHandlers(gate: Promise<void>, entered: () => void) {
  const app = h.app;
  const watch = serverStartOutcome(app.hub);
  const startOutcome: StartWatch = async (...args) => {
    entered();
    await gate;
    return watch(...args);
  };
  return appRegistryHandlers({
    paths: { dataDir: h.dataDir, configFile: join(h.dir, 'not-the-hub-config.json') },
    platform: process.platform,
    env: { npm_config_registry: h.npmUrl },
    serverPath: () => app.hub.serverPath.current({ reread: true }),
    settings: () => app.hub.settings,
    addUpstream: (req) => app.control.addUpstream(req),
    secrets: registrySecretStore(app.hub.secretStore),
    upstreamConfigs: () => app.hub.config.servers,
    updateUpstream: (req) => app.control.updateUpstream(req),
    startOutcome,
  });
}

it('before any Update there is nothing to go back to: refused with the next step', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { id, name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  await waitForStatus(h.app, id, 'ready');
  const installed = await callApi<Record<string, unknown>>(h.app, 'registry.installed', { id });
  expect(installed).toMatchObject({ ok: true, value: { version: '1.7.3' } });
  expect(installed.value).not.toHaveProperty('previous');
  expect(await callApi(h.app, 'registry.goBack', { id })).toMatchObject({
    ok: false,
    code: 'invalid',
    message: expect.stringMatching(/has no earlier version of airtable-mcp-server kept.*remove the server and add it again, choosing that version/),
  });
  expect(await callApi(h.app, 'registry.goBack', { id: 'nothing-here' })).toMatchObject({ ok: false, code: 'not_found' });
}, 120_000);

it('while an Update of the server switches, going back is refused; once it started, the way back is offered', async () => {
  await h.offerNewer(true);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const switching = new Promise<void>((resolve) => (entered = resolve));
  const registry = heldHandlers(gate, entered);
  const update = Promise.resolve(registry['registry.update']!({ id }));
  await switching;
  await expect(Promise.resolve(registry['registry.goBack']!({ id }))).rejects.toMatchObject({
    code: 'conflict',
    message: expect.stringMatching(/is being updated: wait for that update to finish/),
  });
  open();
  await expect(update).resolves.toMatchObject({ updated: true, previous: '1.7.3', version: '1.7.4' });
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
  expect(await callApi(h.app, 'registry.installed', { id })).toMatchObject({
    ok: true,
    value: { version: '1.7.4', latest: '1.7.4', updateAvailable: false, previous: '1.7.3' },
  });
}, 120_000);

it('goBack runs the version before again from its kept folder, settings kept, and the Update is offered again', async () => {
  const before = await h.saved(id);
  const back = await callApi(h.app, 'registry.goBack', { id });
  expect(back).toEqual({ ok: true, value: { id, name: 'airtable-mcp-server', version: '1.7.3', previous: '1.7.4' } });
  const after = await h.saved(id);
  expect(after.args[0]!.startsWith(folder('1.7.3'))).toBe(true);
  expect({ ...after, args: after.args.slice(1) }).toEqual({ ...before, args: before.args.slice(1) });
  expect(await h.app.hub.secretStore.get(id, 'env:AIRTABLE_API_KEY')).toBe('patXYZ');
  h.app.hub.pool.get(id)?.wake();
  await waitForStatus(h.app, id, 'ready');
  // Nothing further back; no server runs 1.7.4 now, so its folder goes (an Update installs it again).
  expect(await previousRecord()).toEqual({});
  expect(existsSync(folder('1.7.4'))).toBe(false);
  const installed = await callApi<Record<string, unknown>>(h.app, 'registry.installed', { id });
  expect(installed).toMatchObject({ ok: true, value: { version: '1.7.3', latest: '1.7.4', updateAvailable: true } });
  expect(installed.value).not.toHaveProperty('previous');
  expect(installed.value).not.toHaveProperty('notice');
  expect(await callApi(h.app, 'registry.goBack', { id })).toMatchObject({
    ok: false,
    code: 'invalid',
    message: expect.stringMatching(/no earlier version/),
  });
  // The user chose to go back: 1.7.4 is not barred, and its Update works again.
  await expect(h.handlers()['registry.update']!({ id })).resolves.toMatchObject({ updated: true, version: '1.7.4' });
  expect(await previousRecord()).toEqual({ [id]: folder('1.7.3') });
}, 120_000);

it('a server changed since its Update to run another package is not switched back', async () => {
  await placePackage(h.packages, 'other-mcp-server', '1.0.0', 'console.error("other"); process.exit(1);\n');
  const script = join(h.packages, 'other-mcp-server@1.0.0', 'node_modules', 'other-mcp-server', 'dist', 'index.js');
  await h.app.control.updateUpstream({
    id,
    change: (current) => (current.type === 'stdio' ? { ...current, args: [script, ...current.args.slice(1)] } : current),
  });
  const installed = await callApi<Record<string, unknown>>(h.app, 'registry.installed', { id });
  expect(installed).toMatchObject({ ok: true, value: { name: 'other-mcp-server' } });
  expect(installed.value).not.toHaveProperty('previous');
  expect(await callApi(h.app, 'registry.goBack', { id })).toMatchObject({
    ok: false,
    code: 'conflict',
    message: expect.stringMatching(/was changed since its last Update and now runs other-mcp-server 1\.0\.0.*back to 1\.7\.3/),
  });
  expect((await h.saved(id)).args[0]).toBe(script);
}, 120_000);
