/** `[EMAIL_1]`, `[CREDIT_CARD_12]`, `[EMPLOYEE_ID_3]`. */
export const PLACEHOLDER = /\[([A-Z][A-Z0-9_]*)_(\d+)\]/g;

/**
 * The originals behind the placeholders of one call. Holds personal data: keep it in memory for the
 * call's lifetime only. `toJSON` leaves the originals out, so a vault logged by mistake leaks nothing.
 */
export class PiiVault {
  readonly #byValue = new Map<string, string>();
  readonly #byPlaceholder = new Map<string, string>();
  readonly #next = new Map<string, number>();
  /** Placeholder-shaped text already in the input: never issued, so restoring leaves it alone. */
  readonly #reserved = new Set<string>();

  /** The placeholder for `value` of this label; the same value gets the same placeholder. */
  placeholderFor(label: string, value: string): string {
    const key = `${label}\u0000${value}`;
    const known = this.#byValue.get(key);
    if (known) return known;
    let n = this.#next.get(label) ?? 1;
    let placeholder = `[${label}_${n}]`;
    while (this.#reserved.has(placeholder)) placeholder = `[${label}_${++n}]`;
    this.#next.set(label, n + 1);
    this.#byValue.set(key, placeholder);
    this.#byPlaceholder.set(placeholder, value);
    return placeholder;
  }

  /** The original behind a placeholder this vault issued. */
  original(placeholder: string): string | undefined {
    return this.#byPlaceholder.get(placeholder);
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
    for (const placeholder of this.#byPlaceholder.keys()) {
      const label = placeholder.slice(1, placeholder.lastIndexOf('_'));
      counts[label] = (counts[label] ?? 0) + 1;
    }
    return counts;
  }

  toJSON(): { masked: Record<string, number> } {
    return { masked: this.counts() };
  }
}

/** `text` with every placeholder this vault issued replaced by its original. */
export function restoreText(text: string, vault: PiiVault): string {
  if (vault.size === 0 || !text.includes('[')) return text;
  return text.replace(PLACEHOLDER, (placeholder) => vault.original(placeholder) ?? placeholder);
}

/**
 * A copy of a JSON value (a tool result: text blocks, structuredContent, nested resources) with the
 * vault's placeholders in every string put back, object keys included.
 */
export function restore<T>(value: T, vault: PiiVault): T {
  if (vault.size === 0) return value;
  return mapStrings(value, (text) => restoreText(text, vault));
}

/** Maps one string; `key` is the property the string (or the array holding it) belongs to. */
export type StringMap = (text: string, key: string | undefined) => string;

/**
 * A deep copy of a JSON value with `fn` applied to every string value and `mapKey` (default `fn`) to
 * every object key: personal data is sometimes a key, e.g. `{"alice@example.com": "vip"}`. For a key,
 * `key` is the property of the object that has it. Non-JSON leaves are kept as they are.
 */
export function mapStrings<T>(value: T, fn: StringMap, mapKey: StringMap = fn): T {
  return mapWithin(value, fn, mapKey, undefined);
}

function mapWithin<T>(value: T, fn: StringMap, mapKey: StringMap, key: string | undefined): T {
  if (typeof value === 'string') return fn(value, key) as T;
  if (Array.isArray(value)) return value.map((item) => mapWithin(item, fn, mapKey, key)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Defined, not assigned: a key "__proto__" (JSON.parse makes one) stays an own property.
      Object.defineProperty(out, mapKey(k, key), { value: mapWithin(v, fn, mapKey, k), enumerable: true, writable: true, configurable: true });
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
