import { formatCount } from '../../../shared/plain-text.js';
import { isLosslessNumber, jsonText } from './exact-json.js';

export { formatCount } from '../../../shared/plain-text.js';

/** The first items of an array shown as TOON instead of one JSON line each (issue 18). */
export interface ShownTable {
  /** TOON of the array's first `rows` items: it decodes to exactly those items. */
  toon: string;
  rows: number;
}

/** Items of an array the summary shows at most. */
export const SUMMARY_ITEMS = 20;

/** Keys down to the arrays looked for under an object with none of its own (`.data.repository.issues.nodes`). */
const NESTED_DEPTH = 5;
/** Objects looked into for them at most. */
const NESTED_OBJECTS = 1_000;

/**
 * The arrays whose first items the summary shows, by path (`$` for the value itself, `.key` for a top-level
 * key): an object's largest arrays, or where it has none, the largest found down its objects (not through
 * arrays, at most NESTED_DEPTH keys down), as a GraphQL answer has them (`.data.repository.issues.nodes`).
 */
export function summaryArrays(value: unknown): { path: string; items: unknown[] }[] {
  if (Array.isArray(value)) return value.length > 0 ? [{ path: '$', items: value }] : [];
  if (!isObject(value)) return [];
  const top = largestArrays(value).map((key) => ({ path: `.${jsonKey(key)}`, items: value[key] as unknown[] }));
  return top.length > 0 ? top : nestedArrays(value);
}

/** The largest non-empty arrays under an object's objects, breadth first (the shallower first among equals). */
function nestedArrays(value: Record<string, unknown>): { path: string; items: unknown[] }[] {
  const found: { path: string; items: unknown[] }[] = [];
  let level: { path: string; value: Record<string, unknown> }[] = [{ path: '', value }];
  let visited = 0;
  for (let depth = 1; depth <= NESTED_DEPTH && level.length > 0; depth++) {
    const next: typeof level = [];
    for (const object of level) {
      if (++visited > NESTED_OBJECTS) break;
      for (const key of Object.keys(object.value)) {
        const child = object.value[key];
        const path = `${object.path}.${jsonKey(key)}`;
        if (Array.isArray(child)) {
          if (child.length > 0) found.push({ path, items: child });
        } else if (isObject(child)) next.push({ path, value: child });
      }
    }
    level = next;
  }
  return found.sort((a, b) => b.items.length - a.items.length).slice(0, 3);
}

/**
 * A query that runs on `value` and is worth a first look, for the header of a spilled result: the size of
 * the first array the summary shows (`size()` for a top-level array, `.results | size()`); undefined when
 * it shows none.
 */
export function exampleQuery(value: unknown): string | undefined {
  const first = summaryArrays(value)[0];
  if (!first) return undefined;
  return first.path === '$' ? 'size()' : `${first.path} | size()`;
}

/**
 * A structural summary of a JSON value for the preview of a spilled result (issue 4): the top-level
 * keys with their types, array lengths, a string's size and start, then the first items of the main
 * arrays (as TOON where `tables` has them by path). It is built up to `maxChars`; the caller cuts it to
 * its token budget.
 */
export function summarizeJson(value: unknown, maxChars: number, tables?: ReadonlyMap<string, ShownTable>): string {
  const out: string[] = [];
  let size = 0;
  const push = (line: string): boolean => {
    if (size >= maxChars) return false;
    out.push(line);
    size += line.length + 1;
    return true;
  };

  if (Array.isArray(value)) {
    push(`JSON array of ${formatCount(value.length)} ${value.length === 1 ? 'item' : 'items'}${itemShape(value)}.`);
    firstItems(value, '$', push, tables?.get('$'));
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    push(`JSON object with ${formatCount(keys.length)} top-level ${keys.length === 1 ? 'key' : 'keys'}:`);
    for (const key of keys.slice(0, 100)) if (!push(`  ${JSON.stringify(key)}: ${shape(value[key])}`)) break;
    if (keys.length > 100) push(`  … ${formatCount(keys.length - 100)} more keys`);
    for (const { path, items } of summaryArrays(value)) firstItems(items, path, push, tables?.get(path));
  } else {
    push(`JSON ${shape(value)}`);
  }
  return out.join('\n');
}

/** A one-line description of a value's type and size. */
export function shape(value: unknown): string {
  if (value === null) return 'null';
  // A number a double cannot hold (exact-json.ts), as written.
  if (isLosslessNumber(value)) return `number ${value.value}`;
  if (Array.isArray(value)) return `array of ${formatCount(value.length)}${itemShape(value)}`;
  if (isObject(value)) {
    const keys = Object.keys(value);
    return `object with ${formatCount(keys.length)} ${keys.length === 1 ? 'key' : 'keys'} ${keyList(keys)}`;
  }
  if (typeof value === 'string') {
    return value.length <= 80
      ? `string ${JSON.stringify(value)}`
      : `string (${formatCount(value.length)} chars) ${JSON.stringify(value.slice(0, 60))}…`;
  }
  return `${typeof value} ${JSON.stringify(value)}`;
}

function itemShape(items: unknown[]): string {
  if (items.length === 0) return '';
  const first = items[0];
  if (isObject(first)) return ` (objects like ${keyList(Object.keys(first))})`;
  if (Array.isArray(first)) return ' (arrays)';
  return ` (${first === null ? 'null' : isLosslessNumber(first) ? 'number' : typeof first}s)`;
}

/** The largest arrays are what the model most likely wants to see into. */
function largestArrays(value: Record<string, unknown>): string[] {
  return Object.keys(value)
    .filter((key) => Array.isArray(value[key]) && (value[key] as unknown[]).length > 0)
    .sort((a, b) => (value[b] as unknown[]).length - (value[a] as unknown[]).length)
    .slice(0, 3);
}

function firstItems(items: unknown[], path: string, push: (line: string) => boolean, table: ShownTable | undefined): void {
  if (items.length === 0) return;
  if (table) {
    if (!push(`First ${formatCount(table.rows)} items of ${path} as TOON:`)) return;
    for (const line of table.toon.split('\n')) if (!push(line)) return;
    if (items.length > table.rows) push(`… ${formatCount(items.length - table.rows)} more`);
    return;
  }
  if (!push(`First items of ${path}:`)) return;
  const shown = Math.min(items.length, SUMMARY_ITEMS);
  for (let i = 0; i < shown; i++) {
    const json = jsonText(items[i]) ?? 'null';
    if (!push(`  [${i}] ${json.length > 400 ? `${json.slice(0, 400)}…` : json}`)) return;
  }
  if (items.length > shown) push(`  … ${formatCount(items.length - shown)} more`);
}

function keyList(keys: string[]): string {
  const shown = keys.slice(0, 12).join(', ');
  return `{${shown}${keys.length > 12 ? `, … +${keys.length - 12}` : ''}}`;
}

/** A key as a JSON Query property after its dot: as it is when it is a plain name, else quoted (`."a b"`). */
export function jsonKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
