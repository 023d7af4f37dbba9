/**
 * read_result output as TOON (issue 18): a query's tabular answer, and head/tail/slice and grep of a tabular
 * JSON result read on its TOON view (one row a line) rather than on its JSON lines, so that a line number
 * grep gives is the line slice shows. The spilled original stays JSON, and read and query run on it.
 *
 * Making a TOON (encode, decode, compare) runs on the hub's main thread at ~0.1 s a megabyte: 11 MB held
 * every other call for 2 s (audit s11). So it is tried only up to TOON_VIEW_MAX_CHARS and stopped at
 * TOON_DEADLINE_MS; past either, the JSON is shown with a note.
 */
import type { ResultEncoding } from '../../../shared/policy.js';
import { encodeValue, encodingNote, isTabular, jsonStringEnd, mayBeTabularJson, toToon } from '../encoding/toon-encoding.js';
import { DeadlineExceeded, runWithin } from '../text/deadline.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { jsonKey } from './json-summary.js';
import { SpillDocument } from './spill-document.js';

/** JSON texts up to this size get a TOON view for their lines (~0.2-0.4 s of work here); larger ones do not. */
export const TOON_VIEW_MAX_CHARS = 2_000_000;
/** How long making one TOON view or answer may hold the main thread before the JSON is shown instead. */
export const TOON_DEADLINE_MS = 500;

export interface ToonLimits {
  maxChars: number;
  deadlineMs: number;
}
const LIMITS: ToonLimits = { maxChars: TOON_VIEW_MAX_CHARS, deadlineMs: TOON_DEADLINE_MS };

/**
 * The view a tabular JSON result's lines are read on, made once per document and encoding (undefined: the
 * JSON, with no note). The store keeps a read document cached, so a view, or the finding that it took too
 * long, is not made again on each read; a text too large for its cache is never tried (its size says so).
 */
const views = new WeakMap<SpillDocument, Map<ResultEncoding, Promise<LinesView | undefined>>>();

export interface LinesView {
  /** The TOON view, or the document itself when its TOON was too large or too slow to make. */
  doc: SpillDocument;
  /** One line for the model saying what it reads and which ops number its lines: "[Lines of the result as TOON: …]". */
  header: string;
}

/** How a JSON result's lines are shown: its TOON view when it is tabular and the encoding allows it (in 'auto', where it pays). */
export function linesView(
  doc: SpillDocument,
  encoding: ResultEncoding,
  counter: TokenCounter,
  limits: ToonLimits = LIMITS,
): Promise<LinesView | undefined> {
  if (encoding === 'json') return Promise.resolve(undefined);
  let byEncoding = views.get(doc);
  if (!byEncoding) views.set(doc, (byEncoding = new Map()));
  let view = byEncoding.get(encoding);
  if (!view) {
    const made = makeView(doc, encoding, counter, limits);
    // A failed choice (its counts could not be had) is not kept: the next read tries again.
    made.catch(() => {
      if (byEncoding.get(encoding) === made) byEncoding.delete(encoding);
    });
    byEncoding.set(encoding, (view = made));
  }
  return view;
}

async function makeView(doc: SpillDocument, encoding: ResultEncoding, counter: TokenCounter, limits: ToonLimits): Promise<LinesView | undefined> {
  if (!mayBeTabularJson(doc.text)) return undefined;
  // Decided by size alone, before parsing: such a text would only be parsed to be given up on.
  if (doc.text.length > limits.maxChars) return { doc, header: tooLarge(doc.text) };
  // A TOON would write a 64-bit id rounded (encodeValue gives the JSON back): the JSON lines are read, unparsed.
  if (!doc.numbersExact) return undefined;
  const json = doc.json;
  if (!json || !isTabular(json.value)) return undefined;
  try {
    const encoded = await encodeValue(json.value, encoding, counter, doc.text, toonWithin(limits.deadlineMs));
    if (encoded.encoding !== 'toon') return undefined;
    const view = {
      doc: new SpillDocument(encoded.text),
      header: `[Lines of the result as TOON: ${encodingNote(encoded)!}; head, tail, slice and grep number these lines (one row a line), read and query use its JSON, "view":"json" reads its JSON lines]`,
    };
    // An op given this view by its header (toonViewOf) reads it, not another made again.
    if (!remade.has(doc)) remade.set(doc, view);
    return view;
  } catch (error) {
    if (error instanceof DeadlineExceeded) return { doc, header: tooLarge(doc.text) };
    throw error;
  }
}

/**
 * The view of a JSON text longer than TOON_VIEW_MAX_CHARS, which its size alone decides (no TOON is tried,
 * so no token counter is needed): the read thread's (read-thread.ts) for an op sent without a counter to
 * ask. A shorter text may have a TOON view only linesView can choose: then its JSON lines are read.
 */
export function largeLinesView(doc: SpillDocument, encoding: ResultEncoding): LinesView | undefined {
  if (doc.text.length <= TOON_VIEW_MAX_CHARS) return undefined;
  if (encoding === 'json' || !mayBeTabularJson(doc.text)) return undefined;
  return { doc, header: tooLarge(doc.text) };
}

/** The TOON view of each document, made by linesView or made again by toonViewOf, kept with the document like linesView's. */
const remade = new WeakMap<SpillDocument, LinesView>();

/**
 * The TOON view linesView chose for `doc` on one thread, given by its header on the other (read-result.ts
 * keeps which view each result's lines were read on): the one made here if linesView made it, else made
 * again. TOON encoding is deterministic, so its lines are the ones the other thread read. Should the TOON
 * not come out (it did there), its JSON lines, saying so.
 */
export function toonViewOf(doc: SpillDocument, header: string): LinesView {
  let view = remade.get(doc);
  if (!view) {
    const json = doc.json;
    const toon = json ? toToon(json.value) : undefined;
    view = toon === undefined ? { doc, header: tooLarge(doc.text) } : { doc: new SpillDocument(toon), header };
    remade.set(doc, view);
  }
  return view;
}

/** The header of a table read on its JSON lines because it is too large for a TOON view, with a query that reads a few rows as TOON. */
function tooLarge(text: string): string {
  const key = tableKey(text);
  const rows = key === undefined ? 'limit(100)' : `.${jsonKey(key)} | limit(100)`;
  return `[Lines of the result as JSON: it is too large to turn into TOON (one row a line) quickly. To read rows as a table, query a few of them, e.g. \`${rows}\`]`;
}

/** Characters of a large text looked through for the key of its table (tableKey). */
const TABLE_KEY_SCAN_CHARS = 1_000_000;

/**
 * The key of the first top-level value of a JSON object text that starts an array of objects (`"rows": [{`),
 * from its text alone (the text is too large to parse here); undefined for a top-level array, or when none
 * is found in its first TABLE_KEY_SCAN_CHARS characters.
 */
function tableKey(text: string): string | undefined {
  const end = Math.min(text.length, TABLE_KEY_SCAN_CHARS);
  let depth = 0;
  for (let i = 0; i < end; i++) {
    const c = text[i];
    if (c === '"') {
      const close = jsonStringEnd(text, i);
      if (depth === 1 && /^\s*:\s*\[\s*\{/.test(text.slice(close, close + 64))) {
        try {
          return JSON.parse(text.slice(i, close)) as string;
        } catch {
          return undefined;
        }
      }
      i = close - 1;
    } else if (c === '[' || c === '{') {
      if (depth === 0 && c === '[') return undefined;
      depth++;
    } else if (c === ']' || c === '}') depth--;
  }
  return undefined;
}

/** A query's answer, given with its pretty JSON: TOON with its note when it is tabular and pays, else that JSON. */
export async function queryAnswer(
  value: unknown,
  pretty: string,
  encoding: ResultEncoding,
  counter: TokenCounter,
  deadlineMs: number = TOON_DEADLINE_MS,
): Promise<string> {
  if (encoding === 'json' || !isTabular(value)) return pretty;
  try {
    const encoded = await encodeValue(value, encoding, counter, pretty, toonWithin(deadlineMs));
    return encoded.encoding === 'toon' ? `${encoded.text}\n[${encodingNote(encoded)!}]` : pretty;
  } catch (error) {
    if (error instanceof DeadlineExceeded) return `${pretty}\n[shown as JSON: too large to turn into TOON quickly]`;
    throw error;
  }
}

/** `toToon` cut off after `ms` (DeadlineExceeded): encode, decode and compare run on the main thread. */
function toonWithin(ms: number): (value: unknown) => string | undefined {
  return (value) => runWithin(ms, () => toToon(value));
}
