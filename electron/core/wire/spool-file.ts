import { createHash, type Hash } from 'node:crypto';
import { close, mkdir, open, unlink, write } from 'node:fs';
import { dirname } from 'node:path';
import type { PendingWrites } from './pending-writes.js';

const TAIL_BYTES = 1024;
/**
 * Bytes gathered before they go to the disk: each write is a trip through libuv's pool, which the disk's
 * other work (the spill store's syncs) shares, so a text's 64 KB batches go out four at a time.
 */
const WRITE_BYTES = 256 * 1024;

/** What a closed spool file holds. `written` settles once every byte is in the file (it is closed meanwhile). */
export interface SpoolFileSummary {
  bytes: number;
  sha256: Buffer;
  head: Buffer;
  tail: Buffer;
  /** Resolves when the file is complete; rejects with the first error of its writing. */
  written: Promise<void>;
  /** Whether the file is open and none of its writes has failed so far (those in flight may still fail). */
  fine: () => boolean;
  /** Settles (never rejects) once the file is open or has failed: `fine` can tell then. */
  opened: Promise<void>;
}

/**
 * One spooled string's file. Its bytes are hashed and its first and last bytes kept in memory as they
 * come, while the file is created, written and closed off the main thread (libuv's pool, plain callbacks:
 * the cheapest way there), each write at its own offset: the hub never blocks on the disk. A failed
 * open or write rejects `written`; later writes only count (see `write`).
 */
export class SpoolFile {
  readonly path: string;
  readonly #hash: Hash = createHash('sha256');
  readonly #pending: PendingWrites;
  /** -1 until the file is open (and again once it is closed). */
  #fd = -1;
  #opened = false;
  readonly #openSettled: Promise<void>;
  #settleOpen!: () => void;
  /** Writes waiting for the file to open. */
  #queued: { buffer: Buffer; length: number; at: number }[] = [];
  /** Bytes gathered for the next write, from file offset `#gatheredAt`. */
  #gathering: Buffer | undefined;
  #gathered = 0;
  #gatheredAt = 0;
  #inFlight = 0;
  #failure: Error | undefined;
  /** Set by close(): settles `written` once nothing is in flight. */
  #closing: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #closed: Promise<void> | undefined;
  /** Settles once the file descriptor is closed (after `written`). */
  #fdClosed: Promise<void> = Promise.resolve();
  #bytes = 0;
  readonly #head: Buffer;
  #headLength = 0;
  #tail: Buffer = Buffer.alloc(0);

  readonly #onHead: ((start: Buffer) => void) | undefined;
  readonly #startBytes: number;

  /**
   * Starts creating the file (mode 0o600, flag 'wx'; its folder is made again if it has gone). `onHead`
   * hears of the first `startBytes` (at most `headBytes`) once they have come (never, for a shorter text).
   */
  constructor(path: string, headBytes: number, pending: PendingWrites, onHead?: (start: Buffer) => void, startBytes = headBytes) {
    this.path = path;
    this.#pending = pending;
    this.#head = Buffer.allocUnsafe(headBytes);
    this.#onHead = onHead;
    this.#startBytes = Math.min(startBytes, headBytes);
    this.#openSettled = new Promise((resolve) => (this.#settleOpen = resolve));
    this.#open(true);
  }

  /** UTF-8 bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Appends `out` (valid UTF-8; copied, so the caller may reuse it). Once the disk has failed the file,
   * only its size, head and tail are kept: the line goes on being read, and is delivered cut to its heads.
   */
  write(out: Buffer): void {
    const at = this.#bytes;
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
    if (out.length === 0 || this.#failure) return;
    this.#hash.update(out);
    if (this.#gathering && this.#gathered + out.length > this.#gathering.length) this.#send();
    if (!this.#gathering) {
      this.#gathering = this.#pending.take(Math.max(out.length, WRITE_BYTES));
      this.#gatheredAt = at;
    }
    this.#gathered += out.copy(this.#gathering, this.#gathered);
    if (this.#gathered >= WRITE_BYTES) this.#send();
  }

  /** Hands what was gathered to the disk. */
  #send(): void {
    const buffer = this.#gathering;
    if (!buffer) return;
    const length = this.#gathered;
    this.#gathering = undefined;
    this.#gathered = 0;
    this.#pending.add(length);
    if (this.#fd < 0) this.#queued.push({ buffer, length, at: this.#gatheredAt });
    else this.#write(buffer, length, this.#gatheredAt);
  }

  /** Closes the file once its writes are done, and returns what it holds (call once). */
  close(): SpoolFileSummary {
    const head = this.#headLength === this.#head.length ? this.#head : Buffer.from(this.#head.subarray(0, this.#headLength));
    const written = new Promise<void>((resolve, reject) => (this.#closing = { resolve, reject }));
    written.catch(() => undefined); // the caller's to handle; never an unhandled rejection
    this.#closed = written;
    if (!this.#failure) this.#send();
    this.#settle();
    const fine = () => this.#opened && this.#failure === undefined;
    return { bytes: this.#bytes, sha256: this.#hash.digest(), head, tail: this.#tail, written, fine, opened: this.#openSettled };
  }

  /** Waits for its writes, closes it and deletes it, ignoring errors (it is given up). */
  async discard(): Promise<void> {
    if (!this.#closed) this.close();
    await this.#closed!.catch(() => undefined);
    await this.#fdClosed;
    await new Promise<void>((resolve) => unlink(this.path, () => resolve())); // gone already, e.g. moved into the spill store
  }

  #open(first: boolean): void {
    open(this.path, 'wx', 0o600, (error, fd) => {
      if (error?.code === 'ENOENT' && first) {
        // The folder has gone (a cleaner emptied the temp folder): made again, once.
        mkdir(dirname(this.path), { recursive: true, mode: 0o700 }, (made) => (made ? this.#fail(made) : this.#open(false)));
        return;
      }
      if (error) return this.#fail(error);
      this.#fd = fd;
      this.#opened = true;
      this.#settleOpen();
      const queued = this.#queued;
      this.#queued = [];
      for (const { buffer, length, at } of queued) this.#write(buffer, length, at);
      this.#settle();
    });
  }

  /** Writes buffer[0, length) at `at` in the file; the buffer goes back to the pool once written. */
  #write(buffer: Buffer, length: number, at: number, from = 0): void {
    this.#inFlight++;
    write(this.#fd, buffer, from, length - from, at + from, (error, written) => {
      this.#inFlight--;
      if (!error && from + written < length) return this.#write(buffer, length, at, from + written);
      this.#pending.done(length);
      this.#pending.give(buffer);
      if (error) this.#fail(error);
      this.#settle();
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#settleOpen();
    if (this.#gathering) this.#pending.give(this.#gathering);
    this.#gathering = undefined;
    this.#gathered = 0;
    for (const { buffer, length } of this.#queued) {
      this.#pending.done(length);
      this.#pending.give(buffer);
    }
    this.#queued = [];
    this.#settle();
  }

  /**
   * After close(): once nothing is in flight, settles `written` and closes the file. The file is complete
   * then: reading it and moving it need nothing more (libuv opens files shareable on Windows too), so the
   * line is not held for one more round trip through the pool.
   */
  #settle(): void {
    const closing = this.#closing;
    if (!closing || this.#inFlight > 0 || (this.#fd < 0 && !this.#failure)) return;
    this.#closing = undefined;
    const fd = this.#fd;
    this.#fd = -1;
    if (fd >= 0) this.#fdClosed = new Promise((resolve) => close(fd, () => resolve()));
    if (this.#failure) closing.reject(this.#failure);
    else closing.resolve();
  }
}
