/**
 * The spill store's puts under way (issue 12: a spilled answer need not wait for its files): one put of a
 * content at a time, the entry each will make (readable by handle at once; reads wait for the files), why
 * a put failed (for a model already holding its handle), and whether the disk has room to spare.
 */
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SpillEntry } from './spill-index.js';
import { notKeptMessage } from './spill-types.js';

/** Free space an answer sent before its files are written must leave on the disk, besides what is being written. */
export const ROOM_TO_SPARE_BYTES = 64 * 1024 * 1024;
/** Failed puts remembered for the handles already given out. */
const LOST_KEPT = 64;

export class PendingPuts {
  readonly #dir: string;
  /** Settled when done, never rejected. */
  readonly #writing = new Map<string, Promise<void>>();
  readonly #planned = new Map<string, SpillEntry>();
  readonly #lost = new Map<string, string>();
  /** Bytes the disk had free when last asked; undefined when unknown (not asked yet, or it could not say). */
  #freeBytes: number | undefined;
  /** Bytes of the puts under way, not in #freeBytes yet. */
  #writingBytes = 0;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Whether a put of `handle` is under way. */
  has(handle: string): boolean {
    return this.#writing.has(handle);
  }

  /** Settles once the puts of `handle` under way are done (at once when there are none). */
  async settled(handle: string): Promise<void> {
    await this.#writing.get(handle);
  }

  /** Settles once every put under way is done. */
  async allSettled(): Promise<void> {
    await Promise.all(this.#writing.values());
  }

  /** The entry a put under way will make. */
  planned(handle: string): SpillEntry | undefined {
    return this.#planned.get(handle);
  }

  /** Why the last put of `handle` failed (a message for the model), when it did and nothing was kept under it since. */
  lost(handle: string): string | undefined {
    const why = this.#lost.get(handle);
    if (why === undefined) return undefined;
    return notKeptMessage(`The full result "${handle}"`, why);
  }

  /**
   * Whether the disk has room to spare for `bytes` more (with what is being written): an answer may then
   * go out before its files are complete, as a disk that is nearly full is the one likely cause of a failed put.
   */
  hasRoomFor(bytes: number): boolean {
    return this.#freeBytes !== undefined && this.#freeBytes - this.#writingBytes - bytes >= ROOM_TO_SPARE_BYTES;
  }

  /** Asks the disk how much room it has (never fails: unknown then, and answers wait for their files). */
  async measure(): Promise<void> {
    // A folder not made yet is measured on the disk it will be made on.
    for (let dir = this.#dir; ; dir = dirname(dir)) {
      try {
        const fs = await statfs(dir);
        this.#freeBytes = fs.bavail * fs.bsize;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) break;
      }
    }
    this.#freeBytes = undefined;
  }

  /**
   * Runs `keep`, the put of `planned` (`bytes` on disk), after any earlier put of the same content: a later
   * one refreshes what an earlier one kept. `failed` says why a put failed, for #lost.
   */
  run(planned: SpillEntry, bytes: number, keep: () => Promise<SpillEntry>, failed: (error: unknown) => string): Promise<SpillEntry> {
    const { handle } = planned;
    const earlier = this.#writing.get(handle);
    this.#planned.set(handle, planned);
    this.#writingBytes += bytes;
    const kept = (earlier ?? Promise.resolve()).then(keep);
    const settled = kept.then(
      () => void this.#lost.delete(handle),
      (error: unknown) => this.#remember(handle, failed(error)),
    );
    this.#writing.set(handle, settled);
    void settled.then(() => {
      this.#writingBytes -= bytes;
      if (this.#writing.get(handle) !== settled) return;
      this.#writing.delete(handle);
      this.#planned.delete(handle);
      void this.measure();
    });
    return kept;
  }

  #remember(handle: string, why: string): void {
    this.#lost.delete(handle);
    this.#lost.set(handle, why);
    if (this.#lost.size > LOST_KEPT) this.#lost.delete(this.#lost.keys().next().value!);
  }
}
