/** The savings ledger of the fake backend: records in memory, aggregated with the shared helpers. */
import { addToSavingsTotals, emptySavingsTotals, type LedgerEntry, type SavingsReport, type SavingsTotals } from '../../shared/ledger.js';
import type { Handlers } from './fake-backend.js';

const dayOf = (iso: string) => iso.slice(0, 10);

function grouped<K>(entries: LedgerEntry[], keyOf: (e: LedgerEntry) => K | undefined): Array<[K, SavingsTotals]> {
  const groups = new Map<K, SavingsTotals>();
  for (const e of entries) {
    const k = keyOf(e);
    if (k === undefined) continue;
    addToSavingsTotals(groups.get(k) ?? groups.set(k, emptySavingsTotals()).get(k)!, e);
  }
  return [...groups.entries()].sort((a, b) => b[1].tokensSaved - a[1].tokensSaved);
}

export class FakeLedger {
  readonly entries: LedgerEntry[] = [];
  /** Today, as the ledger's clock sees it. */
  today = new Date().toISOString();

  /** Records a call: produced vs delivered tokens (bytes are 4 per token). */
  call(server: string, tool: string, tokensUpstream: number, tokensDelivered: number, extra: Partial<LedgerEntry> = {}): void {
    this.entries.push({
      kind: 'call',
      time: this.today,
      client: 'claude-ai',
      server,
      tool,
      action: tokensDelivered < tokensUpstream ? 'spill' : 'pass',
      tokensUpstream,
      tokensDelivered,
      tokensEstimated: false,
      bytesUpstream: tokensUpstream * 4,
      bytesDelivered: tokensDelivered * 4,
      latencyMs: 10,
      ...extra,
    } as LedgerEntry);
  }

  /** Records a tools/list: schema tokens upstream vs exposed. */
  list(tokensUpstreamSchemas: number, tokensExposed: number, time = this.today): void {
    this.entries.push({ kind: 'list', time, client: 'claude-ai', tokensUpstreamSchemas, tokensExposed });
  }

  report(): SavingsReport {
    const total = (list: LedgerEntry[]) => list.reduce((t, e) => addToSavingsTotals(t, e), emptySavingsTotals());
    const today = dayOf(this.today);
    const weekStart = dayOf(new Date(Date.parse(this.today) - 6 * 86_400_000).toISOString());
    const calls = this.entries.filter((e) => e.kind === 'call');
    return {
      allTime: total(this.entries),
      today: total(this.entries.filter((e) => dayOf(e.time) === today)),
      last7Days: total(this.entries.filter((e) => dayOf(e.time) >= weekStart)),
      byTool: grouped(calls, (e) => (e.kind === 'call' ? `${e.server}\u0000${e.tool}` : undefined)).map(([k, totals]) => {
        const [server, tool] = k.split('\u0000');
        return { server, tool, totals };
      }),
      byServer: grouped(calls, (e) => (e.kind === 'call' ? e.server : undefined)).map(([server, totals]) => ({ server, totals })),
      byClient: grouped(this.entries, (e) => e.client ?? '').map(([client, totals]) => (client ? { client, totals } : { totals })),
      byDay: grouped(this.entries, (e) => dayOf(e.time))
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([day, totals]) => ({ day, totals })),
    };
  }

  readonly handlers: Handlers = {
    'savings.report': () => ({ ok: true, value: this.report() }),
  };
}
