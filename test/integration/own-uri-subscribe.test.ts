/**
 * spillway://spill/<handle> is the hub's own resource (README): resources/read answers it itself, and so do
 * resources/subscribe and unsubscribe (accepted, with no updates: a kept result does not change). They are
 * never sent to an upstream, not even the one upstream that has resources (the catalog's single-server
 * fallback), which would otherwise learn the hub's URIs and "update" them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub(async () => ({ mcpServers: { everything: nodeServer(EVERYTHING, ['stdio']) } }));
  await hub.waitForStatus('everything', 'ready');
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

it("a subscribe to the hub's own spillway:// URI is not sent to an upstream", async () => {
  const c = await hub.connect();
  const updates: string[] = [];
  const uri = 'spillway://spill/0123456789abcdef';
  // A resource of the server, subscribed first: the server sends the updates of all its subscriptions in one
  // round every 5 s, so once this one has been updated twice a whole round has passed after the own URI's subscribe.
  const real = 'demo://resource/static/document/features.md';
  const twoRounds = new Promise<void>((resolve) => {
    let seen = 0;
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      if (n.params.uri === real && ++seen === 2) resolve();
    });
  });
  await c.subscribeResource({ uri: real });
  await expect(c.readResource({ uri })).rejects.toThrow(/-32002/); // answered by the hub itself
  await c.subscribeResource({ uri });
  await c.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
  await twoRounds;
  expect(updates).not.toContain(uri);
  await c.unsubscribeResource({ uri });
}, 30_000);
