/**
 * Two Updates of the same server at once (two clicks through the HTTP API, two windows): the second is
 * refused while the first switches and waits (audit s20). Before, the second found the server switched,
 * failed, and set the records back as it had found them before the first wrote them: the first's kept
 * previous install and its unconfirmed record were gone, so a hub stopped while it waited neither went
 * back at its next start nor kept the version to go back to, though the message said it would.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { callApi, nextHubEvent, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-twice-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

const record = async (name: string) => JSON.parse(await readFile(join(h.dataDir, `packages-${name}.json`), 'utf8').catch(() => '{}'));

it('a second Update of a server while the first waits is refused, and leaves the first’s records', async () => {
  const id = 'twice';
  const add = { id, name: 'io.github.domdomegg/airtable-mcp-server', package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } };
  expect(await callApi(h.app, 'registry.add', add)).toMatchObject({ ok: true });
  await waitForStatus(h.app, id, 'ready');
  await placePackage(h.packages, 'airtable-mcp-server', '1.7.4', 'console.error("boom: this release is broken"); process.exit(1);\n');
  await h.offerNewer(true);

  const registry = h.handlers();
  const failed = nextHubEvent(h.app, (e) => e.type === 'upstream.status' && e.server === id && e.status === 'error', `${id} failing`);
  const updates = [0, 1].map(() => Promise.resolve(registry['registry.update']!({ id })));
  for (const update of updates) update.catch(() => undefined); // asserted below
  // Either may reach the switch first: the other is refused at once, the first waits for the start.
  const refused = await Promise.race(
    updates.map((update, i) =>
      update.then(
        () => ({ i, err: undefined }),
        (err: unknown) => ({ i, err }),
      ),
    ),
  );
  expect(refused.err).toMatchObject({ code: 'conflict', message: expect.stringMatching(/is being updated already/) });
  const waiting = updates[1 - refused.i]!;
  await failed;
  await h.app.hub.stop();
  await expect(waiting).rejects.toMatchObject({ message: expect.stringMatching(/it goes back to 1\.7\.3 if 1\.7\.4 does not start\.$/) });
  expect(await record('unconfirmed')).toEqual({ [id]: join(h.packages, 'airtable-mcp-server@1.7.4') });
  expect(await record('previous')).toEqual({ [id]: join(h.packages, 'airtable-mcp-server@1.7.3') });
}, 120_000);
