import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger, type CallRecordInput, type LedgerOptions } from '../../electron/core/ledger/ledger.js';
import { UsageRecords, type CountedCall } from '../../electron/core/ledger/usage-records.js';
import {
  SavingsUpdateSchema,
  addToSavingsTotals,
  emptySavingsTotals,
  type LedgerEntry,
  type SavingsTotals,
  type SavingsUpdate,
} from '../../shared/ledger.js';

const DAY = 86_400_000;

let dir: string;
let clock: number;
const now = () => clock;
const ledgers: Ledger[] = [];

async function openLedger(opts: Partial<LedgerOptions> = {}): Promise<Ledger> {
  const ledger = new Ledger({ dir, now, ...opts });
  ledgers.push(ledger);
  await ledger.open();
  return ledger;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-ledger-'));
  clock = Date.parse('2025-03-10T12:00:00.000Z');
});

afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((l) => l.close()));
  await rm(dir, { recursive: true, force: true });
});

function call(i: number, extra: Partial<CallRecordInput> = {}): CallRecordInput {
  const tokensUpstream = 20_000 + i * 10;
  return {
    client: i % 2 ? 'claude-ai' : 'cursor',
    server: i % 3 ? 'files' : 'github',
    tool: i % 3 ? 'read_file' : 'search_code',
    action: i % 4 === 0 ? 'pass' : 'spill',
    tokensUpstream,
    tokensDelivered: i % 4 === 0 ? tokensUpstream : 1_050,
    tokensEstimated: false,
    bytesUpstream: tokensUpstream * 4,
    bytesDelivered: 4_200,
    latencyMs: 12.5,
    handle: i % 4 === 0 ? undefined : `h${i}`,
    ...extra,
  };
}

function sum(entries: LedgerEntry[]): SavingsTotals {
  return entries.reduce((t, e) => addToSavingsTotals(t, e), emptySavingsTotals());
}

/** Records calls and lists over `days` days, moving the clock; returns what was recorded. */
function fill(ledger: Ledger, days: number, perDay: number): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (let d = 0; d < days; d++) {
    for (let i = 0; i < perDay; i++) {
      out.push(ledger.recordCall(call(d * perDay + i)));
      clock += 1000;
    }
    out.push(ledger.recordList({ client: 'cursor', tokensUpstreamSchemas: 9_000, tokensExposed: 2_500 }));
    clock += DAY;
  }
  return out;
}

describe('Ledger', () => {
  it('aggregates survive a restart and equal the sum of the records', async () => {
    const ledger = await openLedger();
    const entries = fill(ledger, 9, 5);
    entries.push(ledger.recordCall(call(99, { client: undefined })));
    const before = ledger.report();
    expect(before.allTime).toEqual(sum(entries));
    expect(before.allTime.calls).toBe(46);
    expect(before.allTime.lists).toBe(9);
    await ledger.close();

    const again = await openLedger();
    expect(again.report()).toEqual(before);
    const today = new Date(clock).toISOString().slice(0, 10);
    const inWindow = (e: LedgerEntry, from: number) => Date.parse(e.time) >= Date.parse(`${today}T00:00:00Z`) - from * DAY;
    const report = again.report({ days: 3 });
    expect(report.today).toEqual(sum(entries.filter((e) => e.time.startsWith(today))));
    expect(report.today.calls).toBe(1);
    expect(report.last7Days).toEqual(sum(entries.filter((e) => inWindow(e, 6))));
    expect(report.byDay.map((d) => d.totals)).toEqual(
      [2, 1, 0].map((back) =>
        sum(entries.filter((e) => e.time.startsWith(new Date(Date.parse(`${today}T00:00:00Z`) - back * DAY).toISOString().slice(0, 10)))),
      ),
    );
    expect(report.byClient.find((c) => c.client === undefined)?.totals.calls).toBe(1);
    for (const row of report.byTool) {
      expect(row.totals).toEqual(sum(entries.filter((e) => e.kind === 'call' && e.server === row.server && e.tool === row.tool && inWindow(e, 2))));
    }
  });

  it('writes one JSON line per record, asynchronously and in order', async () => {
    const ledger = await openLedger();
    const entries = fill(ledger, 1, 4);
    await expect(readdir(dir)).resolves.toEqual([]);
    await ledger.flush();
    const lines = (await readFile(join(dir, 'ledger.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LedgerEntry);
    expect(lines).toEqual(entries);
    expect(lines[0]).toMatchObject({ kind: 'call', time: '2025-03-10T12:00:00.000Z', server: 'github' });
    expect('handle' in lines[0]).toBe(false);
  });

  it('ignores a torn last line, never lets it corrupt the next record, and counts it as skipped', async () => {
    const ledger = await openLedger();
    const entries = fill(ledger, 2, 3);
    await ledger.close();
    const file = join(dir, 'ledger.jsonl');
    await appendFile(file, '{"kind":"call","time":"2025-03-12T00:00:00.000Z","client":"cur');

    const again = await openLedger();
    const opened = await again.open();
    expect(opened).toEqual({ records: entries.length, skipped: 1 });
    expect(again.report().allTime).toEqual(sum(entries));
    entries.push(again.recordCall(call(100)));
    await again.close();

    const third = new Ledger({ dir, now });
    ledgers.push(third);
    expect(await third.open()).toEqual({ records: entries.length, skipped: 0 });
    expect(third.report().allTime).toEqual(sum(entries));
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('skips lines that are JSON but not ledger records', async () => {
    await writeFile(
      join(dir, 'ledger.jsonl'),
      [
        JSON.stringify({ kind: 'list', time: '2025-03-10T10:00:00.000Z', tokensUpstreamSchemas: 10, tokensExposed: 4 }),
        JSON.stringify({ kind: 'call', time: 'yesterday', server: 's', tool: 't' }),
        JSON.stringify({ kind: 'other' }),
        '',
      ].join('\n'),
    );
    const ledger = new Ledger({ dir, now });
    ledgers.push(ledger);
    expect(await ledger.open()).toEqual({ records: 1, skipped: 2 });
    expect(ledger.report().today.schemaTokensSaved).toBe(6);
  });

  it('rotates by size and rebuilds from every file', async () => {
    const ledger = await openLedger({ maxFileBytes: 1_500 });
    const entries = fill(ledger, 3, 10);
    await ledger.close();
    const files = (await readdir(dir)).sort((a, b) => a.length - b.length || a.localeCompare(b));
    expect(files.length).toBeGreaterThan(3);
    expect(files.slice(0, 3)).toEqual(['ledger.jsonl', 'ledger.1.jsonl', 'ledger.2.jsonl']);
    for (const f of files) expect((await stat(join(dir, f))).size).toBeLessThanOrEqual(1_500);

    const again = await openLedger({ maxFileBytes: 1_500 });
    expect(again.report().allTime).toEqual(sum(entries));
  });

  it('publishes a live savings update with the record and the new all-time totals', async () => {
    const ledger = await openLedger();
    const updates: SavingsUpdate[] = [];
    const unsubscribe = ledger.subscribe((u) => updates.push(u));
    const a = ledger.recordCall(call(1));
    expect(updates).toHaveLength(1);
    expect(SavingsUpdateSchema.parse(updates[0])).toEqual(updates[0]);
    expect(updates[0]).toEqual({ type: 'savings', record: a, allTime: sum([a]) });
    const b = ledger.recordList({ tokensUpstreamSchemas: 40_000, tokensExposed: 900 });
    expect(updates[1]).toEqual({ type: 'savings', record: b, allTime: sum([a, b]) });
    // The totals in an update are a snapshot, not the live object.
    expect(updates[0].allTime.lists).toBe(0);
    unsubscribe();
    ledger.recordCall(call(2));
    expect(updates).toHaveLength(2);
  });

  it('refuses a malformed record and records nothing', async () => {
    const ledger = await openLedger();
    expect(() => ledger.recordCall(call(1, { tokensUpstream: -5 }))).toThrow();
    expect(() => ledger.recordCall({ ...call(1), action: 'explode' } as unknown as CallRecordInput)).toThrow();
    expect(() => ledger.recordCall(call(1, { time: 'not a time' }))).toThrow();
    expect(ledger.report().allTime).toEqual(emptySavingsTotals());
  });

  it('applies records made before open() after the files are read, counting each once', async () => {
    const first = await openLedger();
    const entries = fill(first, 1, 3);
    await first.close();

    const ledger = new Ledger({ dir, now });
    ledgers.push(ledger);
    const updates: SavingsUpdate[] = [];
    ledger.subscribe((u) => updates.push(u));
    entries.push(ledger.recordCall(call(50)));
    const opening = ledger.open();
    entries.push(ledger.recordCall(call(51)));
    await opening;
    expect(ledger.report().allTime).toEqual(sum(entries));
    expect(updates.map((u) => u.allTime.calls)).toEqual([4, 5]);
    await ledger.close();

    const again = await openLedger();
    expect(again.report().allTime).toEqual(sum(entries));
  });

  it('drops records after close and says so, without throwing into the caller', async () => {
    const errors: unknown[] = [];
    const ledger = await openLedger({ onError: (e) => errors.push(e) });
    await ledger.close();
    expect(() => ledger.recordCall(call(1))).not.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('opens an empty or missing folder as an empty ledger', async () => {
    const ledger = new Ledger({ dir: join(dir, 'not', 'yet'), now });
    ledgers.push(ledger);
    expect(await ledger.open()).toEqual({ records: 0, skipped: 0 });
    ledger.recordCall(call(1));
    await ledger.flush();
    expect(await readdir(join(dir, 'not', 'yet'))).toEqual(['ledger.jsonl']);
  });
});

describe('Ledger: a file it cannot read', () => {
  it('opens without it, says which, and records on (the hub still starts)', async () => {
    const first = await openLedger();
    first.recordCall(call(1));
    await first.close();
    // A file that cannot be read (as another user's would be): here a folder where a segment should be.
    await mkdir(join(dir, 'ledger.1.jsonl'));
    const errors: unknown[] = [];
    const ledger = await openLedger({ onError: (err) => errors.push(err) });
    const opened = await ledger.open();
    expect(opened.unreadable).toEqual([join(dir, 'ledger.1.jsonl')]);
    expect(opened.records).toBe(1);
    expect(errors).toHaveLength(1);
    ledger.recordCall(call(2));
    await ledger.flush();
    expect(ledger.report().allTime.calls).toBe(2);
  });
});

describe('UsageRecords: how a call is counted', () => {
  /** Counts characters, and says how often it was asked. */
  const counter = { calls: 0, countExactOffThread: async (text: string) => (counter.calls++, { tokens: text.length, estimated: false }) };
  const delivered = { content: [{ type: 'text', text: 'abc' }] };
  // Counted on the text the model reads (ledger/counted-text.ts), not the JSON of the blocks.
  const contentTokens = 'abc'.length;

  function counted(report: Partial<CountedCall['report']>): CountedCall {
    return {
      session: { clientName: 'cursor' },
      server: 'fs',
      tool: 'read',
      durationMs: 12,
      report: { action: 'pass', asIs: true, bytesUpstream: 100, bytesDelivered: 100, delivered, ...report },
    };
  }

  async function record(calls: CountedCall[]) {
    const ledger = await openLedger();
    const usage = new UsageRecords({ ledger, counter, schemas: () => ({ upstream: [], exposed: [] }), log: () => undefined });
    const records: LedgerEntry[] = [];
    const all = new Promise<void>((resolve) => {
      ledger.subscribe((u) => {
        records.push(u.record);
        if (records.length === calls.length) resolve();
      });
    });
    counter.calls = 0;
    for (const c of calls) usage.recordCall(c);
    await all;
    return records;
  }

  it('counts a result delivered as it came once, for both sides', async () => {
    const [r] = await record([counted({ countUpstreamTokens: async () => ({ tokens: 900, estimated: true }) })]);
    expect(r).toMatchObject({ client: 'cursor', action: 'pass', tokensUpstream: 900, tokensDelivered: 900, tokensEstimated: true, latencyMs: 12 });
  });

  it('counts what a spilled, truncated or compressed result delivered as it was built', async () => {
    const [r] = await record([
      counted({
        action: 'spill',
        asIs: false,
        tokensDelivered: 150,
        handle: 'abcd2345efgh',
        countUpstreamTokens: async () => ({ tokens: 20_000, estimated: false }),
      }),
    ]);
    expect(r).toMatchObject({ action: 'spill', tokensUpstream: 20_000, tokensDelivered: 150, tokensEstimated: false, handle: 'abcd2345efgh' });
  });

  it('counts the delivered content when a call brought no count (an error), once for both sides', async () => {
    const [r] = await record([counted({ action: 'error', bytesUpstream: 0 })]);
    expect(r).toMatchObject({ action: 'error', tokensUpstream: contentTokens, tokensDelivered: contentTokens });
    expect(counter.calls).toBe(1);
  });
});
