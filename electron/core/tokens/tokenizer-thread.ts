/**
 * The tokenizer thread: the one place the encoder is loaded (~50 MB), so that the main thread never holds
 * it and never blocks on a count. It answers two kinds of requests:
 * - for the request path (`count`, `within`, `truncate`): at once, in the order they arrive; each costs
 *   time bounded by its text or its limit;
 * - bookkeeping (`background`: exact counts for the ledger, of texts or of files it reads itself): one
 *   after another, in parts of PART_CHARS, so a request-path question waits for one part at most.
 *
 * `tokenizerThread` runs from its source text (`new Worker(source, {eval: true})`, see
 * token-count-worker.ts): a worker file would need `tsx` under vitest and its compiled twin in dist/,
 * while a function's text runs the same from TS source, from dist/ and from a bundle. So it must not
 * reference anything outside its body: node modules are `require`d inside, the helpers it shares with
 * the main thread are passed in (as their source text too).
 */
import type { charBoundary, lineCut, pieceBoundary, splitLongRuns } from './text-cuts.js';
import type { readTiktokenRanks } from './tiktoken-ranks.js';

export type TokenizerOp =
  | { op: 'count'; text: string }
  /**
   * Counts `text` from its start, stopping once past `above` tokens with at least `minChars` counted:
   * the tokens, and in the reply's `chars` how much of the text they are (all of it when not past).
   */
  | { op: 'sample'; text: string; above: number; minChars: number }
  | { op: 'within'; text: string; limit: number }
  /**
   * The length of the longest prefix of `text` within `maxTokens`, cut at a line break when that keeps
   * half; its tokens in the reply's `tokens`.
   */
  | { op: 'truncate'; text: string; maxTokens: number }
  /** A file's UTF-8 text: exact up to `maxBytes`, above it its first `prefixBytes` scaled by size. */
  | { op: 'countFile'; path: string; maxBytes: number; prefixBytes: number };

export type TokenizerRequest = TokenizerOp & { id: number; background?: boolean };

export interface TokenizerReply {
  id: number;
  value?: number | false;
  estimated?: boolean;
  /** `truncate`: the tokens of the prefix it keeps. */
  tokens?: number;
  /** `sample`: the characters counted. */
  chars?: number;
  error?: string;
}

export type TokenizerMessage<T> = T | { batch: T[] };

/** Tells the thread to stop holding bookkeeping back (the hub is stopping: its last records are due). */
export interface HurryMessage {
  hurry: true;
}

/** What the thread is given: the module paths, resolved by the parent so the thread does not depend on its working directory. */
export interface TokenizerThreadData {
  encoding: string;
  /** gpt-tokenizer's GptEncoding module. */
  gptEncodingPath: string;
  /** The encoding's `.tiktoken` file. */
  ranksPath: string;
  /** Overrides QUIET_MS (see giveWay below). */
  quietMs?: number;
}

/** The functions the thread shares with this side, passed in as their source text. */
export interface ThreadHelpers {
  charBoundary: typeof charBoundary;
  lineCut: typeof lineCut;
  pieceBoundary: typeof pieceBoundary;
  splitLongRuns: typeof splitLongRuns;
  readTiktokenRanks: typeof readTiktokenRanks;
}

interface ThreadEncoder {
  encodeGenerator(text: string, options: object): Generator<number[], number, undefined>;
  isWithinTokenLimit(text: string, limit: number, options: object): false | number;
  countTokens(text: string, options: object): number;
  setMergeCacheSize(size: number): void;
  clearMergeCache(): void;
}

/* eslint-disable @typescript-eslint/no-require-imports -- runs as an eval'd CommonJS script (see above) */
/** The body of the worker thread (its `workerData` is a TokenizerThreadData). */
export function tokenizerThread(helpers: ThreadHelpers): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const fs = require('node:fs') as typeof import('node:fs');
  const { open } = require('node:fs/promises') as typeof import('node:fs/promises');
  const { StringDecoder } = require('node:string_decoder') as typeof import('node:string_decoder');
  const data = workerData as TokenizerThreadData;
  const { GptEncoding } = require(data.gptEncodingPath) as { GptEncoding: { getEncodingApi(name: string, ranks: () => unknown): ThreadEncoder } };
  const ranks = helpers.readTiktokenRanks(data.ranksPath, fs);
  const encoder = GptEncoding.getEncodingApi(data.encoding, () => ranks);
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Special-token text such as <|endoftext|> in tool output is plain text here (issue 4).
  const AS_TEXT = { disallowedSpecial: new Set<string>() };
  // About 0.5-2 ms of counting: the longest a request-path question waits behind bookkeeping.
  const PART_CHARS = 16 * 1024;
  const FILE_READ_BYTES = 1024 * 1024;
  const port = parentPort!;

  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  // Bookkeeping gives way to the request path: while questions keep coming (calls are being answered),
  // its counting waits until they have stopped for QUIET_MS, so a burst of calls is not slowed by the
  // ledger's counts of the calls before it (a 1 MB text is ~11 ms of counting). It waits at most
  // MAX_HOLD_MS per request, and not at all once told to hurry (the hub is stopping).
  const QUIET_MS = data.quietMs ?? 200;
  const MAX_HOLD_MS = 5_000;
  let lastQuestionAt = 0;
  let hurry = false;
  let wake: (() => void) | undefined;
  const giveWay = async (since: number): Promise<void> => {
    for (;;) {
      const now = Date.now();
      const quietFor = now - lastQuestionAt;
      if (hurry || quietFor >= QUIET_MS || now - since >= MAX_HOLD_MS) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, Math.min(QUIET_MS - quietFor, MAX_HOLD_MS - (now - since)));
      });
      wake = undefined;
    }
  };

  // The merge cache (text piece -> tokens) evicts by deleting a Map's oldest key, which degrades into a
  // scan over deleted entries once it is full: varied multi-megabyte texts then counted up to 25x slower
  // (an 11 MB JSON text: 36 s instead of 1.4 s) and left 100,000 entries in memory. So it is emptied
  // after every CACHE_SPAN_CHARS counted, before it can fill, and left out for longer texts.
  const CACHE_SPAN_CHARS = 128 * 1024;
  const CACHE_ENTRIES = 100_000;
  let cachedChars = 0;
  const cached = <T>(text: string, work: () => T): T => {
    if (text.length > 2 * CACHE_SPAN_CHARS) {
      encoder.setMergeCacheSize(0);
      try {
        return work();
      } finally {
        encoder.setMergeCacheSize(CACHE_ENTRIES);
        cachedChars = 0;
      }
    }
    if (cachedChars + text.length > CACHE_SPAN_CHARS) {
      encoder.clearMergeCache();
      cachedChars = 0;
    }
    cachedChars += text.length;
    return work();
  };
  // Runs longer than this are counted in parts (see splitLongRuns): the merge is quadratic in a piece's length.
  const MAX_RUN_CHARS = 128;
  const runParts = (text: string): string[] | undefined => (text.length > MAX_RUN_CHARS ? helpers.splitLongRuns(text, MAX_RUN_CHARS) : undefined);
  const countTokens = (text: string): number => {
    const parts = runParts(text);
    if (!parts) return cached(text, () => encoder.countTokens(text, AS_TEXT));
    let total = 0;
    for (const part of parts) total += cached(part, () => encoder.countTokens(part, AS_TEXT));
    return total;
  };
  /** The tokens of `text` when within `limit`, else false (stops counting once past it). */
  const within = (text: string, limit: number): number | false => {
    const parts = runParts(text);
    if (!parts) return encoder.isWithinTokenLimit(text, limit, AS_TEXT);
    let total = 0;
    for (const part of parts) {
      const tokens = encoder.isWithinTokenLimit(part, limit - total, AS_TEXT);
      if (tokens === false) return false;
      total += tokens;
    }
    return total;
  };

  /** The longest prefix within `maxTokens` (see TokenCounter.truncateToTokens): its length and tokens. */
  const truncate = (text: string, maxTokens: number): { cut: number; tokens: number } => {
    const all = within(text, maxTokens);
    if (all !== false) return { cut: text.length, tokens: all };
    const head: number[] = [];
    collect: for (const part of runParts(text) ?? [text]) {
      for (const chunk of encoder.encodeGenerator(part, AS_TEXT)) {
        for (const token of chunk) {
          if (head.length >= maxTokens) break collect;
          head.push(token);
        }
      }
    }
    // Where the head ends in the text, from its tokens' byte lengths. Not by decoding it: gpt-tokenizer's
    // decode shares one streaming TextDecoder, so a head ending inside a character left bytes pending
    // that garbled the next decode (a later cut then stopped at its first multi-byte character).
    let bytes = 0;
    for (const token of head) {
      const rank = ranks[token]!;
      bytes += typeof rank === 'string' ? Buffer.byteLength(rank, 'utf8') : rank.length;
    }
    // The first `bytes` UTF-16 units take at least `bytes` bytes; a character cut in half stays out.
    const prefix = Buffer.from(text.slice(0, bytes), 'utf8').subarray(0, bytes);
    const end = helpers.charBoundary(text, new StringDecoder('utf8').write(prefix).length);
    let cut = helpers.lineCut(text, end);
    // Re-tokenizing a cut can differ at its edge; shrink until the prefix really fits.
    for (;;) {
      const tokens = cut > 0 ? within(text.slice(0, cut), maxTokens) : 0;
      if (tokens !== false) return { cut, tokens };
      const atLine = helpers.lineCut(text, cut - 1);
      cut = text.charCodeAt(atLine) === 10 ? atLine : helpers.charBoundary(text, cut - Math.max(1, Math.ceil(cut * 0.02)));
    }
  };

  /** See the `sample` op: counted in steps cut where pieces break, so the steps' counts add up. */
  const SAMPLE_STEP_CHARS = 8 * 1024;
  const sample = (text: string, above: number, minChars: number): { tokens: number; chars: number } => {
    let total = 0;
    let start = 0;
    while (text.length - start > 2 * SAMPLE_STEP_CHARS) {
      const end = helpers.pieceBoundary(text, start + SAMPLE_STEP_CHARS / 2, start + SAMPLE_STEP_CHARS);
      if (end < 0) break;
      total += countTokens(text.slice(start, end));
      start = end;
      if (total > above && start >= minChars) return { tokens: total, chars: start };
    }
    return { tokens: total + countTokens(start === 0 ? text : text.slice(start)), chars: text.length };
  };

  /** An exact count in parts cut where pieces break, letting other requests in between the parts. */
  const countInParts = async (text: string, since: number): Promise<number> => {
    let total = 0;
    let start = 0;
    await giveWay(since);
    while (text.length - start > 2 * PART_CHARS) {
      let end = -1;
      for (let reach = PART_CHARS; end < 0 && start + reach < text.length; reach *= 4) end = helpers.pieceBoundary(text, start, start + reach);
      if (end < 0) break;
      total += countTokens(text.slice(start, end));
      start = end;
      await nextTurn();
      await giveWay(since);
    }
    return total + countTokens(start === 0 ? text : text.slice(start));
  };

  const countFile = async (path: string, maxBytes: number, prefixBytes: number, since: number): Promise<{ tokens: number; estimated: boolean }> => {
    const file = await open(path, 'r');
    try {
      const size = (await file.stat()).size;
      const limit = size <= maxBytes ? size : Math.min(size, prefixBytes);
      const decoder = new StringDecoder('utf8');
      const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(FILE_READ_BYTES, limit)));
      let pending = '';
      let total = 0;
      let read = 0;
      while (read < limit) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, limit - read), read);
        if (bytesRead === 0) break;
        read += bytesRead;
        pending += decoder.write(buffer.subarray(0, bytesRead));
        const cut = helpers.pieceBoundary(pending, 0, pending.length);
        if (cut > 0) {
          total += await countInParts(pending.slice(0, cut), since);
          pending = pending.slice(cut);
        }
      }
      total += await countInParts(pending + decoder.end(), since);
      if (limit === size) return { tokens: total, estimated: false };
      return { tokens: read === 0 ? 0 : Math.round((total * size) / read), estimated: true };
    } finally {
      await file.close();
    }
  };

  const failed = (id: number, error: unknown): TokenizerReply => ({ id, error: String((error as Error)?.message ?? error) });

  const answer = (request: TokenizerRequest): TokenizerReply => {
    try {
      switch (request.op) {
        case 'count':
          return { id: request.id, value: countTokens(request.text) };
        case 'within':
          return { id: request.id, value: cached(request.text, () => within(request.text, request.limit)) };
        case 'sample': {
          const { tokens, chars } = sample(request.text, request.above, request.minChars);
          return { id: request.id, value: tokens, chars };
        }
        case 'truncate': {
          const { cut, tokens } = cached(request.text, () => truncate(request.text, request.maxTokens));
          return { id: request.id, value: cut, tokens };
        }
        default:
          return failed(request.id, new Error(`${request.op} is bookkeeping only`));
      }
    } catch (error) {
      return failed(request.id, error);
    }
  };

  const answerLater = async (request: TokenizerRequest, since: number): Promise<TokenizerReply> => {
    try {
      if (request.op === 'count') return { id: request.id, value: await countInParts(request.text, since) };
      if (request.op === 'countFile') {
        const count = await countFile(request.path, request.maxBytes, request.prefixBytes, since);
        return { id: request.id, value: count.tokens, estimated: count.estimated };
      }
      return answer(request);
    } catch (error) {
      return failed(request.id, error);
    }
  };

  const post = (replies: TokenizerReply[]): void => {
    if (replies.length > 0) port.postMessage(replies.length === 1 ? replies[0] : { batch: replies });
  };

  let bookkeeping: Promise<void> = Promise.resolve();
  port.on('message', (message: TokenizerMessage<TokenizerRequest> | HurryMessage) => {
    if ('hurry' in message) {
      hurry = true;
      wake?.();
      return;
    }
    const requests = 'batch' in message ? message.batch : [message];
    const now = requests.filter((r) => !r.background);
    if (now.length > 0) lastQuestionAt = Date.now();
    post(now.map(answer));
    const later = requests.filter((r) => r.background);
    if (later.length === 0) return;
    const since = Date.now();
    bookkeeping = bookkeeping.then(async () => {
      const replies: TokenizerReply[] = [];
      for (const request of later) replies.push(await answerLater(request, since));
      post(replies);
    });
  });
}
