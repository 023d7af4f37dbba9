/**
 * A header value of bullets (`••••`) is a mask a list showed, standing for the stored value; a new server
 * has none stored, so on add it is refused, naming the header, rather than saved as the key (which fetch
 * then refuses on every start, naming nothing) (audit s16 fixes, item 2).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

it('refuses a header of bullets on a new server (nothing stored for the mask to keep)', async () => {
  const added = await hub.api('upstreams.add', {
    id: 'n',
    config: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api-Key': '••••' }, enabled: false },
  });
  const stored = added.ok ? await hub.hub.secretStore!.get('n', 'header:X-Api-Key') : undefined;
  expect({ ok: added.ok, stored }).toMatchObject({ ok: false });
  expect(added).toMatchObject({ code: 'invalid', field: 'config.headers.X-Api-Key' });
  expect(added.message).toContain('The header "X-Api-Key" shows a hidden value (••••) and no value is kept for it: type its value');
  expect(hub.hub.config.servers.n).toBeUndefined();
});

it('fetch itself refuses such a header (what a saved one would meet on every start)', () => {
  expect(() => new Headers({ 'X-Api-Key': '••••' })).toThrow();
});
