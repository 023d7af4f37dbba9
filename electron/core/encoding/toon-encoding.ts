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
 * compact JSON), else that JSON. Falls back to JSON if the TOON would not decode to the same value.
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
