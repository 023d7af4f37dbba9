/**
 * An upstream's isError result is an error everywhere (audit s19, defect 2): the call.finished event (what
 * Activity shows) says `error`, not `pass`; the ledger records it under `error` (Savings' byAction), its
 * tokens still counted as delivered (the model read them); and a successful call of the same tool is still a
 * `pass`. Also when Spillway is paused (results delivered as they came). A real hub over HTTP, the SDK
 * Client, and a stdio server whose `refuse` tool always answers with an isError result (quoting-server.mjs).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import type { LedgerEntry } from '../../shared/ledger.js';
import { NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';

type Finished = Extract<HubEvent, { type: 'call.finished' }>;
type CallEntry = Extract<LedgerEntry, { kind: 'call' }>;

describe('an isError result is recorded as an error', () => {
  let t: TestHub;
  let c: Client;

  /** Calls `tool`: its result, its call.finished event and its ledger record. */
  const call = async (tool: string) => {
    const finished = t.waitFor((e) => e.type === 'call.finished' && e.exposedName === `quo__${tool}`, `call.finished of ${tool}`);
    const recorded = new Promise<CallEntry>((resolve) => {
      const off = t.hub.ledger.subscribe((update) => {
        if (update.record.kind === 'call' && update.record.tool === tool) {
          off();
          resolve(update.record);
        }
      });
    });
    const result = (await c.callTool({ name: `quo__${tool}`, arguments: { key: 'k-1', q: 'x' } })) as CallToolResult;
    return { result, event: (await finished) as Finished, record: await recorded };
  };

  beforeAll(async () => {
    t = await startTestHub({
      version: 1,
      servers: { quo: { type: 'stdio', command: NODE, args: [fixture('quoting-server.mjs')] } },
      settings: { port: 0 },
    });
    await t.waitForStatus('quo', 'ready');
    c = await t.connect();
  }, 60_000);
  afterAll(async () => t?.stop());

  it('call.finished and the ledger say error; its tokens count as delivered', async () => {
    const before = t.hub.ledger.report().allTime.byAction;
    const { result, event, record } = await call('refuse');
    expect(result.isError).toBe(true);
    expect(event).toMatchObject({ isError: true, action: 'error', level: 'warn' });
    expect(event.resultBytesDelivered).toBeGreaterThan(0);
    expect(record.action).toBe('error');
    expect(record.tokensDelivered).toBeGreaterThan(0);
    expect(record.tokensDelivered).toBe(record.tokensUpstream);
    const after = t.hub.ledger.report().allTime.byAction;
    expect(after.error).toBe(before.error + 1);
    expect(after.pass).toBe(before.pass);
  });

  it('a successful call is still a pass', async () => {
    const { result, event, record } = await call('echo');
    expect(result.isError).toBeFalsy();
    expect(event).toMatchObject({ isError: false, action: 'pass' });
    expect(record.action).toBe('pass');
  });

  it('is an error when Spillway is paused too', async () => {
    expect((await t.api('settings.set', { paused: true })).ok).toBe(true);
    try {
      const { event, record } = await call('refuse');
      expect(event).toMatchObject({ isError: true, action: 'error' });
      expect(record.action).toBe('error');
    } finally {
      await t.api('settings.set', { paused: false });
    }
  });
});
