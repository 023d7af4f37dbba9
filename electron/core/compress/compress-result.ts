import type { PiiMasker } from '../pii/pii-masker.js';
import { restoreText } from '../pii/pii-vault.js';
import { formatCount } from '../../../shared/plain-text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ChatClient, ChatErrorKind } from './chat-client.js';
import { CompressionCache } from './compression-cache.js';
import { buildCompressionMessages } from './compression-prompts.js';
import { detectContentType } from './content-type.js';
import type { CompressContentType } from './content-type.js';

export interface CompressInput {
  /** The result's text view (see viewResult in spill/result-view.ts). */
  text: string;
  /** Chooses the strategy; detected from the text when left out. */
  contentType?: CompressContentType;
  /** Namespaced tool name, shown to the compression model. */
  tool: string;
  /** What the calling model said it needs (`_spillway_goal`). */
  goal?: string;
  /** The tool policy's own instructions for the compression model. */
  customInstructions?: string;
  maxOutputTokens: number;
  originalTokens: number;
  originalTokensEstimated?: boolean;
  /** Spill handle of the full original, which the header points to. */
  handle: string;
  /** The tool that reads the original back (spillway__read_result), named in the hint under the header. */
  readTool: string;
  /** A line for the hint naming what is kept with the original besides its text (its images, audio, blobs). */
  keptWith?: string;
  /**
   * The tag of the vault that masked `text` and `goal` (maskResults: `[EMAIL_1_k3j9x2]`). Each call's
   * vault has its own random tag, so the cache keys on the texts with it taken out and a cached summary
   * gets this call's tag back: the same result masked for a second call is answered from the cache.
   */
  placeholderTag?: string;
}

export interface CompressDeps {
  client: ChatClient;
  counter: TokenCounter;
  cache?: CompressionCache;
  /**
   * When set, the text is masked before it leaves for the model and the answer restored, so the
   * endpoint never sees the originals while the caller reads the same values it would have read.
   */
  masker?: PiiMasker;
  /** Characters of the result sent at most; the model is told when it sees only the start. Default 400,000 (~100k tokens). */
  maxInputChars?: number;
  signal?: AbortSignal;
}

export type CompressErrorKind = ChatErrorKind | 'empty' | 'not_smaller';

export interface CompressError {
  kind: CompressErrorKind;
  message: string;
  status?: number;
}

export type CompressOutcome =
  | {
      ok: true;
      /** Header line, read-back hint, then the condensed result. */
      text: string;
      /** Tokens of `text` as delivered (header included). */
      tokens: number;
      /** Tokens of the condensed body alone, the number in the header. */
      bodyTokens: number;
      strategy: CompressContentType;
      maxOutputTokens: number;
      cached: boolean;
      /** Round trip to the model; null on a cache hit. */
      latencyMs: number | null;
      /** Placeholders used per label when a masker was given, e.g. `{EMAIL: 2}`. */
      masked: Record<string, number>;
    }
  | { ok: false; error: CompressError };

const DEFAULT_MAX_INPUT_CHARS = 400_000;

/**
 * Condenses one tool result with the chat model and heads it with
 * `[Compressed: 14,246 → 283 tokens, strategy: json, original: spill <handle>]`. Never throws: a failed,
 * timed-out, empty or not-smaller answer comes back as `{ok: false, error}`, and the caller delivers the
 * spilled result instead.
 */
export async function compressResult(input: CompressInput, deps: CompressDeps): Promise<CompressOutcome> {
  try {
    return await compress(input, deps);
  } catch (error) {
    return { ok: false, error: { kind: 'bad_response', message: `compression failed: ${(error as Error).message}` } };
  }
}

async function compress(input: CompressInput, deps: CompressDeps): Promise<CompressOutcome> {
  const { client, counter, cache, masker } = deps;
  const strategy = input.contentType ?? detectContentType(input.text);
  const maxOutputTokens = Math.max(1, Math.round(input.maxOutputTokens));
  const tags = tagSwap(input);
  const key =
    cache && tags
      ? CompressionCache.key({
          text: tags.untag(input.text),
          strategy,
          goal: input.goal === undefined ? undefined : tags.untag(input.goal),
          customInstructions: input.customInstructions,
          model: client.model,
          maxOutputTokens,
          masked: masker !== undefined,
        })
      : null;

  const maxInputChars = deps.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
  const shown = input.text.length > maxInputChars ? cutAtChar(input.text, maxInputChars) : input.text;
  const cut = shown.length < input.text.length ? { shownChars: shown.length, totalChars: input.text.length } : undefined;

  const hit = key ? cache!.get(key) : undefined;
  if (hit && tags) {
    const text = withHeader(input, strategy, hit.bodyTokens, tags.retag(hit.body), cut);
    const tokens = await counter.count(text);
    if (tokens >= input.originalTokens) return notSmaller(tokens, input.originalTokens);
    return {
      ok: true,
      text,
      tokens,
      bodyTokens: hit.bodyTokens,
      strategy,
      maxOutputTokens,
      cached: true,
      latencyMs: null,
      masked: {},
    };
  }

  const masking = masker?.maskText(shown);
  // The calling model's goal may name the same people as the result: masked with the same vault.
  const goal = masker && masking && input.goal !== undefined ? masker.maskText(input.goal, masking.vault).text : input.goal;
  const messages = buildCompressionMessages({
    text: masking?.text ?? shown,
    strategy,
    tool: input.tool,
    goal,
    customInstructions: input.customInstructions,
    maxOutputTokens,
    originalTokens: input.originalTokens,
    cutFromChars: cut?.totalChars,
  });
  const answer = await client.complete({ messages, maxTokens: maxOutputTokens, signal: deps.signal });
  if (!answer.ok) return { ok: false, error: answer.error };

  let body = stripFence(answer.text.trim());
  if (masking) body = restoreText(body, masking.vault);
  if (body.length === 0) return { ok: false, error: { kind: 'empty', message: 'the model answered with no text' } };
  let bodyTokens = await counter.count(body);
  // Models mostly honour max_tokens; one that does not must not blow the budget the policy set. One that
  // stopped at it (finish_reason "length") left its summary unfinished: the reader is told either way.
  const over = bodyTokens > maxOutputTokens;
  if (over || answer.finishReason === 'length') {
    body = `${over ? await counter.truncateToTokens(body, maxOutputTokens) : body}\n… (cut at ${formatCount(maxOutputTokens)} tokens)`;
    bodyTokens = await counter.count(body);
  }
  // What is delivered is the header and hint with the summary: that whole must be smaller than the original.
  const text = withHeader(input, strategy, bodyTokens, body, cut);
  const tokens = bodyTokens >= input.originalTokens ? bodyTokens : await counter.count(text);
  if (tokens >= input.originalTokens) return notSmaller(tokens, input.originalTokens);
  if (key && tags) cache!.set(key, { body: tags.untag(body), bodyTokens });
  return {
    ok: true,
    text,
    tokens,
    bodyTokens,
    strategy,
    maxOutputTokens,
    cached: false,
    latencyMs: answer.latencyMs,
    masked: masking?.vault.counts() ?? {},
  };
}

function notSmaller(tokens: number, originalTokens: number): CompressOutcome {
  return {
    ok: false,
    error: {
      kind: 'not_smaller',
      message: `the condensed result with its header (${formatCount(tokens)} tokens) is not smaller than the original (${formatCount(originalTokens)})`,
    },
  };
}

/** Stands for a call's vault tag in what the cache keys on and keeps: a tag is letters and digits only. */
const ANY_TAG = '_*]';

/**
 * Taking this call's placeholder tag out of a text (`[EMAIL_1_k3j9x2]` → `[EMAIL_1_*]`) and putting it
 * back; the same text both ways without a tag. Null when the texts already hold the stand-in (they would
 * not read back one way): such a call is not cached.
 */
function tagSwap(input: CompressInput): { untag: (text: string) => string; retag: (text: string) => string } | null {
  const tag = input.placeholderTag;
  if (!tag) return { untag: (text) => text, retag: (text) => text };
  if (input.text.includes(ANY_TAG) || input.goal?.includes(ANY_TAG)) return null;
  const own = `_${tag}]`;
  // Only placeholders get the tag back: `_*]` the model wrote itself (`[A-Za-z0-9_*]`) stays as written.
  return { untag: (text) => text.split(own).join(ANY_TAG), retag: (text) => text.replace(CACHED_PLACEHOLDER, `$1${own}`) };
}

/** A placeholder as the cache keeps it: `[EMAIL_1_*]` (labels are upper-case letters, digits and `_`). */
const CACHED_PLACEHOLDER = /(\[[A-Z][A-Z0-9_]*_\d+)_\*\]/g;

/** `[Compressed: 14,246 → 283 tokens, strategy: json, original: spill abcd2345efgh]` */
export function compressionHeader(
  originalTokens: number,
  bodyTokens: number,
  strategy: CompressContentType,
  handle: string,
  estimated = false,
): string {
  return `[Compressed: ${estimated ? '~' : ''}${formatCount(originalTokens)} → ${formatCount(bodyTokens)} tokens, strategy: ${strategy}, original: spill ${handle}]`;
}

/** Between the header lines of a compressed result and the summary. */
const BODY_SEPARATOR = '\n---\n';

/** The model was sent only the start of the result (maxInputChars): the hint says so and where the rest begins. */
interface InputCut {
  shownChars: number;
  totalChars: number;
}

function withHeader(input: CompressInput, strategy: CompressContentType, bodyTokens: number, body: string, cut?: InputCut): string {
  const header = compressionHeader(input.originalTokens, bodyTokens, strategy, input.handle, input.originalTokensEstimated);
  const grep = `{"handle":"${input.handle}","op":"grep","pattern":"<regex>"}`;
  const hint = cut
    ? `Only a summary of the first ${formatCount(cut.shownChars)} of ${formatCount(cut.totalChars)} characters: the model was not sent the rest. ` +
      `The full original is kept; read the rest with ${input.readTool}, e.g. {"handle":"${input.handle}","op":"read","offset":${cut.shownChars}} or ${grep}.`
    : `Summary by a model; the full original is kept. Read it with ${input.readTool}, e.g. ${grep}.`;
  return `${header}\n${hint}${input.keptWith ? `\n${input.keptWith}` : ''}${BODY_SEPARATOR}${body}`;
}

/**
 * The header lines and the summary of a compressed result's text (as `compressResult` writes it), or null
 * for any other text. The summary alone may be JSON; with the header in front the whole text is not.
 */
export function splitCompressedText(text: string): { head: string; body: string } | null {
  if (!text.startsWith('[Compressed: ')) return null;
  const at = text.indexOf(BODY_SEPARATOR);
  if (at === -1) return null;
  const split = at + BODY_SEPARATOR.length;
  return { head: text.slice(0, split), body: text.slice(split) };
}

/** Some models wrap the whole answer in a ``` fence despite being asked not to. */
function stripFence(text: string): string {
  const m = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  return m ? m[1]! : text;
}

function cutAtChar(text: string, chars: number): string {
  const code = text.charCodeAt(chars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars);
}
