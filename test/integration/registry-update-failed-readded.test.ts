/**
 * A version an Update went back from is not offered again to that server (audit s20): a server removed
 * and added again from the catalog under the same id is a new server, and starts afresh. The version is
 * offered to it (after the user fixed what made it fail, removing and adding the server is the way to
 * try it again), and no record of the removed one's update is left for the next start to act on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { callApi, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';
const add = { id: 'again', name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } };

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-failed-readded-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

const record = async (name: string) => JSON.parse(await readFile(join(h.dataDir, `packages-${name}.json`), 'utf8').catch(() => '{}'));

it('a server removed and added again under its id is offered the version its update went back from', async () => {
  expect(await callApi(h.app, 'registry.add', add)).toMatchObject({ ok: true, value: { id: 'again' } });
  await waitForStatus(h.app, 'again', 'ready');
  await placePackage(h.packages, 'airtable-mcp-server', '1.7.4', 'console.error("boom: this release is broken"); process.exit(1);\n');
  await h.offerNewer(true);
  await expect(h.handlers()['registry.update']!({ id: 'again' })).rejects.toMatchObject({ message: expect.stringMatching(/went back to 1\.7\.3/) });
  expect(await record('failed')).toEqual({ again: 'airtable-mcp-server@1.7.4' });
  expect(await callApi(h.app, 'registry.installed', { id: 'again' })).toMatchObject({
    ok: true,
    value: { updateAvailable: false, notice: expect.stringMatching(/To try 1\.7\.4 anyway, remove the server and add it again\.$/) },
  });

  expect(await callApi(h.app, 'upstreams.remove', { id: 'again' })).toMatchObject({ ok: true, value: { removed: true } });
  expect(await callApi(h.app, 'registry.add', add)).toMatchObject({ ok: true, value: { id: 'again' } });
  expect(await callApi(h.app, 'registry.installed', { id: 'again' })).toMatchObject({
    ok: true,
    value: { version: '1.7.3', latest: '1.7.4', updateAvailable: true },
  });
  expect(await record('failed')).toEqual({});
}, 120_000);
