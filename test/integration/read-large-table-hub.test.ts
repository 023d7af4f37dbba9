/**
 * Reading the lines of a large tabular result does not hold the hub (audit s11): head on a 200,000-row
 * result (11 MB of JSON) made its TOON view on the main thread, encode, decode and compare, ~2 s in which
 * every other session's call waited. Now a text that large is shown as JSON with a note saying how to
 * read its rows as a table, and other calls are answered meanwhile.
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
  runs = await HubRuns.open('spillway-read-large-');
});
afterEach(() => runs.close());

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/**
 * Waits for `call` while another session calls `ping` again and again (each after the last answered), and
 * returns the call's answer with the longest a ping waited: the time the hub was held, if it was.
 */
async function whilePinging<T>(call: Promise<T>, ping: () => Promise<void>): Promise<{ value: T; slowestPingMs: number }> {
  let done = false;
  const value = call.finally(() => (done = true));
  let slowestPingMs = 0;
  while (!done) {
    const started = performance.now();
    await ping();
    slowestPingMs = Math.max(slowestPingMs, performance.now() - started);
  }
  return { value: await value, slowestPingMs };
}

describe('head on a large tabular result', () => {
  it('answers in JSON with a note, and another session is answered meanwhile', async () => {
    const hub = await runs.start(CONFIG);
    await upstreamReady(hub, 'fx');
    const reader = await runs.connect(hub, new Client({ name: 'reader', version: '1.0.0' }));
    const other = await runs.connect(hub, new Client({ name: 'other', version: '1.0.0' }));
    const spilled = await reader.callTool({ name: 'fx__big_structured', arguments: { count: 200_000 } });
    const handle = (spilled._meta as Record<string, string>)['spillway/handle']!;

    const ping = async () => expect(text(await other.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } }))).toBe('5');
    // The second read finds the decision (and the text) where the first left them.
    for (let read = 0; read < 2; read++) {
      const head = await whilePinging(reader.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head', lines: 3 } }), ping);
      expect(head.slowestPingMs).toBeLessThan(1_000); // with the TOON view made here: ~2 s, the head read's time
      expect(head.value.isError).toBeFalsy();
      const lines = text(head.value);
      expect(lines).toMatch(/^\[Lines of the result as JSON: it is too large to turn into TOON .*limit\(100\)`\]\n/);
      expect(lines).toContain('{"rows":[{"id":0,"label":"row number 0 with some words"}');
    }
    // A part of it queried is still a TOON table.
    const query = text(await reader.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'query', query: '.rows | limit(3)' } }));
    expect(query).toContain('[3]{id,label}:');
    expect(query).toMatch(/\[shown as TOON/);
  });
});
