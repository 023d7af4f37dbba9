/**
 * JSON whose numbers a double cannot hold, read back as the upstream wrote them. JSON.parse rounds a 64-bit
 * id (1189594358021324801 becomes 1189594358021324800) and makes 1e400 Infinity, written back as null: a
 * query answered other numbers than the result's, and filtering by an id matched the wrong items or none
 * (audit s15). Such a text is parsed by lossless-json, which keeps each such number as a LosslessNumber
 * (its text); every other number is a plain number, as JSON.parse makes it. A text whose numbers all parse
 * exactly (nearly every one: spill-document.ts asks numbersParseExactly) is parsed by JSON.parse, which
 * takes a fifth of the time.
 */
import { compile, type JSONQuery } from '@jsonquerylang/jsonquery';
import { compareNumber, isLosslessNumber, LosslessNumber, parse } from 'lossless-json';
import { numbersParseExactly } from '../encoding/toon-encoding.js';
import { looksLikeJson } from './result-view.js';

export { isLosslessNumber, LosslessNumber };

/** The parsed value of JSON text with its inexact numbers kept as LosslessNumbers, or undefined when it is not JSON. */
export function parseJsonExactly(text: string): { value: unknown } | undefined {
  if (!looksLikeJson(text)) return undefined;
  try {
    // A key given twice keeps its last value, as JSON.parse does (lossless-json throws by default).
    return { value: parse(text, null, { parseNumber: parseNumberExactly, onDuplicateKey: ({ newValue }) => newValue }) };
  } catch {
    return undefined;
  }
}

function parseNumberExactly(text: string): number | LosslessNumber {
  return numbersParseExactly(text) ? Number(text) : new LosslessNumber(text);
}

/** Whether `value` holds a LosslessNumber anywhere (what neither TOON nor JSON.stringify can write). */
export function holdsLosslessNumber(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (isLosslessNumber(value)) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (holdsLosslessNumber(item)) return true;
  return false;
}

/** JSON text of a value that may hold LosslessNumbers, each written as its own text; JSON.stringify's for any other value. */
export function jsonText(value: unknown): string | undefined {
  if (!holdsLosslessNumber(value)) return JSON.stringify(value);
  if (isLosslessNumber(value)) return value.value;
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = jsonText(item);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * A JSON Query text with each number literal a double cannot hold written as a call `exactNumber("…")`
 * (EXACT_NUMBER_FUNCTIONS), so that `.id == 1189594358021324801` compares with the id as written: JSON
 * Query's parser would round it. Strings and property names (`.0`, `."1e400"`) are left as they are.
 */
export function exactNumberLiterals(query: string): string {
  let out = '';
  let from = 0;
  const token = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = token.exec(query); m; m = token.exec(query)) {
    if (m[0].startsWith('"') || numbersParseExactly(m[0])) continue;
    let start = m.index;
    // `.x -1…` and `.x-1…` subtract: their minus stays an operator.
    if (m[0].startsWith('-') && /[\w$)\]"]\s*$/.test(query.slice(Math.max(0, start - 64), start))) start++;
    // A digit run inside a name or after a dot is a property, not a number.
    if (/[\w$.]/.test(query.charAt(start - 1))) continue;
    const end = m.index + m[0].length;
    out += `${query.slice(from, start)}exactNumber(${JSON.stringify(query.slice(start, end))})`;
    from = end;
  }
  return out + query.slice(from);
}

/** How two values compare as numbers when either is a LosslessNumber and both are numbers; undefined otherwise. */
function exactOrder(a: unknown, b: unknown): number | undefined {
  if (!isLosslessNumber(a) && !isLosslessNumber(b)) return undefined;
  const x = numberText(a);
  const y = numberText(b);
  if (x === undefined || y === undefined) return undefined;
  // A number out of range is past every number written.
  if (typeof x === 'number' || typeof y === 'number') return (typeof x === 'number' ? x : 0) - (typeof y === 'number' ? y : 0);
  return compareNumber(x, y);
}

/** A number's decimal text; for a number out of range, its sign (Infinity sorts past every text); undefined for anything else. */
function numberText(v: unknown): string | number | undefined {
  if (isLosslessNumber(v)) return v.value;
  if (typeof v !== 'number' || Number.isNaN(v)) return undefined;
  return Number.isFinite(v) ? String(v) : Math.sign(v);
}

/** JSON Query's equality (deep, for objects and arrays), with LosslessNumbers equal to the numbers they write. */
function equal(a: unknown, b: unknown): boolean {
  const order = exactOrder(a, b);
  if (order !== undefined) return order === 0;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (isLosslessNumber(a) || isLosslessNumber(b)) return false;
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** JSON Query's ordering: booleans, numbers and strings each among their kind; a LosslessNumber is a number. */
const RANKS: Record<string, number> = { boolean: 0, number: 1, string: 2 };
const kind = (v: unknown): string => (isLosslessNumber(v) ? 'number' : typeof v);

function greater(a: unknown, b: unknown): boolean {
  const order = exactOrder(a, b);
  if (order !== undefined) return order > 0;
  return typeof a === typeof b && (typeof a) in RANKS && (a as number) > (b as number);
}

function less(a: unknown, b: unknown): boolean {
  const order = exactOrder(a, b);
  if (order !== undefined) return order < 0;
  return typeof a === typeof b && (typeof a) in RANKS && (a as number) < (b as number);
}

type QueryFunction = (...args: JSONQuery[]) => (data: unknown) => unknown;

function binary(fn: (a: unknown, b: unknown) => unknown): QueryFunction {
  return (left, right) => {
    const a = compile(left);
    const b = compile(right);
    return (data) => fn(a(data), b(data));
  };
}

/** Smallest or largest of an array by `pick(best, item)`; null for an empty one, as JSON Query's min and max. */
function extreme(pick: (a: unknown, b: unknown) => boolean): QueryFunction {
  return () => (data) => {
    if (!Array.isArray(data)) throw new TypeError('Array expected');
    return data.length === 0 ? null : data.reduce((best: unknown, item: unknown) => (pick(item, best) ? item : best));
  };
}

/**
 * JSON Query's functions that compare numbers, for a value parsed by parseJsonExactly: a LosslessNumber is
 * compared by its exact value with another or with a number (JSON Query's own see an object). Arithmetic
 * (sum, +) is left to JSON Query, which fails on such a number: there is no exact number to give back.
 */
export const EXACT_NUMBER_FUNCTIONS: Record<string, QueryFunction> = {
  exactNumber: (text) => {
    const number = new LosslessNumber(String(text));
    return () => number;
  },
  eq: binary(equal),
  ne: binary((a, b) => !equal(a, b)),
  gt: binary(greater),
  gte: binary((a, b) => equal(a, b) || greater(a, b)),
  lt: binary(less),
  lte: binary((a, b) => equal(a, b) || less(a, b)),
  min: extreme(less),
  max: extreme(greater),
  in: (value, list) => {
    const get = compile(value);
    const items = compile(list);
    return (data) => {
      const v = get(data);
      return (items(data) as unknown[]).some((item) => equal(item, v));
    };
  },
  'not in': (value, list) => {
    const within = EXACT_NUMBER_FUNCTIONS.in!(value, list);
    return (data) => !within(data);
  },
  uniq: () => (data) => {
    const out: unknown[] = [];
    for (const item of data as unknown[]) if (!out.some((seen) => equal(seen, item))) out.push(item);
    return out;
  },
  sort: (by = ['get'], direction) => {
    const get = compile(by);
    const sign = direction === 'desc' ? -1 : 1;
    const compare = (x: unknown, y: unknown): number => {
      const a = get(x);
      const b = get(y);
      if (kind(a) !== kind(b)) {
        const ra = RANKS[kind(a)] ?? 3;
        const rb = RANKS[kind(b)] ?? 3;
        return ra > rb ? sign : ra < rb ? -sign : 0;
      }
      if (!(kind(a) in RANKS)) return 0;
      return greater(a, b) ? sign : less(a, b) ? -sign : 0;
    };
    return (data) => (data as unknown[]).slice().sort(compare);
  },
};
