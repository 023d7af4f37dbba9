/**
 * Long lines as head, tail, slice and grep show them. A text on one long line is common (minified JSON, as
 * most APIs send it): grep said "1 matching line of 1" and showed the text around its first match only,
 * hiding the others, and tail showed the start of its last line, not where the text ends (audit s21). So
 * grep shows each match of a long line with the offset a read starts there from, and tail a line's end.
 */
import type { LinearRegex } from '../text/linear-regex.js';
import { charBoundary } from '../tokens/text-cuts.js';
import { formatCount } from './json-summary.js';
import type { SpillDocument } from './spill-document.js';

/** Lines longer than this are clipped by head, tail and slice. */
export const MAX_LINE_CHARS = 2_000;
/** grep shows a matching line longer than this by its matches, each with the text around it. */
export const GREP_LINE_CHARS = 500;
/**
 * The text shown around each match of a long line: a record's fields before and after it (shorter than
 * GREP_LINE_CHARS, so that 50 of them stay within the output cap).
 */
const MATCH_CHARS = 300;
/**
 * How far past its first match grep looks for a long line's other matches, across all the long lines
 * of one grep. Finding where matches are takes the linear engine ~0.12 s a million characters
 * (case-insensitive): scanning a 50 MB line to the end to count matches near its start took the whole
 * deadline (review s21). Past this, the matches found are shown and the count says "at least".
 */
export const COUNTED_SCAN_CHARS = 1_000_000;
/** The most matches counted in one line: `x*` matches at every character (~2 µs each). */
const MAX_COUNTED_MATCHES = 10_000;

/**
 * A line longer than MAX_LINE_CHARS, cut, with the read that gives all of it: `offset` is where it starts
 * in the text (-1: a TOON view's row, which is in no text read reads). `fromEnd` (tail): its end is shown.
 */
export function clipLine(line: string, offset: number, fromEnd = false): string {
  const whole = offset < 0 ? 'query its row for all of it' : `read all of it from its start with {"op":"read","offset":${offset}}`;
  if (!fromEnd) return `${line.slice(0, charBoundary(line, MAX_LINE_CHARS))}… [line clipped: ${formatCount(line.length)} characters; ${whole}]`;
  // The note first, so that the answer ends where the line (and for the last line, the text) ends.
  const from = charBoundary(line, line.length - MAX_LINE_CHARS);
  return `[line clipped: ${formatCount(line.length)} characters, its last ${formatCount(MAX_LINE_CHARS)} shown; ${whole}] …${line.slice(from)}`;
}

/** Where line `index` (0-based) starts in the text: the lengths of the lines before it and their line breaks. */
export function lineOffset(doc: SpillDocument, index: number): number {
  const lines = doc.lines;
  let offset = 0;
  for (let i = 0; i < index; i++) offset = nextLineOffset(doc.text, offset, lines[i]!.length);
  return offset;
}

/** Where the line after the one at `offset` (of `length` characters) starts: past its `\n` or `\r\n`. */
export function nextLineOffset(text: string, offset: number, length: number): number {
  const end = offset + length;
  return end + (text.charCodeAt(end) === 13 ? 2 : 1);
}

/**
 * Where each line starts in the document's text, asked in increasing order (grep's matches): each answer
 * goes on from the last, so a grep's offsets cost one walk over its lines.
 */
export function lineOffsets(doc: SpillDocument): (index: number) => number {
  let at = 0;
  let offset = 0;
  return (index) => {
    if (index < at) [at, offset] = [0, 0];
    for (; at < index; at++) offset = nextLineOffset(doc.text, offset, doc.lines[at]!.length);
    return offset;
  };
}

/** A long line shown around its first match (a context line: around its start). */
export function clipAround(line: string, regex: LinearRegex): string {
  if (line.length <= GREP_LINE_CHARS) return line;
  return around(line, Math.max(0, regex.search(line)), GREP_LINE_CHARS);
}

/** `size` characters of `line` from a little before `at`, both ends on character boundaries (half an emoji is not text). */
function around(line: string, at: number, size: number): string {
  const from = charBoundary(line, Math.max(0, at - size / 2));
  const to = charBoundary(line, Math.min(line.length, from + size));
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

/** A long matching line as grep shows it: how many matches it holds, and the first `budget` of them. */
export interface LongLineMatches {
  /** The matches counted. */
  count: number;
  /** Whether the count stopped before the line's end (more may follow): see COUNTED_SCAN_CHARS. */
  atLeast: boolean;
  /** Where the matches shown start in the line. */
  shown: number[];
  /** Where in the line looking for matches stopped, when before its end (COUNTED_SCAN_CHARS). */
  lookedTo?: number;
}

/** What is left of a grep's COUNTED_SCAN_CHARS, shared by its long lines. */
export interface ScanAllowance {
  chars: number;
}

export function scanAllowance(): ScanAllowance {
  return { chars: COUNTED_SCAN_CHARS };
}

/**
 * The matches of a line longer than GREP_LINE_CHARS (none: count 0), the first `budget` kept to show.
 * A line with no match costs one test(), as any line does. In a matching one, matches are looked for from
 * the first on, no further than what is left of `allowance` (which this uses up); matches past it are not
 * counted (the count says "at least"), nor past MAX_COUNTED_MATCHES.
 */
export function longLineMatches(line: string, regex: LinearRegex, budget: number, allowance: ScanAllowance): LongLineMatches {
  // test() says "no match" in a third of the time it takes to find where matches are.
  if (budget <= 0 || !regex.test(line)) return { count: 0, atLeast: false, shown: [] };
  const first = Math.max(0, regex.search(line));
  const shown = [first];
  let count = 1;
  // The window starts at the first match, so that the prefix is not scanned a third time; it always holds
  // a match's worth of text past it (even with no allowance left), so the first match is found there too.
  const end = Math.min(line.length, first + Math.max(allowance.chars, GREP_LINE_CHARS));
  const cut = end < line.length;
  allowance.chars = Math.max(0, allowance.chars - (end - first));
  for (const m of regex.matchAll(line.slice(first, end))) {
    const at = m.index ?? 0;
    if (at === 0) continue; // the first match, found above
    // A match reaching a cut end may be the cut's doing (`$`, `\b`, a longer match cut short): not counted.
    if (cut && at + m[0].length >= end - first) return { count, atLeast: true, shown, lookedTo: first + at };
    if (shown.length < budget) shown.push(first + at);
    count++;
    if (count >= MAX_COUNTED_MATCHES) return { count, atLeast: true, shown };
  }
  return cut ? { count, atLeast: true, shown, lookedTo: end } : { count, atLeast: false, shown };
}

/**
 * grep's lines for one long matching line (number `lineNumber`): a note saying how many matches it holds,
 * then each shown with the text around it and its offset in the text, which `read` starts from. `offset`
 * is where the line starts in the text; undefined when its lines are no text's (a TOON view's rows), then
 * each match says where it is in the line.
 */
export function longLineText(line: string, lineNumber: number, matches: LongLineMatches, offset: number | undefined): string[] {
  const { count, atLeast, shown, lookedTo } = matches;
  const held = `${atLeast ? 'at least ' : ''}${formatCount(count)} ${count === 1 ? 'match' : 'matches'}`;
  const each = `${count === 1 ? '' : 'each '}shown below`;
  // Matches past where looking stopped are found by a grep of the rest (a read from there gives its text).
  const rest = lookedTo === undefined ? '' : ` (grep looked no further than character ${formatCount(lookedTo)} of the line)`;
  const some =
    shown.length < count || (atLeast && lookedTo === undefined)
      ? `, the first ${formatCount(shown.length)} shown below (raise maxMatches for more)${rest}, each`
      : `, ${each}${rest}`;
  const how =
    offset === undefined
      ? 'with the character it starts at in the line'
      : 'with the offset it starts at: read from there with {"op":"read","offset":<offset>}';
  const note = `${lineNumber}:[line ${lineNumber} is ${formatCount(line.length)} characters long and holds ${held}${some} ${how}]`;
  const place = (at: number): string => (offset === undefined ? `character ${at}` : `offset ${offset + at}`);
  return [note, ...shown.map((at) => `${lineNumber}:[${place(at)}] ${around(line, at, MATCH_CHARS)}`)];
}
