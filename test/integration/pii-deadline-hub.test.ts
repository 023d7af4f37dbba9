/**
 * A custom PII pattern that runs past its time limit, through the real hub (in-process, an SDK McpServer
 * as the upstream, the limit shortened to 50 ms): on the arguments the call is not made, on the result
 * (maskResults) it is not delivered. Either way the client reads an isError result naming the pattern
 * and what to do, the log says the same, and the upstream is not blamed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { HubEvent } from '../../shared/events.js';
import { HubRuns, hubEvent, upstreamReady } from '../support/hub-runs.js';

/** Linear but slow on text of a's and b's in no fixed order: ~500 automaton states alive per character. */
const SLOW = { name: 'slow', pattern: 'a[ab]{500}[^ab]' };

/** `n` a's and b's in a fixed pseudo-random order (a repeating text would let the engine cache its way through). */
function abText(n: number): string {
  let seed = 7;
  return Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0x100 ? 'a' : 'b')).join('');
}

let runs: HubRuns;
let received: unknown[];
beforeEach(async () => {
  runs = await HubRuns.open('spillway-pii-deadline-');
  received = [];
});
afterEach(() => runs.close());

async function start(policy: Record<string, unknown>) {
  const config = { version: 1, servers: { s: { type: 'stdio', command: 'in-memory-s', startMode: 'always' } }, policies: { tools: { s: policy } } };
  const hub = await runs.start(config, {
    piiDeadlineMs: 50,
    createTransport: async () => {
      const server = new McpServer({ name: 's', version: '1.0.0' });
      server.registerTool('echo', { description: 'Echoes its note.', inputSchema: { note: z.string() } }, async (args) => {
        received.push(args);
        return { content: [{ type: 'text', text: args.note }] };
      });
      server.registerTool('letters', { description: 'A long text of a and b.', inputSchema: { n: z.number().int() } }, async ({ n }) => {
        received.push({ n });
        return { content: [{ type: 'text', text: abText(n) }] };
      });
      const [upstreamSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return { transport: upstreamSide };
    },
  });
  await upstreamReady(hub, 's');
  return { hub, client: await runs.connect(hub) };
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('a custom PII pattern past its time limit', () => {
  it('on the arguments: the call is not made; the client and the log are told which pattern and what to do', async () => {
    const { hub, client } = await start({ echo: { pii: { types: ['email'], custom: [SLOW] } } });
    const logged = hubEvent(hub, (e) => e.type === 'log' && e.level === 'error');
    const result = (await client.callTool({ name: 's__echo', arguments: { note: abText(300_000) } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^Tool "s__echo" was not called: masking personal data in its arguments with the custom PII pattern "slow" took longer/);
    expect(text).toMatch(/Simplify that pattern in Spillway's tool policies/);
    expect(((await logged) as Extract<HubEvent, { type: 'log' }>).message).toBe(text);
    expect(received).toEqual([]);
    // A short note is masked in time and the call is made.
    expect(textOf((await client.callTool({ name: 's__echo', arguments: { note: 'hi a@x.com' } })) as CallToolResult)).toBe('hi a@x.com');
    expect(received).toEqual([{ note: expect.stringMatching(/^hi \[EMAIL_1_[a-z][a-z0-9]{5}\]$/) }]);
  });

  it('on the result (maskResults): not delivered, reported as masking that took too long, not as the server failing', async () => {
    const { hub, client } = await start({ letters: { pii: { types: [], custom: [SLOW], maskResults: true } } });
    const finished = hubEvent(hub, (e) => e.type === 'call.finished' && e.exposedName === 's__letters');
    const result = (await client.callTool({ name: 's__letters', arguments: { n: 300_000 } })) as CallToolResult;
    expect(received).toEqual([{ n: 300_000 }]);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(
      /^Tool "s__letters" answered, but its result was not delivered: masking personal data in it with the custom PII pattern "slow"/,
    );
    expect(text).not.toMatch(/Server "s" failed/);
    const event = (await finished) as Extract<HubEvent, { type: 'call.finished' }>;
    expect(event).toMatchObject({ isError: true, action: 'error', error: text });
  });
});
