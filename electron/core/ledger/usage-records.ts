/**
 * What the hub writes to the ledger as it serves: one record per finished tool call, and per tools/list
 * the schema tokens upstreams offered against what was exposed.
 */
import type { Catalog } from './catalog/catalog.js';
import type { FinishedCall } from './downstream/relay-contract.js';
import type { Ledger } from './ledger/ledger.js';
import { recordCallInLedger, type SpillFeature } from './spill/spill-feature.js';

export interface UsageRecordsParts {
  ledger: Ledger;
  spill: SpillFeature;
  catalog: Catalog;
  log: (message: string, error?: unknown) => void;
}

/** Stands in for the delivered count where recordCallInLedger uses the upstream one anyway. */
const NO_SECOND_COUNT = async () => ({ tokens: 0, estimated: false });

export class UsageRecords {
  #schemaTokens: Promise<{ upstream: number; exposed: number }> | undefined;
  /** Finished calls waiting to be recorded: the ledger's work is done after the answer is on its way. */
  #queued: FinishedCall[] = [];
  #flushing: NodeJS.Immediate | undefined;

  constructor(private readonly parts: UsageRecordsParts) {}

  /** Records a finished call in the ledger, shortly after (its exact token counts are made off the request path). */
  recordCall(call: FinishedCall): void {
    this.#queued.push(call);
    this.#flushing ??= setImmediate(() => {
      this.#flushing = undefined;
      const calls = this.#queued;
      this.#queued = [];
      for (const c of calls) this.#record(c);
    });
  }

  #record(call: FinishedCall): void {
    const { ledger, spill, log } = this.parts;
    const r = call.report;
    const fallback = () => spill.counter.countExactOffThread(JSON.stringify(r.delivered.content ?? []));
    const upstream = r.countUpstreamTokens ?? fallback;
    // A passed (or failed) result is recorded with its upstream count for both sides: no second count.
    const sameAsUpstream = r.action === 'pass' || r.action === 'error';
    recordCallInLedger(
      ledger,
      {
        ...(call.session.clientName ? { client: call.session.clientName } : {}),
        server: call.server,
        tool: call.tool,
        action: r.action,
        bytesUpstream: r.bytesUpstream,
        bytesDelivered: r.bytesDelivered,
        latencyMs: call.durationMs,
        ...(r.handle ? { handle: r.handle } : {}),
      },
      { upstream, delivered: sameAsUpstream ? NO_SECOND_COUNT : (r.countDeliveredTokens ?? fallback) },
      (m, e) => log(m, e),
    );
  }

  /**
   * Per tools/list served: tokens of every upstream schema (hidden, withheld and dispatch-only tools
   * included) vs what was exposed (counted once per catalog), so hiding and dispatch show as savings.
   */
  recordToolsList(client: string | undefined): void {
    const { ledger, spill, catalog, log } = this.parts;
    this.#schemaTokens ??= Promise.all([
      spill.countSchemaTokens(catalog.toolEntries().map((t) => t.upstream)),
      spill.countSchemaTokens(catalog.listTools()),
    ]).then(([upstream, exposed]) => ({ upstream, exposed }));
    void this.#schemaTokens
      .then((t) => ledger.recordList({ ...(client ? { client } : {}), tokensUpstreamSchemas: t.upstream, tokensExposed: t.exposed }))
      .catch((err) => log('ledger list record failed', err));
  }

  /** The catalog's tools changed: the next tools/list counts its schema tokens afresh. */
  toolsChanged(): void {
    this.#schemaTokens = undefined;
  }
}
