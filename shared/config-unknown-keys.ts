/**
 * Keys config.json holds that Spillway does not know: a typo (`"Port"`), a field a newer Spillway added,
 * a note written by hand. The schema leaves them out of the config in force, so no code ever sees them;
 * they are put back where they were each time the file is saved, so a hand edit is never lost, and each
 * is named once at load (see unknownKeyWarnings in config.ts). Runtime-neutral: no node:*, no electron, no DOM.
 */

/** One key the schema left out: where it was in the file and what it held. */
export interface UnknownKey {
  /** From the top of the file, e.g. `['settings', 'spill', 'quota']`. */
  readonly path: readonly string[];
  readonly value: unknown;
  /**
   * For a key inside an entry of a list (a custom PII pattern): each list entry on its way, by the place of
   * its index in `path`, with what the schema kept of it. The key goes back only while that entry is still
   * the same: an entry edited, moved or removed takes its unknown keys with it.
   */
  readonly entries?: readonly { readonly at: number; readonly known: string }[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Sets an own key, even `__proto__` (a plain assignment of that one would set the prototype instead). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON with the keys of each object in order: the same entry gives the same text whatever order it was written in. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

type ListEntries = NonNullable<UnknownKey['entries']>;

/**
 * The keys of `raw` (the file as read) that `parsed` (what the schema made of it) does not have, at any
 * depth. Maps the schema keeps whole (servers, env, headers) give none; the entries of a list the schema
 * kept entry for entry (custom PII patterns) are looked into, each key tied to its entry (UnknownKey.entries).
 */
export function findUnknownKeys(raw: unknown, parsed: unknown, path: readonly string[] = [], entries: ListEntries = []): UnknownKey[] {
  if (Array.isArray(raw) && Array.isArray(parsed) && raw.length === parsed.length) {
    return raw.flatMap((item, i) =>
      findUnknownKeys(item, parsed[i], [...path, String(i)], [...entries, { at: path.length, known: sortedJson(parsed[i]) }]),
    );
  }
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return [];
  const found: UnknownKey[] = [];
  for (const key of Object.keys(raw)) {
    // An import leaves keys without a value (`cwd: undefined`): JSON has none, and there is nothing to keep.
    if (raw[key] === undefined) continue;
    const at = [...path, key];
    if (Object.hasOwn(parsed, key)) found.push(...findUnknownKeys(raw[key], parsed[key], at, entries));
    else found.push(entries.length > 0 ? { path: at, value: raw[key], entries } : { path: at, value: raw[key] });
  }
  return found;
}

/**
 * A copy of `config` with the unknown keys put back where they were (the objects and lists on their way
 * are copied; `config` is not changed), and the keys that were placed. A key is left out when the object
 * that held it is gone (a server removed, a list entry changed) or now has a known value under that name.
 */
export function withUnknownKeys<T extends Record<string, unknown>>(config: T, unknown: readonly UnknownKey[]): { value: T; placed: UnknownKey[] } {
  if (unknown.length === 0) return { value: config, placed: [] };
  const root: Record<string, unknown> = { ...config };
  // Each copy made on the way, with what it was copied from (a list entry is checked as it was).
  const copies = new Map<object, unknown>([[root, config]]);
  const placed: UnknownKey[] = [];
  for (const entry of unknown) {
    const parent = copiedParent(root, entry, copies);
    const key = entry.path.at(-1);
    if (parent === undefined || key === undefined || Object.hasOwn(parent, key)) continue;
    setOwn(parent, key, entry.value);
    placed.push(entry);
  }
  // The root is a copy of `config` with keys added: still a T.
  return { value: root as T, placed };
}

/**
 * The object that holds the key at `entry.path`, copied (once) on the way down from `root`; undefined when
 * it is gone, or when a list entry on the way is no longer the one that held it.
 */
function copiedParent(root: Record<string, unknown>, entry: UnknownKey, copies: Map<object, unknown>): Record<string, unknown> | undefined {
  let node: Record<string, unknown> | unknown[] = root;
  // Compared as it was before a key was put back into it.
  const known = (value: unknown) => sortedJson(copies.has(value as object) ? copies.get(value as object) : value);
  for (const [depth, recorded] of entry.path.slice(0, -1).entries()) {
    const listed = entry.entries?.find((e) => e.at === depth);
    // A list entry that moved (an earlier one removed or inserted) is found by what it holds, when only one holds it.
    const key = listed && Array.isArray(node) ? sameEntry(node, recorded, listed.known, known) : recorded;
    if (key === undefined) return undefined;
    const child = childAt(node, key);
    if (!isPlainObject(child) && !Array.isArray(child)) return undefined;
    if (listed && listed.known !== known(child)) return undefined;
    if (copies.has(child)) {
      node = child;
      continue;
    }
    const copy: Record<string, unknown> | unknown[] = Array.isArray(child) ? [...child] : { ...child };
    copies.set(copy, child);
    if (Array.isArray(node)) node[Number(key)] = copy;
    else setOwn(node, key, copy);
    node = copy;
  }
  return Array.isArray(node) ? undefined : node;
}

/** The index (as a path key) of the one entry of `list` that holds `wanted`: the recorded one first; undefined when none or several do. */
function sameEntry(list: unknown[], recorded: string, wanted: string, known: (value: unknown) => string): string | undefined {
  if (known(childAt(list, recorded)) === wanted) return recorded;
  const found = list.flatMap((item, i) => (known(item) === wanted ? [String(i)] : []));
  return found.length === 1 ? found[0] : undefined;
}

function childAt(node: Record<string, unknown> | unknown[], key: string): unknown {
  if (Array.isArray(node)) return /^\d+$/.test(key) ? node[Number(key)] : undefined;
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/** Edits (insert, delete, change, swap of neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + change);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known key `key` was most likely meant to be: the same but for upper and lower case, a close
 * spelling, or the start of one (`quota` for `quotaBytes`). Undefined when none is close.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same !== undefined) return same;
  const limit = Math.min(2, Math.floor(key.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { key: k, distance };
  }
  if (best) return best.key;
  return lower.length >= 4 ? known.find((k) => k.toLowerCase().startsWith(lower)) : undefined;
}
