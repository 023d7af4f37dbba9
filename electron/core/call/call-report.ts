/**
 * What became of one call (its report), and the last stage: the `call.finished` event and the finished
 * call handed to the ledger (whose counting rules live in ledger/usage-records.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput, ResultAction } from '../../../shared/events.js';
import { isCancelled } from '../downstream/request-cancellation.js';
import type { DownstreamSession } from '../downstream/session.js';
import { hiddenParamsSent } from '../policy/schema-rewrite.js';
import { viewBytes, viewResult } from '../spill/result-view.js';
import type { ShapedResult } from '../spill/shape-result.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { elapsedMs, type CallContext } from './call-context.js';

export interface CallReport {
  /** What the client gets. */
  delivered: CallToolResult;
  action: ResultAction;
  /** The client gets the upstream's result as it came (passed, from the cache or not), or an error. */
  asIs: boolean;
  bytesUpstream: number;
  bytesDelivered: number;
  tokensUpstream: number | undefined;
  /** tokensUpstream is an estimate: the ledger's exact count follows as `call.counted`. */
  tokensEstimated: boolean;
  /** The size of the upstream's result as the model reads it (result-view.ts viewBytes); worked out after the answer when not known. */
  resultBytes: number | undefined;
  tokensDelivered: number | undefined;
  /** The count of what is delivered, still under way: the call is published once it is made. */
  countingDelivered: Promise<number> | undefined;
  handle: string | undefined;
  /** Why a stage fell back (spilling or compression failed, compression not set up): a warning in the log. */
  note: string | undefined;
  /** A spill answered before its files were complete: the call is published once they are (or are not) kept. */
  keeping: Promise<string | undefined> | undefined;
  /** A cache hit: ms the original upstream call took (the time this hit saved). */
  savedMs: number | undefined;
  /** The exact count of what the upstream produced, made off the request path when the ledger asks. */
  countUpstreamTokens: (() => Promise<TokenCount>) | undefined;
  /** countUpstreamTokens counts exactly what `delivered` holds (a result passed as it came, unmasked): the ledger may remember the count. */
  countsDelivered: boolean;
  /** Tokens saved by showing tabular JSON as TOON (issue 18), for the ledger. */
  tokensSavedByEncoding?: number;
}

/** One finished call, for the ledger and the policy's use counts. */
export interface FinishedCall {
  callId: string;
  session: DownstreamSession;
  server: string;
  tool: string;
  /** The name the client called (namespaced). */
  exposedName: string;
  durationMs: number;
  report: CallReport;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * A result delivered as it came, unshaped (paused, an error result from the upstream). An error result
 * is an `error` (Activity, the ledger and Savings count it so), not a `pass`; the model still read it,
 * so its tokens count as delivered as for any result passed as it came.
 */
export function asIsReport(result: CallToolResult): CallReport {
  const bytes = jsonBytes(result);
  return report(result, result.isError === true ? 'error' : 'pass', true, bytes, bytes);
}

/** A call that failed on Spillway's side of the upstream; `bytesDelivered` 0 when the client gets a JSON-RPC error. */
export function errorReport(result: CallToolResult, rpc: boolean): CallReport {
  return report(result, 'error', true, 0, rpc ? 0 : jsonBytes(result));
}

/** A call the client cancelled, or whose session closed, before its answer: nothing was delivered, nothing is counted. */
export function cancelledReport(): CallReport {
  return report({ content: [] }, 'cancelled', false, 0, 0);
}

/** The report of what the shaper did. */
export function shapeReport(shaped: ShapedResult): CallReport {
  const o = shaped.outcome;
  const r = report(shaped.delivered, o.action, o.action === 'pass', o.bytesUpstream, o.bytesDelivered);
  r.tokensUpstream = o.tokensUpstream?.tokens;
  r.tokensEstimated = o.tokensUpstream?.estimated === true;
  r.resultBytes = o.resultBytes;
  if (o.tokensDelivered instanceof Promise) r.countingDelivered = o.tokensDelivered;
  else r.tokensDelivered = o.tokensDelivered ?? undefined;
  r.handle = o.handle;
  r.note = o.note;
  r.keeping = o.keeping;
  r.countUpstreamTokens = o.countUpstreamTokens;
  if (o.tokensSavedByEncoding) r.tokensSavedByEncoding = o.tokensSavedByEncoding;
  return r;
}

function report(delivered: CallToolResult, action: ResultAction, asIs: boolean, bytesUpstream: number, bytesDelivered: number): CallReport {
  return {
    delivered,
    action,
    asIs,
    bytesUpstream,
    bytesDelivered,
    tokensUpstream: undefined,
    tokensEstimated: false,
    resultBytes: undefined,
    tokensDelivered: undefined,
    countingDelivered: undefined,
    handle: undefined,
    note: undefined,
    keeping: undefined,
    savedMs: undefined,
    countUpstreamTokens: undefined,
    countsDelivered: false,
  };
}

/**
 * The `call.started` event: the client's arguments, masked when the policy masks PII, and the names of
 * hidden parameters the client sent anyway. Never the policy's hidden values (a token the user hid from the
 * model is not written to the log either).
 */
export function reportStarted(ctx: CallContext, emit: (event: HubEventInput) => void): void {
  // The client's value of a hidden parameter is in the preview, yet the upstream got the policy's: said by name.
  const replaced = ctx.values ? hiddenParamsSent(ctx.params.arguments, ctx.values) : [];
  emit({
    type: 'call.started',
    level: 'info',
    callId: ctx.callId,
    session: ctx.session.id,
    client: ctx.client,
    server: ctx.server,
    tool: ctx.tool,
    exposedName: ctx.entry.name,
    argumentsPreview: preview(ctx.masking ? ctx.masking.arguments : ctx.params.arguments),
    ...(replaced.length > 0 ? { hiddenParamsReplaced: replaced } : {}),
  });
}

/**
 * The last stage: the `call.finished` event (a warning when the result is an error or a stage fell
 * back) and the finished call for the ledger, both right after the answer. Returns what the client gets.
 */
export function reportCall(
  ctx: CallContext,
  made: CallReport,
  emit: (event: HubEventInput) => void,
  onCallFinished: ((call: FinishedCall) => void) | undefined,
  failure?: string,
): CallToolResult {
  // The client gave up on the call: whatever came of it, the answer is dropped (the SDK and the fast path
  // send nothing to a cancelled request), so it is recorded as cancelled.
  const cancelled = isCancelled(ctx.extra);
  if (cancelled) void made.countingDelivered?.catch(() => undefined);
  const r = cancelled ? cancelledReport() : made;
  const error = cancelled ? undefined : failure;
  const durationMs = elapsedMs(ctx);
  const finished: FinishedCall = {
    callId: ctx.callId,
    session: ctx.session,
    server: ctx.server,
    tool: ctx.tool,
    exposedName: ctx.entry.name,
    durationMs,
    report: r,
  };
  const publish = () => publishFinished(finishedEvent(ctx, r, durationMs, error), finished, emit, onCallFinished);
  // Published once this turn's promise jobs are done, i.e. once the answer is on its way: the client's
  // answer does not wait for the log and the ledger, and nothing before it needs them. A count of what
  // is delivered still under way, and files of a spill still being written, are waited for here, after the answer.
  const counting = r.countingDelivered;
  const keeping = r.keeping;
  if (counting === undefined && keeping === undefined) process.nextTick(publish);
  else {
    r.countingDelivered = undefined;
    r.keeping = undefined;
    const counted = counting?.then(
      (tokens) => void (r.tokensDelivered = tokens),
      () => undefined, // the ledger counts what was delivered itself
    );
    const kept = keeping?.then((lost) => {
      // The answer went out with a handle whose reads now say why: the log and the ledger say it was not kept.
      if (lost === undefined) return;
      r.action = 'truncate';
      r.handle = undefined;
      r.note = `spill failed: ${lost}`;
    });
    void Promise.all([counted, kept]).then(publish);
  }
  return made.delivered;
}

/** The `call.finished` event of a report (a warning when the result is an error or a stage fell back). */
function finishedEvent(ctx: CallContext, r: CallReport, durationMs: number, error: string | undefined): FinishedEvent {
  const isError = r.delivered.isError === true;
  const event: FinishedEvent = {
    type: 'call.finished',
    level: isError || r.note ? 'warn' : 'info',
    callId: ctx.callId,
    session: ctx.session.id,
    client: ctx.client,
    server: ctx.server,
    tool: ctx.tool,
    exposedName: ctx.entry.name,
    durationMs,
    isError,
    action: r.action,
    bytesUpstream: r.bytesUpstream,
    bytesDelivered: r.bytesDelivered,
  };
  if (r.tokensUpstream !== undefined) event.tokensUpstream = r.tokensUpstream;
  if (r.tokensUpstream !== undefined && r.tokensEstimated) event.tokensEstimated = true;
  if (r.tokensDelivered !== undefined) event.tokensDelivered = r.tokensDelivered;
  if (r.handle !== undefined) event.handle = r.handle;
  if (r.savedMs !== undefined) event.savedMs = r.savedMs;
  const why = error ?? r.note;
  if (why) event.error = why;
  return event;
}

type FinishedEvent = Extract<HubEventInput, { type: 'call.finished' }>;

function publishFinished(
  event: FinishedEvent,
  finished: FinishedCall,
  emit: (event: HubEventInput) => void,
  onCallFinished: ((call: FinishedCall) => void) | undefined,
): void {
  addResultSizes(event, finished.report);
  emit(event);
  onCallFinished?.(finished);
}

/**
 * The sizes the UI shows (the results as the model reads them), after the answer: a result delivered as
 * it came is measured here (it was not shaped), what the shaper replaced it with is small.
 */
function addResultSizes(event: FinishedEvent, r: CallReport): void {
  if (r.action === 'cancelled') return;
  // An error made on Spillway's side (bytesUpstream 0) has no upstream result.
  const upstream = r.resultBytes ?? (r.asIs && r.bytesUpstream > 0 ? viewBytes(viewResult(r.delivered)) : undefined);
  if (upstream !== undefined) event.resultBytes = upstream;
  if (r.bytesDelivered === 0) return;
  event.resultBytesDelivered = r.asIs && upstream !== undefined ? upstream : viewBytes(viewResult(r.delivered));
}

/**
 * The start of `value`'s JSON text, cut to `max` characters with "…" when there is more: the same text as
 * JSON.stringify's, but only as much of it is made as is kept. Arguments of a hundred megabytes stalled
 * every session for most of a second when they were stringified whole, and arguments nested thousands of
 * levels deep overflowed the stack; a walk that stops at `max` characters goes at most `max` levels down.
 */
export function preview(value: unknown, max = 300): string | undefined {
  if (!isJsonValue(value)) return undefined;
  const text = new BoundedText(max + 1);
  writeJson(value, text);
  const made = text.toString();
  return made.length > max ? `${made.slice(0, max)}…` : made;
}

/** Pieces of text until there are at least `limit` characters: then `full`, and later pieces are dropped. */
class BoundedText {
  #pieces: string[] = [];
  #length = 0;

  constructor(readonly limit: number) {}

  get full(): boolean {
    return this.#length >= this.limit;
  }

  /** How many more characters are wanted. */
  get room(): number {
    return this.limit - this.#length;
  }

  add(piece: string): void {
    if (this.full) return;
    this.#pieces.push(piece);
    this.#length += piece.length;
  }

  toString(): string {
    return this.#pieces.join('');
  }
}

/** What JSON.stringify writes something for (in an object, any other value's member is left out). */
function isJsonValue(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** Writes `value` as JSON.stringify would, until `text` is full. */
function writeJson(value: unknown, text: BoundedText): void {
  if (text.full) return;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (typeof value === 'string') {
    // Every character is at least one in JSON: a slice as long as the room left is enough.
    text.add(JSON.stringify(value.length > text.room ? value.slice(0, text.room) : value));
    return;
  }
  if (typeof value === 'number') return text.add(Number.isFinite(value) ? String(value) : 'null');
  if (typeof value === 'bigint') return text.add(String(value));
  if (typeof value !== 'object' || value === null) return text.add(value === null || !isJsonValue(value) ? 'null' : String(value));
  if (Array.isArray(value)) {
    text.add('[');
    for (let i = 0; i < value.length && !text.full; i++) {
      if (i > 0) text.add(',');
      writeJson(isJsonValue(value[i]) ? value[i] : null, text);
    }
    return text.add(']');
  }
  text.add('{');
  let first = true;
  for (const key in value) {
    if (text.full) return;
    const member = (value as Record<string, unknown>)[key];
    if (!Object.hasOwn(value, key) || !isJsonValue(member)) continue;
    text.add(first ? '' : ',');
    first = false;
    writeJson(key, text);
    text.add(':');
    writeJson(member, text);
  }
  text.add('}');
}
