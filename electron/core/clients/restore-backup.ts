/**
 * Restore: undoes the latest change the user made through Spillway, from the backups safe-write.ts keeps.
 * An action that wrote several files (Disconnect of Cline, whose servers live in two) is undone in all of
 * them at once.
 */
import { backupBytes, backupFile, listBackups, markUndone, sha256, type BackupOptions, type BackupRecord } from './backup-store.js';
import { ConfigBusyError, NoBackupError, RestoreConflictError } from './config-errors.js';
import { commitWrite, decodeConfigText, encodeConfigText, readSnapshot, sameBytes, type FileSnapshot } from './safe-write.js';

export interface RestoreOutcome {
  file: string;
  /** The write that was undone (the newest, when the action wrote several files). */
  undone: BackupRecord;
  /** True when the file was deleted (it did not exist before that write). */
  deleted: boolean;
  /**
   * True when a file changed after Spillway's writes (another program, the user): only Spillway's own
   * change was undone in it, and the rest of it kept.
   */
  changedSinceWrite: boolean;
  /** Every file given back: more than one when the action wrote several. */
  files: string[];
}

/**
 * Spillway's change (`record`) undone in the file's text as it is now, given the text the file had before
 * that change (null: there was no file) and the digests of the entries Spillway's writes since left
 * (`left`): the new text, and whether it holds a bearer token. Throws, with what changed and what to do,
 * when the change cannot be undone that way.
 */
export type UndoChange = (
  now: string,
  before: string | null,
  record: BackupRecord,
  left: ReadonlySet<string>,
) => { text: string; holdsSecret: boolean };

/** A change the user made through Spillway, not undone yet: Spillway's own repairs and restores are not. */
export const undoable = (r: BackupRecord) => !r.undone && r.reason !== 'restore' && r.reason !== 'repair';

/**
 * Whether the file is as Spillway's own writes left it since `target`: each of its later writes started
 * from the bytes the one before left, and nothing wrote the file after the last one.
 */
function untouchedSince(records: readonly BackupRecord[], target: BackupRecord, current: Buffer | null): boolean {
  const writes = records.filter((r) => r.file === target.file && r.seq >= target.seq).sort((a, b) => a.seq - b.seq);
  return writes.every((w, i) => w.sha256After === (i + 1 < writes.length ? writes[i + 1].sha256Before : sha256(current)));
}

interface RestorePlan {
  snapshot: FileSnapshot;
  next: Buffer | null;
  holdsSecret: boolean;
  changedSinceWrite: boolean;
}

/** The bytes `target`'s file gets back, worked out from the file as it is now; throws when that cannot be done. */
async function plan(backups: BackupOptions, records: readonly BackupRecord[], target: BackupRecord, undo: UndoChange): Promise<RestorePlan> {
  const previous = await backupBytes(backups.dir, target);
  const left = new Set(records.flatMap((r) => (r.file === target.file && r.seq >= target.seq && r.entry ? [r.entry] : [])));
  const snapshot = await readSnapshot(target.file);
  const changedSinceWrite = !untouchedSince(records, target, snapshot.bytes);
  if (changedSinceWrite && snapshot.bytes === null && previous !== null) {
    throw new RestoreConflictError(
      `${target.file} was deleted after Spillway's last change to it, so Spillway does not write it again by itself. Nothing was changed. ` +
        `The file as it was before that change is saved as ${backupFile(backups.dir, target)}: copy it back if you want it.`,
    );
  }
  if (!changedSinceWrite || snapshot.bytes === null) return { snapshot, next: previous, holdsSecret: false, changedSinceWrite };
  const now = decodeConfigText(snapshot.bytes, target.file);
  const before = previous === null ? null : decodeConfigText(previous, target.file).text;
  const undone = undo(now.text, before, target, left);
  const next = undone.text === now.text ? snapshot.bytes : encodeConfigText(undone.text, now.bom);
  return { snapshot, next, holdsSecret: undone.holdsSecret, changedSinceWrite };
}

/** Gives `target`'s file back (`first`: its plan made already), worked out again when the file changes meanwhile. */
async function restoreRecord(
  backups: BackupOptions,
  records: readonly BackupRecord[],
  target: BackupRecord,
  undo: UndoChange,
  first: RestorePlan,
): Promise<Omit<RestoreOutcome, 'files'>> {
  for (let attempt = 0; attempt <= 5; attempt++) {
    const p = attempt === 0 ? first : await plan(backups, records, target, undo);
    if (!sameBytes(p.snapshot.bytes, p.next)) {
      const result = await commitWrite(p.snapshot, p.next, backups, { reason: 'restore', holdsSecret: p.holdsSecret });
      if (result === 'changed') continue;
    }
    await markUndone(backups.dir, target);
    return { file: target.file, undone: target, deleted: p.next === null, changedSinceWrite: p.changedSinceWrite };
  }
  throw new ConfigBusyError(target.file);
}

/**
 * Undoes the latest change the user made through Spillway, not yet undone. Spillway's own repairs (a new
 * port or path written into its entry) are not such a change: restoring goes back past them, so "undo
 * setup" still undoes setup after the hub moved to another port. When nothing else wrote the file since,
 * it gets back its exact bytes from before that change (or is deleted when it did not exist). When
 * something did (Claude Code rewrites ~/.claude.json on every run), `undo` takes back only Spillway's own
 * change and keeps the rest. The bytes the file had are backed up first, so a restore is never a loss;
 * successive restores go further back. A change that wrote several files is undone in each: all are
 * worked out before any is written, so a conflict in one leaves every file as it is.
 */
export async function restoreLatestBackup(backups: BackupOptions, client: string, undo: UndoChange): Promise<RestoreOutcome> {
  const records = await listBackups(backups.dir);
  const target = records.find(undoable);
  if (!target) throw new NoBackupError(client);
  const members = target.group ? records.filter((r) => r.group === target.group && undoable(r)) : [target];
  const plans: RestorePlan[] = [];
  for (const m of members) plans.push(await plan(backups, records, m, undo));
  const outcomes: Omit<RestoreOutcome, 'files'>[] = [];
  for (const [i, m] of members.entries()) outcomes.push(await restoreRecord(backups, records, m, undo, plans[i]));
  return {
    ...outcomes[0],
    changedSinceWrite: outcomes.some((o) => o.changedSinceWrite),
    files: outcomes.map((o) => o.file),
  };
}
