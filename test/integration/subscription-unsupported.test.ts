/**
 * A subscribe to a resource whose server does not declare resources.subscribe: a direct client's is
 * refused, and so is one through the hub, with an error that names the server (no update could come).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const SERVER = fixture('no-subscribe-server.mjs');

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub(async () => ({ mcpServers: { nosub: nodeServer(SERVER) } }));
  await hub.waitForStatus('nosub', 'ready');
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

it('is refused by the server to a direct client', async () => {
  const direct = new Client({ name: 'direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER] }));
  await expect(direct.subscribeResource({ uri: 'nosub://a' })).rejects.toThrow();
  await direct.close();
});

it('is refused by the hub, naming the server', async () => {
  const c = await hub.connect();
  const refused = await c.subscribeResource({ uri: 'nosub://a' }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused).toMatchObject({ code: ErrorCode.MethodNotFound, message: expect.stringContaining('"nosub"') });
  // Reads still work.
  expect((await c.readResource({ uri: 'nosub://a' })).contents[0]).toMatchObject({ text: 'a' });
});
