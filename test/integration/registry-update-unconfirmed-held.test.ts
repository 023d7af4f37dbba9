/**
 * The start-time switch back of an update not confirmed before the hub stopped (confirmAtStart, audit
 * s20) is one switch of the server, as an Update and a Go back are: while it switches, a Go back of the
 * server is refused (conflict), and the records end as the switch back leaves them (the version that did
 * not start is not offered again, nothing further back is kept).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import { NpmInstaller } from '../../electron/core/registry/install/npm-installer.js';
import { callApi, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';
const BROKEN = 'console.error("boom: this release is broken"); process.exit(1);\n';
const id = 'held-back';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-unconfirmed-held-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

const record = async (name: string) => JSON.parse(await readFile(join(h.dataDir, `packages-${name}.json`), 'utf8').catch(() => '{}'));
const folder = (version: string) => join(h.packages, `airtable-mcp-server@${version}`);

it('while the start-time switch back of an unconfirmed update runs, Go back is refused; the records end as it leaves them', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { id, name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  await waitForStatus(h.app, id, 'ready');
  await h.offerNewer(true);
  // As a hub stopped before it saw the Update to a broken 1.7.4 start leaves it: switched, and recorded unconfirmed.
  await placePackage(h.packages, 'airtable-mcp-server', '1.7.4', BROKEN);
  const records = new NpmInstaller({ dataDir: h.dataDir, registry: () => h.npmUrl });
  await records.previous.set(id, folder('1.7.3'));
  await records.unconfirmed.set(id, folder('1.7.4'));
  const script = join(folder('1.7.4'), 'node_modules', 'airtable-mcp-server', 'dist', 'index.js');
  await h.app.control.updateUpstream({
    id,
    change: (current) => (current.type === 'stdio' ? { ...current, args: [script, ...current.args.slice(1)] } : current),
  });

  // The registry methods as a hub of the data folder's own config makes them at its start (so confirmAtStart
  // runs), with a switch of this server held until `gate` opens.
  const app = h.app;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const switching = new Promise<void>((resolve) => (entered = resolve));
  let noticed!: (message: string) => void;
  const notice = new Promise<string>((resolve) => (noticed = resolve));
  const registry = appRegistryHandlers({
    paths: { dataDir: h.dataDir, configFile: join(h.dataDir, 'config.json') },
    platform: process.platform,
    env: { npm_config_registry: h.npmUrl },
    serverPath: () => app.hub.serverPath.current({ reread: true }),
    settings: () => app.hub.settings,
    addUpstream: (req) => app.control.addUpstream(req),
    secrets: registrySecretStore(app.hub.secretStore),
    upstreamConfigs: () => app.hub.config.servers,
    updateUpstream: async (req) => {
      if (req.id === id) {
        entered();
        await gate;
      }
      return app.control.updateUpstream(req);
    },
    startOutcome: serverStartOutcome(app.hub),
    onNotice: noticed,
  });

  // 1.7.4 did not start: the switch back has begun (its records set) and is held.
  await switching;
  expect(await record('failed')).toEqual({ [id]: 'airtable-mcp-server@1.7.4' });
  await expect(Promise.resolve(registry['registry.goBack']!({ id }))).rejects.toMatchObject({
    code: 'conflict',
    message: expect.stringMatching(/is being updated: wait for that update to finish/),
  });
  open();
  expect(await notice).toMatch(/Version 1\.7\.4 of airtable-mcp-server did not start .*; Spillway went back to 1\.7\.3\./s);
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.3');
  expect(await record('failed')).toEqual({ [id]: 'airtable-mcp-server@1.7.4' });
  expect(await record('unconfirmed')).toEqual({});
  expect(await record('previous')).toEqual({});
  // Released: Go back is refused for what it is (nothing kept), and the version that did not start is not offered again.
  await expect(Promise.resolve(registry['registry.goBack']!({ id }))).rejects.toMatchObject({ code: 'invalid' });
  expect(await callApi(app, 'registry.installed', { id })).toMatchObject({ ok: true, value: { version: '1.7.3', updateAvailable: false } });
}, 180_000);
