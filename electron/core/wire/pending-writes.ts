/** Above this many bytes handed to the disk and not yet written, the reader should pause. */
export const CONGESTED_BYTES = 8 * 1024 * 1024;

/**
 * Bytes a spool has handed to the disk and that are not written yet. Past CONGESTED_BYTES the spool is
 * congested: the transport pauses its reading until the disk has caught up (`drained`), so a slow disk
 * slows the server down instead of filling memory.
 */
export class PendingWrites {
  #bytes = 0;
  #waiters: (() => void)[] = [];

  get bytes(): number {
    return this.#bytes;
  }

  get congested(): boolean {
    return this.#bytes > CONGESTED_BYTES;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
  }

  done(bytes: number): void {
    this.#bytes -= bytes;
    if (this.#bytes > CONGESTED_BYTES / 2 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once no more than half of CONGESTED_BYTES are pending (at once when that is so already). */
  drained(): Promise<void> {
    if (this.#bytes <= CONGESTED_BYTES / 2) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
