import { createRequire } from 'node:module';
import { TokenCountWorker } from './token-count-worker.js';
import { charBoundary, pieceBoundary } from './text-cuts.js';
import type { TokenizerOp, TokenizerReply, TokenizerThreadData } from './tokenizer-thread.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** A token count and whether it is an estimate (scaled from an exactly counted prefix). */
export interface TokenCount {
  tokens: number;
  estimated: boolean;
}

/** The start of a text within a token budget, and its tokens. */
export interface TokenBudgetCut {
  text: string;
  tokens: number;
}

/** An exactly counted start of a text: its first `chars` characters have `tokens` tokens. */
export interface TextSample {
  chars: number;
  tokens: number;
}

/** What `survey` finds out about a text in one question. */
export interface TextSurvey {
  /** The exact count when the text has at most `limit` tokens, else false. */
  within: number | false;
  /** An exactly counted start of the text (all of it when short): what an estimate of the whole scales. */
  sample: TextSample;
  /** With `previewTokens`: the text's start within them, cut as `truncateToTokens` cuts it. */
  preview?: TokenBudgetCut;
}

export interface TokenCounterOptions {
  /** Default 'o200k_base'. */
  encoding?: EncodingName;
  /** Above this UTF-8 size `countExactOffThread` estimates instead of counting. Default 32 MiB. */
  offThreadExactLimitBytes?: number;
  /** Up to this UTF-8 size `quickCount` counts exactly. Default 256 KiB (~15-30 ms in the tokenizer thread). */
  quickExactLimitBytes?: number;
  /** Characters of the prefix whose exact density scales an estimate. Default 64 Ki chars. */
  estimatePrefixChars?: number;
  /** Stop the tokenizer thread after this long without work. Default DEFAULT_WORKER_IDLE_MS (10 s). */
  workerIdleMs?: number;
  /** How long request-path questions must have stopped before bookkeeping counts. Default 200 ms. */
  quietMs?: number;
}

const MiB = 1024 * 1024;
/**
 * Questions bounded by a limit send at least this much of a long text, and about 16 characters per
 * token of the limit (real tool output has 2-5), cut where the tokenizer's pieces break.
 */
const WINDOW_MIN_CHARS = 64 * 1024;
const WINDOW_CHARS_PER_TOKEN = 16;
/** A sample that stops past a limit counts at least this much, for the density an estimate scales. */
const SAMPLE_MIN_CHARS = 16 * 1024;

/**
 * Counts tokens with gpt-tokenizer, in one worker thread (token-count-worker.ts): the encoder (~50 MB,
 * ~150 ms to load) is loaded there on first use, never in this thread, and dropped again when there has
 * been nothing to count for a while. Questions that sizes alone answer never start it (a token is at
 * least one UTF-8 byte). Questions bounded by a limit send only as much of a long text as they need.
 */
export class TokenCounter {
  readonly encoding: EncodingName;
  readonly #offThreadExactLimitBytes: number;
  readonly #quickExactLimitBytes: number;
  readonly #estimatePrefixChars: number;
  readonly #worker: TokenCountWorker;

  constructor(options: TokenCounterOptions = {}) {
    this.encoding = options.encoding ?? 'o200k_base';
    this.#offThreadExactLimitBytes = options.offThreadExactLimitBytes ?? 32 * MiB;
    this.#quickExactLimitBytes = options.quickExactLimitBytes ?? 256 * 1024;
    this.#estimatePrefixChars = options.estimatePrefixChars ?? 64 * 1024;
    this.#worker = new TokenCountWorker({
      thread: { ...threadData(this.encoding), ...(options.quietMs !== undefined ? { quietMs: options.quietMs } : {}) },
      ...(options.workerIdleMs !== undefined ? { idleMs: options.workerIdleMs } : {}),
    });
  }

  /**
   * Whether `text` has at most `limit` tokens. Costs time bounded by `limit`, not by the text: a text of
   * at most `limit` UTF-8 bytes is within without tokenizing; otherwise the count stops past `limit`.
   */
  async isWithin(text: string, limit: number): Promise<boolean> {
    if (limit < 0) return false;
    if (TokenCounter.surelyWithin(text, limit)) return true;
    return (await this.countWithin(text, limit)) !== false;
  }

  /**
   * The exact count when `text` has at most `limit` tokens, else false. Bounded like `isWithin`: a long
   * text is sent in windows cut where pieces break (their counts add up), stopping once past `limit`.
   */
  async countWithin(text: string, limit: number): Promise<number | false> {
    if (limit < 0) return false;
    if (text.length === 0) return 0;
    let counted = 0;
    for (let start = 0; ;) {
      const end = windowEnd(text, start, windowChars(limit - counted));
      const { value: within } = await this.#ask({ op: 'within', text: slice(text, start, end), limit: limit - counted });
      if (typeof within !== 'number') return false;
      counted += within;
      if (end === text.length) return counted;
      start = end;
    }
  }

  /** Cheap check from sizes alone: true when the text surely has at most `limit` tokens. */
  static surelyWithin(text: string, limit: number): boolean {
    // tokens <= UTF-8 bytes <= 3 x UTF-16 length
    if (text.length * 3 <= limit) return true;
    // Every UTF-16 unit is at least one byte, so a longer string cannot be within by size.
    return text.length <= limit && Buffer.byteLength(text, 'utf8') <= limit;
  }

  /** Exact token count (in the tokenizer thread, ahead of bookkeeping counts). */
  async count(text: string): Promise<number> {
    if (text.length === 0) return 0;
    return this.#tokens({ op: 'count', text });
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
   * Exact count for the ledger, as bookkeeping: it waits behind other bookkeeping and gives way to the
   * request path. Above `offThreadExactLimitBytes` only a prefix is counted and scaled (estimated: true).
   */
  async countExactOffThread(text: string): Promise<TokenCount> {
    if (text.length === 0) return { tokens: 0, estimated: false };
    if (text.length <= this.#offThreadExactLimitBytes && Buffer.byteLength(text, 'utf8') <= this.#offThreadExactLimitBytes) {
      return { tokens: await this.#tokens({ op: 'count', text }, true), estimated: false };
    }
    const prefix = safePrefix(text, Math.max(this.#estimatePrefixChars, MiB));
    return { tokens: scale(await this.#tokens({ op: 'count', text: prefix }, true), prefix.length, text.length), estimated: true };
  }

  /**
   * Like `countExactOffThread` for the UTF-8 text of a file, which the tokenizer thread reads itself:
   * this thread never holds the text. Above `offThreadExactLimitBytes` its first MiB is counted and scaled.
   */
  async countFileOffThread(path: string): Promise<TokenCount> {
    const op: TokenizerOp = {
      op: 'countFile',
      path,
      maxBytes: this.#offThreadExactLimitBytes,
      prefixBytes: Math.max(this.#estimatePrefixChars, MiB),
    };
    const reply = await this.#ask(op, true);
    return { tokens: typeof reply.value === 'number' ? reply.value : 0, estimated: reply.estimated ?? false };
  }

  /**
   * The longest prefix of `text` with at most `maxTokens` tokens, cut at the last line break when that
   * keeps at least half of it (otherwise mid-line, never inside a character). Only a window of a long text
   * is sent, cut where pieces break: up to there its tokens are those of the whole text.
   */
  async truncateToTokens(text: string, maxTokens: number): Promise<string> {
    if (TokenCounter.surelyWithin(text, maxTokens) && maxTokens > 0) return text;
    return (await this.cutToTokens(text, maxTokens)).text;
  }

  /** Like `truncateToTokens`, with the tokens of the prefix it keeps (counted in the same question). */
  async cutToTokens(text: string, maxTokens: number): Promise<TokenBudgetCut> {
    if (maxTokens <= 0 || text.length === 0) return { text: '', tokens: 0 };
    for (let chars = windowChars(maxTokens); ; chars *= 4) {
      const end = windowEnd(text, 0, chars);
      const cut = budgetCut(text, end, await this.#ask({ op: 'truncate', text: slice(text, 0, end), maxTokens }));
      if (cut) return cut;
    }
  }

  /**
   * What the spill decision asks of a text its size alone does not pass, in one round trip to the
   * tokenizer thread: whether it is within `limit` (with its exact count if so); the exact count of its
   * start, to estimate the whole from (all of it up to `exactUpToBytes`, default `quickExactLimitBytes`,
   * else a prefix of up to `estimatePrefixChars`, which stops once past the limit); and with
   * `previewTokens` its preview (see `cutToTokens`). Costs time bounded by the sample and the limit, not
   * by the text.
   */
  async survey(
    text: string,
    limit: number,
    options: { previewTokens?: number; exactUpToBytes?: number; known?: { sample?: TextSample; preview?: TokenBudgetCut } } = {},
  ): Promise<TextSurvey> {
    const previewTokens = options.previewTokens;
    // A start counted before (see countStart) that is past the limit already decides; a preview cut
    // before (for `previewTokens`, on this text) is the answer for it.
    const known = options.known?.sample;
    if (known && known.tokens > limit && known.chars < text.length) {
      if (previewTokens === undefined) return { within: false, sample: known };
      return { within: false, sample: known, preview: options.known?.preview ?? (await this.cutToTokens(text, previewTokens)) };
    }
    const exactUpTo = options.exactUpToBytes ?? this.#quickExactLimitBytes;
    const whole = text.length <= exactUpTo && Buffer.byteLength(text, 'utf8') <= exactUpTo;
    // Cut where pieces break, the sample counts as the start of the whole, and counting can go on from there.
    let end = whole ? text.length : windowEnd(text, 0, this.#estimatePrefixChars);
    const continuable = end < text.length || whole;
    if (!continuable) end = safePrefix(text, this.#estimatePrefixChars).length;
    // A long text's sample stops once past the limit: that decides, and is enough to estimate from.
    const ops: TokenizerOp[] = [
      whole ? { op: 'count', text } : { op: 'sample', text: slice(text, 0, end), above: limit, minChars: SAMPLE_MIN_CHARS },
    ];
    const previewEnd = previewTokens !== undefined && previewTokens > 0 ? windowEnd(text, 0, windowChars(previewTokens)) : 0;
    if (previewEnd > 0) ops.push({ op: 'truncate', text: slice(text, 0, previewEnd), maxTokens: previewTokens! });
    const replies = await this.#worker.requestAll(ops);
    for (const reply of replies) if (reply.error !== undefined) throw new Error(reply.error);
    const sample = { chars: replies[0]!.chars ?? end, tokens: typeof replies[0]!.value === 'number' ? replies[0]!.value : 0 };

    let within: number | false;
    if (sample.chars === text.length) within = sample.tokens <= limit ? sample.tokens : false;
    else if (sample.tokens > limit) within = false;
    else if (!continuable) within = await this.countWithin(text, limit);
    else {
      const rest = await this.countWithin(text.slice(end), limit - sample.tokens);
      within = rest === false ? false : sample.tokens + rest;
    }
    if (previewTokens === undefined) return { within, sample };
    const preview = previewEnd > 0 ? budgetCut(text, previewEnd, replies[1]!) : { text: '', tokens: 0 };
    return { within, sample, preview: preview ?? (await this.cutToTokens(text, previewTokens)) };
  }

  /**
   * The exact count of the start of `text`, at most `estimatePrefixChars` cut where pieces break: a
   * sample to estimate the whole from, or to answer `survey` with (e.g. counted while the rest arrives).
   */
  async countStart(text: string): Promise<TextSample> {
    let end = windowEnd(text, 0, this.#estimatePrefixChars);
    if (end === text.length) end = safePrefix(text, this.#estimatePrefixChars).length;
    return { chars: end, tokens: end === 0 ? 0 : await this.#tokens({ op: 'count', text: slice(text, 0, end) }) };
  }

  /**
   * `countStart(text)` and `cutToTokens(previewText, previewTokens)` asked in one round trip to the
   * thread (each message to it costs ~0.1 ms here): what a spooled text's start is asked while the rest
   * of it arrives. `previewText` is usually `text` up to its last line break. With `above`, the count
   * stops once past that many tokens (as `survey` samples a text against its limit).
   */
  countStartAndCut(
    text: string,
    previewText: string,
    previewTokens: number,
    above?: number,
  ): { sample: Promise<TextSample>; cut: Promise<TokenBudgetCut> } {
    let end = windowEnd(text, 0, this.#estimatePrefixChars);
    if (end === text.length) end = safePrefix(text, this.#estimatePrefixChars).length;
    const previewEnd = previewTokens > 0 && previewText.length > 0 ? windowEnd(previewText, 0, windowChars(previewTokens)) : 0;
    const ops: TokenizerOp[] = [];
    if (end > 0) {
      const start = slice(text, 0, end);
      ops.push(above === undefined ? { op: 'count', text: start } : { op: 'sample', text: start, above, minChars: SAMPLE_MIN_CHARS });
    }
    if (previewEnd > 0) ops.push({ op: 'truncate', text: slice(previewText, 0, previewEnd), maxTokens: previewTokens });
    const replies = ops.length > 0 ? this.#worker.requestAll(ops) : Promise.resolve([]);
    const reply = async (i: number): Promise<TokenizerReply> => {
      const r = (await replies)[i]!;
      if (r.error !== undefined) throw new Error(r.error);
      return r;
    };
    const sample =
      end === 0
        ? Promise.resolve({ chars: 0, tokens: 0 })
        : reply(0).then((r) => ({ chars: r.chars ?? end, tokens: typeof r.value === 'number' ? r.value : 0 }));
    const cut =
      previewEnd === 0
        ? Promise.resolve({ text: '', tokens: 0 })
        : reply(end > 0 ? 1 : 0).then((r) => budgetCut(previewText, previewEnd, r) ?? this.cutToTokens(previewText, previewTokens));
    return { sample, cut };
  }

  /**
   * Starts the tokenizer thread now if it is stopped (~150 ms before it answers), e.g. when a tool call
   * begins: the call's result needs it for the spill decision or the ledger's count anyway.
   */
  warm(): void {
    this.#worker.warm();
  }

  /**
   * Off-thread exact counts (the ledger's) wait while request-path questions keep coming; this ends the
   * wait for those under way and to come, for a hub that is stopping and wants its last records.
   */
  hurry(): void {
    this.#worker.hurry();
  }

  /** Stops the tokenizer thread, if it runs (it starts again when needed). */
  async close(): Promise<void> {
    await this.#worker.close();
  }

  /** Above this UTF-8 size `countExactOffThread` estimates instead of counting. */
  get offThreadExactLimitBytes(): number {
    return this.#offThreadExactLimitBytes;
  }

  /** Whether the tokenizer thread is running, i.e. the encoder is in memory. */
  get loaded(): boolean {
    return this.#worker.running;
  }

  async #ask(op: TokenizerOp, background = false): Promise<TokenizerReply> {
    const reply = await this.#worker.request(op, background);
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply;
  }

  async #tokens(op: TokenizerOp, background = false): Promise<number> {
    const { value } = await this.#ask(op, background);
    return typeof value === 'number' ? value : 0;
  }
}

/** What the tokenizer thread loads its encoder from. */
export function threadData(encoding: EncodingName): TokenizerThreadData {
  const require = createRequire(import.meta.url);
  return {
    encoding,
    gptEncodingPath: require.resolve('gpt-tokenizer/GptEncoding'),
    // Literal specifiers, so packagers can see which files are needed.
    ranksPath:
      encoding === 'cl100k_base'
        ? require.resolve('gpt-tokenizer/data/cl100k_base.tiktoken')
        : require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'),
  };
}

function windowChars(limit: number): number {
  return Math.max(WINDOW_MIN_CHARS, limit * WINDOW_CHARS_PER_TOKEN);
}

/** Where a window of about `chars` characters from `start` ends: where pieces break, or at the end. */
function windowEnd(text: string, start: number, chars: number): number {
  if (text.length - start <= chars) return text.length;
  const cut = pieceBoundary(text, start + chars / 2, start + chars);
  return cut > start ? cut : text.length;
}

/** The prefix a `truncate` reply on the window `text[0, end)` keeps; undefined when the whole window fits and the text goes on. */
function budgetCut(text: string, end: number, reply: TokenizerReply): TokenBudgetCut | undefined {
  const cut = typeof reply.value === 'number' ? reply.value : 0;
  // The whole window fitting says nothing about the rest: look further.
  if (cut === end && end < text.length) return undefined;
  return { text: cut >= text.length ? text : text.slice(0, cut), tokens: reply.tokens ?? 0 };
}

function slice(text: string, start: number, end: number): string {
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function scale(prefixTokens: number, prefixChars: number, totalChars: number): number {
  if (prefixChars === 0) return 0;
  return Math.round((prefixTokens / prefixChars) * totalChars);
}

function safePrefix(text: string, chars: number): string {
  return text.length <= chars ? text : text.slice(0, charBoundary(text, chars));
}
