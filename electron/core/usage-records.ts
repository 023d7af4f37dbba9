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

export class UsageRecords {
  #schemaTokens: Promise<{ upstream: number; exposed: number }> | undefined;

  constructor(private readonly parts: UsageRecordsParts) {}

  recordCall(call: FinishedCall): void {
    const { ledger, spill, log } = this.parts;
    const r = call.report;
    const fallback = () => spill.counter.countExactOffThread(JSON.stringify(r.delivered.content ?? []));
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
      { upstream: r.countUpstreamTokens ?? fallback, delivered: r.countDeliveredTokens ?? fallback },
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
