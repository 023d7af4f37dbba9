import { jsonquery } from '@jsonquerylang/jsonquery';
import { findNestedQuantifier } from '../pii/custom-patterns.js';
import type { JSONQuery } from '@jsonquerylang/jsonquery';
import { formatCount } from './json-summary.js';
import type { SpillDocument } from './spill-document.js';

/** A read request the model can fix (bad regex, bad query, line out of range). */
export class ReadOpError extends Error {
  override readonly name = 'ReadOpError';
}

const MAX_LINE_CHARS = 2_000;
const GREP_LINE_CHARS = 500;

/** Lines `start`..`end` (1-based, inclusive), with a header saying where they sit. */
export function sliceLines(doc: SpillDocument, start: number, end: number): string {
  const total = doc.lines.length;
  if (total === 0) return 'The text of this result is empty (0 lines).';
  if (start > total) throw new ReadOpError(`Line ${formatCount(start)} is past the end: the result has ${formatCount(total)} lines.`);
  if (end < start) throw new ReadOpError(`end (${end}) is before start (${start}).`);
  const last = Math.min(end, total);
  const body = doc.lines.slice(start - 1, last).map(clipLine);
  return `Lines ${formatCount(start)}-${formatCount(last)} of ${formatCount(total)}:\n${body.join('\n')}`;
}

export function headLines(doc: SpillDocument, count: number): string {
  return sliceLines(doc, 1, Math.max(1, count));
}

export function tailLines(doc: SpillDocument, count: number): string {
  const total = doc.lines.length;
  return sliceLines(doc, Math.max(1, total - count + 1), Math.max(1, total));
}

export interface GrepOptions {
  pattern: string;
  caseSensitive?: boolean;
  context?: number;
  maxMatches?: number;
}

/** Matching lines with their numbers (`12:` a match, `11-` context, `--` between groups), grep style. */
export function grepLines(doc: SpillDocument, options: GrepOptions): string {
  let regex: RegExp;
  try {
    regex = new RegExp(options.pattern, options.caseSensitive ? '' : 'i');
  } catch (error) {
    throw new ReadOpError(`Bad regular expression ${JSON.stringify(options.pattern)}: ${(error as Error).message}`);
  }
  // The pattern comes from the model and runs on the main thread: refuse one that can backtrack
  // exponentially (a repeated group that repeats inside, like (a+)+), which would freeze the hub.
  const nested = findNestedQuantifier(options.pattern);
  if (nested) {
    throw new ReadOpError(
      `Pattern ${JSON.stringify(options.pattern)} has a repeated group with a repeat inside (${nested}), which can take exponential time; rewrite it without nesting, e.g. match one word instead of repeated words.`,
    );
  }
  const context = options.context ?? 0;
  const maxMatches = options.maxMatches ?? 50;
  const lines = doc.lines;
  const matches: number[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    if (regex.test(lines[i]!)) {
      total++;
      if (matches.length < maxMatches) matches.push(i);
    }
  }
  const flags = options.caseSensitive ? '' : 'i';
  const head = `grep /${options.pattern}/${flags}: ${formatCount(total)} matching ${total === 1 ? 'line' : 'lines'} of ${formatCount(lines.length)}`;
  if (total === 0) return `${head}.`;
  const out: string[] = [
    total > matches.length ? `${head}, showing the first ${formatCount(matches.length)} (raise maxMatches or narrow the pattern for more).` : `${head}:`,
  ];
  const matched = new Set(matches);
  let printedUpTo = -1;
  for (const index of matches) {
    const from = Math.max(0, index - context, printedUpTo + 1);
    const to = Math.min(lines.length - 1, index + context);
    if (printedUpTo >= 0 && from > printedUpTo + 1 && context > 0) out.push('--');
    for (let i = from; i <= to; i++) {
      const isMatch = matched.has(i) || regex.test(lines[i]!);
      out.push(`${i + 1}${isMatch ? ':' : '-'}${clipAround(lines[i]!, regex)}`);
    }
    printedUpTo = Math.max(printedUpTo, to);
  }
  return out.join('\n');
}

/** Runs a JSON Query (or a simple `$.a.b[0]` path) on the document's JSON. */
export function queryJson(doc: SpillDocument, query: string): string {
  const json = doc.json;
  if (!json) throw new ReadOpError('This result is not JSON, so it cannot be queried; use grep, slice or read instead.');
  let value: unknown;
  try {
    value = jsonquery(json.value, toJsonQuery(query));
  } catch (error) {
    throw new ReadOpError(
      `Bad query ${JSON.stringify(query)}: ${(error as Error).message}. ` +
        'Use JSON Query syntax (e.g. `.items | filter(.age > 30) | pick(.name)`, `.items.0.name`) or a path like `$.items[0].name`.',
    );
  }
  // JSON Query yields null for a missing path, so null cannot be told apart from "nothing there".
  if (value === undefined || value === null) return `Query ${JSON.stringify(query)}:\nnull\n[null: the value is null, or nothing matched]`;
  return `Query ${JSON.stringify(query)}:\n${JSON.stringify(value, null, 2)}`;
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

/** Up to the chunk the caller measured: text from `offset`, and where the next read starts. */
export function readFrom(doc: SpillDocument, offset: number): string {
  if (offset > doc.text.length) {
    throw new ReadOpError(`offset ${formatCount(offset)} is past the end: the text has ${formatCount(doc.text.length)} characters.`);
  }
  return doc.text.slice(offset);
}

function clipLine(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… [line clipped: ${formatCount(line.length)} chars; use read with an offset for all of it]`;
}

/** A long matching line shown around its first match. */
function clipAround(line: string, regex: RegExp): string {
  if (line.length <= GREP_LINE_CHARS) return line;
  const at = Math.max(0, line.search(regex));
  const from = Math.max(0, at - GREP_LINE_CHARS / 2);
  const to = Math.min(line.length, from + GREP_LINE_CHARS);
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}
