import { stat } from 'node:fs/promises';
import { isRecord, mergeEntry, type ClientDefinition, type ConfigLocation } from './client-definition.js';
import { ForeignEntryError } from './config-errors.js';
import { madeBySpillway } from './entry-owner.js';
import { parseJsonServers } from './json-servers.js';
import type { ListDir } from './os-paths.js';
import { decodeConfigText, readSnapshot } from './safe-write.js';
import { canonicalJson, ownServer, type ParsedServers, type ServerChange } from './servers-edit.js';
import { tomlTableText } from './toml-edit.js';
import { parseTomlServers } from './toml-servers.js';
import { SPILLWAY_ENTRY_NAME, type EntryField, type EntryState, type OsFacts, type ServerSpec, type SpillwayEntry } from './types.js';

/*
 * What a client module can do with its file, shared by all of them. The text transforms
 * (`applyConnect`, `applyDisconnect`) are pure; the rest reads files.
 */

export interface TextChange {
  text: string;
  /** The whole TOML file was re-serialized (comments lost, some values written differently: `1.0` as `1`). */
  rewritten: boolean;
  /** Spillway's entry as the new text holds it (undefined: none). */
  entry: Record<string, unknown> | undefined;
  /** The file is deleted instead of written: Spillway created it, and without its entry it holds nothing (connect-origin.ts). */
  removesFile?: boolean;
}

/** The file's servers, parsed once (JSONC or TOML). Malformed → ConfigParseError; a servers key that is no table → ConfigShapeError. */
export function parseServers(def: ClientDefinition, text: string, file: string): ParsedServers {
  return def.format === 'toml' ? parseTomlServers(def, text, file) : parseJsonServers(def, text, file);
}

/** The servers of a parsed file, normalized. */
export function specsOf(def: ClientDefinition, parsed: ParsedServers, file: string): ServerSpec[] {
  const out: ServerSpec[] = [];
  for (const [name, value] of Object.entries(parsed.servers)) {
    const spec = def.fromNative(name, value, file);
    if (spec) out.push(spec);
  }
  return out;
}

/** Servers of one file's text, normalized. */
export function serversOfText(def: ClientDefinition, text: string, file: string): ServerSpec[] {
  return specsOf(def, parseServers(def, text, file), file);
}

/** Refuses a "spillway" server no Spillway wrote (ForeignEntryError): it is the user's, not ours to replace or remove. */
function assertMadeBySpillway(def: ClientDefinition, existing: unknown, file: string, action: 'connect' | 'disconnect'): void {
  if (existing === undefined) return;
  const spec = def.fromNative(SPILLWAY_ENTRY_NAME, existing, file);
  if (!spec || !madeBySpillway(spec)) throw new ForeignEntryError(def.displayName, file, action);
}

/** What the consent dialogs say when a TOML file must be written anew to make the change. */
export const REWRITE_NOTE =
  `Spillway cannot edit this file's layout in place, so it will write the whole file anew: comments in it will be lost, ` +
  `and some values will be written differently (for example 1.0 as 1, 0xff as 255, text over several lines on one line). ` +
  `A backup is kept: Restore backup gives the file back as it was.`;

/** Whether the text holds Spillway's entry; ForeignEntryError when its "spillway" server is the user's own. */
export function holdsOurEntry(def: ClientDefinition, text: string, file: string): boolean {
  const existing = ownServer(parseServers(def, text, file).servers, SPILLWAY_ENTRY_NAME);
  assertMadeBySpillway(def, existing, file, 'disconnect');
  return existing !== undefined;
}

/** `applyConnect` on a file parsed already (the consent preview reads its servers from it too). */
export function connectChange(
  def: ClientDefinition,
  parsed: ParsedServers,
  file: string,
  entry: SpillwayEntry,
  replace: readonly string[] = [],
): TextChange {
  const changes: ServerChange[] = replace.filter((n) => n !== SPILLWAY_ENTRY_NAME).map((name) => ({ name, value: undefined }));
  const existing = ownServer(parsed.servers, SPILLWAY_ENTRY_NAME);
  assertMadeBySpillway(def, existing, file, 'connect');
  const merged = mergeEntry(existing, def.toNative(entry), def.ownedKeys);
  if (canonicalJson(existing) !== canonicalJson(merged)) changes.push({ name: SPILLWAY_ENTRY_NAME, value: merged });
  return { ...parsed.apply(changes), entry: merged };
}

/**
 * The file's text with Spillway's entry added or updated (and the servers named in `replace`
 * removed). Keys a user added to our entry stay. Malformed text throws, and so does a "spillway"
 * server the user made themselves (ForeignEntryError); nothing else changes.
 */
export function applyConnect(def: ClientDefinition, text: string, file: string, entry: SpillwayEntry, replace: readonly string[] = []): TextChange {
  return connectChange(def, parseServers(def, text, file), file, entry, replace);
}

/** The file's text without Spillway's entry (unchanged when it has none; ForeignEntryError when the user made it). */
export function applyDisconnect(def: ClientDefinition, text: string, file: string): TextChange {
  const parsed = parseServers(def, text, file);
  const existing = ownServer(parsed.servers, SPILLWAY_ENTRY_NAME);
  assertMadeBySpillway(def, existing, file, 'disconnect');
  if (existing === undefined) return { text, rewritten: false, entry: undefined };
  return { ...parsed.apply([{ name: SPILLWAY_ENTRY_NAME, value: undefined }]), entry: undefined };
}

/**
 * Our entry as the file has it, for the consent dialogs: its exact text, or, where it is not on lines of its
 * own (a TOML table written inline in another), the same value spelled in the file's format.
 */
export function entryTextOf(def: ClientDefinition, parsed: ParsedServers): string | undefined {
  const text = parsed.entryText();
  if (text !== undefined) return text;
  const value = ownServer(parsed.servers, SPILLWAY_ENTRY_NAME);
  if (value === undefined) return undefined;
  if (def.format === 'toml' && isRecord(value)) return tomlTableText([...def.serversPath, SPILLWAY_ENTRY_NAME], value, '\n');
  return `"${SPILLWAY_ENTRY_NAME}": ${JSON.stringify(value, null, 2)}`;
}

/** Exact text of our entry in a file's text (JSON property or TOML table), for the consent dialog. */
export function entryTextIn(def: ClientDefinition, text: string, file: string): string | undefined {
  return entryTextOf(def, parseServers(def, text, file));
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
