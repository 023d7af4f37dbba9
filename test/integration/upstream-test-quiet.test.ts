/**
 * The Test button's one-off connection reports nothing: a server that asks for the folders at its start
 * (server-filesystem) leaves no event in Activity, and no server called "test" shows in its Server filter.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { FILESYSTEM, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ mcpServers: {} });
});
afterAll(() => hub?.stop());

it('pressing Test leaves no events from the tested server in the log', async () => {
  const before = (await hub.api<HubEvent[]>('events.query', { limit: 1000 })).value!.length;
  const tested = await hub.api<{ ok: boolean }>('upstreams.test', { config: { type: 'stdio', command: NODE, args: [FILESYSTEM, hub.dir] } });
  expect(tested.value?.ok).toBe(true);
  // A later event: whatever the test made has been logged before it.
  hub.hub.emit({ type: 'log', level: 'info', message: 'marker' });
  const events = (await hub.api<HubEvent[]>('events.query', { limit: 1000 })).value!.slice(before);
  expect(events.map((e) => ('message' in e ? e.message : e.type))).toEqual(['marker']);
}, 60_000);
