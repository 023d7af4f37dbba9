import { compile as compileQuery, jsonquery } from '@jsonquerylang/jsonquery';
import type { JSONQuery } from '@jsonquerylang/jsonquery';
import { DeadlineExceeded, runWithin } from '../text/deadline.js';
import { charBoundary } from '../tokens/text-cuts.js';
import { compileRegex, parseFlags, RegexSyntaxError } from '../text/linear-regex.js';
import type { LinearRegex } from '../text/linear-regex.js';
import { EXACT_NUMBER_FUNCTIONS, exactNumberLiterals } from './exact-json.js';
import { formatCount } from './json-summary.js';
import {
  clipAround,
  clipLine,
  GREP_LINE_CHARS,
  lineOffset,
  lineOffsets,
  longLineMatches,
  scanAllowance,
  longLineText,
  MAX_LINE_CHARS,
  nextLineOffset,
} from './read-long-lines.js';
import type { LongLineMatches } from './read-long-lines.js';
import { prettyJsonWithin, type PrettyJson } from './read-pretty-json.js';
import type { SpillDocument } from './spill-document.js';

/** A read request the model can fix (bad regex, bad query, line out of range). */
export class ReadOpError extends Error {
  override readonly name = 'ReadOpError';
}

/**
 * How much of the model's own pattern or query an answer repeats: enough to recognise it. All of it made a
 * 200,000-character bad query come back as 400,000 characters, far past the output cap (audit s13).
 */
const ECHO_CHARS = 200;
/** How much of a library's error message an answer repeats (JSON Query's can name a part of the query). */
const REASON_CHARS = 300;

/** The start of `text`, cut at `max` characters (never inside one) with an ellipsis. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, charBoundary(text, max))}…`;
}

/** The model's pattern or query as an answer repeats it: a JSON string of its start. */
function echo(text: string): string {
  return JSON.stringify(clip(text, ECHO_CHARS));
}

/**
 * How long one grep or query may run before it is cut off (on the read thread: read-result.ts). Patterns
 * run in linear time, and a grep over 10 MB takes ~0.05 s; only a pattern whose automaton is huge gets near this.
 */
export const READ_DEADLINE_MS = 2_000;

/** Where lines are read from. */
export interface LineSource {
  /**
   * The lines are a TOON view's rows (read-encoding.ts), not the text `read` reads: a clipped one is read
   * whole by a query, since an offset in the view is no offset in the text.
   */
  view?: boolean;
}

/** Lines of a text as head, tail and slice read them: from line `start` (1-based) of `total`. */
export interface LineRange {
  start: number;
  total: number;
  lines: string[];
}

/**
 * Lines `start`..`end` (1-based, inclusive), each longer than MAX_LINE_CHARS cut (saying how to read all of
 * it): to its end for tail (`fromEnd`), where the text ends, else to its start.
 */
export function lineRange(doc: SpillDocument, start: number, end: number, source: LineSource = {}, fromEnd = false): LineRange {
  const total = doc.lines.length;
  if (total === 0) return { start: 1, total, lines: [] };
  if (start > total) throw new ReadOpError(`Line ${formatCount(start)} is past the end: the result has ${formatCount(total)} lines.`);
  if (end < start) throw new ReadOpError(`end (${end}) is before start (${start}).`);
  const last = Math.min(end, total);
  const body = doc.lines.slice(start - 1, last);
  if (body.some((line) => line.length > MAX_LINE_CHARS)) {
    let offset = source.view ? -1 : lineOffset(doc, start - 1);
    for (let i = 0; i < body.length; i++) {
      const line = body[i]!;
      if (line.length > MAX_LINE_CHARS) body[i] = clipLine(line, offset, fromEnd);
      if (offset >= 0) offset = nextLineOffset(doc.text, offset, line.length);
    }
  }
  return { start, total, lines: body };
}

export function headRange(doc: SpillDocument, count: number, source: LineSource = {}): LineRange {
  return lineRange(doc, 1, Math.max(1, count), source);
}

export function tailRange(doc: SpillDocument, count: number, source: LineSource = {}): LineRange {
  const total = doc.lines.length;
  return lineRange(doc, Math.max(1, total - count + 1), Math.max(1, total), source, true);
}

/** The lines with a header saying where they sit: "Lines a-b of n:". */
export function linesText(range: LineRange): string {
  if (range.total === 0) return 'The text of this result is empty (0 lines).';
  const last = range.start + range.lines.length - 1;
  return `Lines ${formatCount(range.start)}-${formatCount(last)} of ${formatCount(range.total)}:\n${range.lines.join('\n')}`;
}

/** Lines `start`..`end` (1-based, inclusive), with a header saying where they sit. */
export function sliceLines(doc: SpillDocument, start: number, end: number, source: LineSource = {}): string {
  return linesText(lineRange(doc, start, end, source));
}

export function headLines(doc: SpillDocument, count: number, source: LineSource = {}): string {
  return linesText(headRange(doc, count, source));
}

export function tailLines(doc: SpillDocument, count: number, source: LineSource = {}): string {
  return linesText(tailRange(doc, count, source));
}

export interface GrepOptions {
  pattern: string;
  caseSensitive?: boolean;
  context?: number;
  maxMatches?: number;
  /** Cut-off for the scan (default READ_DEADLINE_MS). */
  deadlineMs?: number;
}

/**
 * Matching lines of the text with their numbers (`12:` a match, `11-` context, `--` between groups), grep
 * style; a long one by each of its matches, with the offset a read starts there from (read-long-lines.ts).
 */
export function grepLines(doc: SpillDocument, options: GrepOptions): string {
  return grepMatches(doc, options, {}).text;
}

/**
 * grepLines' answer and how many lines matched. `source`: whether the lines are a text's, whose offsets
 * `read` reads from, or a TOON view's rows; not given, a long line's matches are placed in the line alone.
 */
export function grepMatches(doc: SpillDocument, options: GrepOptions, source?: LineSource): { text: string; total: number } {
  const lines = doc.lines; // split before the clock starts: that costs the same for every pattern
  const deadline = options.deadlineMs ?? READ_DEADLINE_MS;
  const offsetOf = source === undefined || source.view ? undefined : lineOffsets(doc);
  try {
    return runWithin(deadline, () => grepScan(lines, compileRegex(options.pattern, { ignoreCase: !options.caseSensitive }), options, offsetOf));
  } catch (error) {
    if (error instanceof RegexSyntaxError) throw new ReadOpError(`Bad regular expression ${echo(options.pattern)}: ${reason(error)}.`);
    if (!(error instanceof DeadlineExceeded)) throw error;
    throw new ReadOpError(
      `grep ${echo(options.pattern)} was stopped after ${seconds(deadline)} without finishing (${formatCount(lines.length)} lines, ` +
        `${formatCount(doc.text.length)} characters): use a simpler or more specific pattern (plain words and character classes run fastest), or read a slice.`,
    );
  }
}

/** `offsetOf`: where a line starts in the text (undefined: the lines are in no text `read` reads). */
function grepScan(
  lines: readonly string[],
  regex: LinearRegex,
  options: GrepOptions,
  offsetOf: ((index: number) => number) | undefined,
): { text: string; total: number } {
  const context = options.context ?? 0;
  const maxMatches = options.maxMatches ?? 50;
  const matches: number[] = [];
  // A long line shows each of its matches, which count against maxMatches as a short matching line does.
  const long = new Map<number, LongLineMatches>();
  let budget = maxMatches;
  let total = 0;
  const allowance = scanAllowance();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (budget > 0 && line.length > GREP_LINE_CHARS) {
      // Its matches are found here, from its first on, no further than the grep's allowance for counting.
      const found = longLineMatches(line, regex, budget, allowance);
      if (found.count === 0) continue;
      total++;
      matches.push(i);
      long.set(i, found);
      budget -= found.shown.length;
    } else if (regex.test(line)) {
      total++;
      if (budget === 0) continue;
      matches.push(i);
      budget--;
    }
  }
  const flags = options.caseSensitive ? '' : 'i';
  const head = `grep /${clip(options.pattern, ECHO_CHARS)}/${flags}: ${formatCount(total)} matching ${total === 1 ? 'line' : 'lines'} of ${formatCount(lines.length)}`;
  if (total === 0) return { text: `${head}.`, total };
  const out: string[] = [
    total > matches.length
      ? `${head}, showing the first ${formatCount(matches.length)} (raise maxMatches or narrow the pattern for more).`
      : `${head}:`,
  ];
  const matched = new Set(matches);
  let printedUpTo = -1;
  for (const index of matches) {
    const from = Math.max(0, index - context, printedUpTo + 1);
    const to = Math.min(lines.length - 1, index + context);
    if (printedUpTo >= 0 && from > printedUpTo + 1 && context > 0) out.push('--');
    for (let i = from; i <= to; i++) {
      const found = long.get(i);
      if (found !== undefined && found.shown.length > 0) out.push(...longLineText(lines[i]!, i + 1, found, offsetOf?.(i)));
      // A match past maxMatches shows as context: the header said only the first ones are shown.
      else out.push(`${i + 1}${matched.has(i) ? ':' : '-'}${clipAround(lines[i]!, regex)}`);
    }
    printedUpTo = Math.max(printedUpTo, to);
  }
  return { text: out.join('\n'), total };
}

export interface QueryOptions {
  /** Cut-off for running the query and writing its answer (default READ_DEADLINE_MS). */
  deadlineMs?: number;
  /** Where writing the answer's JSON stops (default ANSWER_MAX_CHARS). */
  maxChars?: number;
}

/**
 * A whole non-null answer: its value and pretty JSON, for the caller to show (read-encoding.ts may show it
 * as TOON) under `queryHeader`. Plain data, so the read thread can hand it over (read-thread.ts).
 */
export interface WholeAnswer {
  value: unknown;
  pretty: string;
}

/** Said when a query fails on a number a double cannot hold (arithmetic on a 64-bit id). */
const EXACT_NUMBER_NOTE =
  'Some numbers in this result are too long for a double (e.g. 64-bit ids): queries compare them exactly, but sum, average and arithmetic cannot use them';

/** The line a query's answer starts with. */
export function queryHeader(query: string): string {
  return `Query ${echo(query)}:`;
}

/** How much of a query's answer is written by default: a few times what an 8,000-token read shows. */
export const ANSWER_MAX_CHARS = 128_000;

/**
 * Runs a JSON Query (or a simple `$.a.b[0]` path) on the document's JSON and writes its answer within the
 * same deadline, up to `maxChars`: a larger answer is shown by its start, under a note to narrow the query.
 * A whole non-null answer comes back as a WholeAnswer for the caller to show.
 */
export function queryJson(doc: SpillDocument, query: string, options: QueryOptions = {}): string | WholeAnswer {
  const json = doc.json; // parsed before the clock starts
  if (!json) throw new ReadOpError('This result is not JSON, so it cannot be queried; use grep, slice or read instead.');
  const deadlineMs = options.deadlineMs ?? READ_DEADLINE_MS;
  const maxChars = options.maxChars ?? ANSWER_MAX_CHARS;
  // A value with numbers a double cannot hold is queried on them as written (exact-json.ts), literals too.
  const exact = !doc.numbersExact;
  const parsed = toJsonQuery(query);
  const functions = exact ? { ...LINEAR_REGEX_FUNCTIONS, ...EXACT_NUMBER_FUNCTIONS } : LINEAR_REGEX_FUNCTIONS;
  let answer: { value: unknown; pretty: PrettyJson | undefined };
  try {
    answer = runWithin(deadlineMs, () => {
      const value: unknown = jsonquery(json.value, exact && typeof parsed === 'string' ? exactNumberLiterals(parsed) : parsed, { functions });
      // Written here, on the deadline's clock: a small value can have an enormous text (read-pretty-json.ts).
      return { value, pretty: value === undefined || value === null ? undefined : prettyJsonWithin(value, maxChars) };
    });
  } catch (error) {
    if (error instanceof DeadlineExceeded) {
      throw new ReadOpError(
        `Query ${echo(query)} was stopped after ${seconds(deadlineMs)} without finishing: filter earlier, use simpler regular expressions, or query a part (e.g. .items | limit(1000)).`,
      );
    }
    if (error instanceof RegexSyntaxError) throw new ReadOpError(`Bad regular expression in query ${echo(query)}: ${reason(error)}.`);
    throw new ReadOpError(
      `Bad query ${echo(query)}: ${reason(error)}. ` +
        (exact && /BigInt|safely convert/.test(String((error as Error)?.message)) ? `${EXACT_NUMBER_NOTE}. ` : '') +
        'Use JSON Query syntax (e.g. `.items | filter(.age > 30) | pick(.name)`, `.items.0.name`) or a path like `$.items[0].name`.',
    );
  }
  const header = queryHeader(query);
  // JSON Query yields null for a missing path, so null cannot be told apart from "nothing there".
  if (!answer.pretty) return `${header}\nnull\n[null: the value is null, or nothing matched]`;
  if (!answer.pretty.complete) {
    // The note goes first: the output cap may cut the end off.
    return (
      `${header}\n[The answer is too large to show whole (over ${formatCount(maxChars)} characters of JSON); only its start is shown. ` +
      'Narrow the query: add limit(n), pick only the fields you need (e.g. pick(.id, .name)), or filter first.]\n' +
      `${answer.pretty.text}…`
    );
  }
  // Its numbers as written are in its JSON alone: a TOON of it would write them as JSON.parse does.
  if (answer.pretty.losslessNumbers) return `${header}\n${answer.pretty.text}`;
  return { value: answer.value, pretty: answer.pretty.text };
}

/**
 * JSON Query's `regex`, `match` and `matchAll` on the linear-time engine, same arguments and results:
 * its built-in ones make a `new RegExp` of the query's pattern, which `(a+)+$` keeps busy for minutes.
 */
const LINEAR_REGEX_FUNCTIONS: Record<string, (...args: JSONQuery[]) => (data: unknown) => unknown> = {
  regex: (value, pattern, flags) => {
    const regex = queryRegex('regex', pattern, flags);
    const get = compileQuery(value);
    return (data) => regex.test(String(get(data)));
  },
  match: (value, pattern, flags) => {
    const regex = queryRegex('match', pattern, flags);
    const global = typeof flags === 'string' && flags.includes('g');
    const get = compileQuery(value);
    return (data) => {
      const text = textArgument('match', get(data));
      if (global) {
        // String.match with `g`: every match's text, which JSON Query shapes like one match's groups.
        const all = Array.from(regex.matchAll(text), (m) => m[0]);
        return all.length > 0 ? matchValue(all) : null;
      }
      const m = regex.exec(text);
      return m ? matchValue(m) : null;
    };
  },
  matchAll: (value, pattern, flags) => {
    const regex = queryRegex('matchAll', pattern, flags);
    const get = compileQuery(value);
    return (data) => Array.from(regex.matchAll(textArgument('matchAll', get(data))), matchValue);
  },
};

function queryRegex(fn: string, pattern: JSONQuery | undefined, flags: JSONQuery | undefined): LinearRegex {
  if (typeof pattern !== 'string') throw new TypeError(`${fn}() needs its pattern as a string, e.g. ${fn}(.name, "^a", "i")`);
  if (flags !== undefined && typeof flags !== 'string') throw new TypeError(`${fn}() needs its flags as a string, e.g. "i"`);
  return compileRegex(pattern, parseFlags(flags ?? '', 'gimsudv'));
}

function textArgument(fn: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${fn}() needs a string, got ${value === null ? 'null' : typeof value}`);
  return value;
}

/** A match as JSON Query returns it: `{value}`, with `groups` and `namedGroups` when the pattern has them. */
function matchValue(m: ArrayLike<string | undefined> & { groups?: Record<string, string | undefined> }): object {
  const [value, ...groups] = Array.from(m);
  if (groups.length === 0) return { value };
  return m.groups ? { value, groups, namedGroups: m.groups } : { value, groups };
}

function reason(error: unknown): string {
  return clip(String((error as Error)?.message ?? error), REASON_CHARS);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * A JSONPath-like path (`$`, `$.a.b`, `$['a b'][0]`, `.a[0]`) as a JSON Query `get`; anything else is
 * passed on as JSON Query text.
 */
export function toJsonQuery(query: string): string | JSONQuery {
  const trimmed = query.trim();
  if (!trimmed.startsWith('$') && !/^\.[^|(]*\[/.test(trimmed)) return trimmed;
  const props: Array<string | number> = [];
  const part = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let at = trimmed.startsWith('$') ? 1 : 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const m = part.exec(trimmed);
    if (!m) return trimmed; // not a simple path: let JSON Query parse it (and report its error)
    if (m[1] !== undefined) props.push(m[1]);
    else if (m[2] !== undefined) props.push(Number(m[2]));
    else props.push((m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1'));
    at = part.lastIndex;
  }
  return ['get', ...props];
}

/**
 * The text from `offset` (the caller cuts its chunk), and the offset it really starts at: one inside a
 * surrogate pair (an emoji's two halves) moves back to the start of that character.
 */
export function readFrom(doc: SpillDocument, offset: number): { offset: number; text: string } {
  if (offset > doc.text.length) {
    throw new ReadOpError(`offset ${formatCount(offset)} is past the end: the text has ${formatCount(doc.text.length)} characters.`);
  }
  const start = charBoundary(doc.text, offset);
  return { offset: start, text: doc.text.slice(start) };
}
