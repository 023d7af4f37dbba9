/**
 * JSON or TOON for what the model reads of a JSON result (issue 18): TOON (`@toon-format/toon`) where the
 * value is, or holds at its top, a uniform array of objects, and in `auto` only when that saves at least
 * MIN_SAVING of the tokens. The TOON shown decodes to exactly the value it stands for (checked here).
 */
import { isDeepStrictEqual } from 'node:util';
import { decode, encode } from '@toon-format/toon';
import type { ResultEncoding } from '../../../shared/policy.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** In `auto`, TOON is used only when it has at most this share fewer tokens than the JSON. */
export const MIN_SAVING = 0.15;

/** What a value is shown as, with both token counts (null when TOON was not tried). */
export interface EncodedValue {
  text: string;
  encoding: 'json' | 'toon';
  jsonTokens: number;
  toonTokens: number | null;
}

/** An array of at least two plain objects that all have the same keys. */
export function isUniformObjectArray(value: unknown): value is Record<string, unknown>[] {
  if (!Array.isArray(value) || value.length < 2) return false;
  const first = value[0];
  if (!isPlainObject(first)) return false;
  const keys = Object.keys(first);
  if (keys.length === 0) return false;
  for (const item of value) {
    if (!isPlainObject(item)) return false;
    const own = Object.keys(item);
    if (own.length !== keys.length) return false;
    for (const key of keys) if (!Object.hasOwn(item, key)) return false;
  }
  return true;
}

/** A uniform array of objects, or an object with one among its top-level values. */
export function isTabular(value: unknown): boolean {
  if (Array.isArray(value)) return isUniformObjectArray(value);
  if (!isPlainObject(value)) return false;
  for (const key in value) if (isUniformObjectArray(value[key])) return true;
  return false;
}

/**
 * A cheap look at a JSON text before parsing it: the start of an array of objects, or an object holding
 * one (`[{` or `": [{`, whitespace allowed). False for most text that is not tabular JSON.
 */
export function mayBeTabularJson(text: string): boolean {
  const start = text.trimStart();
  if (start.startsWith('[')) return /^\[\s*\{/.test(start);
  return start.startsWith('{') && /:\s*\[\s*\{/.test(text);
}

/**
 * `value` as the model should read it under `setting`: TOON when the value is tabular and (in `auto`)
 * saves at least MIN_SAVING of the tokens of `jsonText` (what would be shown otherwise; default the
 * compact JSON), else that JSON. Falls back to JSON if the TOON would not decode to the same value, or
 * when `jsonText` has a number its parsed value does not hold exactly (numbersParseExactly).
 * `toonOf` makes the checked TOON, the costly part (~0.1 s a megabyte): a caller on the main thread passes
 * `toToon` run under a deadline (spill/read-encoding.ts).
 */
export async function encodeValue(
  value: unknown,
  setting: ResultEncoding,
  counter: TokenCounter,
  jsonText: string = JSON.stringify(value) ?? 'null',
  toonOf: (value: unknown) => string | undefined = toToon,
): Promise<EncodedValue> {
  const asJson = async (toonTokens: number | null, jsonTokens?: number): Promise<EncodedValue> => ({
    text: jsonText,
    encoding: 'json',
    jsonTokens: jsonTokens ?? (await counter.quickCount(jsonText)).tokens,
    toonTokens,
  });
  if (setting === 'json' || !isTabular(value)) return asJson(null);
  // TOON is made from the parsed value: it would show a 64-bit id rounded where the JSON shows it exactly.
  if (!numbersParseExactly(jsonText)) return asJson(null);
  const toon = toonOf(value);
  if (toon === undefined) return asJson(null);
  const [json, counted] = await Promise.all([counter.quickCount(jsonText), counter.quickCount(toon)]);
  const saves = json.tokens > 0 && (json.tokens - counted.tokens) / json.tokens >= MIN_SAVING;
  if (setting === 'auto' && !saves) return asJson(counted.tokens, json.tokens);
  // Forced TOON is still not used when it costs more than the JSON.
  if (counted.tokens >= json.tokens) return asJson(counted.tokens, json.tokens);
  return { text: toon, encoding: 'toon', jsonTokens: json.tokens, toonTokens: counted.tokens };
}

/** The TOON text of `value`, or undefined when it would not decode to exactly the same value. */
export function toToon(value: unknown): string | undefined {
  try {
    const toon = encode(value);
    return isDeepStrictEqual(decode(toon), value) ? toon : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens the encoding saved against the JSON (0 for JSON). */
export function tokensSaved(encoded: EncodedValue): number {
  return encoded.encoding === 'toon' && encoded.toonTokens !== null ? Math.max(0, encoded.jsonTokens - encoded.toonTokens) : 0;
}

/** One short line for the model: "shown as TOON (tabular), 38% fewer tokens than JSON". */
export function encodingNote(encoded: EncodedValue): string | undefined {
  if (encoded.encoding !== 'toon') return undefined;
  const percent = Math.round((tokensSaved(encoded) / Math.max(1, encoded.jsonTokens)) * 100);
  return `shown as TOON (tabular), ${percent}% fewer tokens than JSON`;
}

/**
 * Whether the value JSON.parse makes of a JSON text holds each of its numbers exactly. Not so for an integer
 * past 2^53 (a 64-bit id: 1234567890123456789 parses to 1234567890123456800), a decimal with more
 * significant digits than a double has, or a number out of its range (1e400 parses to Infinity, written
 * back as null). What is shown from such a parsed value (TOON, a summary) would show other numbers than
 * the text, so the text is shown instead. A linear scan: only numbers of 16 or more digits, or with an
 * exponent, are looked at closely; text in strings is skipped.
 */
export function numbersParseExactly(text: string): boolean {
  const length = text.length;
  for (let i = 0; i < length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = jsonStringEnd(text, i);
    } else if (c === MINUS || isDigit(c)) {
      let end = i + 1;
      let digits = c === MINUS ? 0 : 1;
      let exponent = false;
      for (; end < length; end++) {
        const d = text.charCodeAt(end);
        if (isDigit(d)) digits++;
        else if (d === 0x65 || d === 0x45)
          exponent = true; // e E
        else if (d !== 0x2e && d !== 0x2b && d !== MINUS) break; // . + -
      }
      if ((digits > 15 || exponent) && !exactNumber(text.slice(i, end))) return false;
      i = end;
    } else i++;
  }
  return true;
}

/** The index just past the JSON string that starts (with its quote) at `start`; the text's length when it is not closed. */
export function jsonStringEnd(text: string, start: number): number {
  for (let at = text.indexOf('"', start + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at + 1;
  }
  return text.length;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Whether a JSON number token and the double it parses to are the same decimal (true for what is not a number token). */
function exactNumber(token: string): boolean {
  const written = decimal(token);
  if (written === undefined) return true;
  const value = Number(token);
  return Number.isFinite(value) && decimal(String(value)) === written;
}

/** A number's decimal value in one form: `-123e-2` for -1.230, `0` for any zero. */
function decimal(token: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) return undefined;
  const fraction = m[3] ?? '';
  const digits = (m[2]! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const exponent = Number(m[4] ?? 0) - fraction.length + (digits.length - significant.length);
  return `${m[1]}${significant}e${exponent}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
