/**
 * How the hub's work is counted in the ledger, in one place: one record per finished tool call, and per
 * tools/list the schema tokens upstreams offered against what was exposed. Exact token counts are made
 * off the request path (the token counter's worker), after the answer is on its way.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResultAction } from '../../../shared/events.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { Ledger } from './ledger.js';

/** One finished tool call, as the call path reports it. */
export interface CountedCall {
  session: { readonly clientName: string | undefined };
  server: string;
  tool: string;
  durationMs: number;
  report: {
    action: ResultAction;
    /** The client got the upstream's result as it came (passed, from the cache or not), or an error. */
    asIs: boolean;
    bytesUpstream: number;
    bytesDelivered: number;
    /** Tokens of what was delivered, counted when it was built (spilled, truncated, compressed). */
    tokensDelivered?: number;
    handle?: string;
    delivered: { content?: unknown };
    /** The exact count of what the upstream produced, made when the ledger asks. */
    countUpstreamTokens?: () => Promise<TokenCount>;
  };
}

export interface UsageRecordsParts {
  ledger: Ledger;
  counter: Pick<TokenCounter, 'countExactOffThread'>;
  /** The upstream tool schemas (hidden, withheld and dispatch-only ones included) and what tools/list exposes. */
  schemas: () => { upstream: Tool[]; exposed: Tool[] };
  log: (message: string, error?: unknown) => void;
}

export class UsageRecords {
  #schemaTokens: Promise<{ upstream: number; exposed: number }> | undefined;
  /** Finished calls waiting to be recorded: the ledger's work is done after the answer is on its way. */
  #queued: CountedCall[] = [];
  #flushing: NodeJS.Immediate | undefined;

  constructor(private readonly parts: UsageRecordsParts) {}

  /** Records a finished call in the ledger, shortly after (its exact token counts are made off the request path). */
  recordCall(call: CountedCall): void {
    this.#queued.push(call);
    if (this.#flushing !== undefined) return;
    this.#flushing = setImmediate(() => {
      this.#flushing = undefined;
      const calls = this.#queued;
      this.#queued = [];
      for (const c of calls) this.#record(c);
    });
  }

  /**
   * The rules: the upstream side is the exact count of what the upstream produced (or, when the call
   * brought no count, of the delivered content). A result delivered as it came counts the same on both
   * sides, with no second count; otherwise the delivered side is what the client got.
   */
  #record(call: CountedCall): void {
    const { ledger, log } = this.parts;
    const r = call.report;
    const upstream = r.countUpstreamTokens ? r.countUpstreamTokens() : this.#countContent(r.delivered);
    const delivered = r.asIs
      ? upstream
      : r.tokensDelivered !== undefined
        ? Promise.resolve({ tokens: r.tokensDelivered, estimated: false })
        : this.#countContent(r.delivered);
    void Promise.all([upstream, delivered])
      .then(([up, down]) => {
        ledger.recordCall({
          ...(call.session.clientName ? { client: call.session.clientName } : {}),
          server: call.server,
          tool: call.tool,
          action: r.action,
          tokensUpstream: up.tokens,
          tokensDelivered: down.tokens,
          tokensEstimated: up.estimated || down.estimated,
          bytesUpstream: r.bytesUpstream,
          bytesDelivered: r.bytesDelivered,
          latencyMs: call.durationMs,
          ...(r.handle ? { handle: r.handle } : {}),
        });
      })
      .catch((err) => log('ledger record failed', err));
  }

  #countContent(result: { content?: unknown }): Promise<TokenCount> {
    return this.parts.counter.countExactOffThread(JSON.stringify(result.content ?? []));
  }

  /**
   * Per tools/list served: tokens of every upstream schema vs what was exposed (counted once per
   * catalog), so hiding and dispatch show as savings.
   */
  recordToolsList(client: string | undefined): void {
    const { ledger, log } = this.parts;
    this.#schemaTokens ??= this.#countSchemas();
    void this.#schemaTokens
      .then((t) => ledger.recordList({ ...(client ? { client } : {}), tokensUpstreamSchemas: t.upstream, tokensExposed: t.exposed }))
      .catch((err) => log('ledger list record failed', err));
  }

  async #countSchemas(): Promise<{ upstream: number; exposed: number }> {
    const { upstream, exposed } = this.parts.schemas();
    const count = async (tools: Tool[]) => (await this.parts.counter.countExactOffThread(JSON.stringify({ tools }))).tokens;
    const [u, e] = await Promise.all([count(upstream), count(exposed)]);
    return { upstream: u, exposed: e };
  }

  /** The catalog's tools changed: the next tools/list counts its schema tokens afresh. */
  toolsChanged(): void {
    this.#schemaTokens = undefined;
  }
}
