/**
 * Results dispatch keeps aside (audit s17, dispatch D1–D3). A result kept with personal data masked
 * (pii maskResults) holds placeholders only its own call could restore: argumentsFrom refuses it rather
 * than send the placeholders to the server. `resultToSpill` keeps any result that is not an error, a
 * one-token one too, and its header says it was kept as asked, not that it was too large.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

const FX = fixture('fixture-server.mjs');
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const hubs: TestHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.stop();
});

async function open(policies: unknown = {}) {
  const t = await startTestHub({
    version: 1,
    servers: { fx: { type: 'stdio', command: NODE, args: [FX] } },
    settings: { port: 0, policy: { dispatchOnly: true } },
    policies,
  });
  hubs.push(t);
  await t.waitForStatus('fx', 'ready');
  const client: Client = await t.connect();
  return async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'spillway__dispatch', arguments: args })) as CallToolResult;
    return { isError: r.isError === true, text: textOf(r) };
  };
}

const handleOf = (text: string) => /Handle "([a-z2-7]{12})"/.exec(text)?.[1];

describe('results dispatch keeps aside', () => {
  it('refuses argumentsFrom of a result kept with personal data masked, and sends nothing', async () => {
    const dispatch = await open({ tools: { fx: { echo_args: { pii: { types: ['email'], maskResults: true } } } } });
    const kept = await dispatch({ action: 'call', name: 'fx__echo_args', arguments: { text: 'bob@example.com', account: 'a' }, resultToSpill: true });
    expect(kept.text).toContain('"bob@example.com"'); // what the model was shown
    const again = await dispatch({ action: 'call', name: 'fx__echo_args', argumentsFrom: handleOf(kept.text) });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('kept with personal data masked');
    expect(again.text).toContain('`arguments`');
    expect(again.text).not.toMatch(/\[EMAIL_\d/);
  });

  it('still takes argumentsFrom of a result kept unmasked', async () => {
    const dispatch = await open();
    const kept = await dispatch({ action: 'call', name: 'fx__echo_args', arguments: { text: 'bob@example.com', account: 'a' }, resultToSpill: true });
    const again = await dispatch({ action: 'call', name: 'fx__echo_args', argumentsFrom: handleOf(kept.text) });
    expect(again.isError).toBe(false);
    expect(again.text).toContain('bob@example.com');
  });

  it('keeps a one-token result when resultToSpill asks, and gives its handle', async () => {
    const dispatch = await open();
    const r = await dispatch({ action: 'call', name: 'fx__add', arguments: { a: 1, b: 2 }, resultToSpill: true });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/Handle "[a-z2-7]{12}"/);
  });

  it('says a result kept by resultToSpill was kept as asked, not that it was too large', async () => {
    const dispatch = await open();
    const r = await dispatch({ action: 'call', name: 'fx__echo_args', arguments: { text: 't', account: 'a' }, resultToSpill: true });
    const header = r.text.split('\n')[0]!;
    expect(header).not.toMatch(/too large for the context/);
    expect(header).toMatch(/^\[Spillway\] Kept aside as asked: \d+ tokens \([\d.]+ [KMG]?B\) — showing /);
  });
});
