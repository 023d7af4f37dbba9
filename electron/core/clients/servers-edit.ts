/**
 * A client's file parsed once: its servers table as data, the text of Spillway's entry, and the text with
 * some servers set or removed. Connect, disconnect, import with replace and restore all change the file
 * through `apply`, which checks, before anything is written, that nothing but the named servers changed:
 * an editing bug must never cost a user data.
 */

/** One server of the table set to `value`, or removed (undefined). */
export interface ServerChange {
  name: string;
  value: Record<string, unknown> | undefined;
}

export interface ServersEdit {
  text: string;
  /** The whole TOML file was re-serialized (comments lost, some values written differently: `1.0` as `1`). */
  rewritten: boolean;
}

export interface ParsedServers {
  /** The servers table ({} when the file has none). */
  readonly servers: Record<string, unknown>;
  /** The exact text of Spillway's entry in the file (undefined: it has none, or it is not on lines of its own). */
  entryText(): string | undefined;
  /** The text with `changes` made in order; the text unchanged when there are none. */
  apply(changes: readonly ServerChange[]): ServersEdit;
}

/** The value of `name` in `servers` when it is the table's own (a server named "__proto__" or "toString" is not inherited). */
export function ownServer(servers: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(servers, name) ? servers[name] : undefined;
}

export function internalEditError(file: string): Error {
  return new Error(`Internal error: editing ${file} would have changed more than Spillway's entry; nothing was written.`);
}

/** Throws unless `after` is `before` with exactly `changes` made (compared as data, keys in any order). */
export function assertServersChange(
  file: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  changes: readonly ServerChange[],
): void {
  const wanted = new Map<string, Record<string, unknown> | undefined>();
  for (const c of changes) wanted.set(c.name, c.value);
  const names = new Set([...Object.keys(before), ...Object.keys(after), ...wanted.keys()]);
  for (const name of names) {
    const expected = wanted.has(name) ? wanted.get(name) : ownServer(before, name);
    if (canonicalJson(ownServer(after, name)) !== canonicalJson(expected)) throw internalEditError(file);
  }
}

/** JSON with sorted keys, for comparing values; a TOML integer beyond 2^53 (a BigInt) as `<digits>n`. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v), (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
