/**
 * read_result shows a spilled result in the encoding of the tool that made it (issue 18), also for a
 * result kept from an earlier hub run, before that tool is called again: two runs share a data folder,
 * the first spills a tabular result of a tool whose policy says `encoding: 'json'` (the global setting
 * is 'auto'), the second reads it back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Hub } from '../../electron/core/hub.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady } from '../support/hub-runs.js';

const CONFIG = {
  version: 1,
  servers: {
    fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] },
    plain: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] },
  },
  settings: { spill: { thresholdTokens: 4_000, previewTokens: 600 } },
  policies: { servers: {}, tools: { plain: { big_structured: { encoding: 'json' } } } },
};
const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, label: `row number ${i} with some words` }));

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-read-encoding-');
});
afterEach(() => runs.close());

const connect = (hub: Hub) => runs.connect(hub, new Client({ name: 'read-encoding-test', version: '1.0.0' }));

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const read = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'spillway__read_result', arguments: args }).then(text);

describe('read_result of a result spilled in an earlier run', () => {
  it('uses the encoding of the tool that made it, not the global setting', async () => {
    const first = await runs.start(CONFIG);
    await Promise.all([upstreamReady(first, 'fx'), upstreamReady(first, 'plain')]);
    let client = await connect(first);
    // Different sizes: the same content would be one spilled file.
    const handleOf = async (name: string, count: number) =>
      ((await client.callTool({ name, arguments: { count } }))._meta as Record<string, string>)['spillway/handle']!;
    const plain = await handleOf('plain__big_structured', 3_000);
    const fx = await handleOf('fx__big_structured', 3_001);
    await runs.stop(first);

    // The next run: neither tool is called, their servers are not even started.
    const hub = await runs.start(CONFIG);
    client = await connect(hub);
    const query = await read(client, { handle: plain, op: 'query', query: '.rows | limit(3)' });
    expect(query).not.toContain('TOON');
    expect(JSON.parse(query.slice(query.indexOf('\n') + 1))).toEqual(rows(3));
    const head = await read(client, { handle: plain, op: 'head', lines: 3 });
    expect(head).not.toContain('TOON');
    expect(head).toContain('{"rows":[{"id":0,');
    // The other tool has no encoding of its own: the global 'auto' shows its table as TOON.
    expect(await read(client, { handle: fx, op: 'head', lines: 3 })).toContain('rows[3001]{id,label}:');
    expect(hub.pool.get('plain')?.status).toBe('idle');
  });

  it('is the same through spillway__dispatch read (audit s11: dispatch always read in auto)', async () => {
    const hub = await runs.start(CONFIG);
    await upstreamReady(hub, 'plain');
    const client = await connect(hub);
    const spilled = await client.callTool({ name: 'plain__big_structured', arguments: { count: 3_000 } });
    const handle = (spilled._meta as Record<string, string>)['spillway/handle']!;
    const viaDispatch = (args: Record<string, unknown>) =>
      client.callTool({ name: 'spillway__dispatch', arguments: { action: 'read', handle, ...args } }).then(text);
    for (const args of [
      { op: 'query', query: '.rows | limit(3)' },
      { op: 'head', lines: 3 },
    ]) {
      const direct = await read(client, { handle, ...args });
      expect(direct).not.toContain('TOON');
      expect(await viaDispatch(args)).toBe(direct);
    }
  });
});
