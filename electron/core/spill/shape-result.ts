/**
 * The shaper: applies a result policy to one tool result (pass, spill, truncate), from memory or from the
 * texts an upstream streamed to disk. The decision itself is shape-decision.ts; what a result over its
 * threshold becomes is over-threshold.ts, and what the model reads in its place result-preview.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StringDecoder } from 'node:string_decoder';
import { open } from 'node:fs/promises';
import { binaryTokens } from '../tokens/media-tokens.js';
import { TokenCounter } from '../tokens/token-counter.js';
import type { TextSample, TokenBudgetCut, TokenCount } from '../tokens/token-counter.js';
import { numbersParseExactly } from '../encoding/toon-encoding.js';
import { exampleQuery } from './json-summary.js';
import { deliverOver, HEADER_TOKENS_MAX, jsonBytes, spooledTexts } from './over-threshold.js';
import { parseJson, viewBytes, viewResult, viewSpooled } from './result-view.js';
import type { ResultView, SpooledView } from './result-view.js';
import type { RawTexts } from './raw-texts.js';
import { buildPreview, startPreview, summaryPreview, textPreview, type Preview } from './result-preview.js';
import type { SpillStore } from './spill-store.js';
import { textTokenLimit, type ShapeAction, type ShapePolicy } from './shape-decision.js';

export interface ShapeContext {
  server: string;
  tool: string;
  client?: string | null;
  /**
   * The call's PII masking (call-context.ts Masking): with maskResults and values in its vault, the result
   * shaped is the masked one, and a copy kept of it is marked masked (SpillEntry.masked).
   */
  masking?: { maskResults: boolean; vault: { readonly size: number } } | undefined;
}

export interface ShapeDeps {
  store: SpillStore;
  counter: TokenCounter;
  now: () => number;
  /** Texts an upstream streamed to disk; a result holding them is spilled without reading them. */
  rawTexts?: RawTexts;
}

/** A spooled JSON text up to this size is read back for its structural summary; above, its start is shown. */
const SUMMARY_MAX_BYTES = 16 * 1024 * 1024;
/** Bytes of a spooled text's start read for the decision and the preview, at least. */
const SPOOLED_HEAD_BYTES = 256 * 1024;

export interface ShapeOutcome {
  action: ShapeAction;
  /** UTF-8 size of the upstream result serialized as JSON. */
  bytesUpstream: number;
  /** The size of the result as the model reads it (result-view.ts viewBytes): the one size the UI shows. */
  resultBytes: number;
  bytesDelivered: number;
  /**
   * Tokens of what was delivered; null when it passed by size alone and was not tokenized; a promise
   * while they are still being counted (a spilled result's answer does not wait for that count).
   */
  tokensDelivered: number | null | Promise<number>;
  /** Upstream tokens as far as the request path counted them (text view + media); null when not counted. */
  tokensUpstream: TokenCount | null;
  /** Known when the decision stopped counting early: the upstream had more than this many tokens. */
  tokensUpstreamLowerBound?: number;
  /**
   * The upstream token count made exact off the request path (worker thread), for the ledger; above the
   * worker's size limit an estimate. Also records it in the spill entry. Holds the text until called or
   * dropped.
   */
  countUpstreamTokens: () => Promise<TokenCount>;
  handle?: string;
  expiresAt?: number;
  /** Why the full result could not be kept, when it could not. */
  note?: string;
  /** A spill answered before its files were complete: resolves with why they could not be kept, if they could not. */
  keeping?: Promise<string | undefined>;
  /** Tokens saved by showing the preview's items as TOON (issue 18). */
  tokensSavedByEncoding?: number;
}

export interface ShapedResult {
  delivered: CallToolResult;
  outcome: ShapeOutcome;
}

/**
 * Applies a result policy to one tool result: pass it, or keep it whole in the spill store and deliver a
 * header, a token-accurate preview (a structural summary for JSON) and a resource_link, or deliver a
 * labelled truncation. Deciding costs time bounded by the threshold, not by the payload. isError results
 * pass unchanged. 'compress' spills here; the call path then condenses the spilled result. A result that
 * passes by its size alone is answered synchronously (no tokenizer, no promise on the common path).
 */
export function shapeResult(result: CallToolResult, policy: ShapePolicy, ctx: ShapeContext, deps: ShapeDeps): ShapedResult | Promise<ShapedResult> {
  if (deps.rawTexts?.holds(result)) return shapeHeld(result, policy, ctx, deps);
  const view = viewResult(result);
  const media = mediaTokens(view);
  const limit = textTokenLimit(policy, result.isError === true, media);
  // Within by size: no tokenizer is loaded for the many small results.
  if (limit === null || (limit >= 0 && TokenCounter.surelyWithin(view.text, limit))) {
    return passed(result, { json: jsonBytes(result), view: viewBytes(view) }, null, exactCountLater(deps.counter, view.text, media));
  }
  return shapeCounted(result, { view, media, limit }, policy, ctx, deps);
}

/** A result whose long texts are still on disk: shaped from there when it is over, else read back first. */
async function shapeHeld(result: CallToolResult, policy: ShapePolicy, ctx: ShapeContext, deps: ShapeDeps): Promise<ShapedResult> {
  const raw = deps.rawTexts!;
  const view = viewSpooled(result, (value) => raw.get(value));
  const threshold = textTokenLimit(policy, result.isError === true, 0);
  const spooled = view && threshold !== null ? await shapeSpooled(result, view, { ...policy, thresholdTokens: threshold }, ctx, deps) : undefined;
  return spooled ?? shapeResult(await raw.materialize(result), policy, ctx, deps);
}

/**
 * A result in memory that its size alone cannot pass: one question to the tokenizer thread says whether
 * its text is within the limit, how many tokens it has (exact when short, else estimated from its start)
 * and, for a text that is not JSON, where its preview ends.
 */
async function shapeCounted(
  result: CallToolResult,
  measured: { view: ResultView; media: number; limit: number },
  policy: ShapePolicy,
  ctx: ShapeContext,
  deps: ShapeDeps,
): Promise<ShapedResult> {
  const { counter } = deps;
  const { view, media, limit } = measured;
  const surveying = counter.survey(view.text, limit, view.contentType === 'json' ? {} : { previewTokens: policy.previewTokens });
  // Measured while the tokenizer thread works.
  const bytesUpstream = jsonBytes(result);
  const resultBytes = viewBytes(view);
  const survey = await surveying;
  if (survey.within !== false) {
    const tokens = survey.within + media;
    return passed(result, { json: bytesUpstream, view: resultBytes }, tokens, async () => ({ tokens, estimated: false }));
  }
  const { sample } = survey;
  const exact = sample.chars === view.text.length;
  const tokensUpstream: TokenCount = {
    tokens: (exact ? sample.tokens : Math.round((sample.tokens / Math.max(1, sample.chars)) * view.text.length)) + media,
    estimated: !exact,
  };
  const preview = await buildPreview(result, view, policy.previewTokens, counter, survey.preview, policy.encoding);
  return deliverOver(
    result,
    {
      view,
      bytesUpstream,
      resultBytes,
      tokensUpstream,
      threshold: limit + media,
      preview,
      media,
      countExact: tokensUpstream.estimated ? exactCountLater(counter, view.text, media) : async () => tokensUpstream,
    },
    policy,
    ctx,
    deps,
  );
}

/** A result delivered as it came (`bytes`: its JSON's and its view's); `tokens` when counting found them, null when it passed by size alone. */
function passed(
  result: CallToolResult,
  bytes: { json: number; view: number },
  tokens: number | null,
  countUpstreamTokens: () => Promise<TokenCount>,
): ShapedResult {
  return {
    delivered: result,
    outcome: {
      action: 'pass',
      bytesUpstream: bytes.json,
      resultBytes: bytes.view,
      bytesDelivered: bytes.json,
      tokensDelivered: tokens,
      tokensUpstream: tokens === null ? null : { tokens, estimated: false },
      countUpstreamTokens,
    },
  };
}

/** The exact count of a text plus its media tokens, made off the request path when the ledger asks. */
function exactCountLater(counter: TokenCounter, text: string, media: number): () => Promise<TokenCount> {
  return async () => {
    const count = await counter.countExactOffThread(text);
    return { tokens: count.tokens + media, estimated: count.estimated };
  };
}

/**
 * A result whose long texts an upstream streamed to disk, shaped without reading them: the decision and
 * the preview come from the start of the text, the sizes from the spool, and the files move into the
 * store. Undefined when that cannot decide (the start alone is not over the threshold): the caller reads
 * the texts back and shapes the result as usual.
 */
async function shapeSpooled(
  result: CallToolResult,
  view: SpooledView,
  policy: ShapePolicy & { thresholdTokens: number },
  ctx: ShapeContext,
  deps: ShapeDeps,
): Promise<ShapedResult | undefined> {
  const { counter } = deps;
  const threshold = policy.thresholdTokens;
  if (view.bytes <= threshold) return undefined; // within by size
  const summarized = view.contentType === 'json' && view.bytes <= SUMMARY_MAX_BYTES;
  // Usually decided on what was worked out while the text arrived, without reading its start again.
  const early = summarized ? undefined : await decidedEarly(view, policy, deps.rawTexts);
  if (early) {
    const tokensUpstream: TokenCount = { tokens: Math.round((early.sample.tokens * view.bytes) / early.sampleBytes), estimated: true };
    if (!policy.spillAlways && mayNotSave(early.cut.tokens, tokensUpstream)) return undefined;
    const over = { view, bytesUpstream: spooledResultBytes(result, view), resultBytes: view.bytes, tokensUpstream, threshold, media: 0 };
    return deliverOver(result, { ...over, preview: startPreview(early.cut), countExact: async () => tokensUpstream }, policy, ctx, deps);
  }
  const wanted = Math.max(SPOOLED_HEAD_BYTES, threshold * 8, policy.previewTokens * 8);
  const head = await readStart(view, wanted);
  const whole = Buffer.byteLength(head, 'utf8') >= view.bytes;
  // Counting stops at a line break: a longer text has at least the tokens of its lines up to there.
  const lineEnd = head.lastIndexOf('\n');
  const counted = whole || lineEnd <= 0 ? head : head.slice(0, lineEnd + 1);
  // One question: within the threshold, the density of the start, and (not for JSON) the preview; most
  // of it was usually answered while the text arrived.
  const survey = await counter.survey(counted, threshold, {
    exactUpToBytes: 0,
    known: await countedStart(view, counted, policy.previewTokens, deps.rawTexts),
    ...(summarized ? {} : { previewTokens: policy.previewTokens }),
  });
  if (survey.within !== false) return undefined;

  const sampleBytes = Math.max(1, Buffer.byteLength(counted.slice(0, survey.sample.chars), 'utf8'));
  const tokensUpstream: TokenCount = { tokens: Math.round((survey.sample.tokens * view.bytes) / sampleBytes), estimated: true };
  let preview: Preview | undefined;
  if (summarized) {
    const text = await readStart(view, view.bytes);
    const json = parseJson(text);
    // A number its parsed value would not hold (a 64-bit id) is shown by the text's start, as in memory.
    if (json && numbersParseExactly(text)) preview = await summaryPreview(json.value, policy.previewTokens, counter, policy.encoding);
    else if (json) {
      const query = exampleQuery(json.value);
      const start = await textPreview(head, policy.previewTokens, counter);
      preview = query ? { ...start, query } : start;
    }
  }
  preview ??= survey.preview ? startPreview(survey.preview, head) : await textPreview(head, policy.previewTokens, counter);
  if (!policy.spillAlways && mayNotSave(preview.tokens, tokensUpstream)) return undefined;
  const bytesUpstream = spooledResultBytes(result, view);
  return deliverOver(
    result,
    { view, bytesUpstream, resultBytes: view.bytes, tokensUpstream, threshold, preview, media: 0, countExact: async () => tokensUpstream },
    policy,
    ctx,
    deps,
  );
}

/**
 * Whether a header over a preview of `previewTokens` might not be smaller than the result: then it is
 * read back and shaped in memory, where the delivered text is counted against it (over-threshold.ts).
 */
function mayNotSave(previewTokens: number, tokensUpstream: TokenCount): boolean {
  return previewTokens + HEADER_TOKENS_MAX >= tokensUpstream.tokens;
}

/** What was counted and cut on the text's start while it arrived (RawTexts.countedStart), where it applies to `counted`. */
async function countedStart(
  view: SpooledView,
  counted: string,
  previewTokens: number,
  raw: RawTexts | undefined,
): Promise<{ sample?: TextSample; preview?: TokenBudgetCut }> {
  const first = view.parts[0]!.text;
  const start = typeof first === 'string' ? undefined : raw?.countedStart(first.placeholder);
  if (!start) return {};
  const sample = await start.sample;
  // The same length is the same text: both are the text's start up to a line break.
  const same = start.preview && start.preview.chars === counted.length && start.preview.previewTokens === previewTokens;
  const preview = same ? await start.preview!.cut : undefined;
  return { ...(sample ? { sample } : {}), ...(preview ? { preview } : {}) };
}

/** The result's size as the upstream sent it: its JSON with each placeholder counted as the escaped text it stands for. */
function spooledResultBytes(result: CallToolResult, view: SpooledView): number {
  let bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  for (const text of spooledTexts(view)) bytes += text.escapedBytes - (Buffer.byteLength(JSON.stringify(text.placeholder), 'utf8') - 2);
  return bytes;
}

/**
 * The decision made on the first text's start while it arrived (RawTexts.countedStart), when that start
 * alone is past the threshold and its preview was cut for this policy: the same sample, density and
 * preview the full path below would find on the same start (both cut where pieces break, within it).
 */
async function decidedEarly(
  view: SpooledView,
  policy: ShapePolicy & { thresholdTokens: number },
  raw: RawTexts | undefined,
): Promise<{ sample: TextSample; sampleBytes: number; cut: TokenBudgetCut } | undefined> {
  const first = view.parts[0]!.text;
  const start = typeof first === 'string' ? undefined : raw?.countedStart(first.placeholder);
  if (!start?.preview || start.preview.previewTokens !== policy.previewTokens) return undefined;
  const sample = await start.sample;
  if (!sample || sample.tokens <= policy.thresholdTokens) return undefined;
  const [sampleBytes, cut] = await Promise.all([start.sampleBytes, start.preview.cut]);
  // A preview that took the whole start might have gone on past it: that is for the full path to cut.
  return sampleBytes && cut && cut.text.length < start.preview.chars ? { sample, sampleBytes, cut } : undefined;
}

/** Up to `bytes` bytes of the joined text view from its start, decoded (never ending in half a character). */
async function readStart(view: SpooledView, bytes: number): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let out = '';
  let left = bytes;
  for (const [i, part] of view.parts.entries()) {
    if (left <= 0) break;
    if (i > 0) {
      out += decoder.write(Buffer.from('\n'));
      left--;
    }
    if (typeof part.text === 'string') {
      const data = Buffer.from(part.text, 'utf8');
      out += decoder.write(data.subarray(0, left));
      left -= Math.min(left, data.length);
      continue;
    }
    const take = Math.min(left, part.text.bytes);
    if (take <= part.text.head.length) out += decoder.write(part.text.head.subarray(0, take));
    else {
      const file = await open(part.text.path, 'r');
      try {
        const data = Buffer.allocUnsafe(take);
        const { bytesRead } = await file.read(data, 0, take, 0);
        out += decoder.write(data.subarray(0, bytesRead));
      } finally {
        await file.close();
      }
    }
    left -= take;
  }
  return out;
}

/** The tokens of the view's images, audio and blobs (the ledger's rule: tokens/media-tokens.ts). */
function mediaTokens(view: ResultView): number {
  return view.binary.reduce((tokens, block) => tokens + binaryTokens(block.kind, block.base64), 0);
}
