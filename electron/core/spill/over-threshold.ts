/**
 * What becomes of a result over its threshold, however it was measured (in memory or spooled): it is
 * truncated, or kept whole in the spill store while the model gets a header, the preview and a link.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countedText } from '../ledger/counted-text.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { SpooledString } from '../wire/raw-spool.js';
import type { ResultView, SpooledView } from './result-view.js';
import { meta, sizeLabel, spilledHeader, truncatedHeader, type Preview, type Sizes } from './result-preview.js';
import { decideShape, type ShapePolicy } from './shape-decision.js';
import type { ShapeContext, ShapeDeps, ShapedResult, ShapeOutcome } from './shape-result.js';
import { spillUri } from './spill-handle.js';
import type { SpillEntry } from './spill-store.js';
import { notKeptMessage } from './spill-types.js';

/** UTF-8 size of a value serialized as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** What the two ways of looking at a result over its threshold (in memory, spooled) found out. */
export interface OverThreshold {
  view: ResultView | SpooledView;
  bytesUpstream: number;
  /** The size of the result as the model reads it: its text view's bytes plus its media's (result-view.ts viewBytes). */
  resultBytes: number;
  tokensUpstream: TokenCount;
  threshold: number;
  preview: Preview;
  /** Tokens of the result's images, audio and blobs (in tokensUpstream, not in its text). */
  media: number;
  /** The exact count of a result not kept, made off the request path (or the estimate, when that is all there can be). */
  countExact: () => Promise<TokenCount>;
}

/** A result over its threshold: truncated, or kept whole in the store with a header, preview and link. */
export async function deliverOver(
  result: CallToolResult,
  over: OverThreshold,
  policy: ShapePolicy,
  ctx: ShapeContext,
  deps: ShapeDeps,
): Promise<ShapedResult> {
  const { counter, store } = deps;
  const { bytesUpstream, tokensUpstream, preview } = over;
  // A text that only looked like JSON is kept as text: stat then names what query can read (audit s21 D4).
  const view = preview.notJson ? { ...over.view, contentType: 'text' as const } : over.view;
  // The header names the size of what the model reads (its text, and its media), as the link and the kept
  // text have it: not the result's JSON, which may hold the same data twice (text and structuredContent).
  const sizes = { tokens: tokensUpstream, bytes: over.resultBytes, preview };
  const base = {
    bytesUpstream,
    resultBytes: over.resultBytes,
    tokensUpstream,
    tokensUpstreamLowerBound: over.threshold + 1,
    ...(preview.encoding ? { tokensSavedByEncoding: preview.encoding.tokensSaved } : {}),
  };

  if (decideShape(policy, true) === 'truncate') {
    const text = `${truncatedHeader(sizes, "This tool's policy keeps nothing: the rest was discarded.")}\n---\n${preview.text}`;
    if ('text' in view && !policy.spillAlways && (await notSmaller(text, over, counter))) return passedWhole(result, over);
    deps.rawTexts?.discard(spooledTexts(view));
    return finish(
      { content: [{ type: 'text', text }], _meta: meta(tokensUpstream, { 'spillway/truncated': true }) },
      {
        ...base,
        action: 'truncate',
        countUpstreamTokens: 'text' in view ? over.countExact : async () => tokensUpstream,
      },
      counter,
    );
  }

  let delivered: CallToolResult;
  let tokensDelivered: Promise<number>;
  let entry: SpillEntry;
  let keeping: Promise<string | undefined> | undefined;
  try {
    for (const text of spooledTexts(view)) deps.rawTexts?.take(text.placeholder);
    const plan = store.plan(
      result,
      { server: ctx.server, tool: ctx.tool, client: ctx.client ?? null, ttlMs: policy.ttlMs, tokens: tokensUpstream, masked: keptMasked(ctx) },
      { bytes: bytesUpstream, view },
    );
    // The answer is known before the files are written. It is counted once it has gone out (the report
    // waits for the count, the client does not): asking the tokenizer thread before would wake it while
    // the answer is still on its way.
    delivered = spilledResult(plan.entry, { sizes, view, ctx, now: deps.now(), asked: policy.spillAsked === true });
    const text = countedText(delivered);
    // Nothing was written yet: a plan not carried out leaves no trace (and a view in memory took no texts).
    if ('text' in view && !policy.spillAlways && (await notSmaller(text, over, counter))) return passedWhole(result, over);
    tokensDelivered = new Promise<void>((resolve) => setImmediate(resolve)).then(() => counter.count(text));
    tokensDelivered.catch(() => undefined); // awaited by the report, unless the write fails first
    if (plan.answerFirst) {
      // The disk has room to spare: the answer goes out while the files are written, and the report
      // learns whether they were kept.
      entry = plan.entry;
      keeping = plan.write().then(
        () => undefined,
        (error: unknown) => (error as Error).message,
      );
    } else entry = await plan.write();
  } catch (error) {
    const reason = (error as Error).message;
    const text = `${truncatedHeader(sizes, notKeptMessage('The full result', reason))}\n---\n${preview.text}`;
    return finish(
      { content: [{ type: 'text', text }], _meta: meta(tokensUpstream, { 'spillway/truncated': true }) },
      {
        ...base,
        action: 'truncate',
        note: `spill failed: ${reason}`,
        countUpstreamTokens: 'text' in view ? over.countExact : async () => tokensUpstream,
      },
      counter,
    );
  }

  const { handle, expiresAt } = entry;
  const countUpstreamTokens = countKept(deps, handle, over);
  return finish(delivered, { ...base, action: 'spill', handle, expiresAt, countUpstreamTokens, keeping }, tokensDelivered);
}

/** The exact count of a kept result's text, from its file (nothing here holds the text for the ledger), recorded in its entry. */
function countKept(deps: ShapeDeps, handle: string, over: OverThreshold): () => Promise<TokenCount> {
  const estimate = over.tokensUpstream;
  return async () => {
    if (!estimate.estimated) return estimate;
    const exact = await countStoredText(deps, handle, estimate, over.media);
    if (exact !== estimate) await deps.store.setTokens(handle, exact).catch(() => {});
    return exact;
  };
}

/**
 * Tokens a spilled or truncated header adds at most over its preview (it is a few hundred): a spooled
 * result whose preview comes this close to its size is shaped in memory instead, where notSmaller decides.
 */
export const HEADER_TOKENS_MAX = 1024;

/**
 * Whether `text` (a header over the preview) would cost the model at least what the result itself does,
 * as with a preview not below its threshold (issue 14, item 5). Counted only when the sizes are close:
 * tokens are at most UTF-8 bytes, so the header's bytes bound what it adds to the preview.
 */
async function notSmaller(text: string, over: OverThreshold, counter: TokenCounter): Promise<boolean> {
  const headerBound = Buffer.byteLength(text, 'utf8') - Buffer.byteLength(over.preview.text, 'utf8');
  if (over.preview.tokens + headerBound < over.tokensUpstream.tokens) return false;
  // A count that fails leaves the usual answer: it was never larger by more than the header.
  return counter.count(text).then(
    (tokens) => tokens >= over.tokensUpstream.tokens,
    () => false,
  );
}

/** The result passed as it came, because what would replace it is no smaller. */
function passedWhole(result: CallToolResult, over: OverThreshold): ShapedResult {
  const { tokensUpstream, bytesUpstream } = over;
  const tokensDelivered = tokensUpstream.estimated ? over.countExact().then((count) => count.tokens) : tokensUpstream.tokens;
  if (tokensDelivered instanceof Promise) tokensDelivered.catch(() => undefined);
  return {
    delivered: result,
    outcome: {
      action: 'pass',
      bytesUpstream,
      resultBytes: over.resultBytes,
      bytesDelivered: bytesUpstream,
      tokensDelivered,
      tokensUpstream,
      countUpstreamTokens: over.countExact,
    },
  };
}

/** What the model gets for a spilled result: the header over the preview, and a link to the whole. */
function spilledResult(
  entry: SpillEntry,
  { sizes, view, ctx, now, asked }: { sizes: Sizes; view: ResultView | SpooledView; ctx: ShapeContext; now: number; asked: boolean },
): CallToolResult {
  const handle = entry.handle;
  const text = `${spilledHeader(sizes, entry, now, sizes.preview.lines, asked)}\n---\n${sizes.preview.text}`;
  return {
    content: [
      { type: 'text', text },
      {
        type: 'resource_link',
        uri: spillUri(handle),
        name: `spill-${handle}`,
        title: `Full result of ${ctx.server} ${ctx.tool}`,
        description: `Spilled tool result: ${sizeLabel(sizes)}, kept until ${new Date(entry.expiresAt).toISOString()}`,
        mimeType: view.contentType === 'json' ? 'application/json' : 'text/plain',
        size: entry.textBytes,
      },
    ],
    _meta: meta(sizes.tokens, { 'spillway/handle': handle, 'spillway/expiresAt': new Date(entry.expiresAt).toISOString() }),
  };
}

/** Whether the result shaped is masked (PII maskResults with something masked): as tool-call.ts notes it (noteMaskedCopy). */
function keptMasked(ctx: ShapeContext): boolean {
  return ctx.masking?.maskResults === true && ctx.masking.vault.size > 0;
}

/** The texts of a view that are still on disk (see raw-texts.ts). */
export function spooledTexts(view: ResultView | SpooledView): SpooledString[] {
  return view.parts.flatMap((part) => (typeof part.text === 'string' ? [] : [part.text]));
}

/**
 * The exact count of a spilled result (its text, counted by the tokenizer thread from the file, plus
 * `media`), off the request path; the estimate when the text is too big to count or gone.
 */
async function countStoredText(deps: ShapeDeps, handle: string, estimate: TokenCount, media: number): Promise<TokenCount> {
  const entry = deps.store.lookup(handle);
  if ('error' in entry || entry.entry.textBytes > deps.counter.offThreadExactLimitBytes) return estimate;
  return deps.store.countText(handle).then(
    (count) => ({ tokens: count.tokens + media, estimated: count.estimated }),
    () => estimate,
  );
}

/**
 * The shaped result, with the size of what is delivered and its tokens still being counted (`tokens`: a
 * counter, or the count under way): the answer goes out without waiting for them (the report does).
 */
function finish(
  delivered: CallToolResult,
  outcome: Omit<ShapeOutcome, 'bytesDelivered' | 'tokensDelivered'>,
  tokens: TokenCounter | Promise<number>,
): ShapedResult {
  const counting = tokens instanceof Promise ? tokens : tokens.count(countedText(delivered));
  counting.catch(() => undefined); // a failed count leaves the ledger to count what was delivered
  return { delivered, outcome: { ...outcome, bytesDelivered: jsonBytes(delivered), tokensDelivered: counting } };
}
