import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

const TAIL_BYTES = 1024;

/** One spooled string's file: written in batches, hashed as it goes, its first and last bytes kept in memory. */
export class SpoolFile {
  readonly path: string;
  #fd: number;
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;
  readonly #head: Buffer;
  #headLength = 0;
  #tail: Buffer = Buffer.alloc(0);

  readonly #onHead: ((start: Buffer) => void) | undefined;
  readonly #startBytes: number;

  /**
   * Creates the file (mode 0o600, flag 'wx'); throws what the file system throws. `onHead` hears of the
   * first `startBytes` (at most `headBytes`) once they are written (never, for a shorter text).
   */
  constructor(path: string, headBytes: number, onHead?: (start: Buffer) => void, startBytes = headBytes) {
    this.#fd = openSync(path, 'wx', 0o600);
    this.path = path;
    this.#head = Buffer.allocUnsafe(headBytes);
    this.#onHead = onHead;
    this.#startBytes = Math.min(startBytes, headBytes);
  }

  /** UTF-8 bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `out` (valid UTF-8) to the file. */
  write(out: Buffer): void {
    for (let written = 0; written < out.length;) written += writeSync(this.#fd, out, written, out.length - written);
    this.#hash.update(out);
    this.#bytes += out.length;
    if (this.#headLength < this.#head.length) {
      const before = this.#headLength;
      this.#headLength += out.copy(this.#head, this.#headLength, 0, Math.min(out.length, this.#head.length - this.#headLength));
      const start = this.#startBytes;
      // The start is never written to again: later bytes go after it.
      if (before < start && this.#headLength >= start && start > 0) this.#onHead?.(this.#head.subarray(0, start));
    }
    if (out.length >= TAIL_BYTES) {
      this.#tail = Buffer.from(out.subarray(out.length - TAIL_BYTES));
    } else if (out.length > 0) {
      const joined = Buffer.concat([this.#tail, out]);
      this.#tail = joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
    }
  }

  /** Closes the file and returns what it holds: size, digest, first and last bytes (call once). */
  close(): { bytes: number; sha256: Buffer; head: Buffer; tail: Buffer } {
    closeSync(this.#fd);
    this.#fd = -1;
    const head = this.#headLength === this.#head.length ? this.#head : Buffer.from(this.#head.subarray(0, this.#headLength));
    return { bytes: this.#bytes, sha256: this.#hash.digest(), head, tail: this.#tail };
  }

  /** Closes the file if still open, ignoring errors (it is about to be deleted). */
  closeQuietly(): void {
    if (this.#fd < 0) return;
    try {
      closeSync(this.#fd);
    } catch {
      // already closed or broken; the caller deletes the file either way
    }
    this.#fd = -1;
  }
}
