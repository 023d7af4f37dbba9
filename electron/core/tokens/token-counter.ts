import { createRequire } from 'node:module';
import { TokenCountWorker } from './token-count-worker.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** A token count and whether it is an estimate (scaled from an exactly counted prefix). */
export interface TokenCount {
  tokens: number;
  estimated: boolean;
}

export interface TokenCounterOptions {
  /** Default 'o200k_base'. */
  encoding?: EncodingName;
  /** Above this UTF-8 size `countExactOffThread` estimates instead of counting. Default 32 MiB. */
  offThreadExactLimitBytes?: number;
  /** Up to this UTF-8 size `quickCount` counts exactly in-thread. Default 256 KiB (~15-30 ms). */
  quickExactLimitBytes?: number;
  /** Characters of the prefix whose exact density scales an estimate. Default 64 Ki chars. */
  estimatePrefixChars?: number;
}

interface Encoder {
  encodeGenerator(text: string, options?: EncodeOptions): Generator<number[], number, undefined>;
  decode(tokens: Iterable<number>): string;
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): false | number;
  countTokens(text: string, options?: EncodeOptions): number;
}
interface EncodeOptions {
  disallowedSpecial?: Set<string>;
}

/**
 * Tool output may contain `<|endoftext|>` and friends: count them as the text they are. By default
 * gpt-tokenizer throws on them, and its special-token scan grows with the input (TOOLCHAIN.md).
 */
/** Texts up to this many characters are counted on the calling thread when the encoder is loaded. */
const INLINE_COUNT_MAX_CHARS = 4096;
const AS_TEXT: EncodeOptions = Object.freeze({ disallowedSpecial: new Set<string>() });

const MiB = 1024 * 1024;

/**
 * Counts tokens with gpt-tokenizer. The encoder (~290 ms, ~51 MiB) is loaded on first use, and never when
 * every question can be answered from byte lengths (a token is at least one UTF-8 byte).
 */
export class TokenCounter {
  readonly encoding: EncodingName;
  readonly #offThreadExactLimitBytes: number;
  readonly #quickExactLimitBytes: number;
  readonly #estimatePrefixChars: number;
  #encoder: Promise<Encoder> | null = null;
  #encoderReady = false;
  #worker: TokenCountWorker | null = null;

  constructor(options: TokenCounterOptions = {}) {
    this.encoding = options.encoding ?? 'o200k_base';
    this.#offThreadExactLimitBytes = options.offThreadExactLimitBytes ?? 32 * MiB;
    this.#quickExactLimitBytes = options.quickExactLimitBytes ?? 256 * 1024;
    this.#estimatePrefixChars = options.estimatePrefixChars ?? 64 * 1024;
  }

  /**
   * Whether `text` has at most `limit` tokens. Costs time bounded by `limit`, not by the text: a text of
   * at most `limit` UTF-8 bytes is within without tokenizing; otherwise the count stops past `limit`.
   */
  async isWithin(text: string, limit: number): Promise<boolean> {
    if (limit < 0) return false;
    if (TokenCounter.surelyWithin(text, limit)) return true;
    const encoder = await this.#load();
    return encoder.isWithinTokenLimit(text, limit, AS_TEXT) !== false;
  }

  /**
   * The exact count when `text` has at most `limit` tokens, else false. Bounded like `isWithin`: a text
   * of at most `limit` bytes is counted whole, a longer one only until the count passes `limit`.
   */
  async countWithin(text: string, limit: number): Promise<number | false> {
    if (limit < 0) return false;
    if (text.length === 0) return 0;
    const encoder = await this.#load();
    return encoder.isWithinTokenLimit(text, limit, AS_TEXT);
  }

  /** Cheap check from sizes alone: true when the text surely has at most `limit` tokens. */
  static surelyWithin(text: string, limit: number): boolean {
    // tokens <= UTF-8 bytes <= 3 x UTF-16 length
    if (text.length * 3 <= limit) return true;
    // Every UTF-16 unit is at least one byte, so a longer string cannot be within by size.
    return text.length <= limit && Buffer.byteLength(text, 'utf8') <= limit;
  }

  /** Exact token count, in this thread. */
  async count(text: string): Promise<number> {
    if (text.length === 0) return 0;
    const encoder = await this.#load();
    return encoder.countTokens(text, AS_TEXT);
  }

  /**
   * A count cheap enough for the request path: exact up to `quickExactLimitBytes`, above it the exact
   * density of a prefix scaled to the whole text (marked estimated; within ~1% on real tool output).
   */
  async quickCount(text: string): Promise<TokenCount> {
    // A string has at least as many UTF-8 bytes as UTF-16 units: long texts skip the byte count.
    if (text.length <= this.#quickExactLimitBytes && Buffer.byteLength(text, 'utf8') <= this.#quickExactLimitBytes) {
      return { tokens: await this.count(text), estimated: false };
    }
    const prefix = safePrefix(text, this.#estimatePrefixChars);
    return { tokens: scale(await this.count(prefix), prefix.length, text.length), estimated: true };
  }

  /**
   * Exact count in a worker thread, for the ledger. Above `offThreadExactLimitBytes` only a prefix is
   * counted there and scaled (estimated: true).
   */
  async countExactOffThread(text: string): Promise<TokenCount> {
    if (text.length === 0) return { tokens: 0, estimated: false };
    // Tiny texts (most tool results) cost less to count here than a message to the worker does, once the
    // encoder is loaded on this thread anyway.
    if (this.#encoderReady && text.length <= INLINE_COUNT_MAX_CHARS) {
      return { tokens: (await this.#encoder!).countTokens(text, AS_TEXT), estimated: false };
    }
    const worker = (this.#worker ??= new TokenCountWorker(encoderPath(this.encoding)));
    if (text.length <= this.#offThreadExactLimitBytes && Buffer.byteLength(text, 'utf8') <= this.#offThreadExactLimitBytes) {
      return { tokens: await worker.count(text), estimated: false };
    }
    const prefix = safePrefix(text, Math.max(this.#estimatePrefixChars, 1024 * 1024));
    return { tokens: scale(await worker.count(prefix), prefix.length, text.length), estimated: true };
  }

  /**
   * The longest prefix of `text` with at most `maxTokens` tokens, cut at the last line break when that
   * keeps at least half of it (otherwise mid-line, never inside a character).
   */
  async truncateToTokens(text: string, maxTokens: number): Promise<string> {
    if (maxTokens <= 0 || text.length === 0) return '';
    if (TokenCounter.surelyWithin(text, maxTokens)) return text;
    const encoder = await this.#load();
    if (encoder.isWithinTokenLimit(text, maxTokens, AS_TEXT) !== false) return text;

    const head: number[] = [];
    collect: for (const chunk of encoder.encodeGenerator(text, AS_TEXT)) {
      for (const token of chunk) {
        if (head.length >= maxTokens) break collect;
        head.push(token);
      }
    }
    // The decoded head may end in half a character (U+FFFD): keep only what matches the text.
    const decoded = encoder.decode(head);
    let end = 0;
    const max = Math.min(decoded.length, text.length);
    while (end < max && decoded.charCodeAt(end) === text.charCodeAt(end)) end++;
    end = charBoundary(text, end);

    let cut = lineCut(text, end);
    // Re-tokenizing a cut can differ at its edge; shrink until the prefix really fits.
    while (cut > 0 && encoder.isWithinTokenLimit(text.slice(0, cut), maxTokens, AS_TEXT) === false) {
      const atLine = lineCut(text, cut - 1);
      cut = text.charCodeAt(atLine) === 10 ? atLine : charBoundary(text, cut - Math.max(1, Math.ceil(cut * 0.02)));
    }
    return text.slice(0, cut);
  }

  /** Stops the worker thread, if one was started. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    await worker?.close();
  }

  /** Above this UTF-8 size `countExactOffThread` estimates instead of counting. */
  get offThreadExactLimitBytes(): number {
    return this.#offThreadExactLimitBytes;
  }

  #load(): Promise<Encoder> {
    this.#encoder ??= loadEncoder(this.encoding).then((e) => {
      this.#encoderReady = true;
      return e;
    });
    return this.#encoder;
  }
}

async function loadEncoder(encoding: EncodingName): Promise<Encoder> {
  // Literal specifiers so TypeScript and bundlers can see them.
  if (encoding === 'cl100k_base') return (await import('gpt-tokenizer/encoding/cl100k_base')) as Encoder;
  return (await import('gpt-tokenizer/encoding/o200k_base')) as Encoder;
}

function encoderPath(encoding: EncodingName): string {
  return createRequire(import.meta.url).resolve(`gpt-tokenizer/encoding/${encoding}`);
}

function scale(prefixTokens: number, prefixChars: number, totalChars: number): number {
  if (prefixChars === 0) return 0;
  return Math.round((prefixTokens / prefixChars) * totalChars);
}

/** Moves `index` back off the middle of a surrogate pair. */
function charBoundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff ? index - 1 : index;
}

function safePrefix(text: string, chars: number): string {
  return text.length <= chars ? text : text.slice(0, charBoundary(text, chars));
}

/** `end`, moved back to just before the last line break if that keeps at least half of it. */
function lineCut(text: string, end: number): number {
  if (end >= text.length) return text.length;
  if (text.charCodeAt(end) === 10) return end;
  const newline = text.lastIndexOf('\n', end - 1);
  return newline >= end / 2 ? newline : end;
}
