/**
 * What Disconnect removes, shown before it writes (the window's dialog, `spillway clients disconnect`):
 * Spillway's entry as it stands in the client's file now, secrets masked, and the files it deletes (ones
 * Connect created that hold nothing else, connect-origin.ts). Moved out of clients-service.ts.
 */
import { entryTextOf, parseServers, REWRITE_NOTE } from './client-config.js';
import { ForeignEntryError } from './config-errors.js';
import { madeBySpillway } from './entry-owner.js';
import { maskedEntryText } from './masked-entries.js';
import type { ClientRegistry } from './registry.js';
import { decodeConfigText, readSnapshot } from './safe-write.js';
import { SPILLWAY_ENTRY_NAME, type ClientId } from './types.js';

export interface DisconnectPreview {
  file: string;
  /** Absent when the file has no Spillway entry: there is nothing to remove. */
  entryText?: string;
  /** The files Disconnect deletes (absent: none). */
  deletes?: string[];
  notes?: string[];
  restartRequired: boolean;
}

/**
 * Not the desired entry (a stale one would show the new port, and a hub on port 0 would refuse it), and no
 * token is made. Read errors (a malformed file) reach the caller as they do for Disconnect itself.
 */
export async function previewDisconnect(registry: ClientRegistry, id: ClientId): Promise<DisconnectPreview> {
  const def = registry.definition(id);
  const spec = (await registry.readServers(id)).find((s) => s.name === SPILLWAY_ENTRY_NAME);
  if (!spec) return { file: (await registry.get(id)).configPath, restartRequired: def.restartRequired };
  // A "spillway" server the user made is not Spillway's to remove: say so now, as Disconnect would.
  if (!madeBySpillway(spec)) throw new ForeignEntryError(def.displayName, spec.file, 'disconnect');
  const { text } = decodeConfigText((await readSnapshot(spec.file)).bytes, spec.file);
  // In the file's own format (TOML for Codex), as the file has it; and, where removing it means writing the
  // whole file anew (a TOML layout Spillway cannot edit in place), the same warning Connect gives.
  const parsed = parseServers(def, text, spec.file);
  const entryText = entryTextOf(def, parsed) ?? '';
  const deletes = await registry.disconnectDeletes(id);
  const notes = [
    ...(parsed.apply([{ name: SPILLWAY_ENTRY_NAME, value: undefined }]).rewritten ? [REWRITE_NOTE] : []),
    ...deletes.map(
      (file) =>
        `Spillway created ${file} when it connected ${def.displayName} and nothing else is in it: Disconnect deletes the file. Restore brings it back.`,
    ),
  ];
  return {
    file: spec.file,
    entryText: maskedEntryText(entryText, spec),
    ...(deletes.length > 0 ? { deletes } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    restartRequired: def.restartRequired,
  };
}
