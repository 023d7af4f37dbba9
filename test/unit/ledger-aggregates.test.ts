import { describe, expect, it } from 'vitest';
import { SavingsAggregates } from '../../electron/core/ledger/savings-aggregates.js';
import { SavingsReportSchema, addToSavingsTotals, emptySavingsTotals, type LedgerEntry, type SavingsTotals } from '../../shared/ledger.js';

const DAY = 86_400_000;
const T0 = Date.parse('2025-03-10T09:00:00.000Z');

/** Records over 10 days: 3 servers, 4 tools, 2 clients plus calls with no client, and tools/list. */
function sampleEntries(): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  const tools = [
    ['github', 'search_code'],
    ['github', 'get_file'],
    ['files', 'read_file'],
    ['memory', 'read_graph'],
  ] as const;
  const actions = ['pass', 'spill', 'truncate', 'cache', 'compress', 'error'] as const;
  for (let i = 0; i < 120; i++) {
    const time = new Date(T0 - (i % 10) * DAY + i * 1000).toISOString();
    const client = i % 3 === 0 ? undefined : i % 3 === 1 ? 'claude-ai' : 'cursor';
    if (i % 8 === 0) {
      out.push({ kind: 'list', time, client, tokensUpstreamSchemas: 5000 + i, tokensExposed: 1200 });
      continue;
    }
    const [server, tool] = tools[i % 4];
    const tokensUpstream = 100 * i;
    const action = actions[i % 6];
    out.push({
      kind: 'call',
      time,
      client,
      server,
      tool,
      action,
      tokensUpstream,
      tokensDelivered: action === 'pass' ? tokensUpstream : Math.min(tokensUpstream, 1000),
      tokensEstimated: i % 7 === 0,
      bytesUpstream: 4 * tokensUpstream,
      bytesDelivered: 400,
      latencyMs: i,
    });
  }
  return out;
}

function sum(entries: LedgerEntry[]): SavingsTotals {
  return entries.reduce((t, e) => addToSavingsTotals(t, e), emptySavingsTotals());
}

const dayOfEntry = (e: LedgerEntry) => e.time.slice(0, 10);

describe('SavingsAggregates', () => {
  const entries = sampleEntries();
  const agg = new SavingsAggregates();
  for (const e of entries) agg.add(e);
  const today = '2025-03-10';

  it('reports all time, today and the last 7 days as sums of the records', () => {
    const report = agg.report(today);
    expect(SavingsReportSchema.parse(report)).toEqual(report);
    expect(report.allTime).toEqual(sum(entries));
    expect(report.today).toEqual(sum(entries.filter((e) => dayOfEntry(e) === today)));
    expect(report.last7Days).toEqual(sum(entries.filter((e) => dayOfEntry(e) >= '2025-03-04' && dayOfEntry(e) <= today)));
    expect(report.allTime.calls + report.allTime.lists).toBe(entries.length);
    expect(report.allTime.tokensSaved).toBe(report.allTime.tokensUpstream - report.allTime.tokensDelivered);
    expect(report.allTime.schemaTokensSaved).toBe(report.allTime.schemaTokensUpstream - report.allTime.schemaTokensExposed);
    const byAction = Object.values(report.allTime.byAction).reduce((a, b) => a + b, 0);
    expect(byAction).toBe(report.allTime.calls);
  });

  it('breaks down by tool, server, client and day, each adding up to all time', () => {
    const report = agg.report(today);
    const calls = entries.filter((e) => e.kind === 'call');
    for (const row of report.byTool) {
      expect(row.totals).toEqual(sum(calls.filter((e) => e.server === row.server && e.tool === row.tool)));
    }
    expect(report.byTool.map((r) => `${r.server}/${r.tool}`).sort()).toEqual([
      'files/read_file',
      'github/get_file',
      'github/search_code',
      'memory/read_graph',
    ]);
    for (const row of report.byServer) expect(row.totals).toEqual(sum(calls.filter((e) => e.server === row.server)));
    expect(report.byServer.map((r) => r.server).sort()).toEqual(['files', 'github', 'memory']);
    for (const row of report.byClient) expect(row.totals).toEqual(sum(entries.filter((e) => e.client === row.client)));
    expect(report.byClient.map((r) => r.client ?? '(none)').sort()).toEqual(['(none)', 'claude-ai', 'cursor']);
    expect(report.byDay.map((r) => r.day)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(T0 - (9 - i) * DAY).toISOString().slice(0, 10)));
    for (const row of report.byDay) expect(row.totals).toEqual(sum(entries.filter((e) => dayOfEntry(e) === row.day)));
    // Sorted by savings, most first.
    const saved = report.byTool.map((r) => r.totals.tokensSaved);
    expect(saved).toEqual([...saved].sort((a, b) => b - a));
  });

  it('limits the breakdowns to the queried days', () => {
    const report = agg.report(today, 3);
    const recent = entries.filter((e) => dayOfEntry(e) >= '2025-03-08');
    expect(report.byDay.map((r) => r.day)).toEqual(['2025-03-08', '2025-03-09', '2025-03-10']);
    for (const row of report.byServer) {
      expect(row.totals).toEqual(sum(recent.filter((e) => e.kind === 'call' && e.server === row.server)));
    }
    expect(report.allTime).toEqual(sum(entries));
    expect(agg.report(today, 1).byDay.map((r) => r.day)).toEqual([today]);
  });

  it('moves today and the 7-day window with the clock', () => {
    const later = agg.report('2025-03-12');
    expect(later.today).toEqual(emptySavingsTotals());
    expect(later.last7Days).toEqual(sum(entries.filter((e) => dayOfEntry(e) >= '2025-03-06')));
  });

  it('buckets by an injected offset instead of UTC when asked', () => {
    const local = new SavingsAggregates(120); // UTC+2
    local.add({ kind: 'list', time: '2025-03-10T23:30:00.000Z', tokensUpstreamSchemas: 10, tokensExposed: 1 });
    expect(local.report('2025-03-11').today.lists).toBe(1);
    const utc = new SavingsAggregates();
    utc.add({ kind: 'list', time: '2025-03-10T23:30:00.000Z', tokensUpstreamSchemas: 10, tokensExposed: 1 });
    expect(utc.report('2025-03-10').today.lists).toBe(1);
  });

  it('buckets by the time zone at each moment, daylight saving included (a 23-hour day)', () => {
    // A zone at UTC-8 that moves to UTC-7 at 2025-03-09 10:00 UTC (02:00 local), as US Pacific time does.
    const pacific = (ms: number) => (ms >= Date.parse('2025-03-09T10:00:00Z') ? -420 : -480);
    const agg = new SavingsAggregates(pacific);
    const list = (time: string) => agg.add({ kind: 'list', time, tokensUpstreamSchemas: 10, tokensExposed: 1 });
    list('2025-03-09T08:30:00Z'); // 00:30 on the 9th, before the change
    list('2025-03-10T06:30:00Z'); // 23:30 on the 9th, after it
    list('2025-03-10T07:30:00Z'); // 00:30 on the 10th: 23 hours after the 9th began
    list('2025-03-10T06:45:00Z'); // 23:45 on the 9th again, after a record of the 10th
    expect(agg.report('2025-03-10', 2).byDay.map((d) => [d.day, d.totals.lists])).toEqual([
      ['2025-03-09', 3],
      ['2025-03-10', 1],
    ]);
  });

  it('is empty before any record', () => {
    const report = new SavingsAggregates().report(today);
    expect(report).toEqual({
      allTime: emptySavingsTotals(),
      today: emptySavingsTotals(),
      last7Days: emptySavingsTotals(),
      byTool: [],
      byServer: [],
      byClient: [],
      byDay: [],
    });
  });
});
