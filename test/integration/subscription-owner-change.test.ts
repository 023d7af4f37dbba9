/**
 * Two servers offer the same URI (two server-everything: "a" serves it, "b"'s is a clash). A client
 * subscribes (at "a"), then "a" is disabled: "b" now serves the URI. Subscribing again (the same client,
 * or another) reaches "b", or the client would never hear of changes there.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub(async () => ({ mcpServers: { a: nodeServer(EVERYTHING, ['stdio']), b: nodeServer(EVERYTHING, ['stdio']) } }));
  await hub.waitForStatus('a', 'ready');
  await hub.waitForStatus('b', 'ready');
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

it('a subscription follows the URI to the server that serves it now', async () => {
  const uri = 'demo://resource/static/document/features.md';
  const first = await hub.connect(undefined, 'first');
  await first.subscribeResource({ uri });
  expect(hub.hub.catalog.serverForUri(uri)).toBe('a');
  // "a" stopped and the catalog rebuilt without it: the next catalog.changed after the switch.
  const rebuilt = new Promise<void>((resolve) => {
    const off = hub.hub.events.subscribe((e) => {
      if (e.type !== 'catalog.changed' || hub.hub.catalog.serverForUri(uri) !== 'b') return;
      off();
      resolve();
    });
  });
  expect(await hub.api('upstreams.setEnabled', { id: 'a', enabled: false })).toMatchObject({ ok: true });
  await rebuilt;

  const second = await hub.connect(undefined, 'second');
  // A client connected straight to "b" that subscribed gets an update every 5 s; the test's timeout bounds the wait.
  const updated = new Promise<string>((resolve) => second.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
  await second.subscribeResource({ uri });
  await second.callTool({ name: 'b__toggle-subscriber-updates', arguments: {} });
  expect(await updated).toBe(uri);
}, 30_000);
