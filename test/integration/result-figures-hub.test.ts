/**
 * One size and one token count per result (issue 14, item 4), through the real hub: a big result that
 * holds its data twice (text and structuredContent) is sized as the model reads it, not as its JSON; its
 * token count is marked estimated at first, and once the ledger counts it exactly `call.counted` carries
 * the count the ledger and the spilled original hold too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HubEvent } from '../../shared/events.js';
import type { SavingsUpdate } from '../../shared/ledger.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;

type Finished = Extract<HubEvent, { type: 'call.finished' }>;
type Counted = Extract<HubEvent, { type: 'call.counted' }>;

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } },
    settings: { spill: { thresholdTokens: 4_000, previewTokens: 600 } },
    policies: { servers: {}, tools: { fx: { big_structured: { encoding: 'json' } } } },
  });
  await hub.waitForStatus('fx', 'ready');
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
});

describe('the figures of one result agree everywhere', () => {
  it('a big spilled result: its size is its text, its estimate is marked, and the exact count lands the same in Activity, the spilled original and Savings', async () => {
    const count = 20_000;
    const text = JSON.stringify({ rows: Array.from({ length: count }, (_, i) => ({ id: i, label: `row number ${i} with some words` })) });
    const finishing = hub.waitFor((e) => e.type === 'call.finished' && e.tool === 'big_structured', 'call.finished') as Promise<Finished>;
    const counting = hub.waitFor((e) => e.type === 'call.counted' && e.tool === 'big_structured', 'call.counted') as Promise<Counted>;
    const recorded = new Promise<SavingsUpdate>((resolve) => {
      const off = hub.hub.ledger.subscribe((u) => {
        if (u.record.kind === 'call' && u.record.tool === 'big_structured') {
          off();
          resolve(u);
        }
      });
    });
    const r = await client.callTool({ name: 'fx__big_structured', arguments: { count } });
    const handle = (r._meta as Record<string, string>)['spillway/handle']!;
    expect(handle).toBeTruthy();

    const finished = await finishing;
    expect(finished.action).toBe('spill');
    // One size: the text the model reads (what text.txt holds), not the JSON holding it twice.
    const textBytes = Buffer.byteLength(text, 'utf8');
    expect(finished.resultBytes).toBe(textBytes);
    expect(finished.bytesUpstream).toBeGreaterThan(1.9 * textBytes);
    expect(finished.resultBytesDelivered).toBeLessThan(textBytes / 10);
    // A text this long is counted from its start at call time, and says so.
    expect(finished.tokensEstimated).toBe(true);

    const counted = await counting;
    expect(counted).toMatchObject({ callId: finished.callId, level: 'debug', tokensEstimated: false, tokensDelivered: finished.tokensDelivered });
    const record = (await recorded).record as Extract<SavingsUpdate['record'], { kind: 'call' }>;
    expect(record.tokensUpstream).toBe(counted.tokensUpstream);
    expect(record.tokensDelivered).toBe(counted.tokensDelivered);
    expect(record.tokensEstimated).toBe(false);
    // The spilled original: the same count, and the same size.
    const [entry] = hub.hub.spill.store.list().filter((e) => e.handle === handle);
    expect(entry).toMatchObject({ tokens: counted.tokensUpstream, tokensEstimated: false, textBytes });
    // The estimate was close, but not the figure shown once counted.
    expect(Math.abs(finished.tokensUpstream! - counted.tokensUpstream) / counted.tokensUpstream).toBeLessThan(0.1);
  });

  it('a small result passed as it came: one size for both sides, no second event', async () => {
    const seen: HubEvent[] = [];
    const off = hub.hub.events.subscribe((e) => {
      if (e.type === 'call.counted') seen.push(e);
    });
    const finishing = hub.waitFor((e) => e.type === 'call.finished' && e.tool === 'big_structured', 'call.finished') as Promise<Finished>;
    const recorded = new Promise<void>((resolve) => {
      const stop = hub.hub.ledger.subscribe((u) => {
        if (u.record.kind === 'call' && u.record.tool === 'big_structured') {
          stop();
          resolve();
        }
      });
    });
    const r = await client.callTool({ name: 'fx__big_structured', arguments: { count: 3 } });
    const text = (r.content as { text: string }[])[0]!.text;
    const finished = await finishing;
    expect(finished.action).toBe('pass');
    expect(finished.resultBytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(finished.resultBytesDelivered).toBe(finished.resultBytes);
    expect(finished.tokensEstimated).toBeUndefined();
    // call.counted would be announced right after the ledger's record, in the same turn.
    await recorded;
    off();
    expect(seen).toEqual([]);
  });
});
