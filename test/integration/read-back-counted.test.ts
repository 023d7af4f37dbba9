/**
 * A read of a kept result is told as an event once the ledger holds it: the hub answers the read itself,
 * so no `call.finished` goes out, and Savings would otherwise go on showing what it saved before the read.
 * What it delivered is counted on the text read, as the spill counted the same text (audit s17: it was
 * counted on the JSON of its blocks, ~40% more, and a result read back whole showed a false loss).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HubEvent } from '../../shared/events.js';
import type { LedgerEntry } from '../../shared/ledger.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;
let handle: string;
/** The spill's record: what the upstream produced, counted on the kept text. */
let spillRecord: Promise<Extract<LedgerEntry, { kind: 'call' }>>;

type Counted = Extract<HubEvent, { type: 'call.counted' }>;

/** Calls to read_result in the ledger, read when the event comes (not after: the event must follow the record). */
const readBacksInLedger = () => hub.hub.ledger.report().byTool.find((t) => t.server === 'spillway' && t.tool === 'read_result')?.totals.calls ?? 0;

/** The next read-back event, with how many read-backs the ledger held at that moment. */
function nextReadBack(): Promise<{ event: Counted; inLedger: number }> {
  return new Promise((resolve) => {
    const off = hub.hub.events.subscribe((e) => {
      if (e.type !== 'call.counted' || !e.readBack) return;
      off();
      resolve({ event: e, inLedger: readBacksInLedger() });
    });
  });
}

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } },
    settings: { spill: { thresholdTokens: 2_000, previewTokens: 200 } },
  });
  await hub.waitForStatus('fx', 'ready');
  client = await hub.connect();
  spillRecord = new Promise((resolve) => {
    const off = hub.hub.ledger.subscribe(({ record }) => {
      if (record.kind !== 'call' || record.action !== 'spill') return;
      off();
      resolve(record);
    });
  });
  const spilled = await client.callTool({ name: 'fx__big_json', arguments: { count: 2_000 } });
  handle = (spilled._meta as Record<string, string>)['spillway/handle'];
  expect(handle).toBeTruthy();
});

afterAll(async () => {
  await hub?.stop();
});

describe('a read of a kept result', () => {
  it('through spillway__read_result: call.counted with readBack, once the ledger holds the read', async () => {
    const before = readBacksInLedger();
    const told = nextReadBack();
    const finished: HubEvent[] = [];
    const off = hub.hub.events.subscribe((e) => {
      if (e.type === 'call.finished' && e.server === 'spillway') finished.push(e);
    });
    await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head', lines: 50 } });
    const { event, inLedger } = await told;
    off();
    expect(inLedger).toBe(before + 1);
    expect(event).toMatchObject({
      level: 'info',
      server: 'spillway',
      tool: 'read_result',
      exposedName: 'spillway__read_result',
      tokensUpstream: 0,
      tokensEstimated: false,
      readBack: true,
    });
    expect(event.tokensDelivered).toBeGreaterThan(100);
    // This event alone tells of the read: no call.finished went out for it.
    expect(finished).toEqual([]);
  });

  it('through resources/read of its address: told the same way', async () => {
    const before = readBacksInLedger();
    const told = nextReadBack();
    await client.readResource({ uri: `spillway://spill/${handle}` });
    const { event, inLedger } = await told;
    expect(inLedger).toBe(before + 1);
    expect(event).toMatchObject({ server: 'spillway', tool: 'read_result', tokensUpstream: 0, readBack: true });
  });

  it('read whole (resources/read): delivers the tokens its spill counted, no more', async () => {
    const told = nextReadBack();
    const read = await client.readResource({ uri: `spillway://spill/${handle}` });
    const { event } = await told;
    const spill = await spillRecord;
    expect(spill.tokensEstimated).toBe(false);
    expect(event.tokensDelivered).toBe(spill.tokensUpstream);
    // JSON text: the JSON of its block, with every quote escaped, has far more tokens.
    expect((read.contents[0] as { text: string }).text).toContain('"items":[{"id":0');
  });
});
