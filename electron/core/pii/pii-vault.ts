import { randomInt } from 'node:crypto';
import { escapeInJsonString, isJsonText } from './json-text.js';

/**
 * `[EMAIL_1]`, `[CREDIT_CARD_12]`, `[EMPLOYEE_ID_3]`, and with a tagged vault `[EMAIL_1_k3j9x2]`. Labels
 * are upper case and tags lower case, so a tagged placeholder reads only one way.
 */
export const PLACEHOLDER = /\[([A-Z][A-Z0-9_]*)_(\d+)(?:_([a-z][a-z0-9]{5}))?\]/g;

const TAG = /^[a-z][a-z0-9]{5}$/;
const TAG_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Six random letters and digits, the first a letter: one in about 1.5 billion. */
export function newVaultTag(): string {
  let tag = TAG_LETTERS[randomInt(26)]!;
  for (let i = 1; i < 6; i++) tag += TAG_LETTERS[randomInt(36)]!;
  return tag;
}

interface Entry {
  value: string;
  label: string;
  /** Stood for a number token of a JSON text: in JSON text it is restored as a number again. */
  jsonNumber: boolean;
}

/**
 * The originals behind the placeholders of one call. Holds personal data: keep it in memory for the
 * call's lifetime only, or as long as the call cache keeps the call's result (keyed by the same
 * arguments). `toJSON` leaves the originals out, so a vault logged by mistake leaks nothing.
 */
export class PiiVault {
  readonly #byValue = new Map<string, string>();
  readonly #byPlaceholder = new Map<string, Entry>();
  readonly #next = new Map<string, number>();
  /** Placeholder-shaped text already in the input: never issued, so restoring leaves it alone. */
  readonly #reserved = new Set<string>();
  readonly #suffix: string;

  /**
   * `tag` ends every placeholder this vault issues (`[EMAIL_1_k3j9x2]`); without one they read `[EMAIL_1]`.
   * Tag a vault whose placeholders reach something that may keep them (a tool's server): a placeholder
   * an earlier call left there then never matches one of this call, so it is never restored with this
   * call's value. `PiiVault.tagged()` makes a vault with a fresh random tag.
   */
  constructor(readonly tag = '') {
    if (tag !== '' && !TAG.test(tag)) throw new Error(`A vault tag is a lower-case letter then five letters or digits, not "${tag}"`);
    this.#suffix = tag ? `_${tag}` : '';
  }

  /** A vault with a fresh random tag, for one tool call. */
  static tagged(): PiiVault {
    return new PiiVault(newVaultTag());
  }

  /**
   * The placeholder for `value` of this label; the same value gets the same placeholder. `jsonNumber`:
   * the value was a number token of a JSON text (it is written there as a quoted placeholder).
   */
  placeholderFor(label: string, value: string, jsonNumber = false): string {
    const key = `${label}\u0000${jsonNumber ? 'n' : 's'}${value}`;
    const known = this.#byValue.get(key);
    if (known) return known;
    let n = this.#next.get(label) ?? 1;
    let placeholder = `[${label}_${n}${this.#suffix}]`;
    while (this.#reserved.has(placeholder)) placeholder = `[${label}_${++n}${this.#suffix}]`;
    this.#next.set(label, n + 1);
    this.#byValue.set(key, placeholder);
    this.#byPlaceholder.set(placeholder, { value, label, jsonNumber });
    return placeholder;
  }

  /** The original behind a placeholder this vault issued. */
  original(placeholder: string): string | undefined {
    return this.#byPlaceholder.get(placeholder)?.value;
  }

  /** Whether this vault issued `placeholder` for a number token of a JSON text. */
  isJsonNumber(placeholder: string): boolean {
    return this.#byPlaceholder.get(placeholder)?.jsonNumber === true;
  }

  /** Notes placeholder-shaped text found in the input so numbering steps around it. */
  reserveFrom(text: string): void {
    if (!text.includes('[')) return;
    for (const m of text.matchAll(PLACEHOLDER)) {
      if (!this.#byPlaceholder.has(m[0])) this.#reserved.add(m[0]);
    }
  }

  /** How many placeholders were issued. */
  get size(): number {
    return this.#byPlaceholder.size;
  }

  /** Placeholders issued per label, e.g. `{EMAIL: 2, PHONE: 1}`: safe to log. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { label } of this.#byPlaceholder.values()) counts[label] = (counts[label] ?? 0) + 1;
    return counts;
  }

  toJSON(): { masked: Record<string, number> } {
    return { masked: this.counts() };
  }
}

/**
 * `text` with every placeholder this vault issued replaced by its original. In a JSON text (or JSON
 * lines) a placeholder sits inside a string, so the original is escaped there (a path's backslashes, a
 * quote, a line break keep the text valid JSON); a placeholder that stood for a number and fills a whole
 * string becomes that number again.
 */
export function restoreText(text: string, vault: PiiVault): string {
  if (vault.size === 0 || !text.includes('[')) return text;
  let json: boolean | undefined;
  let out = '';
  let at = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const placeholder = m[0];
    const original = vault.original(placeholder);
    if (original === undefined) continue;
    // Decided once, and only for a text that holds one of this vault's placeholders.
    json ??= isJsonText(text);
    let start = m.index;
    let end = start + placeholder.length;
    let replacement = original;
    if (json) {
      if (vault.isJsonNumber(placeholder) && wholeString(text, start, end)) {
        start -= 1;
        end += 1;
      } else replacement = escapeInJsonString(original);
    }
    out += text.slice(at, start) + replacement;
    at = end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** Whether `text[start, end)` is the whole content of a JSON string: an opening quote before, a closing one after. */
function wholeString(text: string, start: number, end: number): boolean {
  if (text[start - 1] !== '"' || text[end] !== '"') return false;
  // The quote before opens the string unless it is escaped (a JSON text inside the string).
  let backslashes = 0;
  while (text[start - 2 - backslashes] === '\\') backslashes++;
  return backslashes % 2 === 0;
}

/**
 * A copy of a JSON value (a tool result: text blocks, structuredContent, nested resources) with the
 * vault's placeholders in every string put back, object keys included.
 */
export function restore<T>(value: T, vault: PiiVault): T {
  if (vault.size === 0) return value;
  const text = (t: string) => restoreText(t, vault);
  if (!isPlainObject(value) || value.structuredContent === undefined) return mapStrings(value, text);
  // In structuredContent a placeholder that stood for a number (an argument sent as a number, or with
  // maskResults a number field) is that number again: the tool's outputSchema may want one. Not in a text
  // block, whose `text` must stay a string.
  const { structuredContent, ...rest } = value;
  const numberBack = (t: string) => (vault.isJsonNumber(t) ? Number(vault.original(t)) : text(t));
  return { ...mapStrings(rest, text), structuredContent: mapWithin(structuredContent, numberBack, text, undefined, undefined) } as T;
}

/** Maps one string; `key` is the property the string (or the array holding it) belongs to. */
export type StringMap = (text: string, key: string | undefined) => string;
/** What stands in place of one number (the number itself to keep it); `key` as for StringMap. */
export type NumberMap = (value: number, key: string | undefined) => number | string;

/**
 * A deep copy of a JSON value with `fn` applied to every string value, `mapKey` (default `fn`) to every
 * object key (personal data is sometimes a key, e.g. `{"alice@example.com": "vip"}`; for a key, `key` is
 * the property of the object that has it) and `mapNumber`, when given, to every number. Other leaves are
 * kept as they are.
 */
export function mapStrings<T>(value: T, fn: StringMap, mapKey: StringMap = fn, mapNumber?: NumberMap): T {
  return mapWithin(value, fn, mapKey, mapNumber, undefined);
}

function mapWithin<T>(
  value: T,
  fn: (text: string, key: string | undefined) => unknown,
  mapKey: StringMap,
  mapNumber: NumberMap | undefined,
  key: string | undefined,
): T {
  if (typeof value === 'string') return fn(value, key) as T;
  if (typeof value === 'number') return (mapNumber ? mapNumber(value, key) : value) as T;
  if (Array.isArray(value)) return value.map((item) => mapWithin(item, fn, mapKey, mapNumber, key)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Defined, not assigned: a key "__proto__" (JSON.parse makes one) stays an own property.
      // The key first: placeholders are numbered in the order forEachString reads the strings.
      const name = mapKey(k, key);
      Object.defineProperty(out, name, { value: mapWithin(v, fn, mapKey, mapNumber, k), enumerable: true, writable: true, configurable: true });
    }
    return out as T;
  }
  return value;
}

/** Calls `fn` on every string of a JSON value, object keys included, in the order `mapStrings` visits them. */
export function forEachString(value: unknown, fn: (text: string) => void): void {
  if (typeof value === 'string') fn(value);
  else if (Array.isArray(value)) for (const item of value) forEachString(item, fn);
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      fn(k);
      forEachString(v, fn);
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
