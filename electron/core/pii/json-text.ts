/**
 * How masking reads a JSON text (one object or array, or JSON lines; a leading byte order mark reads as
 * whitespace). Detectors run on a view of the text of the same length in which each escape (`\n`, `\t`,
 * `\u00e9`, `\"`) reads as spaces then the character it stands for: in `\nalice@example.com` they see a
 * line break then an address, not the word `nalice`. Custom patterns read the strings' quotes as line
 * breaks, so `.*` or `^…$` (flag m) stop at the end of a string (and the text as it is too, for a pattern
 * written with the quotes). A match then only replaces what lies inside strings and number tokens, never
 * a quote, comma or brace, so the masked text is still valid JSON. In the view an escape reads as spaces
 * then its character, which a pattern written for the value (`CORP\\\w+` for `CORP\tom`, `José` for
 * `Jos\u00e9`) does not match: custom patterns also read each string that holds an escape decoded, as
 * the arguments' strings are read, and a match there covers the escapes its characters came from.
 *
 * In other text a backslash may start an escape (JSON lines cut off at the end, a log that quotes JSON)
 * or be part of a Windows path (`C:\new`). The view there keeps every backslash and reads the letter of
 * `\n`, `\r`, `\t`, `\b`, `\f` (and the `u00e9` of `\u00e9`) as spaces: the escape ends a word, so
 * `\n555-234-5678` is found as a phone number and `\nbob@example.com` becomes `\n[EMAIL_1]`, not `\[EMAIL_1]`.
 */

/** A span of the text to replace with a placeholder. */
export interface MaskPiece {
  start: number;
  end: number;
  label: string;
  /** What the placeholder stands for: a JSON string's part decoded, else the text as it is. */
  value: string;
  /** A whole number token of a JSON text: replaced by the placeholder in quotes. */
  jsonNumber: boolean;
}

/**
 * A text as the detectors read it. Each part is worked out when first asked for: most texts hold no
 * backslash and no match, and then the text is never parsed as JSON.
 */
export class TextLayout {
  #json: boolean | undefined;
  #escaped: { view: string; escapes: number[] } | undefined;
  #strings: number[] | undefined;
  #lines: string | undefined;
  #decoded: Array<{ value: string; offsets: number[] }> | undefined;

  constructor(readonly text: string) {}

  /** Whether the text is one JSON object or array, or JSON lines. */
  get json(): boolean {
    return (this.#json ??= isJsonText(this.text));
  }

  /**
   * What built-in detectors read: same length as the text. In a JSON text each escape reads as spaces
   * then its character; in other text an escape's letter (and the digits of a `\u` escape) read as spaces.
   */
  get view(): string {
    return this.#escapesRead().view;
  }

  /** What custom patterns read: the view, with each JSON string's quotes read as line breaks. */
  get lineView(): string {
    return (this.#lines ??= this.json ? quotesAsLineBreaks(this.view, this.#stringSpans()) : this.view);
  }

  /**
   * Each string of a JSON text that holds an escape, decoded, with where its characters lie in the text:
   * `offsets[i]` is where the escape or character that reads as `value[i]` starts, and
   * `offsets[value.length]` is the end of the string's content. Empty for any other text.
   */
  get escapedStrings(): ReadonlyArray<{ value: string; offsets: readonly number[] }> {
    if (this.#decoded) return this.#decoded;
    if (!this.json || !this.text.includes('\\')) return (this.#decoded = []);
    const strings = this.#stringSpans();
    const decoded: Array<{ value: string; offsets: number[] }> = [];
    for (let i = 0; i < strings.length; i += 2) {
      const start = strings[i]!;
      const end = strings[i + 1]!;
      const first = this.text.indexOf('\\', start);
      if (first !== -1 && first < end) decoded.push(decodeString(this.text, start, end));
    }
    return (this.#decoded = decoded);
  }

  /**
   * The pieces to replace for matches found on the views (non-overlapping, in order). In a JSON text
   * each is moved off the middle of an escape and cut to the strings and number tokens it covers.
   */
  pieces(matches: ReadonlyArray<{ start: number; end: number; label: string }>): MaskPiece[] {
    const text = this.text;
    if (matches.length === 0 || !this.json)
      return matches.map(({ start, end, label }) => ({ start, end, label, value: text.slice(start, end), jsonNumber: false }));
    const { escapes } = this.#escapesRead();
    const strings = this.#stringSpans();
    const pieces: MaskPiece[] = [];
    for (const m of matches) {
      const start = snapToEscape(m.start, escapes);
      const end = snapToEscape(m.end, escapes);
      if (start < end) jsonPieces(text, strings, start, end, m.label, pieces);
    }
    return pieces;
  }

  #escapesRead(): { view: string; escapes: number[] } {
    if (this.#escaped) return this.#escaped;
    const text = this.text;
    if (!text.includes('\\')) return (this.#escaped = { view: text, escapes: [] });
    return (this.#escaped = this.json ? readEscapes(text) : { view: escapesAsBoundaries(text), escapes: [] });
  }

  #stringSpans(): number[] {
    return (this.#strings ??= jsonStrings(this.text));
  }
}

/** Whether a text is one JSON object or array, or JSON lines (one per line). */
export function isJsonText(text: string): boolean {
  const first = text[firstNonSpace(text)];
  if (first !== '{' && first !== '[') return false;
  // JSON.parse refuses a byte order mark; a file read as it is may start with one.
  if (parses(text.charCodeAt(0) === BOM ? text.slice(1) : text)) return true;
  // JSON lines; a log whose first line starts with "[INFO]" fails at that line.
  if (!text.includes('\n')) return false;
  let lines = 0;
  for (let at = 0; at < text.length;) {
    const next = text.indexOf('\n', at);
    const line = text.slice(at, next === -1 ? text.length : next).trim();
    at = next === -1 ? text.length : next + 1;
    if (line === '') continue;
    if ((line[0] !== '{' && line[0] !== '[') || !parses(line)) return false;
    lines++;
  }
  return lines > 1;
}

/** `value` written as the inside of a JSON string: quotes, backslashes and line breaks escaped. */
export function escapeInJsonString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

const ESCAPED: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };

/**
 * The view of a JSON text and where its escapes are: `[start0, end0, start1, end1, …]`. In valid JSON
 * every backslash starts an escape, so going from one to the next finds exactly those.
 */
function readEscapes(text: string): { view: string; escapes: number[] } {
  const escapes: number[] = [];
  let view = '';
  let at = 0;
  for (let start = text.indexOf('\\'); start !== -1; start = text.indexOf('\\', at)) {
    const letter = text[start + 1]!;
    const unicode = letter === 'u';
    const end = start + (unicode ? 6 : 2);
    view +=
      text.slice(at, start) + (unicode ? `     ${String.fromCharCode(parseInt(text.slice(start + 2, end), 16))}` : ` ${ESCAPED[letter] ?? letter}`);
    escapes.push(start, end);
    at = end;
  }
  return { view: view + text.slice(at), escapes };
}

/** The content of a JSON string, `text[start, end)`, decoded, with where each character came from. */
function decodeString(text: string, start: number, end: number): { value: string; offsets: number[] } {
  let value = '';
  const offsets: number[] = [];
  for (let at = start; at < end;) {
    offsets.push(at);
    if (text[at] !== '\\') {
      value += text[at++];
      continue;
    }
    const letter = text[at + 1]!;
    if (letter === 'u') {
      value += String.fromCharCode(parseInt(text.slice(at + 2, at + 6), 16));
      at += 6;
    } else {
      value += ESCAPED[letter] ?? letter;
      at += 2;
    }
  }
  offsets.push(end);
  return { value, offsets };
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * The view of a text that is not whole JSON: the same text, with the letter of each `\n`, `\r`, `\t`,
 * `\b`, `\f` and the `uXXXX` of each `\uXXXX` read as spaces; the backslash stays, and so does any
 * other escape (`\\`, `\"`, `\U` in `C:\Users`). The text itself when it holds none of them.
 */
function escapesAsBoundaries(text: string): string {
  let view = '';
  let at = 0;
  for (let start = text.indexOf('\\'); start !== -1 && start < text.length - 1; start = text.indexOf('\\', start + 2)) {
    const letter = text[start + 1]!;
    if (letter === '\\') continue;
    let end = -1;
    if ('nrtbf'.includes(letter)) end = start + 2;
    else if (letter === 'u' && HEX4.test(text.slice(start + 2, start + 6))) end = start + 6;
    if (end === -1) continue;
    view += text.slice(at, start + 1) + ' '.repeat(end - start - 1);
    at = end;
  }
  return at === 0 ? text : view + text.slice(at);
}

/** `view` with the quotes around each string (spans of their contents) replaced by line breaks. */
function quotesAsLineBreaks(view: string, strings: readonly number[]): string {
  let out = '';
  let at = 0;
  for (let i = 0; i < strings.length; i += 2) {
    out += `${view.slice(at, strings[i]! - 1)}\n${view.slice(strings[i]!, strings[i + 1]!)}\n`;
    at = strings[i + 1]! + 1;
  }
  return out + view.slice(at);
}

/**
 * A position moved off the middle of an escape, to its start: an escape belongs to a match when the
 * character it stands for (its last position in the view) does, and then the whole escape is replaced.
 */
function snapToEscape(at: number, escapes: readonly number[]): number {
  // The last escape starting before `at`.
  let lo = 0;
  let hi = escapes.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (escapes[mid * 2]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && at < escapes[lo * 2 - 1]! ? escapes[lo * 2 - 2]! : at;
}

/** Start and end of each string's content (inside its quotes) in a JSON text, in order: `[s0, e0, s1, e1, …]`. */
function jsonStrings(text: string): number[] {
  const spans: number[] = [];
  let open = text.indexOf('"');
  while (open !== -1) {
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && escapedAt(text, close)) close = text.indexOf('"', close + 1);
    if (close === -1) break;
    spans.push(open + 1, close);
    open = text.indexOf('"', close + 1);
  }
  return spans;
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
  return backslashes % 2 === 1;
}

/** The parts of `[start, end)` inside strings (decoded), and the number tokens it touches (whole). */
function jsonPieces(text: string, strings: readonly number[], start: number, end: number, label: string, into: MaskPiece[]): void {
  // The first string whose content ends after `start`.
  let lo = 0;
  let hi = strings.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strings[mid * 2 + 1]! <= start) lo = mid + 1;
    else hi = mid;
  }
  let at = start;
  for (let i = lo * 2; i < strings.length && strings[i]! < end; i += 2) {
    const from = Math.max(start, strings[i]!);
    const to = Math.min(end, strings[i + 1]!);
    numberPieces(text, at, Math.min(end, strings[i]!), label, into);
    if (from < to) into.push({ start: from, end: to, label, value: JSON.parse(`"${text.slice(from, to)}"`) as string, jsonNumber: false });
    at = strings[i + 1]! + 1;
  }
  numberPieces(text, at, end, label, into);
}

const NUMBER_CHAR = /[0-9eE+.-]/;

/** Each number token that `[start, end)` (outside strings) touches, whole. */
function numberPieces(text: string, start: number, end: number, label: string, into: MaskPiece[]): void {
  for (let at = start; at < end; at++) {
    const c = text.charCodeAt(at);
    if (!((c >= 48 && c <= 57) || c === 45)) continue;
    let from = at;
    while (from > 0 && NUMBER_CHAR.test(text[from - 1]!)) from--;
    let to = at + 1;
    while (to < text.length && NUMBER_CHAR.test(text[to]!)) to++;
    into.push({ start: from, end: to, label, value: text.slice(from, to), jsonNumber: true });
    at = to - 1;
  }
}

const BOM = 0xfeff;

/** Where the text starts after whitespace (and a byte order mark at its very start). */
function firstNonSpace(text: string): number {
  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
