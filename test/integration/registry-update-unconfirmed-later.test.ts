/**
 * An update not confirmed because its server was not running when the hub started (turned off): the
 * next time the server starts in that run of the hub it is watched as the Update would have watched it.
 * A server that starts then is confirmed, so a start that fails weeks later (say, offline at login) does
 * not send it back to the version before or bar the version it ran well since (audit s20).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { on } from 'node:events';
import { watch } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callApi, nextHubEvent, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-unconfirmed-later-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

const record = async (name: string) => JSON.parse(await readFile(join(h.dataDir, `packages-${name}.json`), 'utf8').catch(() => '{}'));

/** Resolves once the record `name` holds `wanted`, read again at each change in the data folder. */
async function recordBecomes(name: string, wanted: Record<string, string>): Promise<void> {
  const watcher = watch(h.dataDir);
  const changes = on(watcher, 'change');
  try {
    while (JSON.stringify(await record(name)) !== JSON.stringify(wanted)) await changes.next();
  } finally {
    watcher.close();
  }
}

it('an unconfirmed update of a server turned off at start is confirmed once the server starts later in that run', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', {
    id: 'later',
    name: ENTRY,
    package: 0,
    values: { 'env:AIRTABLE_API_KEY': 'patXYZ' },
  });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(h.app, id, 'ready');
  // 1.7.4 runs 1.7.3's program, and fails to start while the flag file is there.
  const flag = join(h.dir, 'fail-now');
  await writeFile(flag, '');
  const real = pathToFileURL((await h.saved(id)).args[0]!).href;
  const gated = `if (require('node:fs').existsSync(${JSON.stringify(flag)})) { console.error('boom'); process.exit(1); } else import(${JSON.stringify(real)});\n`;
  await placePackage(h.packages, 'airtable-mcp-server', '1.7.4', gated);
  await h.offerNewer(true);

  // Turned off while the Update waits: not confirmed.
  const failed = nextHubEvent(h.app, (e) => e.type === 'upstream.status' && e.server === id && e.status === 'error', `${id} failing`);
  const update = Promise.resolve(h.handlers()['registry.update']!({ id }));
  update.catch(() => undefined);
  await failed;
  expect(await callApi(h.app, 'upstreams.setEnabled', { id, enabled: false })).toMatchObject({ ok: true });
  await expect(update).rejects.toMatchObject({ message: expect.stringMatching(/not confirmed/) });
  expect(await record('unconfirmed')).toEqual({ [id]: join(h.packages, 'airtable-mcp-server@1.7.4') });

  // Started off; turned on later in that run, when 1.7.4 starts.
  const app = await h.restart();
  await rm(flag);
  const confirmed = nextHubEvent(app, (e) => e.type === 'upstream.status' && e.server === id && e.status === 'ready', `${id} ready`);
  expect(await callApi(app, 'upstreams.setEnabled', { id, enabled: true })).toMatchObject({ ok: true });
  app.hub.pool.get(id)?.wake();
  await confirmed;
  // The record goes as the watch settles (its write follows the ready status); on the old code it stayed.
  await recordBecomes('unconfirmed', {});
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
}, 60_000);
