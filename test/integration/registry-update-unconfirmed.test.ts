/**
 * An Update whose wait for the new version is cut short (audit s20). A Restart of the server while the
 * Update waits is one more start of the new version, watched as the first: a version that does not start
 * still goes back. A hub that stops (the app quits) while the Update waits reports the update as not
 * confirmed; its next start watches the new version as the Update would have, and goes back to the
 * previous install once the new version's retries give up.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { callApi, nextHubEvent, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';
const BROKEN = 'console.error("boom: this release is broken"); process.exit(1);\n';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-unconfirmed-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

/** A server added from the catalog (1.7.3), ready, with a broken 1.7.4 offered as its update. */
async function serverWithBrokenUpdate(id: string): Promise<string> {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { id, name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  await waitForStatus(h.app, id, 'ready');
  await placePackage(h.packages, 'airtable-mcp-server', '1.7.4', BROKEN);
  await h.offerNewer(true);
  return id;
}

/** Starts the Update of `id`; once the new version has failed its first start, its outcome (wrapped: not awaited here). */
async function updateUntilFirstFailure(id: string): Promise<{ update: Promise<unknown> }> {
  const failed = nextHubEvent(h.app, (e) => e.type === 'upstream.status' && e.server === id && e.status === 'error', `${id} failing`);
  const update = Promise.resolve(h.handlers()['registry.update']!({ id }));
  update.catch(() => undefined); // asserted by the caller
  await failed;
  return { update };
}

const record = async (name: string) => JSON.parse(await readFile(join(h.dataDir, `packages-${name}.json`), 'utf8').catch(() => '{}'));

it('a Restart of the server while the Update waits is watched through: a version that does not start still goes back', async () => {
  const id = await serverWithBrokenUpdate('restarted');
  const { update } = await updateUntilFirstFailure(id);
  expect(await callApi(h.app, 'upstreams.restart', { id })).toMatchObject({ ok: true });
  await expect(update).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(/^Version 1\.7\.4 of airtable-mcp-server did not start \(.*boom.*\); Spillway went back to 1\.7\.3\./s),
  });
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.3');
  expect(await record('unconfirmed')).toEqual({});
}, 120_000);

it('a hub stopped while the Update waits reports it not confirmed; its next start goes back once the retries give up', async () => {
  const id = await serverWithBrokenUpdate('stopped');
  const before = await h.saved(id);
  const { update } = await updateUntilFirstFailure(id);
  await h.app.hub.stop();
  await expect(update).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(/not confirmed\. The next time Spillway starts, it goes back to 1\.7\.3 if 1\.7\.4 does not start\.$/),
  });
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
  expect(await record('unconfirmed')).toEqual({ [id]: join(h.packages, 'airtable-mcp-server@1.7.4') });

  const app: AppHub = await h.restart();
  const runs = (version: string) => app.hub.config.servers[id]?.type === 'stdio' && app.hub.config.servers[id].args[0]!.includes(`@${version}/`);
  const errors: string[] = [];
  const off = app.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id && e.status === 'error') errors.push(e.error ?? '');
  });
  if (!runs('1.7.3')) await nextHubEvent(app, (e) => e.type === 'upstream.status' && e.server === id && runs('1.7.3'), `${id} back on 1.7.3`);
  off();
  expect(await h.saved(id)).toEqual(before);
  expect(await app.hub.secretStore.get(id, 'env:AIRTABLE_API_KEY')).toBe('patXYZ');
  // Gone back only once the retries gave up, as the Update would have.
  expect(errors.some((e) => e.includes('stopped after'))).toBe(true);
  expect(await record('unconfirmed')).toEqual({});
  // The version that did not start is not offered to this server again.
  expect(await callApi(app, 'registry.installed', { id })).toMatchObject({ ok: true, value: { version: '1.7.3', updateAvailable: false } });
  app.hub.pool.get(id)?.wake();
  await waitForStatus(app, id, 'ready');
  expect(existsSync(join(h.packages, 'airtable-mcp-server@1.7.3'))).toBe(true);
}, 180_000);
