/** Above this many bytes handed to the disk and not yet written, the reader should pause. */
export const CONGESTED_BYTES = 8 * 1024 * 1024;
/** Buffers kept for the next writes, and for how long after the last was given back. */
const KEPT_BUFFERS = 8;
const KEEP_MS = 5_000;

/**
 * Bytes a spool has handed to the disk and that are not written yet, and the buffers they go out in.
 * Past CONGESTED_BYTES the spool is congested: the transport pauses its reading until the disk has caught
 * up (`drained`), so a slow disk slows the server down instead of filling memory. A buffer given back once
 * written serves the next write: a 10 MB text leaves no trail of copies waiting for the garbage collector.
 */
export class PendingWrites {
  readonly #congestedBytes: number;
  #bytes = 0;
  #waiters: (() => void)[] = [];
  #free: Buffer[] = [];
  #trim: NodeJS.Timeout | undefined;

  /** `congestedBytes`: the mark past which the reader should pause (CONGESTED_BYTES). */
  constructor(congestedBytes = CONGESTED_BYTES) {
    this.#congestedBytes = congestedBytes;
  }

  /** A buffer of at least `bytes` to copy a write into: a given-back one, or a new one. */
  take(bytes: number): Buffer {
    const i = this.#free.findIndex((buffer) => buffer.length >= bytes);
    if (i >= 0) return this.#free.splice(i, 1)[0]!;
    return Buffer.allocUnsafeSlow(bytes);
  }

  /** A buffer whose write is done, for the next write; the kept ones are let go after a quiet while. */
  give(buffer: Buffer): void {
    if (this.#free.length >= KEPT_BUFFERS) return;
    this.#free.push(buffer);
    clearTimeout(this.#trim);
    this.#trim = setTimeout(() => (this.#free = []), KEEP_MS);
    this.#trim.unref();
  }

  get bytes(): number {
    return this.#bytes;
  }

  get congested(): boolean {
    return this.#bytes > this.#congestedBytes;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
  }

  done(bytes: number): void {
    this.#bytes -= bytes;
    if (this.#bytes > this.#congestedBytes / 2 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once no more than half the mark is pending (at once when that is so already). */
  drained(): Promise<void> {
    if (this.#bytes <= this.#congestedBytes / 2) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
