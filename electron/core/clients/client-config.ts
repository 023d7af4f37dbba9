import { stat } from 'node:fs/promises';
import { isRecord, mergeEntry, type ClientDefinition, type ConfigLocation } from './client-definition.js';
import { ConfigShapeError, ForeignEntryError } from './config-errors.js';
import { madeBySpillway } from './entry-owner.js';
import { jsoncPropertyText, parseJsoncObject, removeJsoncProperty, setJsoncProperty } from './jsonc-edit.js';
import type { ListDir } from './os-paths.js';
import { decodeConfigText, readSnapshot } from './safe-write.js';
import { parseTomlObject, removeTomlTable, setTomlTable, tomlTableTextIn } from './toml-edit.js';
import { SPILLWAY_ENTRY_NAME, type EntryField, type EntryState, type OsFacts, type ServerSpec, type SpillwayEntry } from './types.js';

/*
 * What a client module can do with its file, shared by all of them. The text transforms
 * (`applyConnect`, `applyDisconnect`) are pure; the rest reads files.
 */

export interface TextChange {
  text: string;
  /** The whole TOML file was re-serialized (comments lost, some values written differently: `1.0` as `1`). */
  rewritten: boolean;
}

/** The file's text as plain data (JSONC or TOML). Malformed → ConfigParseError. */
export function parseDocument(def: ClientDefinition, text: string, file: string): Record<string, unknown> {
  return def.format === 'toml' ? parseTomlObject(text, file) : parseJsoncObject(text, file);
}

/** The servers table of a parsed file ({} when absent). A table that is not one → ConfigShapeError. */
export function serversIn(def: ClientDefinition, doc: Record<string, unknown>, file: string): Record<string, unknown> {
  let node: unknown = doc;
  for (const key of def.serversPath) {
    node = isRecord(node) ? node[key] : undefined;
    if (node === undefined || node === null) return {};
  }
  if (!isRecord(node)) throw new ConfigShapeError(file, def.serversPath.join('.'), Array.isArray(node) ? 'a list' : typeof node);
  return node;
}

/** Servers of one file's text, normalized. */
export function serversOfText(def: ClientDefinition, text: string, file: string): ServerSpec[] {
  const servers = serversIn(def, parseDocument(def, text, file), file);
  const out: ServerSpec[] = [];
  for (const [name, value] of Object.entries(servers)) {
    const spec = def.fromNative(name, value, file);
    if (spec) out.push(spec);
  }
  return out;
}

/** Refuses a "spillway" server no Spillway wrote (ForeignEntryError): it is the user's, not ours to replace or remove. */
function assertMadeBySpillway(def: ClientDefinition, existing: unknown, file: string, action: 'connect' | 'disconnect'): void {
  if (existing === undefined) return;
  const spec = def.fromNative(SPILLWAY_ENTRY_NAME, existing, file);
  if (!spec || !madeBySpillway(spec)) throw new ForeignEntryError(def.displayName, file, action);
}

/**
 * The file's text with Spillway's entry added or updated (and the servers named in `replace`
 * removed). Keys a user added to our entry stay. Malformed text throws, and so does a "spillway"
 * server the user made themselves (ForeignEntryError); nothing else changes.
 */
export function applyConnect(def: ClientDefinition, text: string, file: string, entry: SpillwayEntry, replace: readonly string[] = []): TextChange {
  const native = def.toNative(entry);
  const path = [...def.serversPath];
  let out = text;
  let rewritten = false;
  for (const name of replace) {
    if (name === SPILLWAY_ENTRY_NAME) continue;
    if (def.format === 'toml') {
      const r = removeTomlTable(out, file, path, name);
      out = r.text;
      rewritten ||= r.rewritten;
    } else {
      out = removeJsoncProperty(out, file, path, name);
    }
  }
  const existing = serversIn(def, parseDocument(def, out, file), file)[SPILLWAY_ENTRY_NAME];
  assertMadeBySpillway(def, existing, file, 'connect');
  const merged = mergeEntry(existing, native, def.ownedKeys);
  const unchanged = canonicalJson(existing) === canonicalJson(merged);
  if (def.format === 'toml') {
    if (unchanged) return { text: out, rewritten };
    const r = setTomlTable(out, file, path, SPILLWAY_ENTRY_NAME, merged);
    out = r.text;
    rewritten ||= r.rewritten;
  } else if (!unchanged) {
    out = setJsoncProperty(out, file, path, SPILLWAY_ENTRY_NAME, merged);
  }
  assertOnlyOurChange(def, text, out, file, replace, merged);
  return { text: out, rewritten };
}

/** The file's text without Spillway's entry (unchanged when it has none; ForeignEntryError when the user made it). */
export function applyDisconnect(def: ClientDefinition, text: string, file: string): TextChange {
  const path = [...def.serversPath];
  assertMadeBySpillway(def, serversIn(def, parseDocument(def, text, file), file)[SPILLWAY_ENTRY_NAME], file, 'disconnect');
  if (def.format === 'toml') return removeTomlTable(text, file, path, SPILLWAY_ENTRY_NAME);
  const out = removeJsoncProperty(text, file, path, SPILLWAY_ENTRY_NAME);
  assertOnlyOurChange(def, text, out, file, [], undefined);
  return { text: out, rewritten: false };
}

/**
 * A last check before anything is written: the edited document must equal the original except for
 * our entry (which must now be `ours`) and the servers named in `removed` (taken out by an import with
 * replace, or put back by a restore). Guards against an editing bug ever costing a user data.
 */
export function assertOnlyOurChange(
  def: ClientDefinition,
  before: string,
  after: string,
  file: string,
  removed: readonly string[],
  ours: Record<string, unknown> | undefined,
): void {
  const a = parseDocument(def, before, file);
  const b = parseDocument(def, after, file);
  const strip = (doc: Record<string, unknown>): string => {
    const servers = { ...serversIn(def, doc, file) };
    delete servers[SPILLWAY_ENTRY_NAME];
    for (const n of removed) delete servers[n];
    const rest = { ...doc };
    delete rest[def.serversPath[0]];
    return canonicalJson([rest, servers]);
  };
  const got = serversIn(def, b, file)[SPILLWAY_ENTRY_NAME];
  if (strip(a) !== strip(b) || canonicalJson(got) !== canonicalJson(ours)) {
    throw new Error(`Internal error: editing ${file} would have changed more than Spillway's entry; nothing was written.`);
  }
}

/** JSON with sorted keys, for comparing documents; a TOML integer beyond 2^53 (a BigInt) as `<digits>n`. */
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

/** Exact text of our entry in a file's text (JSON property or TOML table), for the consent dialog. */
export function entryTextIn(def: ClientDefinition, text: string, file: string): string | undefined {
  const path = [...def.serversPath, SPILLWAY_ENTRY_NAME];
  return def.format === 'toml' ? tomlTableTextIn(text, path) : jsoncPropertyText(text, file, path);
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const kx = Object.keys(x).sort();
  const ky = Object.keys(y).sort();
  return kx.length === ky.length && kx.every((k, i) => k === ky[i] && x[k] === y[k]);
}

/** Whether the entry a client has matches the one Spillway wants (wrong port, token, executable → stale). */
export function entryState(spec: ServerSpec | undefined, desired: SpillwayEntry): EntryState {
  if (!spec) return { state: 'absent' };
  const differs: EntryField[] = [];
  if (desired.kind === 'stdio') {
    if (spec.transport !== 'stdio') differs.push('kind');
    else {
      if (spec.command !== desired.command) differs.push('command');
      if (JSON.stringify(spec.args ?? []) !== JSON.stringify(desired.args)) differs.push('args');
      if (!sameRecord(spec.env, desired.env)) differs.push('env');
    }
  } else if (spec.transport !== 'http') differs.push('kind');
  else {
    if (spec.url !== desired.url) differs.push('url');
    if (!sameRecord(spec.headers, desired.headers)) differs.push('headers');
  }
  return differs.length === 0 ? { state: 'current' } : { state: 'stale', differs };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export interface FilePresence {
  path: string;
  exists: boolean;
}

export interface ClientDetection {
  /** One of its folders exists (or one of its files does). */
  installed: boolean;
  /** The file Spillway writes exists. */
  configPresent: boolean;
  /** The file Spillway writes: the first that exists, else the preferred one. */
  configPath: string;
  files: FilePresence[];
}

export async function detectClient(def: ClientDefinition, os: OsFacts, listDir: ListDir): Promise<ClientDetection> {
  const location: ConfigLocation = await def.locate(os, listDir);
  const files = await Promise.all(location.files.map(async (path) => ({ path, exists: await exists(path) })));
  const dirs = await Promise.all(location.installDirs.map(exists));
  const target = files.find((f) => f.exists) ?? files[0];
  return {
    installed: dirs.some(Boolean) || files.some((f) => f.exists),
    configPresent: target.exists,
    configPath: target.path,
    files,
  };
}

/** Servers from every file of the client that exists; the preferred file wins on a name clash. */
export async function readClientServers(def: ClientDefinition, detection: ClientDetection): Promise<ServerSpec[]> {
  const seen = new Set<string>();
  const out: ServerSpec[] = [];
  for (const f of detection.files) {
    if (!f.exists) continue;
    const snapshot = await readSnapshot(f.path);
    const { text } = decodeConfigText(snapshot.bytes, f.path);
    for (const spec of serversOfText(def, text, f.path)) {
      if (seen.has(spec.name)) continue;
      seen.add(spec.name);
      out.push(spec);
    }
  }
  return out;
}
