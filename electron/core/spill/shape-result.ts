import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { audioTokens, imageTokens } from '../tokens/media-tokens.js';
import { TokenCounter } from '../tokens/token-counter.js';
import type { TokenCount } from '../tokens/token-counter.js';
import { formatCount, summarizeJson } from './json-summary.js';
import { parseJson, viewResult } from './result-view.js';
import type { ResultView } from './result-view.js';
import { READ_RESULT_TOOL_NAME } from './read-result-tool.js';
import { formatBytes, formatDuration } from './size-labels.js';
import { spillUri } from './spill-handle.js';
import type { SpillEntry, SpillStore } from './spill-store.js';

export type ResultAction = 'spill' | 'truncate' | 'pass' | 'compress';

export interface ShapePolicy {
  action: ResultAction;
  /** Tokens above which a result is spilled or truncated; null turns the check off. */
  thresholdTokens: number | null;
  previewTokens: number;
  ttlMs?: number;
}

export interface ShapeContext {
  server: string;
  tool: string;
  client?: string | null;
}

export interface ShapeDeps {
  store: SpillStore;
  counter: TokenCounter;
  now: () => number;
}

export interface ShapeOutcome {
  action: 'pass' | 'spill' | 'truncate';
  /** UTF-8 size of the upstream result serialized as JSON. */
  bytesUpstream: number;
  bytesDelivered: number;
  /** Tokens of what was delivered; null when it passed by size alone and was not tokenized. */
  tokensDelivered: number | null;
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
}

export interface ShapedResult {
  delivered: CallToolResult;
  outcome: ShapeOutcome;
}

/**
 * Applies a result policy to one tool result: pass it, or keep it whole in the spill store and deliver a
 * header, a token-accurate preview (a structural summary for JSON) and a resource_link, or deliver a
 * labelled truncation. Deciding costs time bounded by the threshold, not by the payload. isError results
 * pass unchanged. 'compress' spills here; the spill feature then condenses the spilled result.
 */
export async function shapeResult(
  result: CallToolResult,
  policy: ShapePolicy,
  ctx: ShapeContext,
  deps: ShapeDeps,
): Promise<ShapedResult> {
  const { counter, store } = deps;
  const json = JSON.stringify(result);
  const bytesUpstream = Buffer.byteLength(json, 'utf8');
  const view = viewResult(result);
  const media = mediaTokens(view);
  const exactLater = (text: string) => async (): Promise<TokenCount> => {
    const count = await counter.countExactOffThread(text);
    return { tokens: count.tokens + media, estimated: count.estimated };
  };
  const pass = (tokens: number | null): ShapedResult => ({
    delivered: result,
    outcome: {
      action: 'pass',
      bytesUpstream,
      bytesDelivered: bytesUpstream,
      tokensDelivered: tokens,
      tokensUpstream: tokens === null ? null : { tokens, estimated: false },
      countUpstreamTokens: tokens === null ? exactLater(view.text) : async () => ({ tokens, estimated: false }),
    },
  });

  const threshold = policy.thresholdTokens;
  if (result.isError || policy.action === 'pass' || threshold === null) return pass(null);
  const budget = threshold - media;
  if (budget >= 0) {
    // Within by size: no tokenizer is loaded for the many small results.
    if (TokenCounter.surelyWithin(view.text, budget)) return pass(null);
    const within = await counter.countWithin(view.text, budget);
    if (within !== false) return pass(within + media);
  }

  const textCount = await counter.quickCount(view.text);
  const tokensUpstream: TokenCount = { tokens: textCount.tokens + media, estimated: textCount.estimated };
  const preview = await buildPreview(result, view, policy.previewTokens, counter);
  const sizes = { tokens: tokensUpstream, bytes: bytesUpstream, preview };
  const base = { bytesUpstream, tokensUpstream, tokensUpstreamLowerBound: threshold + 1 };

  if (policy.action === 'truncate') {
    const text = `${truncatedHeader(sizes, 'This tool\'s policy keeps nothing: the rest was discarded.')}\n---\n${preview.text}`;
    return finish({ content: [{ type: 'text', text }], _meta: meta(tokensUpstream, { 'spillway/truncated': true }) }, {
      ...base,
      action: 'truncate',
      countUpstreamTokens: tokensUpstream.estimated ? exactLater(view.text) : async () => tokensUpstream,
    }, counter);
  }

  let entry: SpillEntry;
  try {
    entry = await store.put(result, { server: ctx.server, tool: ctx.tool, client: ctx.client ?? null, ttlMs: policy.ttlMs, tokens: tokensUpstream }, { serialized: json, view });
  } catch (error) {
    const reason = (error as Error).message;
    const text = `${truncatedHeader(sizes, `The full result could not be kept (${reason}), so it cannot be read back; call the tool again with narrower arguments if you need more.`)}\n---\n${preview.text}`;
    return finish({ content: [{ type: 'text', text }], _meta: meta(tokensUpstream, { 'spillway/truncated': true }) }, {
      ...base,
      action: 'truncate',
      note: `spill failed: ${reason}`,
      countUpstreamTokens: tokensUpstream.estimated ? exactLater(view.text) : async () => tokensUpstream,
    }, counter);
  }

  const handle = entry.handle;
  const text = `${spilledHeader(sizes, entry, deps.now(), preview.lines)}\n---\n${preview.text}`;
  const delivered: CallToolResult = {
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
    _meta: meta(tokensUpstream, { 'spillway/handle': handle, 'spillway/expiresAt': new Date(entry.expiresAt).toISOString() }),
  };
  const countUpstreamTokens = async (): Promise<TokenCount> => {
    if (!tokensUpstream.estimated) return tokensUpstream;
    const exact = await exactLater(view.text)();
    await store.setTokens(handle, exact).catch(() => {});
    return exact;
  };
  return finish(delivered, { ...base, action: 'spill', handle, expiresAt: entry.expiresAt, countUpstreamTokens }, counter);
}

interface Preview {
  text: string;
  tokens: number;
  /** Lines of the text view the preview shows (0 for a JSON summary). */
  lines: number;
  summary: boolean;
}

interface Sizes {
  tokens: TokenCount;
  bytes: number;
  preview: Preview;
}

async function buildPreview(result: CallToolResult, view: ResultView, previewTokens: number, counter: TokenCounter): Promise<Preview> {
  if (view.contentType === 'json') {
    const json = view.textFromStructured ? { value: result.structuredContent } : parseJson(view.text);
    if (json) {
      const text = await counter.truncateToTokens(summarizeJson(json.value, previewTokens * 8), previewTokens);
      return { text, tokens: await counter.count(text), lines: 0, summary: true };
    }
  }
  const text = await counter.truncateToTokens(view.text, previewTokens);
  const lines = text.length === 0 ? 0 : text.split('\n').length;
  return { text, tokens: await counter.count(text), lines, summary: false };
}

function mediaTokens(view: ResultView): number {
  let tokens = 0;
  for (const block of view.binary) {
    if (block.kind === 'image') tokens += imageTokens(block.base64);
    else if (block.kind === 'audio') tokens += audioTokens(block.base64);
    // A blob resource reaches the model, if at all, as its base64 text: about 4 characters a token.
    else tokens += Math.ceil(block.base64.length / 4);
  }
  return tokens;
}

function sizeLabel(sizes: Sizes): string {
  const tokens = `${sizes.tokens.estimated ? '~' : ''}${formatCount(sizes.tokens.tokens)} tokens`;
  return `${tokens} (${formatBytes(sizes.bytes)})`;
}

function showing(preview: Preview): string {
  return preview.summary
    ? `showing a structural summary (${formatCount(preview.tokens)} tokens)`
    : `showing the first ${formatCount(preview.tokens)} tokens (${formatCount(preview.lines)} ${preview.lines === 1 ? 'line' : 'lines'})`;
}

function spilledHeader(sizes: Sizes, entry: SpillEntry, now: number, previewLines: number): string {
  const h = entry.handle;
  const examples = [
    `{"handle":"${h}","op":"grep","pattern":"<regex>"}`,
    entry.contentType === 'json'
      ? `{"handle":"${h}","op":"query","query":".items | size()"}`
      : `{"handle":"${h}","op":"slice","start":${previewLines + 1},"end":${previewLines + 200}}`,
    `{"handle":"${h}","op":"stat"}`,
  ];
  const binary = entry.binary.length > 0
    ? `\n${entry.binary.length} binary block(s) (${entry.binary.map((b) => b.mimeType).join(', ')}) are kept with it: resources/read ${spillUri(h)}.`
    : '';
  return (
    `[Spillway] Result too large for the context, kept in full: ${sizeLabel(sizes)} — ${showing(sizes.preview)}.\n` +
    `Handle "${h}", kept until ${new Date(entry.expiresAt).toISOString()} (${formatDuration(entry.expiresAt - now)}). ` +
    `Read more with the tool ${READ_RESULT_TOOL_NAME}, e.g.\n  ${examples.join('\n  ')}\n` +
    `Ops: stat, head, tail, slice (lines), grep (regex), query (JSON), read (from an offset).${binary}`
  );
}

function truncatedHeader(sizes: Sizes, why: string): string {
  return `[Spillway] TRUNCATED: this result was ${sizeLabel(sizes)} — ${showing(sizes.preview)}. ${why}`;
}

function meta(tokens: TokenCount, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...extra, 'spillway/tokens': tokens.tokens, 'spillway/tokensEstimated': tokens.estimated };
}

async function finish(
  delivered: CallToolResult,
  outcome: Omit<ShapeOutcome, 'bytesDelivered' | 'tokensDelivered'>,
  counter: TokenCounter,
): Promise<ShapedResult> {
  const text = delivered.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return {
    delivered,
    outcome: {
      ...outcome,
      bytesDelivered: Buffer.byteLength(JSON.stringify(delivered), 'utf8'),
      tokensDelivered: await counter.count(text),
    },
  };
}
