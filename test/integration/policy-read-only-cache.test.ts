/**
 * The global "cache read-only tools" setting through a real hub (the fixture server's `counted` tool is
 * annotated readOnlyHint): the editor's effective cache time is the same while the server is idle
 * (started on first use) as once it runs, and changing the setting drops what was cached under the old one.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { EffectivePolicy } from '../../shared/policy.js';
import { ControlDispatcher, hubHandlers } from '../../electron/core/control/control-handlers.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import type { Hub } from '../../electron/core/hub.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady } from '../support/hub-runs.js';

const config = {
  version: 1,
  servers: { s: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } },
  settings: { policy: { cacheReadOnlyTools: true, readOnlyCacheTtlSeconds: 3600 } },
};
// A long first backoff: nothing restarts the server behind the test's back.
const options = { upstream: { backoffBaseMs: 60_000 } };

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('policy-read-only-cache-');
});
afterEach(() => runs.close());

const controlOf = (hub: Hub) => new ControlDispatcher(hubHandlers(controlParts(hub)));

async function effectiveTtl(control: ControlDispatcher): Promise<number> {
  const answer = (await control.dispatch('policies.effective', { server: 's', tool: 'counted' })) as { ok: boolean; value?: EffectivePolicy };
  expect(answer.ok).toBe(true);
  return answer.value!.values.cacheTtlSeconds;
}

async function counted(client: Client): Promise<string> {
  const result = (await client.callTool({ name: 's__counted', arguments: { key: 'k' } })) as CallToolResult;
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

it('the effective cache time of a read-only tool is the same while its server is idle as once it runs', async () => {
  // A first run leaves the tool list the next run starts from.
  const first = await runs.start(config, options);
  await upstreamReady(first, 's');
  await runs.stop(first);

  const hub = await runs.start(config, options);
  expect(hub.pool.get('s')?.status).toBe('idle');
  const control = controlOf(hub);
  const idle = await effectiveTtl(control);

  const client = await runs.connect(hub);
  expect(await counted(client)).toBe('k: call 1');
  expect(await counted(client)).toBe('k: call 1'); // cached, as the setting says
  expect(hub.pool.get('s')?.status).toBe('ready');
  expect(idle).toBe(3600);
  expect(await effectiveTtl(control)).toBe(idle);
}, 60_000);

it('changing the read-only cache time drops the results cached under the old one', async () => {
  const hub = await runs.start({ ...config, servers: { s: { ...config.servers.s, startMode: 'always' } } }, options);
  await upstreamReady(hub, 's');
  const control = controlOf(hub);
  const client = await runs.connect(hub);
  expect(await counted(client)).toBe('k: call 1');
  expect(await counted(client)).toBe('k: call 1');

  expect(await control.dispatch('policies.setDefaults', { readOnlyCacheTtlSeconds: 60 })).toMatchObject({ ok: true });
  expect(await counted(client)).toBe('k: call 2');
  expect(await counted(client)).toBe('k: call 2');

  // Turning the setting off and on again does not bring back a result cached before.
  expect(await control.dispatch('policies.setDefaults', { cacheReadOnlyTools: false })).toMatchObject({ ok: true });
  expect(await counted(client)).toBe('k: call 3');
  expect(await control.dispatch('policies.setDefaults', { cacheReadOnlyTools: true })).toMatchObject({ ok: true });
  expect(await counted(client)).toBe('k: call 4');
}, 60_000);
