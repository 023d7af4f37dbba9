/**
 * In-memory aggregates of the ledger, kept per day so that any window (today, 7 days, N days, all time)
 * is a sum over day buckets rather than a re-read of the records.
 */
import {
  addToSavingsTotals,
  cloneSavingsTotals,
  emptySavingsTotals,
  mergeSavingsTotals,
  type LedgerEntry,
  type SavingsReport,
  type SavingsTotals,
} from '../../../shared/ledger.js';
import { dayOf, daysBefore } from '../log/journal-files.js';
import { compareText } from '../../../shared/plain-text.js';

interface DayBucket {
  totals: SavingsTotals;
  byTool: Map<string, { server: string; tool: string; totals: SavingsTotals }>;
  byServer: Map<string, SavingsTotals>;
  /** Keyed by client name; '' for records without one (never a valid clientInfo name in practice). */
  byClient: Map<string, SavingsTotals>;
}

const DAY_MS = 86_400_000;

/** One day of the aggregates, as the ledger's rollup file keeps it (ledger-rollup.ts). */
export interface DayTotals {
  day: string;
  totals: SavingsTotals;
  byTool: { server: string; tool: string; totals: SavingsTotals }[];
  byServer: { server: string; totals: SavingsTotals }[];
  /** '' for records without a client. */
  byClient: { client: string; totals: SavingsTotals }[];
}

function newBucket(): DayBucket {
  return { totals: emptySavingsTotals(), byTool: new Map(), byServer: new Map(), byClient: new Map() };
}

function totalsIn<K>(map: Map<K, SavingsTotals>, key: K): SavingsTotals {
  let t = map.get(key);
  if (!t) {
    t = emptySavingsTotals();
    map.set(key, t);
  }
  return t;
}

function bySaved(a: { totals: SavingsTotals }, b: { totals: SavingsTotals }): number {
  const sa = a.totals.tokensSaved + a.totals.schemaTokensSaved;
  const sb = b.totals.tokensSaved + b.totals.schemaTokensSaved;
  return sb - sa;
}

export class SavingsAggregates {
  private readonly days = new Map<string, DayBucket>();
  private readonly all = emptySavingsTotals();

  readonly #offsetAt: (ms: number) => number;

  /**
   * @param dayOffsetMinutes shift applied to record times before taking the date: a fixed number of minutes
   * (0 = UTC days), or the offset at each moment (a time zone, whose offset changes with daylight saving).
   */
  constructor(dayOffsetMinutes: number | ((ms: number) => number) = 0) {
    this.#offsetAt = typeof dayOffsetMinutes === 'number' ? () => dayOffsetMinutes : dayOffsetMinutes;
  }

  /** The day bucket a moment falls in. */
  dayOf(ms: number): string {
    return dayOf(ms, this.#offsetAt(ms));
  }

  /** When `day` starts, in ms since the epoch (the offset taken at that moment). */
  #startOf(day: string): number {
    const utcMidnight = Date.parse(`${day}T00:00:00Z`);
    return utcMidnight - this.#offsetAt(utcMidnight - this.#offsetAt(utcMidnight) * 60_000) * 60_000;
  }

  /** The day bucket of a record's time; the last one's day is reused while times stay within it. */
  #dayOfTime(time: string): string {
    const ms = Date.parse(time);
    if (ms >= this.#dayStart && ms < this.#dayEnd) return this.#day;
    const day = this.dayOf(ms);
    this.#day = day;
    this.#dayStart = this.#startOf(day);
    // A day with a daylight-saving change lasts 23 or 25 hours: its end is the next day's start.
    this.#dayEnd = this.#startOf(dayOf(Date.parse(`${day}T12:00:00Z`) + DAY_MS, 0));
    return day;
  }

  #day = '';
  #dayStart = Number.NaN;
  #dayEnd = Number.NaN;

  /** A copy of the all-time totals. */
  allTime(): SavingsTotals {
    return cloneSavingsTotals(this.all);
  }

  add(entry: LedgerEntry): void {
    const bucket = this.#bucket(this.#dayOfTime(entry.time));
    addToSavingsTotals(this.all, entry);
    addToSavingsTotals(bucket.totals, entry);
    addToSavingsTotals(totalsIn(bucket.byClient, entry.client ?? ''), entry);
    if (entry.kind === 'call') {
      addToSavingsTotals(totalsIn(bucket.byServer, entry.server), entry);
      // Server ids are slugs without NUL, so this key cannot make two (server, tool) pairs collide.
      const key = `${entry.server}\u0000${entry.tool}`;
      let tool = bucket.byTool.get(key);
      if (!tool) {
        tool = { server: entry.server, tool: entry.tool, totals: emptySavingsTotals() };
        bucket.byTool.set(key, tool);
      }
      addToSavingsTotals(tool.totals, entry);
    }
  }

  /** The day buckets, oldest first, as copies. */
  dayTotals(): DayTotals[] {
    return [...this.days]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([day, b]) => ({
        day,
        totals: cloneSavingsTotals(b.totals),
        byTool: [...b.byTool.values()].map((t) => ({ server: t.server, tool: t.tool, totals: cloneSavingsTotals(t.totals) })),
        byServer: [...b.byServer].map(([server, totals]) => ({ server, totals: cloneSavingsTotals(totals) })),
        byClient: [...b.byClient].map(([client, totals]) => ({ client, totals: cloneSavingsTotals(totals) })),
      }));
  }

  /** Adds a day's totals (rolled up from its records) as if those records were added one by one. */
  addDay(d: DayTotals): void {
    const bucket = this.#bucket(d.day);
    mergeSavingsTotals(this.all, d.totals);
    mergeSavingsTotals(bucket.totals, d.totals);
    for (const t of d.byTool) {
      const key = `${t.server}\u0000${t.tool}`;
      let tool = bucket.byTool.get(key);
      if (!tool) {
        tool = { server: t.server, tool: t.tool, totals: emptySavingsTotals() };
        bucket.byTool.set(key, tool);
      }
      mergeSavingsTotals(tool.totals, t.totals);
    }
    for (const s of d.byServer) mergeSavingsTotals(totalsIn(bucket.byServer, s.server), s.totals);
    for (const c of d.byClient) mergeSavingsTotals(totalsIn(bucket.byClient, c.client), c.totals);
  }

  #bucket(day: string): DayBucket {
    let bucket = this.days.get(day);
    if (!bucket) {
      bucket = newBucket();
      this.days.set(day, bucket);
    }
    return bucket;
  }

  /**
   * The report as of `today` (a day key). `days` limits the per-tool/server/client/day breakdowns to
   * today and the `days - 1` days before it; without it they cover all time.
   */
  report(today: string, days?: number): SavingsReport {
    const from = days === undefined ? undefined : daysBefore(today, days - 1);
    const weekFrom = daysBefore(today, 6);
    const last7Days = emptySavingsTotals();
    const byTool = new Map<string, { server: string; tool: string; totals: SavingsTotals }>();
    const byServer = new Map<string, SavingsTotals>();
    const byClient = new Map<string, SavingsTotals>();
    const byDay: { day: string; totals: SavingsTotals }[] = [];
    for (const [day, bucket] of this.days) {
      if (day >= weekFrom && day <= today) mergeSavingsTotals(last7Days, bucket.totals);
      if (from !== undefined && day < from) continue;
      byDay.push({ day, totals: cloneSavingsTotals(bucket.totals) });
      for (const [key, t] of bucket.byTool) {
        let acc = byTool.get(key);
        if (!acc) {
          acc = { server: t.server, tool: t.tool, totals: emptySavingsTotals() };
          byTool.set(key, acc);
        }
        mergeSavingsTotals(acc.totals, t.totals);
      }
      for (const [server, t] of bucket.byServer) mergeSavingsTotals(totalsIn(byServer, server), t);
      for (const [client, t] of bucket.byClient) mergeSavingsTotals(totalsIn(byClient, client), t);
    }
    const todayBucket = this.days.get(today);
    return {
      allTime: this.allTime(),
      today: todayBucket ? cloneSavingsTotals(todayBucket.totals) : emptySavingsTotals(),
      last7Days,
      byTool: [...byTool.values()].sort((a, b) => bySaved(a, b) || compareText(a.server, b.server) || compareText(a.tool, b.tool)),
      byServer: [...byServer].map(([server, totals]) => ({ server, totals })).sort((a, b) => bySaved(a, b) || compareText(a.server, b.server)),
      byClient: [...byClient]
        .map(([client, totals]) => (client === '' ? { totals } : { client, totals }))
        .sort((a, b) => bySaved(a, b) || compareText(a.client ?? '', b.client ?? '')),
      byDay: byDay.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
    };
  }
}
