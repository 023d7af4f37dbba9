/**
 * A query's answer is printed within bounds (audit s11): JSON Query builds `{a: get(), b: get()}` repeated
 * n times in n steps, but its text doubles with each step. Printed in full after the query's deadline,
 * n = 24 held the whole hub for ~20 s (and n = 40 for hours). The model now gets the start of the answer
 * and a note telling it to narrow the query, and the hub answers other calls meanwhile.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady } from '../support/hub-runs.js';

const CONFIG = {
  version: 1,
  servers: { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } },
  settings: { spill: { thresholdTokens: 4_000, previewTokens: 600 } },
};

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-read-bounded-');
});
afterEach(() => runs.close());

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('a query whose answer is too large to print', () => {
  it('answers with the start and a note to narrow the query, and the hub keeps answering', async () => {
    const hub = await runs.start(CONFIG);
    await upstreamReady(hub, 'fx');
    const client = await runs.connect(hub, new Client({ name: 'read-bounded-test', version: '1.0.0' }));
    const spilled = await client.callTool({ name: 'fx__big_structured', arguments: { count: 3_000 } });
    const handle = (spilled._meta as Record<string, string>)['spillway/handle']!;

    const query = '.rows | limit(1) | ' + Array(24).fill('{a: get(), b: get()}').join(' | ');
    const started = Date.now();
    const [blown, other] = await Promise.all([
      client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'query', query } }),
      client.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } }),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000); // printed in full: ~20 s
    expect(text(other)).toBe('5');
    expect(blown.isError).toBeFalsy();
    const answer = text(blown);
    expect(answer).toMatch(/too large to show whole/);
    expect(answer).toMatch(/limit\(n\)/);
    expect(answer).toContain('"a": {');
    // The hub is left usable.
    const small = text(await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'query', query: '.rows.0.id' } }));
    expect(small).toBe('Query ".rows.0.id":\n0');
  });
});
