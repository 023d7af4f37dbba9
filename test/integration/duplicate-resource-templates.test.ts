/**
 * Two servers offering the same resource template, through the real hub: it is listed once, from the
 * first server, which serves it; the second server's is a catalog clash the log tells.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const server = (name: string) => nodeServer(fixture('protocol-server.mjs'), [name]);
let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ mcpServers: { one: server('one'), two: server('two') } });
  await Promise.all(['one', 'two'].map((id) => hub.waitForStatus(id, 'ready')));
});
afterAll(async () => hub?.stop());

it('lists a template two servers offer once, from the server that serves it, and reports the clash', async () => {
  const client = await hub.connect({ capabilities: {} });
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['shared://item/{id}']);
  expect(await client.readResource({ uri: 'shared://item/7' })).toEqual({ contents: [{ uri: 'shared://item/7', text: 'one read shared://item/7' }] });
  expect(hub.hub.catalog.clashes.filter((c) => c.name === 'shared://item/{id}')).toEqual([
    {
      kind: 'resource',
      serverId: 'two',
      name: 'shared://item/{id}',
      reason: 'resource template "shared://item/{id}" from server "two" is offered by "one" too, which serves it',
    },
  ]);
  const told = hub.hub.events.recent().filter((e) => e.type === 'log' && e.server === 'two' && e.message.includes('shared://item/{id}'));
  expect(told).toHaveLength(1);
});
