import { compileRegex, parseFlags, RegexSyntaxError } from '../text/linear-regex.js';
import type { LinearRegex } from '../text/linear-regex.js';
import { PII_LABELS } from './pii-detectors.js';
import type { Detector, PiiMatch } from './pii-detectors.js';

/** A user's own kind of personal data: `{name: 'employee_id', pattern: 'EMP-\\d{6}'}` masks as `[EMPLOYEE_ID_1]`. */
export interface CustomPiiPattern {
  name: string;
  /**
   * Regular expression source as in JavaScript, without slashes; it runs in linear time (RE2), so
   * lookahead and backreferences are refused.
   */
  pattern: string;
  /** Any of `i`, `m`, `s`, `u` (`u` changes nothing: matching is always by code point). */
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
 * flags are allowed, and the source compiles on the linear-time engine and cannot match the empty string.
 */
export function checkCustomPattern(p: CustomPiiPattern): PatternCheck {
  const compiled = compileCustom(p);
  return 'message' in compiled ? { ok: false, message: compiled.message } : { ok: true, label: compiled.label };
}

/** A detector for a custom pattern; throws PiiPatternError when `checkCustomPattern` refuses it. */
export function customDetector(p: CustomPiiPattern): { label: string; detect: Detector } {
  const compiled = compileCustom(p);
  if ('message' in compiled) throw new PiiPatternError(p.name, compiled.message);
  const { label, regex } = compiled;
  return {
    label,
    detect: (text) => {
      // Most texts hold no match: the yes/no question runs on the fastest path and spares the scan.
      if (!regex.test(text)) return [];
      const found: PiiMatch[] = [];
      for (const m of regex.matchAll(text)) {
        if (m[0].length > 0) found.push({ start: m.index!, end: m.index! + m[0].length, label });
      }
      return found;
    },
  };
}

function compileCustom(p: CustomPiiPattern): { label: string; regex: LinearRegex } | { message: string } {
  const label = customLabel(p.name ?? '');
  if (!/^[A-Z][A-Z0-9_]{0,31}$/.test(label)) {
    return { message: 'the name must start with a letter and have at most 32 letters, digits or underscores' };
  }
  if (RESERVED_LABELS.has(label)) return { message: `the name ${label} is taken by a built-in type` };
  if (typeof p.pattern !== 'string' || p.pattern.length === 0) return { message: 'the pattern is empty' };
  if (p.pattern.length > MAX_PATTERN_LENGTH) return { message: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  const flags = p.flags ?? '';
  if (!ALLOWED_FLAGS.test(flags)) return { message: `flags "${flags}" are not allowed (use any of i, m, s, u)` };
  let regex: LinearRegex;
  try {
    regex = compileRegex(p.pattern, parseFlags(flags, 'imsu'));
  } catch (error) {
    if (!(error instanceof RegexSyntaxError)) throw error;
    return { message: `not a valid regular expression: ${error.message}` };
  }
  if (regex.test('')) return { message: 'the pattern matches the empty string, so it would mask everywhere' };
  return { label, regex };
}
