/** The key of "any other client" can be replaced (a leaked one revoked), as Disconnect revokes an app's token. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ mcpServers: {} }, { port: await freePort() });
});
afterAll(() => hub?.stop());

type Access = { url: string; urlWithKey: string; header: string };

const initialize = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'other', version: '1' } },
    }),
  });

it('renew: the old key stops working, the new one works, and later asks hand out the new one', async () => {
  const old = (await hub.api<Access>('clients.otherAccess')).value!;
  expect((await initialize(old.urlWithKey)).status).toBe(200);
  const renewed = await hub.api<Access>('clients.otherAccess', { renew: true });
  expect(renewed.ok, JSON.stringify(renewed)).toBe(true);
  expect(renewed.value!.urlWithKey).not.toBe(old.urlWithKey);
  expect((await initialize(old.urlWithKey)).status).toBe(401);
  expect((await initialize(renewed.value!.urlWithKey)).status).toBe(200);
  expect((await hub.api<Access>('clients.otherAccess')).value!.urlWithKey).toBe(renewed.value!.urlWithKey);
});
