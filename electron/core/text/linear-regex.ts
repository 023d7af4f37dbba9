/**
 * Regular expressions that models and users send (read_result grep, JSON Query's regex functions,
 * custom PII patterns) run on re2js, a port of RE2: matching time grows linearly with the text, so no
 * pattern can backtrack for seconds the way `(a|aa)+$` does on V8's engine (issue 13, item 10).
 *
 * Patterns are written as in JavaScript and translated where the two syntaxes differ (`\uFFFF`,
 * `\u{1F600}`, `\cA`, `[^]`); what RE2 cannot do in linear time (lookahead, backreferences) is refused
 * with a message that says what to write instead. Captureless lookbehinds are linear in re2js and kept.
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/** A pattern the engine refuses, with a reason a model or a user can act on. */
export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
}

export interface RegexFlags {
  /** JavaScript's `i`. */
  ignoreCase?: boolean;
  /** JavaScript's `m`: `^` and `$` also at line breaks. */
  multiline?: boolean;
  /** JavaScript's `s`: `.` also matches a line break. */
  dotAll?: boolean;
}

const LOOKAHEAD =
  'lookahead (?=…) and (?!…) is not supported: patterns run on a linear-time engine (RE2 syntax). ' +
  'Match the text itself instead (e.g. grep for the word and read the lines), or use a lookbehind (?<=…) / (?<!…), which works';
const BACKREFERENCE =
  'backreferences (\\1, \\k<name>) are not supported: patterns run on a linear-time engine (RE2 syntax). ' +
  'Spell out the repeated text, or match it with a class such as \\w+';

/** A compiled pattern; stateless (no `lastIndex`), so one object serves every call. */
export class LinearRegex {
  readonly source: string;
  readonly flags: RegexFlags;
  readonly #re: RE2JS;

  constructor(source: string, flags: RegexFlags, re: RE2JS) {
    this.source = source;
    this.flags = flags;
    this.#re = re;
  }

  /** Whether the pattern matches anywhere in `text` (the fastest question: no positions). */
  test(text: string): boolean {
    return this.#re.test(text);
  }

  /** Where the first match starts, or -1. */
  search(text: string): number {
    const m = this.#re.matcher(text);
    return m.find() ? m.start() : -1;
  }

  /** The first match as `RegExp.exec` shapes it (index, groups), or null. */
  exec(text: string): RegExpMatchArray | null {
    return this.#re.exec(text) as RegExpMatchArray | null;
  }

  /** Every match as `String.matchAll` with the `g` flag yields them. */
  matchAll(text: string): IterableIterator<RegExpMatchArray> {
    return this.#re.matchAll(text);
  }
}

/**
 * Compiles a JavaScript-style pattern on the linear-time engine. Throws RegexSyntaxError naming what
 * is wrong or unsupported.
 */
export function compileRegex(source: string, flags: RegexFlags = {}): LinearRegex {
  const translated = toRe2Syntax(source);
  let bits = RE2JS.LOOKBEHINDS;
  if (flags.ignoreCase) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.multiline) bits |= RE2JS.MULTILINE;
  if (flags.dotAll) bits |= RE2JS.DOTALL;
  try {
    return new LinearRegex(source, flags, RE2JS.compile(translated, bits));
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) throw new RegexSyntaxError(explain(error));
    if (error instanceof RE2JSException) throw new RegexSyntaxError(error.message);
    throw error;
  }
}

/**
 * JavaScript flag letters as RegexFlags. `allowed` lists the letters the caller accepts; `u` and `v`
 * change nothing (the engine always matches whole code points), `g` and `d` are the caller's business.
 */
export function parseFlags(letters: string, allowed: string): RegexFlags {
  const seen = new Set<string>();
  for (const letter of letters) {
    if (!allowed.includes(letter)) {
      const hint = letter === 'y' ? ' (anchor the pattern with ^ instead)' : '';
      throw new RegexSyntaxError(`flag "${letter}" is not supported${hint}; use any of ${[...allowed].join(', ')}`);
    }
    if (seen.has(letter)) throw new RegexSyntaxError(`flag "${letter}" is given twice`);
    seen.add(letter);
  }
  return { ignoreCase: seen.has('i'), multiline: seen.has('m'), dotAll: seen.has('s') };
}

/** The pattern in RE2's syntax; refuses lookahead and backreferences by name. */
export function toRe2Syntax(source: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const [text, length] = escape(source, i, inClass);
      out += text;
      i += length;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      // JavaScript's [^] is any character, line breaks included; [] never matches. RE2 has neither.
      if (source.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10FFFF}]';
        i += 3;
        continue;
      }
      if (source.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10FFFF}]';
        i += 2;
        continue;
      }
      inClass = true;
      // A ] first in a class is a literal in both syntaxes; step over it so it does not close the class.
      const first = source[i + 1] === '^' ? 2 : 1;
      const literal = source[i + first] === ']' ? 1 : 0;
      out += source.slice(i, i + first + literal);
      i += first + literal;
      continue;
    }
    if (c === '(' && (source.startsWith('(?=', i) || source.startsWith('(?!', i))) throw new RegexSyntaxError(LOOKAHEAD);
    out += c;
    i++;
  }
  return out;
}

/** One escape at `at` in RE2's spelling, and how many characters of the source it took. */
function escape(source: string, at: number, inClass: boolean): [string, number] {
  const next = source[at + 1];
  if (next === undefined) return ['\\', 1]; // a trailing backslash: RE2 reports it
  if (!inClass && /[1-9]/.test(next)) throw new RegexSyntaxError(BACKREFERENCE);
  if (next === 'k' && source[at + 2] === '<') throw new RegexSyntaxError(BACKREFERENCE);
  if (next === 'u') {
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(source.slice(at + 2, at + 10));
    if (braced) return [`\\x{${braced[1]}}`, 2 + braced[0].length];
    const four = /^[0-9A-Fa-f]{4}/.exec(source.slice(at + 2, at + 6));
    if (four) return [`\\x{${four[0]}}`, 6];
  }
  if (next === 'c' && /^[A-Za-z]$/.test(source[at + 2] ?? '')) {
    return [`\\x{${(source.charCodeAt(at + 2) % 32).toString(16)}}`, 3];
  }
  if (next === '0' && !/[0-9]/.test(source[at + 2] ?? '')) return ['\\x{0}', 2];
  return [`\\${next}`, 2];
}

/** RE2's parse error, with a hint where the JavaScript habit behind it is a common one. */
function explain(error: RE2JSSyntaxException): string {
  const what = error.getDescription();
  const where = error.input ? `: \`${error.input}\`` : '';
  let hint = '';
  if (what === 'invalid escape sequence') {
    hint = ' (the engine uses RE2 syntax: \\d \\w \\s \\b \\p{L} \\x{263a} work; escape only punctuation)';
  } else if (what === 'invalid repeat count') {
    hint = ' (counts go up to 1000, and nested counts multiply: {100} inside {100} is too many)';
  } else if (what === 'invalid nested repetition operator') {
    hint = ' (possessive forms such as a++ do not exist: write a+)';
  } else if (what === 'invalid named capture' || what === 'invalid or unsupported Perl syntax') {
    hint = ' (groups are (…), (?:…), (?<name>…), lookbehinds (?<=…) (?<!…), and inline flags such as (?i))';
  } else if (what === 'invalid capture in lookbehind') {
    hint = ' (use (?:…) inside a lookbehind)';
  }
  return `${what}${where}${hint}`;
}
