/**
 * Entries whose files are complete but not yet synced: listed and readable in the store, left out of the
 * index file until the next index write has synced them (issue 13 item 11), off the call's path.
 */
import { join } from 'node:path';
import { syncFolder } from '../files/atomic-file.js';
import { syncEntry } from './spill-files.js';
import type { SpillEntry } from './spill-index.js';

export interface UnsyncedEntriesDeps {
  /** The spill folder. */
  dir: string;
  /** The store's entry of a handle now. */
  entryOf: (handle: string) => SpillEntry | undefined;
  /** Whether a put of the handle is under way (it rewrites the folder, and marks it again once complete). */
  putUnderWay: (handle: string) => boolean;
  /** Drops an entry whose files could not be synced. */
  remove: (handle: string) => Promise<void>;
  log: (message: string, error?: unknown) => void;
}

export class UnsyncedEntries {
  readonly #handles = new Set<string>();

  constructor(private readonly deps: UnsyncedEntriesDeps) {}

  add(handle: string): void {
    this.#handles.add(handle);
  }

  delete(handle: string): void {
    this.#handles.delete(handle);
  }

  has(handle: string): boolean {
    return this.#handles.has(handle);
  }

  /**
   * Syncs the files of the entries kept since the last index write, so that the index written next lists
   * only entries whose files are on the disk (run before each index write). An entry that cannot be synced is removed.
   */
  async sync(): Promise<void> {
    if (this.#handles.size === 0) return;
    const { dir, entryOf, putUnderWay, remove, log } = this.deps;
    for (const handle of [...this.#handles]) {
      const entry = entryOf(handle);
      this.#handles.delete(handle);
      if (!entry) continue;
      try {
        await syncEntry(join(dir, handle), entry.files);
      } catch (error) {
        // A put of the same content rewriting the folder meanwhile marks it again once its files are complete.
        if (entryOf(handle) !== entry || putUnderWay(handle)) continue;
        log(`spilled result ${handle} could not be synced to disk; it is removed`, error);
        await remove(handle);
      }
    }
    await syncFolder(dir);
  }
}
