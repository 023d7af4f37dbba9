/**
 * A call right after a server crashed, while its reconnect is scheduled: it waits for that try (the
 * crash's answer said "Spillway is reconnecting") and is answered by the server, instead of failing at
 * once with "not available right now" (audit s15, resilience item 5). Real stdio upstream; waits on the
 * hub's events.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady, upstreamStatus } from '../support/hub-runs.js';

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-call-after-crash-');
});
afterEach(() => runs.close());

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

it('waits for the scheduled reconnect and is answered by the server', async () => {
  const hub = await runs.start(
    { version: 1, servers: { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } } },
    { upstream: { backoffBaseMs: 300 } },
  );
  await upstreamReady(hub, 'fx');
  const client = await runs.connect(hub);
  const failed = upstreamStatus(hub, 'fx', 'error');
  const crash = (await client.callTool({ name: 'fx__crash', arguments: {} })) as CallToolResult;
  expect(textOf(crash)).toMatch(/Spillway is reconnecting/);
  await failed;
  expect(hub.pool.get('fx')?.reconnecting).toBe(true);

  const progress: string[] = [];
  const r = (await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } }, undefined, {
    onprogress: (p) => progress.push(String(p.message)),
  })) as CallToolResult;
  expect(r.isError).toBeFalsy();
  expect(textOf(r)).toMatch(/3/);
  expect(progress).toEqual(['Waiting for fx to reconnect…']);
});
