import { PII_LABELS, matches } from './pii-detectors.js';
import type { Detector } from './pii-detectors.js';

/** A user's own kind of personal data: `{name: 'employee_id', pattern: 'EMP-\\d{6}'}` masks as `[EMPLOYEE_ID_1]`. */
export interface CustomPiiPattern {
  name: string;
  /** JavaScript regular expression source, without slashes. */
  pattern: string;
  /** Any of `i`, `m`, `s`, `u`; `g` is always added. */
  flags?: string;
}

/** Refusal of a custom pattern, naming it and saying why. */
export class PiiPatternError extends Error {
  constructor(
    readonly patternName: string,
    readonly reason: string,
  ) {
    super(`Custom PII pattern "${patternName}": ${reason}`);
    this.name = 'PiiPatternError';
  }
}

export type PatternCheck = { ok: true; label: string } | { ok: false; message: string };

const MAX_PATTERN_LENGTH = 1000;
const ALLOWED_FLAGS = /^[imsu]*$/;
const RESERVED_LABELS = new Set(Object.values(PII_LABELS));

/** The placeholder label of a custom pattern's name: `employee-id` → `EMPLOYEE_ID`. */
export function customLabel(name: string): string {
  return name
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * Checks a custom pattern without throwing, for settings validation: the name gives a usable label, the
 * flags are allowed, the source compiles, cannot match the empty string, and has no quantified group that
 * itself holds a repeat (`(a+)+`, `(\w+\s?)*`), the cheap sign of exponential backtracking.
 */
export function checkCustomPattern(p: CustomPiiPattern): PatternCheck {
  const label = customLabel(p.name ?? '');
  if (!/^[A-Z][A-Z0-9_]{0,31}$/.test(label)) {
    return { ok: false, message: 'the name must start with a letter and have at most 32 letters, digits or underscores' };
  }
  if (RESERVED_LABELS.has(label)) return { ok: false, message: `the name ${label} is taken by a built-in type` };
  if (typeof p.pattern !== 'string' || p.pattern.length === 0) return { ok: false, message: 'the pattern is empty' };
  if (p.pattern.length > MAX_PATTERN_LENGTH) return { ok: false, message: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  const flags = p.flags ?? '';
  if (!ALLOWED_FLAGS.test(flags)) return { ok: false, message: `flags "${flags}" are not allowed (use any of i, m, s, u)` };
  let regex: RegExp;
  try {
    regex = new RegExp(p.pattern, flags);
  } catch (error) {
    return { ok: false, message: `not a valid regular expression: ${(error as Error).message}` };
  }
  if (regex.test('')) return { ok: false, message: 'the pattern matches the empty string, so it would mask everywhere' };
  const nested = findNestedQuantifier(p.pattern);
  if (nested) {
    return {
      ok: false,
      message:
        `the repeated group ${nested} contains a repeat of its own, which can take exponential time on some ` +
        'inputs (catastrophic backtracking); rewrite it without nesting, e.g. (\\w+\\s?)+ as [\\w\\s]+',
    };
  }
  return { ok: true, label };
}

/** A detector for a custom pattern; throws PiiPatternError when `checkCustomPattern` refuses it. */
export function customDetector(p: CustomPiiPattern): { label: string; detect: Detector } {
  const check = checkCustomPattern(p);
  if (!check.ok) throw new PiiPatternError(p.name, check.message);
  const regex = new RegExp(p.pattern, `${p.flags ?? ''}g`);
  return { label: check.label, detect: (text) => matches(text, regex, check.label) };
}

interface Group {
  start: number;
  /** Whether a repeating quantifier (max > 1) occurs anywhere inside. */
  repeats: boolean;
}

/**
 * The source of the first group quantified to repeat without a small bound (`*`, `+`, `{n,}`, `{n,m}`
 * with m > 10) that holds a repeating quantifier inside, or null. Scans the source once; escapes and
 * character classes are skipped.
 */
export function findNestedQuantifier(source: string): string | null {
  const stack: Group[] = [];
  let current: Group = { start: -1, repeats: false };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '[') {
      i = skipClass(source, i);
      continue;
    }
    if (c === '(') {
      stack.push(current);
      current = { start: i, repeats: false };
      i++;
      continue;
    }
    if (c === ')') {
      const group = current;
      current = stack.pop() ?? { start: -1, repeats: false };
      const q = readQuantifier(source, i + 1);
      if (q && group.repeats && (q.max === Infinity || q.max > 10)) return source.slice(group.start, q.end);
      if (group.repeats || (q && q.max > 1)) current.repeats = true;
      i = q ? q.end : i + 1;
      continue;
    }
    const q = readQuantifier(source, i);
    if (q) {
      if (q.max > 1) current.repeats = true;
      i = q.end;
      continue;
    }
    i++;
  }
  return null;
}

/** The index just past a character class starting at `start`. */
function skipClass(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === '^') i++;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

function readQuantifier(source: string, at: number): { max: number; end: number } | null {
  const c = source[at];
  let max: number;
  let end: number;
  if (c === '*' || c === '+') {
    max = Infinity;
    end = at + 1;
  } else if (c === '?') {
    max = 1;
    end = at + 1;
  } else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24));
    if (!m) return null;
    max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    end = at + m[0].length;
  } else {
    return null;
  }
  if (source[end] === '?') end++; // lazy
  return { max, end };
}
