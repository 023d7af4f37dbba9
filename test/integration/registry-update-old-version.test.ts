/**
 * Update of an npm server added from the catalog (audit s15): the newer version is installed and the
 * server switched to it, the user's edits kept; the old version's folder stays, as the previous install
 * an update that does not start goes back to.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { callApi } from '../support/registry-hub.js';
import { startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-old-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

it('Update keeps the edits, and the old version as the previous install', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', {
    name: 'io.github.domdomegg/airtable-mcp-server',
    package: 0,
    values: { 'env:AIRTABLE_API_KEY': 'patXYZ' },
  });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  const saved = () => h.saved(id);
  const before = await saved();
  const edited = { ...before, args: [...before.args, '--my-flag'], label: 'My Airtable' };
  expect(await callApi(h.app, 'upstreams.update', { id, config: edited })).toMatchObject({ ok: true });

  await h.offerNewer(true);
  expect(await callApi(h.app, 'registry.update', { id })).toMatchObject({ ok: true, value: { updated: true, previous: '1.7.3', version: '1.7.4' } });
  const after = await saved();
  expect(after.args.slice(1)).toEqual(edited.args.slice(1));
  expect(after.label).toBe('My Airtable');
  expect(existsSync(join(h.packages, 'airtable-mcp-server@1.7.4'))).toBe(true);
  expect(existsSync(join(h.packages, 'airtable-mcp-server@1.7.3'))).toBe(true);

  // The version the update replaced is kept as the previous install, so the server can go back to it
  // (registry-update-rollback.test.ts follows it through the next start).
}, 120_000);
