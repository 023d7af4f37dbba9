/**
 * A call of a crashed server's tool while the server waits out its backoff (its tools stay listed): it is
 * answered at once with why the server is unavailable, and nobody is told that it waits for a start that
 * is not under way.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady, upstreamStatus } from '../support/hub-runs.js';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-backoff-call-');
});
afterEach(() => runs.close());

it('answers why at once, without a "waiting for it to start" log or progress', async () => {
  const hub = await runs.start(
    { version: 1, servers: { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } } },
    { upstream: { backoffBaseMs: 60_000 } },
  );
  await upstreamReady(hub, 'fx');
  const client = await runs.connect(hub);
  const failed = upstreamStatus(hub, 'fx', 'error');
  await client.callTool({ name: 'fx__crash', arguments: {} });
  await failed;
  const logs: string[] = [];
  hub.events.subscribe((e: { type: string; message?: string }) => void (e.type === 'log' && logs.push(e.message ?? '')));
  const progress: string[] = [];
  const r = (await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } }, undefined, {
    onprogress: (p) => progress.push(String(p.message)),
  })) as CallToolResult;
  expect(r.isError).toBe(true);
  expect(JSON.stringify(r.content)).toMatch(/not available/);
  expect(progress.join(' ')).not.toMatch(/Waiting for fx to start/);
  expect(logs.join(' ')).not.toMatch(/waits for "fx" to start/);
});
