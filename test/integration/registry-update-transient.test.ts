/**
 * Update of an npm server to a version whose first start fails once (a one-time migration that exits
 * and asks to be run again), as the hub's own retry then starts it (review of 62783d3): the Update waits
 * for the retries instead of going back at the first failure, keeps the new version and its folder.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import { callApi, waitForStatus } from '../support/registry-hub.js';
import { placePackage, startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
const ENTRY = 'io.github.domdomegg/airtable-mcp-server';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-transient-', npmAs: 'airtable-mcp-server@1.7.3' });
}, 120_000);
afterAll(() => h?.stop());

it('a version whose first start fails once, and whose retry starts, is kept', async () => {
  const add = await callApi<{ id: string }>(h.app, 'registry.add', { name: ENTRY, package: 0, values: { 'env:AIRTABLE_API_KEY': 'patXYZ' } });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  const id = add.value!.id;
  await waitForStatus(h.app, id, 'ready');
  const oldScript = (await h.saved(id)).args[0] as string;
  // The next version: its first run migrates and exits 1 ("run me again"); every later run is the working server.
  const marker = join(h.dir, 'first-run-done');
  await placePackage(
    h.packages,
    'airtable-mcp-server',
    '1.7.4',
    `const fs = require('fs');\n` +
      `if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); console.error('migrated settings, run me again'); process.exit(1); }\n` +
      `import(${JSON.stringify('file://' + oldScript)});\n`,
  );
  await h.offerNewer(true);
  const statuses: string[] = [];
  const off = h.app.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id) statuses.push(e.status);
  });

  await expect(h.handlers()['registry.update']!({ id })).resolves.toMatchObject({ updated: true, previous: '1.7.3', version: '1.7.4' });
  off();
  // It did fail once on its way: the retry, not a first start that worked, made it ready.
  expect(existsSync(marker)).toBe(true);
  expect(statuses).toContain('error');
  expect(statuses.at(-1)).toBe('ready');
  expect(h.app.hub.pool.get(id)?.status).toBe('ready');
  expect((await h.saved(id)).args[0]).toContain('airtable-mcp-server@1.7.4');
  expect(existsSync(join(h.packages, 'airtable-mcp-server@1.7.4'))).toBe(true);
  expect(existsSync(join(h.packages, 'airtable-mcp-server@1.7.3'))).toBe(true);
}, 120_000);

it('a server still failing and trying again at the deadline has not started', async () => {
  // A port nothing listens on: an HTTP server is never given up on, it is tried again and again.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const { id } = await h.app.control.addUpstream({ id: 'unreachable', config: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
  const errors: string[] = [];
  const off = h.app.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === id && e.status === 'error') errors.push(e.error ?? '');
  });
  const outcome = await serverStartOutcome(h.app.hub, 1_500)(id);
  off();
  expect(outcome).toMatchObject({ started: false });
  // It waited through the retries (the first error was not the end), and says why without the retry note.
  expect(errors.length).toBeGreaterThan(1);
  expect(errors.at(-1)).toMatch(/Spillway tries again/);
  expect(outcome && !outcome.started && outcome.reason).not.toMatch(/tries again|press Restart/);
  expect(h.app.hub.pool.get(id)?.reconnecting).toBe(true);
}, 60_000);
