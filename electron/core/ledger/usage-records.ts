/**
 * How the hub's work is counted in the ledger, in one place: one record per finished tool call, and per
 * tools/list the schema tokens upstreams offered against what was exposed. Exact token counts are made
 * off the request path (the token counter's worker), after the answer is on its way; the counts of small
 * results are remembered, since the same few (`ok`, `[]`) come back again and again.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput, ResultAction } from '../../../shared/events.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { CallRecordInput } from './call-record.js';
import { countedText, mediaTokens, type CountedResult } from './counted-text.js';
import type { Ledger } from './ledger.js';

/** One finished tool call, as the call path reports it. */
export interface CountedCall {
  /** Set by the call path (and for an own answer): the exact counts are announced under it (`call.counted`) when they differ from what `call.finished` said. */
  callId?: string;
  exposedName?: string;
  /**
   * An answer the hub makes itself: a read of a kept result, or dispatch's own answer (list, search,
   * describe). No `call.finished` tells of it, so `call.counted` is its only event, sent whatever its
   * counts (Savings reloads on it).
   */
  ownAnswer?: 'read' | 'dispatch';
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
    tokensDelivered?: number | undefined;
    /** What `call.finished` said the upstream produced, and whether that was an estimate. */
    tokensUpstream?: number | undefined;
    tokensEstimated?: boolean;
    handle?: string;
    delivered: CountedResult;
    /** The exact count of what the upstream produced, made when the ledger asks. */
    countUpstreamTokens?: () => Promise<TokenCount>;
    /** countUpstreamTokens counts exactly what `delivered` holds: equal results, equal counts. */
    countsDelivered?: boolean;
    /** Tokens saved by showing tabular JSON as TOON (issue 18). */
    tokensSavedByEncoding?: number;
  };
}

/** Counts remembered, keyed by what was counted: small results repeat (`ok`, `[]`), and a count costs the tokenizer thread a round trip. */
const REMEMBERED_COUNTS = 256;
/** Results and content longer than this (JSON bytes, characters) are counted every time. */
const REMEMBERED_MAX = 1024;

const NOTHING: TokenCount = { tokens: 0, estimated: false };

/** How the hub's own answers show in the ledger (Savings by server and by tool). */
export const OWN_SERVER = 'spillway';
export const READ_BACK_TOOL = 'read_result';
export const DISPATCH_TOOL = 'dispatch';
/** The name a tools/list record's `call.counted` goes under (it is a request, not a tool). */
const LIST_TOOLS = 'tools/list';

export interface UsageRecordsParts {
  ledger: Ledger;
  counter: Pick<TokenCounter, 'countExactOffThread'>;
  /** The upstream tool schemas (hidden, withheld and dispatch-only ones included) and what tools/list exposes. */
  schemas: () => { upstream: Tool[]; exposed: Tool[] };
  log: (message: string, error?: unknown) => void;
  /** Where `call.counted` goes (the hub's event stream): for calls, own answers and tools/list records. */
  emit?: (event: HubEventInput) => void;
}

export class UsageRecords {
  #schemaTokens: Promise<{ upstream: number; exposed: number }> | undefined;
  /** Finished calls waiting to be recorded: the ledger's work is done after the answer is on its way. */
  #queued: CountedCall[] = [];
  #flushing: NodeJS.Immediate | undefined;
  /** Records waiting for their counts. */
  readonly #writing = new Set<Promise<void>>();
  /** Exact counts by what was counted (see REMEMBERED_COUNTS); emptied when full. */
  readonly #counts = new Map<string, TokenCount>();

  constructor(private readonly parts: UsageRecordsParts) {}

  /** Records a finished call in the ledger, shortly after (its exact token counts are made off the request path). */
  recordCall(call: CountedCall): void {
    this.#queued.push(call);
    if (this.#flushing !== undefined) return;
    this.#flushing = setImmediate(() => this.#flush());
  }

  #flush(): void {
    clearImmediate(this.#flushing);
    this.#flushing = undefined;
    const calls = this.#queued;
    this.#queued = [];
    for (const c of calls) this.#record(c);
  }

  /**
   * A read of a kept result (the model's `spillway__read_result`, or dispatch's read): what it delivered
   * was saved once, when the result was spilled, and reaches the model now, so it counts as delivered
   * against nothing produced. Savings are then net of what the model read back. `exposedName`: the read
   * tool's name, which `call.counted` announces the record under.
   */
  recordReadBack(clientName: string | undefined, exposedName: string, result: CallToolResult, durationMs: number): void {
    this.#recordOwnAnswer('read', clientName, exposedName, result, durationMs);
  }

  /**
   * An answer spillway__dispatch makes itself (list, search, describe, or why it cannot do what was
   * asked): it reaches the model as a tool's result does, and the tools/list saving credits dispatch for
   * the schemas it leaves out, so what it hands out counts as delivered against nothing produced. Calls
   * and reads it passes on are counted where they are made.
   */
  recordDispatchAnswer(clientName: string | undefined, exposedName: string, result: CallToolResult, durationMs: number): void {
    this.#recordOwnAnswer('dispatch', clientName, exposedName, result, durationMs);
  }

  #recordOwnAnswer(kind: 'read' | 'dispatch', clientName: string | undefined, exposedName: string, result: CallToolResult, durationMs: number): void {
    const bytes = Buffer.byteLength(JSON.stringify(result.content ?? []), 'utf8');
    this.recordCall({
      callId: randomUUID(),
      exposedName,
      ownAnswer: kind,
      session: { clientName },
      server: OWN_SERVER,
      tool: kind === 'read' ? READ_BACK_TOOL : DISPATCH_TOOL,
      durationMs,
      report: {
        action: result.isError ? 'error' : 'pass',
        asIs: false,
        bytesUpstream: 0,
        bytesDelivered: bytes,
        delivered: result,
        countUpstreamTokens: () => Promise.resolve(NOTHING),
      },
    });
  }

  /**
   * Resolves once the calls recorded so far are in the ledger. Their counts wait while calls keep the
   * tokenizer busy: a hub that stops asks the counter to hurry first (TokenCounter.hurry).
   */
  async settled(): Promise<void> {
    this.#flush();
    await Promise.all(this.#writing);
  }

  /**
   * The rules: the upstream side is the exact count of what the upstream produced (or, when the call
   * brought no count, of the delivered content). A result delivered as it came counts the same on both
   * sides, with no second count; otherwise the delivered side is what the client got. A cancelled call
   * counts zero on both sides.
   */
  #record(call: CountedCall): void {
    const r = call.report;
    // A cancelled call delivered nothing, and what its upstream may have produced reached no one.
    if (r.action === 'cancelled') return this.#write(call, NOTHING, NOTHING);
    const upstream = r.countUpstreamTokens ? this.#countUpstream(r, r.countUpstreamTokens) : this.#countContent(r.delivered);
    const delivered = r.asIs
      ? upstream
      : r.tokensDelivered !== undefined
        ? { tokens: r.tokensDelivered, estimated: false }
        : this.#countContent(r.delivered);
    if (!(upstream instanceof Promise) && !(delivered instanceof Promise)) return this.#write(call, upstream, delivered);
    const writing = Promise.all([upstream, delivered])
      .then(([up, down]) => this.#write(call, up, down))
      .catch((err) => this.parts.log('ledger record failed', err));
    this.#writing.add(writing);
    void writing.finally(() => this.#writing.delete(writing));
  }

  #write(call: CountedCall, up: TokenCount, down: TokenCount): void {
    const r = call.report;
    const record: CallRecordInput = {
      server: call.server,
      tool: call.tool,
      action: r.action,
      tokensUpstream: up.tokens,
      tokensDelivered: down.tokens,
      tokensEstimated: up.estimated || down.estimated,
      bytesUpstream: r.bytesUpstream,
      bytesDelivered: r.bytesDelivered,
      latencyMs: call.durationMs,
    };
    const client = call.session.clientName;
    if (client) record.client = client;
    if (r.handle) record.handle = r.handle;
    // Part of what the call saved (shared/ledger.ts), never more, whatever the encoding's own counts said.
    const byEncoding = Math.min(r.tokensSavedByEncoding ?? 0, Math.max(0, up.tokens - down.tokens));
    if (byEncoding > 0) record.tokensSavedByEncoding = byEncoding;
    try {
      this.parts.ledger.recordCall(record);
    } catch (err) {
      this.parts.log('ledger record failed', err);
    }
    this.#announce(call, up, down);
  }

  /**
   * `call.counted`, when `call.finished` showed other counts than the ledger's (an estimate for a big
   * result): the UI then shows the ledger's, the ones Savings adds up. A call.finished without counts
   * (a small result passed by its size) shows none, and needs no second event. An own answer (a
   * read-back, dispatch's) is always announced: no call.finished told of it, and nothing else tells
   * Savings that the ledger changed.
   */
  #announce(call: CountedCall, up: TokenCount, down: TokenCount): void {
    const r = call.report;
    const { emit } = this.parts;
    if (!emit || call.callId === undefined || r.action === 'cancelled') return;
    if (!call.ownAnswer) {
      if (r.tokensUpstream === undefined) return;
      if (r.tokensUpstream === up.tokens && r.tokensDelivered === down.tokens && (r.tokensEstimated ?? false) === up.estimated) return;
    }
    emit({
      type: 'call.counted',
      // An own answer's only event: shown at the default level, as the model's other calls are.
      level: call.ownAnswer ? 'info' : 'debug',
      callId: call.callId,
      server: call.server,
      tool: call.tool,
      exposedName: call.exposedName ?? call.tool,
      tokensUpstream: up.tokens,
      tokensDelivered: down.tokens,
      tokensEstimated: up.estimated || down.estimated,
      ...(call.ownAnswer === 'read' ? { readBack: true as const } : {}),
      ...(call.ownAnswer === 'dispatch' ? { dispatchAnswer: true as const } : {}),
    });
  }

  #countUpstream(r: CountedCall['report'], count: () => Promise<TokenCount>): TokenCount | Promise<TokenCount> {
    if (!r.countsDelivered || r.bytesUpstream > REMEMBERED_MAX) return count();
    return this.#remembered(`r${JSON.stringify(r.delivered)}`, count);
  }

  /** The count of what a result holds, by the one rule (counted-text.ts): its text as the model reads it, and its media. */
  #countContent(result: CountedResult): TokenCount | Promise<TokenCount> {
    const text = countedText(result);
    const media = mediaTokens(result);
    const count = async (): Promise<TokenCount> => {
      const made = await this.parts.counter.countExactOffThread(text);
      return media === 0 ? made : { tokens: made.tokens + media, estimated: made.estimated };
    };
    return text.length <= REMEMBERED_MAX ? this.#remembered(`c${media} ${text}`, count) : count();
  }

  /** A count made before under the same key, else made now and kept when exact. */
  #remembered(key: string, count: () => Promise<TokenCount>): TokenCount | Promise<TokenCount> {
    const known = this.#counts.get(key);
    if (known) return known;
    return count().then((made) => {
      if (made.estimated) return made;
      if (this.#counts.size >= REMEMBERED_COUNTS) this.#counts.clear();
      this.#counts.set(key, made);
      return made;
    });
  }

  /**
   * Per tools/list served: tokens of every upstream schema vs what was exposed (counted once per
   * catalog), so hiding and dispatch show as savings. The record lands after the answer, so a
   * `call.counted` (`listed`) tells Savings it is there.
   */
  recordToolsList(client: string | undefined): void {
    const { ledger, log, emit } = this.parts;
    this.#schemaTokens ??= this.#countSchemas();
    void this.#schemaTokens
      .then((t) => {
        ledger.recordList({ ...(client ? { client } : {}), tokensUpstreamSchemas: t.upstream, tokensExposed: t.exposed });
        emit?.({
          type: 'call.counted',
          level: 'debug',
          callId: randomUUID(),
          server: OWN_SERVER,
          tool: LIST_TOOLS,
          exposedName: LIST_TOOLS,
          tokensUpstream: t.upstream,
          tokensDelivered: t.exposed,
          tokensEstimated: false,
          listed: true,
        });
      })
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
