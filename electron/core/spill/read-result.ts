import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stat as fsStat } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { ResultEncoding } from '../../../shared/policy.js';
import { charBoundary } from '../tokens/text-cuts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatCount } from './json-summary.js';
import { answerRead, notingView, type DocumentAnswer, type DocumentOp, type DocumentRead } from './read-document.js';
import { linesView, queryAnswer, TOON_VIEW_MAX_CHARS } from './read-encoding.js';
import { cappedLines } from './read-lines-cap.js';
import { queryHeader, ReadOpError } from './read-ops.js';
import { READ_RESULT_TOOL_NAME, ReadResultArgs } from './read-result-tool.js';
import { ReadThread } from './read-thread-host.js';
import { formatBytes } from './size-labels.js';
import { handleMessages, type SpillEntry, type SpillStore } from './spill-store.js';

export interface ReadResultOptions {
  /** Cap on what one call returns, so the read-back is never itself too large. Default 8,000. */
  maxOutputTokens?: number;
  /** How long a grep or a query may run before it is cut off (default READ_DEADLINE_MS, 2 s). */
  deadlineMs?: number;
  /** How a result's tabular JSON is shown (issue 18); default 'auto'. */
  encodingFor?: (entry: SpillEntry) => ResultEncoding;
  /** The thread that runs grep, query and every op on the largest texts (default: one shared by the process). */
  thread?: ReadThread;
  /**
   * Texts of more UTF-8 bytes than this are read on the read thread (default and least OFF_THREAD_ABOVE_BYTES),
   * and so are all greps and queries; a test passes Infinity to run every op here, to compare the answers.
   */
  offThreadAboveBytes?: number;
}

/**
 * Texts of more UTF-8 bytes than this are read on the read thread: on the main thread, reading, splitting
 * and parsing them would hold every other call (~0.1 s for 6 MB of JSON, ~0.9 s for 51 MB, audit s12). It
 * is three times TOON_VIEW_MAX_CHARS (a character has at most 3 bytes), so such a text has more characters
 * than any that gets a TOON view: its size alone decides its view (read-encoding.ts linesView).
 */
export const OFF_THREAD_ABOVE_BYTES = 3 * TOON_VIEW_MAX_CHARS;

/** Said over lines read with "view":"json". */
const JSON_LINES_NOTE = '[Lines of its JSON text ("view":"json"), numbered as grep numbers them when no TOON row matches]';

const DEFAULT_OUTPUT_TOKENS = 8_000;
const DEFAULT_READ_TOKENS = 2_000;
const DEFAULT_LINES = 50;
const DEFAULT_SLICE_LINES = 100;

/**
 * The longest pattern or query taken. Real ones are a few hundred characters; JSON Query's parser takes
 * ~1.3 s on a 160,000-character one (audit s13), and the answer repeats it.
 */
export const MAX_EXPRESSION_CHARS = 10_000;

/** The longest error message answered: the model's request is repeated in part only (read-ops.ts echo), this is the backstop. */
const MAX_ERROR_CHARS = 2_000;

/** The read thread of readResult calls that name none: started on first use, stopped when idle. */
const sharedThread = new ReadThread();

/**
 * Serves `spillway__read_result`: one op on one spilled result. Its own output is never spilled: it is
 * capped and says how to narrow the request. Unknown or expired handles, bad arguments, bad or
 * unsupported regexes, bad queries and a grep or query cut off at its deadline are `isError` results with
 * a message the model can act on; so are files gone from under the store, told as the handle's plain
 * "no longer kept" (never a file path).
 */
export async function readResult(store: SpillStore, counter: TokenCounter, args: unknown, options: ReadResultOptions = {}): Promise<CallToolResult> {
  const cap = options.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS;
  const parsed = ReadResultArgs.safeParse(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return failure(`Invalid arguments for ${READ_RESULT_TOOL_NAME}: ${issues}.`);
  }
  const a = parsed.data;
  const found = store.lookup(a.handle);
  if ('error' in found) return failure(found.message);
  const entry = found.entry;
  const op = documentOp(a, cap);
  if (typeof op === 'string') return failure(op);

  try {
    // "view":"json" reads the JSON text's own lines, as grep numbers them when no row of a TOON view matches.
    const encoding = a.view === 'json' ? 'json' : (options.encodingFor?.(entry) ?? 'auto');
    const answer = (o: DocumentOp) =>
      answerOf(store, entry, { op: o, contentType: entry.contentType, deadlineMs: options.deadlineMs }, encoding, counter, options);
    if (op.op === 'read') return await read(counter, (maxChars) => answer({ ...op, maxChars }), Math.min(a.maxTokens ?? DEFAULT_READ_TOKENS, cap));
    const got = await answer(op);
    switch (got.op) {
      case 'stat':
        return await capped(counter, stat(entry, got, await blockBytes(store, entry)), cap, 'stat');
      case 'answer':
        return await capped(
          counter,
          `${queryHeader(a.query!)}\n${await queryAnswer(got.answer.value, got.answer.pretty, encoding, counter)}`,
          cap,
          'query',
        );
      case 'lines':
        // Lines read in the JSON view say so, and so does the slice that reads on from them.
        return ok(
          await cappedLines(counter, a.view === 'json' && entry.contentType === 'json' ? { ...got, note: JSON_LINES_NOTE, view: 'json' } : got, cap),
        );
      case 'text':
        return await capped(counter, got.text, cap, op.op === 'grep' || op.op === 'query' ? op.op : 'lines');
      case 'read':
        throw new Error('a read answer to another op'); // not reached: answerRead answers each op in kind
    }
  } catch (error) {
    if (error instanceof ReadOpError) return failure(error.message);
    if (isMissingFile(error)) return failure(await goneMessage(store, entry.handle));
    return failure(`Could not read spilled result "${entry.handle}": ${plainReason(error)}`);
  }
}

/** The op with its defaults, or what is missing for it. */
function documentOp(a: ReadResultArgs, cap: number): DocumentOp | string {
  switch (a.op) {
    case 'stat':
      return { op: 'stat' };
    case 'head':
    case 'tail':
      return { op: a.op, lines: a.lines ?? DEFAULT_LINES };
    case 'slice':
      if (a.start === undefined) return 'slice needs `start` (1-based line number) and optionally `end` (inclusive).';
      return { op: 'slice', start: a.start, end: a.end ?? a.start + DEFAULT_SLICE_LINES - 1 };
    case 'grep':
      if (a.pattern === undefined || a.pattern === '') return 'grep needs a non-empty `pattern` (a regular expression).';
      if (a.pattern.length > MAX_EXPRESSION_CHARS)
        return tooLong('pattern', a.pattern.length, 'search for a shorter part of what you want (one word or id finds its lines)');
      return { op: 'grep', pattern: a.pattern, caseSensitive: a.caseSensitive, context: a.context, maxMatches: a.maxMatches };
    case 'query':
      if (a.query === undefined || a.query.trim() === '') return 'query needs a `query` (a JSON Query expression or a path like $.items[0]).';
      if (a.query.length > MAX_EXPRESSION_CHARS)
        return tooLong('query', a.query.length, 'write a shorter one, or run several queries one after another');
      // A few times what the cap shows (~4 characters a token): room for TOON to shrink a table into it.
      return { op: 'query', query: a.query, maxChars: cap * 16 };
    case 'read':
      return { op: 'read', offset: a.offset ?? 0, maxChars: 0 };
  }
}

function tooLong(name: 'pattern' | 'query', length: number, next: string): string {
  return `The ${name} is ${formatCount(length)} characters long; the most is ${formatCount(MAX_EXPRESSION_CHARS)}: ${next}.`;
}

/**
 * One op's answer: on the read thread for grep, query and a large text (once a put of it under way is
 * done), else here on the store's cached document. A grep or query runs the model's own pattern or query,
 * which may take up to its deadline (2 s) on a small text too: on this thread, that held every other call
 * for as long, and five sent at once for 10 s (audit s13). The thread runs the same code, so the same answers.
 *
 * The view of a JSON text's lines is chosen once, where the first op on them runs, and kept (chosenViews):
 * later ops, on either thread, read the same lines, so grep's line numbers are the lines slice shows. A
 * table whose TOON view the thread chose has its lines read there too: making that view here held this
 * thread (~0.4 s for a 1.8 M-character table, audit s13).
 */
async function answerOf(
  store: SpillStore,
  entry: SpillEntry,
  read: DocumentRead,
  encoding: ResultEncoding,
  counter: TokenCounter,
  options: ReadResultOptions,
): Promise<DocumentAnswer> {
  const thread = options.thread ?? sharedThread;
  const above = Math.max(OFF_THREAD_ABOVE_BYTES, options.offThreadAboveBytes ?? 0);
  const views = chosenViewsOf(store);
  const key = `${encoding} ${entry.handle}`;
  const chosen = entry.contentType === 'json' ? views.get(key) : undefined;
  const modelCode = read.op.op === 'grep' || read.op.op === 'query';
  const threadView = chosen?.byThread === true && chosen.toonHeader !== null;
  const onThread = async (): Promise<DocumentAnswer> => {
    // The JSON lines (null) are named to grep alone, which reads them without a header: another op chooses
    // again, for the header of a table too large for TOON (its size decides, as it did).
    const toonHeader = read.op.op === 'grep' ? chosen?.toonHeader : (chosen?.toonHeader ?? undefined);
    const got = await thread.read(await store.textFile(entry.handle), encoding, { ...read, toonHeader }, counter);
    if (got.view !== undefined && !views.has(key)) views.set(key, { toonHeader: got.view, byThread: true });
    return got.answer;
  };
  if (entry.textBytes > above || ((modelCode || threadView) && above !== Infinity)) return onThread();
  const doc = await store.readDocument(entry.handle);
  // stat parses the JSON: one with numbers a double cannot hold takes ~5x as long (exact-json.ts), so the thread does.
  if (read.op.op === 'stat' && entry.contentType === 'json' && above !== Infinity && !doc.numbersExact) return onThread();
  // A TOON view chosen before is read by its header (the one made here, or made again); else linesView chooses,
  // which keeps its choice with the document.
  const { viewOf, chosen: choice } = notingView((d) => linesView(d, encoding, counter));
  const answer = await answerRead(doc, { ...read, toonHeader: chosen?.toonHeader ?? undefined }, viewOf);
  const view = choice();
  if (view !== undefined && entry.contentType === 'json' && !views.has(key)) views.set(key, { toonHeader: view, byThread: false });
  return answer;
}

/** The view a result's lines were read on: a TOON view's header or null for its JSON lines, and whether the read thread chose it. */
interface ChosenView {
  toonHeader: string | null;
  byThread: boolean;
}

/** Views chosen, by store, then by encoding and handle (a handle names its content, so its view never changes). */
const chosenViews = new WeakMap<SpillStore, LRUCache<string, ChosenView>>();
/** Results whose view is kept per store: a few hundred bytes each. */
const CHOSEN_VIEWS_MAX = 1_000;

function chosenViewsOf(store: SpillStore): LRUCache<string, ChosenView> {
  let views = chosenViews.get(store);
  if (!views) chosenViews.set(store, (views = new LRUCache<string, ChosenView>({ max: CHOSEN_VIEWS_MAX })));
  return views;
}

/** The bytes of a spilled result's binary blocks, decoded (their files' sizes); a file gone counts 0. */
async function blockBytes(store: SpillStore, entry: SpillEntry): Promise<number> {
  const sizes = await Promise.all(
    entry.binary.map((b) =>
      fsStat(join(store.dir, entry.handle, b.file)).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

/**
 * stat's answer. It leads with the result's size as the spilled header gives it (its text and decoded
 * binary blocks: viewBytes), then what the store holds for it (its JSON, binary data as base64).
 */
function stat(entry: SpillEntry, doc: { chars: number; lines: number; json: string[] }, binaryBytes: number): string {
  const tokens = entry.tokens === null ? 'not counted' : `${entry.tokensEstimated ? '~' : ''}${formatCount(entry.tokens)}`;
  const size = entry.textBytes + binaryBytes;
  const blocks = entry.binary.length > 0 ? `; binary blocks ${formatCount(binaryBytes)} bytes` : '';
  const lines = [
    `Handle: ${entry.handle}`,
    `From: ${entry.server} / ${entry.tool}${entry.client ? ` (client ${entry.client})` : ''}`,
    `Content type: ${entry.contentType}${entry.textFromStructured ? ' (from structuredContent)' : ''}`,
    `Size: ${formatCount(size)} bytes (${formatBytes(size)}): text ${formatCount(entry.textBytes)} bytes, ` +
      `${formatCount(doc.chars)} characters${blocks}; stored as ${formatCount(entry.bytes)} bytes`,
    `Lines: ${formatCount(doc.lines)}`,
    `Tokens: ${tokens}`,
    `Created: ${new Date(entry.createdAt).toISOString()}; expires: ${new Date(entry.expiresAt).toISOString()}`,
  ];
  if (entry.binary.length > 0) lines.push(`Binary blocks: ${entry.binary.map((b) => `#${b.index} ${b.kind} ${b.mimeType}`).join(', ')}`);
  lines.push(...doc.json);
  return lines.join('\n');
}

/**
 * The text `read` is given from its offset: enough for `maxTokens` tokens (real text has 2-5 characters a
 * token), so a large text is not handed over whole. The counter cuts its first window of it exactly as it
 * would cut the whole text (see `read`).
 */
function readWindow(maxTokens: number): number {
  return Math.max(512 * 1024, maxTokens * 128);
}

type ReadAnswer = Extract<DocumentAnswer, { op: 'read' }>;

async function read(counter: TokenCounter, textFrom: (maxChars: number) => Promise<DocumentAnswer>, maxTokens: number): Promise<CallToolResult> {
  for (let window = readWindow(maxTokens); ; window *= 4) {
    const got = (await textFrom(window)) as ReadAnswer;
    const { offset, text: rest, chars } = got;
    if (rest.length === 0) return ok(`[offset ${formatCount(offset)} is the end of the text (${formatCount(chars)} characters)]`);
    let chunk = await counter.truncateToTokens(rest, maxTokens);
    // A chunk past a quarter of the window may have been cut on a window longer than what was handed over
    // (the counter's windows grow fourfold): ask for more, so it is cut as on the whole text.
    if (!got.whole && chunk.length * 4 >= rest.length) continue;
    if (chunk.length === 0) {
      // A first line longer than the budget: cut mid-line rather than return nothing, never inside a character
      // (0 here: the text starts with a surrogate pair, kept whole).
      const end = charBoundary(rest, Math.max(1, maxTokens));
      chunk = rest.slice(0, end > 0 ? end : 2);
    }
    const next = offset + chunk.length;
    const tail =
      next >= chars
        ? `\n[end of text: characters ${formatCount(offset)}-${formatCount(next)} of ${formatCount(chars)}]`
        : `\n[characters ${formatCount(offset)}-${formatCount(next)} of ${formatCount(chars)}; continue with {"op":"read","offset":${next}}]`;
    return ok(chunk + tail);
  }
}

/** A result's files gone from under the store (deleted, or evicted while being read). */
function isMissingFile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * What the model is told when a result's files are gone: the handle's own message (no file path crosses
 * the wire). The store's cleanup drops entries whose files vanished, so the next lookup says so at once.
 */
async function goneMessage(store: SpillStore, handle: string): Promise<string> {
  try {
    await store.cleanup();
  } catch {
    // the message below does not depend on it
  }
  const found = store.lookup(handle);
  return 'error' in found ? found.message : handleMessages.unknown(handle);
}

/** Why a read failed, without the file paths that a file system error's message carries. */
function plainReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('E'))
    return `its file could not be read (${code}); try again, or call the tool that made it again.`;
  return (error as Error)?.message ?? String(error);
}

const NARROW: Record<string, string> = {
  stat: 'the key list was cut',
  lines: 'ask for fewer lines (slice with a smaller range, or head/tail with a smaller `lines`)',
  grep: 'use a more specific pattern, a lower maxMatches or less context',
  query: 'select less (filter, pick fields, limit(n)) in the query',
};

async function capped(counter: TokenCounter, text: string, cap: number, kind: string): Promise<CallToolResult> {
  if (await counter.isWithin(text, cap)) return ok(text);
  const cut = await counter.truncateToTokens(text, cap);
  return ok(`${cut}\n[output capped at ${formatCount(cap)} tokens; ${NARROW[kind] ?? 'narrow the request'}]`);
}

function ok(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function failure(message: string): CallToolResult {
  const text = message.length <= MAX_ERROR_CHARS ? message : `${message.slice(0, charBoundary(message, MAX_ERROR_CHARS))}…`;
  return { content: [{ type: 'text', text }], isError: true };
}
