import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, lstat, mkdir, open, readFile, readlink, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { removeStaleTemps, renameOver } from '../files/atomic-file.js';
import { deleteBackup, pruneBackups, saveBackup, type BackupOptions, type BackupRecord, type WriteReason } from './backup-store.js';
import { ConfigBusyError, ConfigReadError, ConfigWriteError } from './config-errors.js';
import { diskRefusal, sayingDiskRefusal } from './disk-refusal.js';

/*
 * Every write to a client's file goes through here:
 *  1. read the file (its exact bytes);
 *  2. compute the new text from it (a parse error throws: a malformed file is never written);
 *  3. save the previous bytes as a backup (and remove leftovers of earlier writes cut short);
 *  4. write the new bytes to a temp file in the same folder;
 *  5. re-read the file: if another program changed it meanwhile (Claude Code rewrites ~/.claude.json
 *     all the time), drop the temp file and the backup and start again from 1 on the fresh content — the
 *     user consented to our entry, not to a particular version of the rest of the file;
 *  6. rename the temp file over the original (atomic).
 * A window remains between 5 and 6 (no portable file lock exists); it is a few system calls wide.
 */

export interface FileSnapshot {
  /** The path as configured. */
  path: string;
  /** Where the bytes live (a symlinked dotfile is written through, not replaced by a file). */
  realPath: string;
  bytes: Buffer | null;
  mode: number | null;
}

const BOM = '\uFEFF';

export interface ConfigText {
  text: string;
  bom: boolean;
}

/** The file's text without a BOM (remembered so the write puts it back). Not UTF-8 → ConfigReadError. */
export function decodeConfigText(bytes: Buffer | null, file: string): ConfigText {
  if (bytes === null) return { text: '', bom: false };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw new ConfigReadError(file, 'it is not UTF-8 text', { cause: e });
  }
  // TextDecoder drops a leading BOM by default; look at the bytes to know whether there was one.
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { text: text.startsWith(BOM) ? text.slice(1) : text, bom };
}

export function encodeConfigText(text: string, bom: boolean): Buffer {
  return Buffer.from((bom ? BOM : '') + text, 'utf8');
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** The real path of the folder holding `path`; the folder as written when it cannot be resolved. */
async function realFolder(path: string): Promise<string> {
  try {
    return await realpath(dirname(path));
  } catch {
    return dirname(path);
  }
}

/**
 * Where a path's bytes live: its real path, or for a link whose target does not exist yet (a dotfiles
 * manager's link to a file not made yet) the target the links lead to, so writing creates the target and
 * keeps the link. A missing path that is no link is itself.
 */
async function whereBytesLive(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Missing, or a dangling link: followed link by link below.
  }
  let at = path;
  // As the system does, a chain of links longer than 40 is given up on (written at the configured path).
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      if (!(await lstat(at)).isSymbolicLink()) return at;
      link = await readlink(at);
    } catch {
      return at;
    }
    // A relative target is relative to the link's folder where it really is: through a linked folder
    // (~/.cursor -> ~/dotfiles/cursor), `..` leads from ~/dotfiles/cursor, as the system reads it.
    at = resolve(await realFolder(at), link);
    try {
      return await realpath(at);
    } catch {
      // Its target is missing too (or is another dangling link).
    }
  }
  return path;
}

/** The file's current bytes (null when it does not exist). */
export async function readSnapshot(path: string): Promise<FileSnapshot> {
  const realPath = await whereBytesLive(path);
  try {
    const bytes = await readFile(realPath);
    const mode = (await stat(realPath)).mode & 0o7777;
    return { path, realPath, bytes, mode };
  } catch (e) {
    if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return { path, realPath, bytes: null, mode: null };
    if (code(e) === 'EISDIR') throw new ConfigReadError(path, 'it is a folder, not a file', { cause: e });
    if (code(e) === 'EACCES' || code(e) === 'EPERM') throw new ConfigReadError(path, 'permission denied', { cause: e });
    throw new ConfigReadError(path, (e as Error).message, { cause: e });
  }
}

export function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

async function currentBytes(path: string): Promise<Buffer | null> {
  return (await readSnapshot(path)).bytes;
}

async function assertWritable(snapshot: FileSnapshot): Promise<void> {
  if (snapshot.bytes === null) return;
  // Checked on the mode bits too: as root (or on Windows' read-only attribute) access() says yes,
  // but a file its owner marked read-only is a "do not touch" we respect.
  if (snapshot.mode !== null && (snapshot.mode & 0o222) === 0) {
    throw new ConfigWriteError(snapshot.path, 'the file is read-only');
  }
  try {
    await access(snapshot.realPath, constants.W_OK);
  } catch (e) {
    throw new ConfigWriteError(snapshot.path, 'the file is not writable (permission denied)', { cause: e });
  }
}

/**
 * The mode the written file gets: the file's own (umask must not change the user's mode), minus group and
 * others' bits when it now holds a bearer token. A new file is owner-only either way.
 */
function modeFor(snapshot: FileSnapshot, holdsSecret: boolean): number {
  if (snapshot.mode === null) return 0o600;
  return holdsSecret ? snapshot.mode & 0o700 : snapshot.mode;
}

async function writeTemp(snapshot: FileSnapshot, bytes: Buffer, mode: number): Promise<string> {
  const dir = dirname(snapshot.realPath);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    const reason = code(e) === 'ENOTDIR' || code(e) === 'EEXIST' ? 'a part of its folder path is a file, not a folder' : (e as Error).message;
    throw new ConfigWriteError(snapshot.path, reason, { cause: e });
  }
  const tmp = join(dir, tempName(snapshot.realPath));
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await fh.writeFile(bytes);
      if (snapshot.mode !== null) await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    await rm(tmp, { force: true });
    const reason = code(e) === 'EACCES' || code(e) === 'EPERM' ? 'its folder is not writable' : (e as Error).message;
    throw diskRefusal(e, snapshot.path, dir) ?? new ConfigWriteError(snapshot.path, reason, { cause: e });
  }
  return tmp;
}

/** The name writeTemp gives the temp copy of `file` (`.<name>.spillway-<hex>.tmp`, hidden beside it). */
function tempName(file: string): string {
  return `.${basename(file)}.spillway-${randomBytes(6).toString('hex')}.tmp`;
}

function isTempOf(file: string, name: string): boolean {
  const prefix = `.${basename(file)}.spillway-`;
  return name.startsWith(prefix) && name.endsWith('.tmp') && /^[0-9a-f]+$/.test(name.slice(prefix.length, -'.tmp'.length));
}

/**
 * Removes the temp copies a write of `file` cut short (Spillway killed, a power cut) left beside it: they
 * hold the text that write meant to put there, a Spillway token and the app's own secrets with it. Only
 * those older than a write can take (the CLI and the hub write the same apps' files); never throws (the
 * write that calls it goes on). Returns how many.
 */
export async function removeInterruptedWrites(path: string, now?: number): Promise<number> {
  // Beside where the bytes live (a linked dotfile's temp copies are made beside its target).
  const file = await whereBytesLive(path);
  return removeStaleTemps(file, { ...(now !== undefined ? { now } : {}), isTemp: (name) => isTempOf(file, name) });
}

/**
 * Replaces the file's bytes (null: deletes it) with a backup first, unless it changed since
 * `snapshot` was read: then returns 'changed' and leaves everything as it was.
 */
export async function commitWrite(
  snapshot: FileSnapshot,
  next: Buffer | null,
  backups: BackupOptions,
  write: { reason: WriteReason; holdsSecret?: boolean; mode?: number; servers?: readonly string[]; entry?: string; group?: string },
): Promise<BackupRecord | 'changed'> {
  await assertWritable(snapshot);
  const mode = next === null ? undefined : (write.mode ?? modeFor(snapshot, write.holdsSecret ?? false));
  await removeInterruptedWrites(snapshot.realPath);
  // The backup (a synced copy: tens of milliseconds for a large file) is made first: before the temp copy,
  // so a crash while it is written leaves no copy of the new text (and its token) beside the app's file;
  // and before the check, so the check comes right before the rename: a write the client makes meanwhile
  // is seen and the edit applied to it again, instead of being replaced, and missing from the backup too.
  // A backup the disk refuses is said with the backups' folder: the app's own folder may have room.
  const record = await sayingDiskRefusal(
    snapshot.path,
    () => saveBackup(backups, snapshot.realPath, snapshot.bytes, next, write.reason, { ...write, modeBefore: snapshot.mode, modeAfter: mode }),
    backups.dir,
    'its backup cannot be saved',
  );
  let tmp: string | null;
  try {
    tmp = next === null || mode === undefined ? null : await writeTemp(snapshot, next, mode);
  } catch (e) {
    await deleteBackup(backups.dir, record);
    throw e;
  }
  const dropTemp = async () => {
    if (tmp) await rm(tmp, { force: true });
  };
  const dropBoth = async () => {
    await dropTemp();
    await deleteBackup(backups.dir, record);
  };
  let current: Buffer | null;
  try {
    current = await currentBytes(snapshot.realPath);
  } catch (e) {
    await dropBoth();
    throw e;
  }
  if (!sameBytes(current, snapshot.bytes)) {
    await dropBoth();
    return 'changed';
  }
  try {
    if (tmp) await renameOver(tmp, snapshot.realPath);
    else await rm(snapshot.realPath, { force: true });
  } catch (e) {
    await dropBoth();
    throw new ConfigWriteError(snapshot.path, (e as Error).message, { cause: e });
  }
  await pruneBackups(backups);
  return record;
}

export interface EditOutcome {
  file: string;
  /** False when the edit left the text as it was (nothing written, no backup). */
  changed: boolean;
  backup?: BackupRecord;
  /** The text now in the file (without BOM; '' once the edit deleted it). */
  text: string;
  /** How many times the file changed under us and the edit was re-applied. */
  retries: number;
}

export interface EditOptions {
  backups: BackupOptions;
  reason: WriteReason;
  /** The new text holds a bearer token: on POSIX the file loses group and others' access (0644 → 0600). */
  holdsSecret?: boolean;
  /**
   * The mode to give the file instead of its own, given the mode it has when it is read (undefined: its own,
   * see modeFor). Disconnect puts back the mode Connect narrowed for the token.
   */
  modeFor?: (current: number | null) => number | undefined;
  /** Re-applications allowed when the file keeps changing under us. */
  maxRetries?: number;
  /** The app's servers the edit takes out besides Spillway's entry (import with replace), kept in the backup record. */
  servers?: readonly string[];
  /** The digest of Spillway's entry in a text (undefined: it holds none), kept in the backup record. */
  entryOf?: (text: string) => string | undefined;
  /** Shared by the writes of one action to several files, so Restore takes them back together. */
  group?: string;
}

/**
 * Applies `edit` to the file's text and writes the result safely (backup, atomic rename, re-read
 * and re-apply on concurrent change). `edit` throws on a file it cannot parse: nothing is written.
 * An edit that returns null deletes the file (with a backup of it, as for any write).
 */
export async function editConfigFile(path: string, edit: (text: string) => string | null, options: EditOptions): Promise<EditOutcome> {
  const maxRetries = options.maxRetries ?? 5;
  for (let retries = 0; retries <= maxRetries; retries++) {
    const snapshot = await readSnapshot(path);
    const { text, bom } = decodeConfigText(snapshot.bytes, path);
    const nextText = edit(text);
    // Same text: nothing to write (and a missing file is never created empty, nor deleted again).
    if (nextText === text || (nextText === null && snapshot.bytes === null)) return { file: snapshot.realPath, changed: false, text, retries };
    const mode = nextText === null ? undefined : options.modeFor?.(snapshot.mode);
    const result = await commitWrite(snapshot, nextText === null ? null : encodeConfigText(nextText, bom), options.backups, {
      ...options,
      entry: nextText === null ? undefined : options.entryOf?.(nextText),
      ...(mode !== undefined ? { mode } : {}),
    });
    if (result !== 'changed') return { file: snapshot.realPath, changed: true, backup: result, text: nextText ?? '', retries };
  }
  throw new ConfigBusyError(path);
}
