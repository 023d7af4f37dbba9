/**
 * What becomes of a result over its threshold, however it was measured (in memory or spooled): it is
 * truncated, or kept whole in the spill store while the model gets a header, the preview and a link.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import type { SpooledString } from '../wire/raw-spool.js';
import type { ResultView, SpooledView } from './result-view.js';
import { meta, sizeLabel, spilledHeader, truncatedHeader, type Preview, type Sizes } from './result-preview.js';
import { decideShape, type ShapePolicy } from './shape-decision.js';
import type { ShapeContext, ShapeDeps, ShapedResult, ShapeOutcome } from './shape-result.js';
import { spillUri } from './spill-handle.js';
import type { SpillEntry } from './spill-store.js';

/** UTF-8 size of a value serialized as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** What the two ways of looking at a result over its threshold (in memory, spooled) found out. */
export interface OverThreshold {
  view: ResultView | SpooledView;
  bytesUpstream: number;
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
  const { view, bytesUpstream, tokensUpstream, preview } = over;
  const sizes = { tokens: tokensUpstream, bytes: bytesUpstream, preview };
  const base = { bytesUpstream, tokensUpstream, tokensUpstreamLowerBound: over.threshold + 1 };

  if (decideShape(policy, true) === 'truncate') {
    deps.rawTexts?.discard(spooledTexts(view));
    const text = `${truncatedHeader(sizes, "This tool's policy keeps nothing: the rest was discarded.")}\n---\n${preview.text}`;
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
  try {
    for (const text of spooledTexts(view)) deps.rawTexts?.take(text.placeholder);
    const plan = store.plan(
      result,
      { server: ctx.server, tool: ctx.tool, client: ctx.client ?? null, ttlMs: policy.ttlMs, tokens: tokensUpstream },
      { bytes: bytesUpstream, view },
    );
    // The answer is known before the files are written. It is counted once it has gone out (the report
    // waits for the count, the client does not): asking the tokenizer thread before would wake it while
    // the answer is still on its way.
    delivered = spilledResult(plan.entry, { sizes, view, ctx, now: deps.now() });
    const text = textOf(delivered);
    tokensDelivered = new Promise<void>((resolve) => setImmediate(resolve)).then(() => counter.count(text));
    tokensDelivered.catch(() => undefined); // awaited by the report, unless the write fails first
    entry = await plan.write();
  } catch (error) {
    const reason = (error as Error).message;
    const text = `${truncatedHeader(sizes, `The full result could not be kept (${reason}), so it cannot be read back; call the tool again with narrower arguments if you need more.`)}\n---\n${preview.text}`;
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

  const handle = entry.handle;
  // The kept text is counted from its file: nothing here holds the text for the ledger.
  const media = over.media;
  const countUpstreamTokens = async (): Promise<TokenCount> => {
    if (!tokensUpstream.estimated) return tokensUpstream;
    const exact = await countStoredText(deps, handle, tokensUpstream, media);
    if (exact !== tokensUpstream) await store.setTokens(handle, exact).catch(() => {});
    return exact;
  };
  return finish(delivered, { ...base, action: 'spill', handle, expiresAt: entry.expiresAt, countUpstreamTokens }, tokensDelivered);
}

/** What the model gets for a spilled result: the header over the preview, and a link to the whole. */
function spilledResult(
  entry: SpillEntry,
  { sizes, view, ctx, now }: { sizes: Sizes; view: ResultView | SpooledView; ctx: ShapeContext; now: number },
): CallToolResult {
  const handle = entry.handle;
  const text = `${spilledHeader(sizes, entry, now, sizes.preview.lines)}\n---\n${sizes.preview.text}`;
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
  const counting = tokens instanceof Promise ? tokens : tokens.count(textOf(delivered));
  counting.catch(() => undefined); // a failed count leaves the ledger to count what was delivered
  return { delivered, outcome: { ...outcome, bytesDelivered: jsonBytes(delivered), tokensDelivered: counting } };
}

/** The text the model reads of a delivered result. */
function textOf(delivered: CallToolResult): string {
  return delivered.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}
