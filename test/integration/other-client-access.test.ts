/** The address and key the window hands "any other client" let that client in: as `?token=` and as a header. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ mcpServers: {} }, { port: await freePort() });
});
afterAll(() => hub?.stop());

type Access = { url: string; urlWithKey: string; header: string; unstable?: string };

it('the address with its key, and the address with the header, both answer an MCP client', async () => {
  const access = (await hub.api<Access>('clients.otherAccess')).value!;
  expect(access.url).toBe(hub.url);
  expect(access.unstable).toBeUndefined();
  const byAddress = new Client({ name: 'other-client', version: '1.0.0' });
  await byAddress.connect(new StreamableHTTPClientTransport(new URL(access.urlWithKey)));
  await byAddress.listTools();
  await byAddress.close();
  const [name, value] = access.header.split(': ');
  const byHeader = new Client({ name: 'other-client', version: '1.0.0' });
  await byHeader.connect(new StreamableHTTPClientTransport(new URL(access.url), { requestInit: { headers: { [name]: value } } }));
  await byHeader.listTools();
  await byHeader.close();
  // The same key each time (made once): a client set up by hand keeps working.
  expect((await hub.api<Access>('clients.otherAccess')).value!.urlWithKey).toBe(access.urlWithKey);
});
