import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * The previous bytes of every file Spillway writes, one record per write, in a folder the caller
 * owns (e.g. `<dataDir>/backups/<clientId>/`). `<seq>-<time>.json` describes the write and
 * `<seq>-<time>.bak` holds the exact bytes the file had before it (absent when the file did not exist).
 * Those bytes are not masked: Restore must give the app its file back as it was, with the env values and
 * keys of its own servers. So the folder is owner-only (0700, also when it already existed looser) and
 * each file is too (0600); the README says so.
 */

export interface BackupOptions {
  /** Folder for this client's backups; created on first use. */
  dir: string;
  now?: () => Date;
  /** How many records to keep (oldest go first). */
  keep?: number;
}

/** Why Spillway wrote: 'repair' is its own update of a stale entry, which Restore does not count as a change to undo. */
export type WriteReason = 'connect' | 'disconnect' | 'replace' | 'repair' | 'restore' | 'edit';

export interface BackupRecord {
  /** Sequence number: later writes have larger ones. */
  seq: number;
  /** When the write happened (ISO 8601). */
  at: string;
  /** The file that was written (its real path, symlinks resolved). */
  file: string;
  /** Whether the file existed before the write; restoring a record with false deletes it. */
  existed: boolean;
  reason: WriteReason;
  sha256Before: string | null;
  sha256After: string | null;
  /** Set once `restore` gave these bytes back, so the next restore goes one write further back. */
  undone: boolean;
  /**
   * The app's servers the write took out besides Spillway's entry (an import with replace), so a restore
   * on a file changed since can put back just those. Absent in records written before it existed.
   */
  servers?: string[];
  /**
   * A digest of Spillway's entry as the write left it (see `entryDigest`), so a restore on a file changed
   * since knows an entry Spillway wrote from one another Spillway wrote. Absent when the write left none, for
   * a restore, and in records written before it existed.
   */
  entry?: string;
  /**
   * Set on the writes of one action that changed several files (Cline's two): Restore takes them back
   * together. Absent for an action that wrote one file, and in records written before it existed.
   */
  group?: string;
  /** The file's mode before the write (null: it did not exist) and the mode the write gave it. Absent in older records. */
  modeBefore?: number | null;
  modeAfter?: number;
  /** Base name of the record's files in the backup folder. */
  name: string;
}

export function sha256(bytes: Buffer | null): string | null {
  return bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
}

/** All records, newest first. */
export async function listBackups(dir: string): Promise<BackupRecord[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const records: BackupRecord[] = [];
  for (const n of names) {
    if (!/^\d{6,}-.*\.json$/.test(n)) continue;
    try {
      records.push(JSON.parse(await readFile(join(dir, n), 'utf8')) as BackupRecord);
    } catch {
      // A half-written record (crash mid-write) is skipped; its write never completed either.
    }
  }
  return records.sort((a, b) => b.seq - a.seq);
}

/** Where a record keeps the bytes the file had before its write (for the user to copy from by hand). */
export function backupFile(dir: string, record: BackupRecord): string {
  return join(dir, `${record.name}.bak`);
}

/** The bytes a record saved (null: the file did not exist). Checks them against the recorded hash. */
export async function backupBytes(dir: string, record: BackupRecord): Promise<Buffer | null> {
  if (!record.existed) return null;
  const bytes = await readFile(backupFile(dir, record));
  if (sha256(bytes) !== record.sha256Before) {
    throw new Error(`The backup ${backupFile(dir, record)} is damaged (its checksum does not match); not restoring it.`);
  }
  return bytes;
}

async function writeRecord(dir: string, record: BackupRecord): Promise<void> {
  const tmp = join(dir, `.${record.name}.${randomBytes(4).toString('hex')}.tmp`);
  await writeFile(tmp, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, join(dir, `${record.name}.json`));
}

/** Saves the bytes before a write, and the record describing it. Returns the record. */
export async function saveBackup(
  options: BackupOptions,
  file: string,
  before: Buffer | null,
  after: Buffer | null,
  reason: WriteReason,
  noted: { servers?: readonly string[]; entry?: string; group?: string; modeBefore?: number | null; modeAfter?: number } = {},
): Promise<BackupRecord> {
  const { servers, entry, group, modeBefore, modeAfter } = noted;
  const { dir } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder made before (by hand, or copied with looser modes) is made owner-only too. A file system
  // without modes may refuse: the backup is still written, as the folder allows.
  await chmod(dir, 0o700).catch(() => undefined);
  const at = (options.now ?? (() => new Date()))();
  const existing = await listBackups(dir);
  let seq = (existing[0]?.seq ?? 0) + 1;
  for (;;) {
    const name = `${String(seq).padStart(6, '0')}-${at.toISOString().replace(/[:.]/g, '-')}`;
    try {
      // 'wx' claims the number: two writers at once get different ones.
      const fh = await open(join(dir, `${name}.bak`), 'wx', 0o600);
      try {
        if (before !== null) await fh.writeFile(before);
        await fh.sync();
      } finally {
        await fh.close();
      }
      const record: BackupRecord = {
        seq,
        at: at.toISOString(),
        file,
        existed: before !== null,
        reason,
        sha256Before: sha256(before),
        sha256After: sha256(after),
        undone: false,
        name,
        ...(servers && servers.length > 0 ? { servers: [...servers] } : {}),
        ...(entry ? { entry } : {}),
        ...(group ? { group } : {}),
        ...(modeBefore !== undefined ? { modeBefore } : {}),
        ...(modeAfter !== undefined ? { modeAfter } : {}),
      };
      if (before === null) await rm(join(dir, `${name}.bak`), { force: true });
      await writeRecord(dir, record);
      return record;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        seq++;
        continue;
      }
      throw e;
    }
  }
}

/** Marks a record undone, as it is on disk now (pruning may have folded a later write into it since it was read). */
export async function markUndone(dir: string, record: BackupRecord): Promise<void> {
  let current = record;
  try {
    current = JSON.parse(await readFile(join(dir, `${record.name}.json`), 'utf8')) as BackupRecord;
  } catch {
    // Unreadable now: marked from the copy read before.
  }
  await writeRecord(dir, { ...current, undone: true });
}

export async function deleteBackup(dir: string, record: BackupRecord): Promise<void> {
  await rm(join(dir, `${record.name}.json`), { force: true });
  await rm(join(dir, `${record.name}.bak`), { force: true });
}

/**
 * Drops records beyond `keep`: Spillway's own repairs first (a new port or path written at start-up, which
 * Restore goes past anyway), then the oldest. The oldest record of each file is never dropped: it holds the
 * file as it was before Spillway first wrote it, what Restore gives back in the end. The records of one
 * action that wrote several files (a `group`, Cline's two) are dropped together or kept together, so one
 * Restore still gives back every file of an action it shows; a group that would take the count below `keep`
 * is kept until the next prune. A dropped record's write is folded into the record kept before it for that
 * file (its bytes after, its entry), so Restore still sees an unbroken chain of Spillway's writes and gives
 * back the exact bytes. A record saying the file did not exist never takes in a write that found it there
 * (that write is kept instead): it stands only for writes that created the file, as Disconnect reads it
 * (connect-origin.ts). The other way is kept folding, or a file Connect creates and Disconnect deletes over
 * and over would keep every record.
 */
export async function pruneBackups(options: BackupOptions): Promise<void> {
  const keep = options.keep ?? 50;
  const records = await listBackups(options.dir);
  if (records.length <= keep) return;
  const byFile = new Map<string, BackupRecord[]>();
  for (const r of [...records].reverse()) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const firsts = new Set([...byFile.values()].map((list) => list[0]));
  const actions = new Map<string, BackupRecord[]>();
  for (const r of records) {
    const key = r.group ? `group:${r.group}` : `record:${r.name}`;
    actions.set(key, [...(actions.get(key) ?? []), r]);
  }
  const repair = (action: BackupRecord[]) => action.every((r) => r.reason === 'repair');
  const oldest = (action: BackupRecord[]) => Math.min(...action.map((r) => r.seq));
  const order = [...actions.values()]
    .filter((action) => !action.some((r) => firsts.has(r)))
    .sort((a, b) => Number(repair(b)) - Number(repair(a)) || oldest(a) - oldest(b));
  const drop = new Set<BackupRecord>();
  // Whether `r`'s write may fold into the record kept before it for its file (none of `action`, being dropped with it).
  const foldsTruly = (r: BackupRecord, action: BackupRecord[]) => {
    const list = byFile.get(r.file)!;
    const kept = list.slice(0, list.indexOf(r)).findLast((k) => !drop.has(k) && !action.includes(k));
    return !kept || kept.existed || !r.existed;
  };
  // Again while it drops more: a write kept for the record before it (the file did not exist) may fold once that record goes.
  for (let more = true; more;) {
    more = false;
    for (const action of order) {
      if (drop.has(action[0])) continue;
      if (records.length - drop.size - action.length < keep) break;
      if (!action.every((r) => foldsTruly(r, action))) continue;
      for (const r of action) drop.add(r);
      more = true;
    }
  }
  if (drop.size === 0) return;
  for (const list of byFile.values()) {
    let kept = list[0];
    let folded = false;
    for (const r of list.slice(1)) {
      if (!drop.has(r)) {
        if (folded) await writeRecord(options.dir, kept);
        kept = r;
        folded = false;
        continue;
      }
      const { entry: _replaced, ...rest } = kept;
      kept = {
        ...rest,
        sha256After: r.sha256After,
        ...(r.entry ? { entry: r.entry } : {}),
        ...(r.modeAfter !== undefined ? { modeAfter: r.modeAfter } : {}),
      };
      folded = true;
    }
    if (folded) await writeRecord(options.dir, kept);
  }
  for (const r of drop) await deleteBackup(options.dir, r);
}
