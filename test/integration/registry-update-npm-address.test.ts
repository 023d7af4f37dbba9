/**
 * A token in the npm registry's address (audit s20): a company mirror's address may carry it in its path
 * (`/_auth/<token>/`) or as the user name and password. What Update and its check tell the user (the
 * catalog's notice, the Update's error) name the registry with the token masked, as the event log masks
 * one, and the rest of the address kept.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { callApi, waitForStatus } from '../support/registry-hub.js';
import { startUpdateHub, type UpdateHub } from '../support/update-hub.js';

let h: UpdateHub;
let id: string;
const TOKEN = 'npmTok3nSecretValue42';

beforeAll(async () => {
  h = await startUpdateHub({ prefix: 'spillway-update-npm-address-', npmAs: 'airtable-mcp-server@1.7.3' });
  const add = await callApi<{ id: string }>(h.app, 'registry.add', {
    name: 'io.github.domdomegg/airtable-mcp-server',
    package: 0,
    values: { 'env:AIRTABLE_API_KEY': 'patXYZ' },
  });
  expect(add.ok, JSON.stringify(add)).toBe(true);
  id = add.value!.id;
  await waitForStatus(h.app, id, 'ready');
}, 120_000);
afterAll(() => h?.stop());

/** What the catalog's check and Update say when the npm registry is `address`. */
async function told(address: string): Promise<string[]> {
  const registry = h.handlers(address);
  const installed = (await registry['registry.installed']!({ id })) as { notice?: string };
  const update = await Promise.resolve(registry['registry.update']!({ id })).then(
    () => '',
    (err: Error) => err.message,
  );
  return [installed.notice ?? '', update];
}

it('a token in the path of the npm registry’s address is masked, the rest of the address kept', async () => {
  const port = new URL(h.npmUrl).port;
  for (const message of await told(`${h.npmUrl}/_auth/${TOKEN}/`)) {
    expect(message).toContain(`http://127.0.0.1:${port}/_auth/***/`);
    expect(message).not.toContain(TOKEN);
  }
}, 60_000);

it('a user name and password in the npm registry’s address are left out', async () => {
  // A port nothing listens on: the check and Update both fail to reach it, and say where they tried.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  for (const message of await told(`http://me:${TOKEN}@127.0.0.1:${port}/npm/`)) {
    expect(message).toContain(`http://127.0.0.1:${port}/npm/`);
    expect(message).not.toContain(TOKEN);
  }
}, 60_000);
