/**
 * Two servers with overlapping resource templates (no clash: the templates differ): "wiki" offers
 * notes://{+path}, "team" offers notes://team/{name}. A URI both match is read from the server of the
 * more specific template (team's), whatever the server order; any other URI from wiki.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub(async () => ({
    mcpServers: {
      wiki: nodeServer(fixture('template-server.mjs'), ['wiki', 'notes://{+path}']),
      team: nodeServer(fixture('template-server.mjs'), ['team', 'notes://team/{name}']),
    },
  }));
  await hub.waitForStatus('wiki', 'ready');
  await hub.waitForStatus('team', 'ready');
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

it('reads a URI from the server of the most specific template that matches it', async () => {
  const c = await hub.connect();
  const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  expect(templates).toEqual(expect.arrayContaining(['notes://{+path}', 'notes://team/{name}']));
  expect((await c.readResource({ uri: 'notes://team/alice' })).contents[0]).toMatchObject({ text: 'team: notes://team/alice' });
  expect((await c.readResource({ uri: 'notes://home/index' })).contents[0]).toMatchObject({ text: 'wiki: notes://home/index' });
});
