/**
 * A credential parameter renamed in a remote server's address (`?token=***` made `?access_token=***` in the
 * edit form): the key is stored under the old name only, so the save used to write a reference under the
 * new name that nothing answered and forget the old one; the server could never start again (audit s16,
 * servers by hand, item 1). The renamed key now moves with it (url-param-rename-moved.test.ts); a key typed
 * under the new name is taken, and a change elsewhere in the address keeps the stored key.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

type Listed = { id: string; config: { url: string } };
const shownConfig = async (id: string) => (await hub.api<Listed[]>('upstreams.list')).value!.find((u) => u.id === id)!.config;

it('takes a key typed in place of the hidden value under the new name', async () => {
  expect((await hub.api('upstreams.add', { id: 't', config: { type: 'http', url: 'http://127.0.0.1:9/mcp?token=T0K', enabled: false } })).ok).toBe(
    true,
  );
  const shown = await shownConfig('t');
  const saved = await hub.api('upstreams.update', { id: 't', config: { ...shown, url: 'http://127.0.0.1:9/mcp?access_token=NEW' } });
  expect(saved.ok, saved.message).toBe(true);
  expect(await hub.hub.secretStore!.get('t', 'url:access_token')).toBe('NEW');
});

it('still keeps the stored key when only the rest of the address changes', async () => {
  expect((await hub.api('upstreams.add', { id: 'p', config: { type: 'http', url: 'http://127.0.0.1:9/mcp?token=T0K', enabled: false } })).ok).toBe(
    true,
  );
  const shown = await shownConfig('p');
  const saved = await hub.api('upstreams.update', { id: 'p', config: { ...shown, url: 'http://127.0.0.1:9/v2/mcp?token=***' } });
  expect(saved.ok, saved.message).toBe(true);
  expect(hub.hub.config.servers.p).toMatchObject({ url: 'http://127.0.0.1:9/v2/mcp?token=<secret>' });
  expect(await hub.hub.secretStore!.get('p', 'url:token')).toBe('T0K');
});
