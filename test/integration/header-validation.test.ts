/**
 * A header a request cannot carry (a space or a letter beyond A-Z in its name, a line break in its value)
 * used to be saved: the server then failed on every retry with fetch's "invalid header value", which names
 * no field (audit s16, servers by hand, item 2). It is refused at save and at Test, naming the header.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

it.each([
  [{ 'X Api Key': 'k' }, 'config.headers.X Api Key', 'The header "X Api Key" cannot have a space in its name'],
  [{ 'X-Ü': 'k' }, 'config.headers.X-Ü', 'The header "X-Ü" cannot have "Ü" in its name'],
  [{ 'X-Api-Key': 'k1\nk2' }, 'config.headers.X-Api-Key', 'The header "X-Api-Key" has a line break in its value'],
  [{ 'X-Api-Key': 'k1\0' }, 'config.headers.X-Api-Key', 'NUL'],
  [{ 'X-Api-Key': 'ключ' }, 'config.headers.X-Api-Key', 'has "к" in its value'],
])('refuses headers %j at save and at Test, naming the header', async (headers, field, message) => {
  const config = { type: 'http', url: 'http://127.0.0.1:9/mcp', headers };
  const added = await hub.api('upstreams.add', { config });
  expect(added).toMatchObject({ ok: false, code: 'invalid', field });
  expect(added.message).toContain(message);
  expect(await hub.api('upstreams.test', { config })).toMatchObject({ ok: false, code: 'invalid', field });
});

it('takes headers a request can carry, and a masked value sent back', async () => {
  const added = await hub.api<{ id: string }>('upstreams.add', {
    id: 'h',
    config: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api_Key.v2': 'Bearer é-1', Authorization: 'tab\tok' }, enabled: false },
  });
  expect(added.ok, added.message).toBe(true);
  const saved = await hub.api('upstreams.update', {
    id: 'h',
    config: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Api_Key.v2': '••••', Authorization: '***' }, enabled: false },
  });
  expect(saved.ok, saved.message).toBe(true);
  expect(await hub.hub.secretStore!.get('h', 'header:X-Api_Key.v2')).toBe('Bearer é-1');
});
