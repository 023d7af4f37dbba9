import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BACKSLASH, ByteScanner, JS_SCAN_BYTES, QUOTE } from './byte-scanner.js';
import { JsonStringUnescaper } from './json-string-unescaper.js';
import { PendingWrites } from './pending-writes.js';
import { SpoolFile } from './spool-file.js';

/**
 * Streams one newline-delimited JSON message: every long string literal is unescaped straight into its
 * own file while the rest of the message stays in memory as a small "skeleton" JSON text, so a 50 MB
 * tool result never exists as a joined Buffer, a decoded JS string and a parsed object at once.
 */

export interface SpooledString {
  /** The placeholder string that stands for this string in the skeleton (the value you get after JSON.parse of the skeleton). */
  placeholder: string;
  /** File holding the unescaped text as UTF-8 (created with mode 0o600, flag 'wx'). */
  path: string;
  /** UTF-8 bytes in the file. */
  bytes: number;
  /** Bytes of the literal's content as it was on the wire, between the quotes (escaped form). */
  escapedBytes: number;
  /** Number of '\n' characters in the text. */
  newlines: number;
  /** sha256 digest of the file's bytes. */
  sha256: Buffer;
  /** The first min(bytes, headBytes) bytes of the text (may end inside a multi-byte UTF-8 char; caller trims). */
  head: Buffer;
  /** The last min(bytes, 1024) bytes of the text. */
  tail: Buffer;
  /**
   * Resolves once the file is complete (read, move or delete it only after); rejects with the disk's
   * error. Its message may be delivered before: the answer need not wait for the last write.
   */
  written: Promise<void>;
  /** Whether the file is open and none of its writes has failed so far (those still in flight may fail). */
  fine: () => boolean;
  /** Settles (never rejects) once the file is open or has failed: `fine` can tell then. */
  opened: Promise<void>;
}

export interface RawSpoolOptions {
  /** Folder for the files (exists; same filesystem as the spill store). */
  dir: string;
  /** A string literal whose raw content (escaped bytes between the quotes) grows past this many bytes is spooled. Default 64 KiB. */
  minStringBytes?: number;
  /** How much of each spooled text's start is kept in memory as `head`. Default 256 KiB. */
  headBytes?: number;
  /** Makes each placeholder; default: '\u0000spillway-raw:' + crypto.randomUUID(). */
  newPlaceholder?: () => string;
  /**
   * Hears of a spooled string's first `startBytes` (the start of its future `head`) as soon as they have
   * arrived, while the rest still streams in: work on a text's start can begin early. Not called for
   * shorter strings. Must not throw. `start` is not written to again (it is a view of the string's `head`).
   */
  onHead?: (placeholder: string, start: Buffer) => void;
  /** How much of a text's start `onHead` is given (at most `headBytes`). Default 96 KiB: the earlier it comes, the sooner that work is done. */
  startBytes?: number;
  /** Counts the bytes handed to the disk and not written yet (a transport shares one across its lines). */
  pending?: PendingWrites;
}

/** In a result's `_meta`: why its spooled texts were cut to their heads (the disk refused the rest; see LineFramer), for the spill store. */
export const CUT_META_KEY = 'spillway/cutShort';

export const DEFAULT_MIN_STRING_BYTES = 64 * 1024;
export const DEFAULT_HEAD_BYTES = 256 * 1024;
export const DEFAULT_START_BYTES = 96 * 1024;

const OUTSIDE = 0;
/** Inside a string literal that is still short enough to stay in the skeleton. */
const SHORT = 1;
/** Inside a string literal being unescaped into a file. */
const LONG = 2;

/**
 * Splits one JSON message, fed as arbitrary byte pieces, into a skeleton (kept in memory) and files
 * holding the unescaped text of its long string literals. Tracks only enough structure to know where
 * strings start and end; never validates otherwise and never throws on bad input (the caller finds the
 * skeleton invalid and calls abort()). File-system errors reject `written` (the line is still read to its
 * end, its spooled strings keeping only their size, head and tail); call abort() to clean up.
 *
 * A bad escape or a missing closing quote in a spooled string makes the skeleton invalid too. Raw control
 * characters inside a spooled string (which JSON.parse rejects) are passed through instead: finding them
 * would cost a pass over every byte, and the line framer already splits on the only common one, '\n'.
 * Invalid UTF-8 in a spooled string becomes U+FFFD exactly as decoding the whole line would make it.
 */
export class RawMessageSpool {
  readonly #dir: string;
  readonly #minStringBytes: number;
  readonly #headBytes: number;
  readonly #newPlaceholder: () => string;
  readonly #onHead: RawSpoolOptions['onHead'];
  readonly #startBytes: number;
  readonly #pending: PendingWrites;

  #state = OUTSIDE;
  #done = false;
  #totalBytes = 0;

  /** Skeleton pieces (views of the input, or copies of small parts of it) and their total size. */
  #skeleton: Buffer[] = [];
  #skeletonBytes = 0;

  /** SHORT: the skeleton offset of the opening quote, content bytes so far, whether a backslash awaits its byte. */
  #quoteAt = 0;
  #shortBytes = 0;
  #shortEscape = false;
  /** Set by #walkSkeleton when it stopped because the current string got long. */
  #grewLong = false;

  /** Where the next quote / backslash / newline of the current piece are, shared with the unescaper. */
  readonly #scan = new ByteScanner();
  /** Made at the first long string (its batch buffer is a megabyte), then reused for the others. */
  #unescaper: JsonStringUnescaper | undefined;
  /** LONG: the string being spooled. */
  #open: { placeholder: string; file: SpoolFile } | undefined;

  readonly #strings: SpooledString[] = [];
  /** Every file made, so abort() can delete them. */
  readonly #files: SpoolFile[] = [];
  /** Each closed file's writing. */
  readonly #written: Promise<void>[] = [];

  constructor(options: RawSpoolOptions) {
    const min = options.minStringBytes ?? DEFAULT_MIN_STRING_BYTES;
    const head = options.headBytes ?? DEFAULT_HEAD_BYTES;
    if (!Number.isSafeInteger(min) || min < 0) throw new RangeError(`minStringBytes must be a non-negative integer, got ${min}`);
    if (!Number.isSafeInteger(head) || head < 0) throw new RangeError(`headBytes must be a non-negative integer, got ${head}`);
    this.#dir = options.dir;
    this.#minStringBytes = min;
    this.#headBytes = head;
    this.#newPlaceholder = options.newPlaceholder ?? (() => `\u0000spillway-raw:${randomUUID()}`);
    this.#onHead = options.onHead;
    this.#startBytes = options.startBytes ?? DEFAULT_START_BYTES;
    this.#pending = options.pending ?? new PendingWrites();
  }

  /** Bytes of the skeleton so far: what the message holds in memory (outside its spooled strings). */
  get skeletonBytes(): number {
    return this.#skeletonBytes;
  }

  /** The next bytes of the message, in order; any cut is allowed. Views of `piece` may be kept. */
  push(piece: Buffer): void {
    if (this.#done) throw new Error('RawMessageSpool: push() after finish() or abort()');
    this.#totalBytes += piece.length;
    this.#scan.use(piece);
    const end = piece.length;
    let segmentStart = 0; // start of the part of `piece` that goes to the skeleton
    let i = 0;
    while (i < end) {
      if (this.#state !== LONG) {
        i = this.#walkSkeleton(piece, i, end, segmentStart);
        if (this.#grewLong) {
          // The current string just got long: take its start back out of the skeleton and unescape it.
          this.#grewLong = false;
          this.#appendSkeleton(piece, segmentStart, i);
          this.#becomeLong();
          this.#scan.use(piece);
          segmentStart = end;
        }
      } else {
        const after = this.#unescaper!.decode(piece, i, end);
        if (after < 0) {
          i = end;
          segmentStart = end;
        } else {
          this.#closeString(true);
          i = after;
          segmentStart = after;
          this.#state = OUTSIDE;
        }
      }
    }
    if (segmentStart < end) this.#appendSkeleton(piece, segmentStart, end);
  }

  /**
   * Ends the message: returns the skeleton and the spooled strings, and `written`, which resolves once
   * their files are complete (read them only after) and rejects if the disk failed them.
   */
  finish(): { skeleton: string; strings: SpooledString[]; totalBytes: number; written: Promise<void> } {
    if (this.#done) throw new Error('RawMessageSpool: finish() after finish() or abort()');
    // An unterminated long string: its literal is left unterminated in the skeleton, which keeps it invalid.
    if (this.#state === LONG) this.#closeString(false);
    this.#done = true;
    this.#unescaper = undefined;
    this.#scan.release();
    const skeleton = Buffer.concat(this.#skeleton, this.#skeletonBytes).toString('utf8');
    this.#skeleton = [];
    const written = Promise.all(this.#written).then(() => undefined);
    written.catch(() => undefined); // the caller's to handle; never an unhandled rejection
    return { skeleton, strings: [...this.#strings], totalBytes: this.#totalBytes, written };
  }

  /**
   * Gives up: deletes every file made so far (also after finish()), once its writes have settled; the
   * promise says when. Never throws nor rejects.
   */
  abort(): Promise<void> {
    this.#done = true;
    this.#open = undefined;
    this.#unescaper = undefined;
    this.#scan.release();
    this.#skeleton = [];
    return Promise.all(this.#files.splice(0).map((file) => file.discard())).then(() => undefined);
  }

  // --- skeleton ----------------------------------------------------------------------------------------

  #appendSkeleton(piece: Buffer, start: number, end: number): void {
    if (end <= start) return;
    // Part of a piece is copied: the rest of it was (or will be) spooled text, which the skeleton must
    // not keep alive.
    const part = start === 0 && end === piece.length ? piece : Buffer.from(piece.subarray(start, end));
    this.#skeleton.push(part);
    this.#skeletonBytes += part.length;
  }

  /** Removes and returns the skeleton's bytes from `offset` on. */
  #takeSkeletonFrom(offset: number): Buffer {
    const taken: Buffer[] = [];
    while (this.#skeletonBytes > offset) {
      const last = this.#skeleton.pop()!;
      const keep = Math.max(0, last.length - (this.#skeletonBytes - offset));
      // Copied, so the skeleton does not pin a whole piece for its first few bytes.
      if (keep > 0) this.#skeleton.push(Buffer.from(last.subarray(0, keep)));
      taken.push(keep > 0 ? last.subarray(keep) : last);
      this.#skeletonBytes -= last.length - keep;
    }
    taken.reverse();
    return taken.length === 1 ? taken[0] : Buffer.concat(taken);
  }

  /**
   * Walks the part of a piece that stays in the skeleton (outside strings and inside short ones) from
   * `i`, in one tight loop since dense JSON has a quote every few bytes. Returns `end`, or, with
   * #grewLong set, the position where the current string has passed the limit (bytes from there on
   * are not consumed; the caller re-reads the string's start from the skeleton).
   */
  #walkSkeleton(piece: Buffer, i: number, end: number, segmentStart: number): number {
    const min = this.#minStringBytes;
    let inString = this.#state === SHORT;
    // Where the current string's content would start if all of it were in this piece.
    let contentStart = i - this.#shortBytes;
    if (inString && this.#shortEscape) {
      // The byte a backslash at the end of the last piece escapes: counted, never the end.
      this.#shortEscape = false;
      i++;
    }
    while (i < end) {
      if (!inString) {
        let quote = i;
        const scanEnd = end - i > JS_SCAN_BYTES ? i + JS_SCAN_BYTES : end;
        while (quote < scanEnd && piece[quote] !== QUOTE) quote++;
        if (quote === scanEnd && quote < end) quote = this.#scan.quoteFrom(quote);
        if (quote >= end) {
          i = end;
          break;
        }
        this.#quoteAt = this.#skeletonBytes + (quote - segmentStart);
        inString = true;
        i = quote + 1;
        contentStart = i;
        continue;
      }
      const long = contentStart + min + 1; // from here on the content is longer than the limit
      if (i >= long) {
        this.#grewLong = true;
        break;
      }
      const limit = long < end ? long : end;
      let stop = i;
      const scanEnd = limit - i > JS_SCAN_BYTES ? i + JS_SCAN_BYTES : limit;
      for (; stop < scanEnd; stop++) {
        const c = piece[stop];
        if (c === QUOTE || c === BACKSLASH) break;
      }
      if (stop === scanEnd && stop < limit) {
        stop = this.#scan.quoteFrom(scanEnd);
        const backslash = this.#scan.backslashFrom(scanEnd);
        if (backslash < stop) stop = backslash;
        if (stop > limit) stop = limit;
      }
      if (stop === limit) {
        i = limit;
      } else if (piece[stop] === QUOTE) {
        inString = false;
        i = stop + 1;
      } else if (stop + 1 === end) {
        this.#shortEscape = true;
        i = end;
      } else {
        i = stop + 2; // the escaped byte never ends the string
      }
    }
    this.#state = inString ? SHORT : OUTSIDE;
    this.#shortBytes = inString ? i - contentStart : 0;
    return i;
  }

  // --- spooling ----------------------------------------------------------------------------------------

  /** The current string passed the limit: open its file and unescape what was read of it so far. */
  #becomeLong(): void {
    const literalStart = this.#takeSkeletonFrom(this.#quoteAt);
    const placeholder = this.#newPlaceholder();
    const onHead = this.#onHead;
    const file = new SpoolFile(
      join(this.#dir, `raw-${randomUUID()}.txt`),
      this.#headBytes,
      this.#pending,
      onHead && ((start) => onHead(placeholder, start)),
      this.#startBytes,
    );
    this.#files.push(file);
    this.#open = { placeholder, file };
    const unescaper = (this.#unescaper ??= new JsonStringUnescaper(this.#scan));
    unescaper.begin(file);
    this.#state = LONG;
    // The content read so far never holds the closing quote (the string would have ended).
    unescaper.decode(literalStart, 1, literalStart.length);
  }

  /** Ends the open string: closes its file and puts its placeholder's literal into the skeleton. */
  #closeString(terminated: boolean): void {
    const { placeholder, file } = this.#open!;
    const unescaper = this.#unescaper!;
    unescaper.end();
    const written = file.close();
    this.#written.push(written.written);
    this.#open = undefined;
    this.#state = OUTSIDE;
    this.#strings.push({
      placeholder,
      path: file.path,
      bytes: written.bytes,
      escapedBytes: unescaper.escapedBytes,
      newlines: unescaper.newlines,
      sha256: written.sha256,
      head: written.head,
      tail: written.tail,
      written: written.written,
      fine: written.fine,
      opened: written.opened,
    });
    const literal = JSON.stringify(placeholder);
    // A bad escape or a missing closing quote: the skeleton must fail JSON.parse like the original would.
    const text = !terminated ? literal.slice(0, -1) : unescaper.invalid ? `${literal.slice(0, -1)}\\invalid"` : literal;
    const bytes = Buffer.from(text, 'utf8');
    this.#skeleton.push(bytes);
    this.#skeletonBytes += bytes.length;
  }
}
