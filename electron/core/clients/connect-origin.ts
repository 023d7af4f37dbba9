/**
 * What an app's file was like before the Connect that put Spillway's entry in it, as that write's backup
 * keeps it: whether it had a servers object, and its mode. Disconnect gives back what Connect changed
 * besides the entry (README: Spillway "changes nothing else"): a servers object Connect created and
 * Disconnect leaves empty goes, the mode Connect narrowed for the token comes back, and a file Connect
 * created goes once it holds nothing else (Restore of that Disconnect writes it back from its backup).
 */
import { backupBytes, listBackups, type BackupOptions, type BackupRecord } from './backup-store.js';
import { applyDisconnect, holdsOurEntry, parseServers, type TextChange } from './client-config.js';
import type { ClientDefinition } from './client-definition.js';
import { jsoncPropertyText, parseJsoncObject, removeJsoncProperty } from './jsonc-edit.js';
import { decodeConfigText, readSnapshot } from './safe-write.js';
import { canonicalJson, ownServer } from './servers-edit.js';
import { SPILLWAY_ENTRY_NAME } from './types.js';

export interface ConnectOrigin {
  /** The file did not exist before Connect: Connect created it. */
  created: boolean;
  /** The file had the servers object (or was TOML, whose table Spillway never takes out). */
  hadServers: boolean;
  /** The mode before Connect (null: Connect created the file; undefined: a record from before modes were kept). */
  mode: number | null | undefined;
  /** The mode Connect gave the file. */
  modeLeft: number | undefined;
  /** What the file held before Connect (canonical JSON; undefined for TOML or an unreadable text). */
  dataBefore?: string;
}

/**
 * The origin of the entry in `file` (its real path): the newest Connect (or import, or repair) whose previous
 * text held no Spillway entry. Undefined when no backup tells (pruned, damaged, never written by Spillway).
 */
export async function connectOrigin(def: ClientDefinition, backups: BackupOptions, file: string): Promise<ConnectOrigin | undefined> {
  const records = await listBackups(backups.dir);
  for (const record of records) {
    if (record.file !== file || record.undone || !['connect', 'replace', 'repair'].includes(record.reason)) continue;
    let text: string;
    try {
      text = decodeConfigText(await backupBytes(backups.dir, record), file).text;
      if (ownServer(parseServers(def, text, file).servers, SPILLWAY_ENTRY_NAME) !== undefined) continue;
    } catch {
      return undefined; // a backup that cannot be read tells nothing: the file is left as Disconnect makes it
    }
    const hadServers = !record.existed ? false : def.format !== 'json' || jsoncPropertyText(text, file, [...def.serversPath]) !== undefined;
    return {
      created: !record.existed && !prunedSince(records, record),
      hadServers,
      mode: record.modeBefore,
      modeLeft: record.modeAfter,
      ...dataOf(def, text, file),
    };
  }
  return undefined;
}

/**
 * Whether a write after `record` was pruned (a number missing after it). Pruning never folds a write that found
 * the file there into a record saying it did not exist (backup-store.ts), but it may fold a Connect to a file
 * that existed into a later record the search passes over (a Disconnect's, a repair's): no file is deleted then.
 */
function prunedSince(records: readonly BackupRecord[], record: BackupRecord): boolean {
  const seqs = new Set(records.map((r) => r.seq));
  const newest = Math.max(...seqs);
  for (let seq = record.seq + 1; seq < newest; seq++) if (!seqs.has(seq)) return true;
  return false;
}

/** The files (of `paths`, an app's) that hold Spillway's entry now: each with its text and the Connect it came from. */
export async function entryHolders(
  def: ClientDefinition,
  paths: readonly string[],
  backups: BackupOptions,
): Promise<{ file: string; text: string; origin: ConnectOrigin | undefined }[]> {
  const holding: { file: string; text: string; origin: ConnectOrigin | undefined }[] = [];
  for (const path of paths) {
    const snapshot = await readSnapshot(path);
    const { text } = decodeConfigText(snapshot.bytes, path);
    if (holdsOurEntry(def, text, path)) holding.push({ file: path, text, origin: await connectOrigin(def, backups, snapshot.realPath) });
  }
  return holding;
}

/** The files Disconnect deletes, of `holders` (entryHolders): each one Connect created that holds nothing else. */
export function filesDisconnectDeletes(def: ClientDefinition, holders: Awaited<ReturnType<typeof entryHolders>>): string[] {
  return holders.filter((h) => disconnectGivingBack(def, h.origin).edit(h.text, h.file).removesFile).map((h) => h.file);
}

/**
 * `text` (Spillway's entry just taken out) without the servers object Connect created, once it holds no
 * server; otherwise `text` as it is. Checked: the rest of the file is the same data.
 */
export function withoutCreatedServers(def: ClientDefinition, origin: ConnectOrigin | undefined, text: string, file: string): string {
  if (!origin || origin.hadServers || def.format !== 'json') return text;
  if (Object.keys(parseServers(def, text, file).servers).length > 0) return text;
  const path = [...def.serversPath];
  const key = path.pop()!;
  const out = removeJsoncProperty(text, file, path, key);
  const expected = parseJsoncObject(text, file);
  let parent: Record<string, unknown> = expected;
  for (const k of path) parent = parent[k] as Record<string, unknown>;
  delete parent[key];
  return canonicalJson(parseJsoncObject(out, file)) === canonicalJson(expected) ? out : text;
}

/**
 * Disconnect's edit, Spillway's entry out and with it the servers object Connect created once empty; and the
 * mode to leave the file with (for editConfigFile's `modeFor`, asked after the edit).
 */
export function disconnectGivingBack(
  def: ClientDefinition,
  origin: ConnectOrigin | undefined,
): { edit: (text: string, file: string) => TextChange; modeFor: (current: number | null) => number | undefined } {
  let asBefore = false;
  return {
    edit: (text, file) => {
      const change = applyDisconnect(def, text, file);
      if (change.text === text) return change;
      const out = withoutCreatedServers(def, origin, change.text, file);
      asBefore = origin?.dataBefore !== undefined && dataOf(def, out, file).dataBefore === origin.dataBefore;
      // A file Connect created that holds nothing now (no key, no server, no comment of the user's) goes.
      if (origin?.created && isBare(def, out)) return { ...change, text: out, removesFile: true };
      return { ...change, text: out };
    },
    // Only a file that holds again just what it held before Connect gets its mode back: anything added since
    // (a server of the user's own with its token in `env`) keeps the owner-only mode.
    modeFor: (current) => (asBefore ? modeToGiveBack(origin, current) : undefined),
  };
}

/**
 * The mode to give the file back once Spillway's entry (and its token) is out: the one it had before Connect,
 * if Connect changed it and nobody changed it since. A file Connect created keeps its owner-only mode.
 */
export function modeToGiveBack(origin: ConnectOrigin | undefined, current: number | null): number | undefined {
  if (!origin || origin.mode === undefined || origin.mode === null || origin.modeLeft === undefined || current !== origin.modeLeft) return undefined;
  return origin.mode === current ? undefined : origin.mode;
}

/** Whether a text is nothing but the empty document of its format (`{}` for JSON, nothing for TOML), whitespace aside. */
function isBare(def: ClientDefinition, text: string): boolean {
  return text.replace(/\s+/g, '') === (def.format === 'json' ? '{}' : '');
}

/** The data of a JSON(C) text, comparable across formatting. */
function dataOf(def: ClientDefinition, text: string, file: string): { dataBefore?: string } {
  if (def.format !== 'json') return {};
  try {
    return { dataBefore: canonicalJson(parseJsoncObject(text, file)) };
  } catch {
    return {};
  }
}
