/**
 * Restore on a file that changed after Spillway wrote it (Claude Code rewrites ~/.claude.json on every
 * run): Spillway's own change is taken back with the editors Connect uses, so everything else in the file,
 * including what the app or the user added since, stays. What Spillway changed is known from its backup
 * record: its entry ("spillway") was added, updated or removed, and an import with replace took some of
 * the app's servers out. Where taking it back would overwrite something changed since, it refuses: another
 * Spillway's entry (another data folder) included.
 */
import { createHash } from 'node:crypto';
import { backupFile, type BackupRecord } from './backup-store.js';
import { parseServers } from './client-config.js';
import { isRecord, type ClientDefinition } from './client-definition.js';
import { RestoreConflictError } from './config-errors.js';
import { madeBySpillway } from './entry-owner.js';
import { canonicalJson, ownServer as own, type ServerChange } from './servers-edit.js';
import { SPILLWAY_ENTRY_NAME, type ServerSpec } from './types.js';

/** A digest of Spillway's entry (its keys in any order), kept in backup records. */
export const entryDigestOf = (entry: unknown) => createHash('sha256').update(canonicalJson(entry)).digest('hex');

/**
 * Whose "spillway" entry may be taken back: one a write of Spillway left since the change (`left`, their
 * digests), or one `ours` says was written from this data folder.
 */
export interface EntryOwner {
  left: ReadonlySet<string>;
  ours?: (spec: ServerSpec) => boolean;
}

/**
 * `record`'s change undone in `now`, the file's text today; `before` is the text the file had before that
 * change (null: there was no file). RestoreConflictError, with what changed and what to do, when that
 * would overwrite something changed since, or a "spillway" entry that is not this Spillway's.
 */
export function undoChange(
  def: ClientDefinition,
  backupDir: string,
  now: string,
  before: string | null,
  record: BackupRecord,
  owner: EntryOwner,
): { text: string; holdsSecret: boolean } {
  const file = record.file;
  const app = def.displayName;
  const copy = before === null ? '' : `, or copy what you need from ${backupFile(backupDir, record)} (the file as it was before Spillway's change)`;
  // Each refusal: what changed, that nothing was written, what to do.
  const refuse = (what: string, step: string) => new RestoreConflictError(`${what} Nothing was changed. ${step}${copy}.`);
  const byHand = () =>
    refuse(
      `Spillway cannot tell which part of ${file} its last change was, so it does not undo it in a file changed since.`,
      'Edit the file by hand',
    );
  if (record.reason !== 'connect' && record.reason !== 'disconnect' && record.reason !== 'replace') throw byHand();
  const was = before === null ? {} : parseServers(def, before, file).servers;
  const parsed = parseServers(def, now, file);
  const is = parsed.servers;
  // The servers an import took out. A record from before they were noted: those the older file had that are missing now.
  const moved = (record.reason !== 'replace' ? [] : (record.servers ?? Object.keys(was).filter((n) => own(is, n) === undefined))).filter(
    (n) => n !== SPILLWAY_ENTRY_NAME && own(was, n) !== undefined,
  );
  const changes: ServerChange[] = [];
  for (const name of moved) {
    const wanted = own(was, name);
    const present = own(is, name);
    if (present === undefined && isRecord(wanted)) changes.push({ name, value: wanted });
    else if (canonicalJson(present) !== canonicalJson(wanted)) {
      throw refuse(
        `${app}'s file ${file} has a server named "${name}" again, different from the one Spillway moved into Spillway; Restore would overwrite it.`,
        `Rename or remove "${name}" in ${app}'s settings, then restore again`,
      );
    }
  }
  const ours = own(was, SPILLWAY_ENTRY_NAME);
  const restored = isRecord(ours) ? ours : undefined;
  const present = own(is, SPILLWAY_ENTRY_NAME);
  if (canonicalJson(present) !== canonicalJson(ours)) {
    const spec = present === undefined ? undefined : def.fromNative(SPILLWAY_ENTRY_NAME, present, file);
    if (present !== undefined && (!spec || !madeBySpillway(spec))) {
      throw refuse(
        `${app}'s file ${file} now has a server named “spillway” that Spillway did not add; Restore would overwrite it.`,
        `Rename or remove it in ${app}'s settings, then restore again`,
      );
    }
    if (spec && !owner.left.has(entryDigestOf(present)) && !(owner.ours?.(spec) ?? false)) {
      throw refuse(
        `${app}'s file ${file} now has a “spillway” entry that this Spillway did not write: another Spillway (one with another ` +
          `data folder) connected ${app} since, or the entry was edited. Restore would overwrite it.`,
        `If that entry should stay, leave the file as it is. To undo this Spillway's change anyway, disconnect ${app} in the ` +
          `other Spillway (or remove the “spillway” server in ${app}'s settings), then restore again`,
      );
    }
    if (ours !== undefined && !isRecord(ours)) throw byHand();
    changes.push({ name: SPILLWAY_ENTRY_NAME, value: restored });
  }
  // The edit checks that only these servers changed, each to the value wanted.
  const { text } = parsed.apply(changes);
  return { text, holdsSecret: restored !== undefined && def.fromNative(SPILLWAY_ENTRY_NAME, restored, file)?.transport === 'http' };
}
