import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

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
}

export const DEFAULT_MIN_STRING_BYTES = 64 * 1024;
export const DEFAULT_HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 1024;

/** Output is written in batches of about this size: few syscalls, bounded memory. */
const BATCH_BYTES = 1024 * 1024;
/** Room past BATCH_BYTES: one decoding step writes at most 7 bytes (U+FFFD + a 4-byte char). */
const BATCH_SLACK = 16;
/**
 * Runs between escapes shorter than this are copied 8 bytes at a time through DataViews (as integers:
 * floats could alter NaN bits): for text with an escaped newline every line, Buffer#copy's per-call
 * cost would dominate.
 */
const NATIVE_COPY_BYTES = 256;
/**
 * A quote or backslash is first looked for byte by byte over this many bytes, then with Buffer.indexOf:
 * typical JSON has a quote every few bytes, where a native call per quote would cost more than the scan.
 */
const JS_SCAN_BYTES = 48;
/** Inside a spooled string, runs shorter than this keep the byte-by-byte scan on for the next run. */
const DENSE_RUN_BYTES = 24;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const LETTER_U = 0x75;

/** Output byte of each one-character escape (`\n` -> 0x0a); -1 for anything else (including `u`). */
const SIMPLE_ESCAPE = new Int16Array(256).fill(-1);
for (const [ch, out] of [
  ['"', 0x22],
  ['\\', 0x5c],
  ['/', 0x2f],
  ['b', 0x08],
  ['f', 0x0c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
] as const) {
  SIMPLE_ESCAPE[ch.charCodeAt(0)] = out;
}

/** Value of a hex digit byte; -1 when not one. */
const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX['0123456789abcdef'.charCodeAt(d)] = d;
  HEX['0123456789ABCDEF'.charCodeAt(d)] = d;
}

const OUTSIDE = 0;
/** Inside a string literal that is still short enough to stay in the skeleton. */
const SHORT = 1;
/** Inside a string literal being unescaped into a file. */
const LONG = 2;

/** The string currently being spooled. */
interface OpenString {
  placeholder: string;
  path: string;
  fd: number;
  hash: Hash;
  bytes: number;
  escapedBytes: number;
  newlines: number;
  head: Buffer;
  headLength: number;
  tail: Buffer;
  /** A bad escape was seen: JSON.parse would reject the original, so the skeleton must not parse either. */
  invalid: boolean;
}

/**
 * Splits one JSON message, fed as arbitrary byte pieces, into a skeleton (kept in memory) and files
 * holding the unescaped text of its long string literals. Tracks only enough structure to know where
 * strings start and end; never validates otherwise and never throws on bad input (the caller finds the
 * skeleton invalid and calls abort()). File-system errors are thrown; call abort() to clean up.
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

  /** LONG: 0 = none, 1 = after a backslash, 2..5 = reading the 4 hex digits of `\u`. */
  #escape = 0;
  #hex = 0;
  /** A high surrogate from a `\u` escape, waiting to see whether a low surrogate escape follows. */
  #pendingHigh = 0;
  #open: OpenString | undefined;
  #batch: Buffer | undefined;
  #batchView: DataView | undefined;
  #batchLength = 0;
  /** Whether the last raw run inside the spooled string was short (see the hot loop in #decodeLong). */
  #dense = true;

  /** Lazily found positions of the next quote / backslash / newline in #source (source length = none left). */
  #source: Buffer | undefined;
  #sourceView: DataView | undefined;
  #nextQuote = -1;
  #nextBackslash = -1;
  #nextNewline = -1;

  readonly #strings: SpooledString[] = [];
  /** Every file made, so abort() can delete them. */
  readonly #paths: string[] = [];

  constructor(options: RawSpoolOptions) {
    const min = options.minStringBytes ?? DEFAULT_MIN_STRING_BYTES;
    const head = options.headBytes ?? DEFAULT_HEAD_BYTES;
    if (!Number.isSafeInteger(min) || min < 0) throw new RangeError(`minStringBytes must be a non-negative integer, got ${min}`);
    if (!Number.isSafeInteger(head) || head < 0) throw new RangeError(`headBytes must be a non-negative integer, got ${head}`);
    this.#dir = options.dir;
    this.#minStringBytes = min;
    this.#headBytes = head;
    this.#newPlaceholder = options.newPlaceholder ?? (() => `\u0000spillway-raw:${randomUUID()}`);
  }

  /** The next bytes of the message, in order; any cut is allowed. Views of `piece` may be kept. */
  push(piece: Buffer): void {
    if (this.#done) throw new Error('RawMessageSpool: push() after finish() or abort()');
    this.#totalBytes += piece.length;
    this.#useSource(piece);
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
          this.#useSource(piece);
          segmentStart = end;
        }
      } else {
        const after = this.#decodeLong(piece, i, end);
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

  /** Ends the message: flushes and closes the files, and returns the skeleton and the spooled strings. */
  finish(): { skeleton: string; strings: SpooledString[]; totalBytes: number } {
    if (this.#done) throw new Error('RawMessageSpool: finish() after finish() or abort()');
    // An unterminated long string: its literal is left unterminated in the skeleton, which keeps it invalid.
    if (this.#state === LONG) this.#closeString(false);
    this.#done = true;
    this.#batch = undefined;
    this.#batchView = undefined;
    this.#source = undefined;
    this.#sourceView = undefined;
    const skeleton = Buffer.concat(this.#skeleton, this.#skeletonBytes).toString('utf8');
    this.#skeleton = [];
    return { skeleton, strings: [...this.#strings], totalBytes: this.#totalBytes };
  }

  /** Gives up: closes and deletes every file made so far (also after finish()). Never throws. */
  abort(): void {
    this.#done = true;
    const open = this.#open;
    this.#open = undefined;
    if (open && open.fd >= 0) {
      try {
        closeSync(open.fd);
      } catch {
        // already closed or broken; the file is deleted below either way
      }
    }
    for (const path of this.#paths.splice(0)) {
      try {
        unlinkSync(path);
      } catch {
        // gone already (e.g. moved into the spill store by the caller)
      }
    }
    this.#batch = undefined;
    this.#batchView = undefined;
    this.#source = undefined;
    this.#sourceView = undefined;
    this.#skeleton = [];
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

  // --- scanning ----------------------------------------------------------------------------------------

  #useSource(source: Buffer): void {
    if (this.#source === source) return;
    this.#source = source;
    this.#sourceView = undefined;
    this.#nextQuote = -1;
    this.#nextBackslash = -1;
    this.#nextNewline = -1;
  }

  #quoteFrom(i: number): number {
    if (this.#nextQuote < i) {
      const found = this.#source!.indexOf(QUOTE, i);
      this.#nextQuote = found < 0 ? this.#source!.length : found;
    }
    return this.#nextQuote;
  }

  #backslashFrom(i: number): number {
    if (this.#nextBackslash < i) {
      const found = this.#source!.indexOf(BACKSLASH, i);
      this.#nextBackslash = found < 0 ? this.#source!.length : found;
    }
    return this.#nextBackslash;
  }

  /** Raw '\n' bytes in source[from, to) (invalid JSON inside a string, but counted exactly anyway). */
  #newlinesIn(from: number, to: number): number {
    let count = 0;
    for (;;) {
      if (this.#nextNewline < from) {
        const found = this.#source!.indexOf(NEWLINE, from);
        this.#nextNewline = found < 0 ? this.#source!.length : found;
      }
      if (this.#nextNewline >= to) return count;
      count++;
      from = this.#nextNewline + 1;
    }
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
        if (quote === scanEnd && quote < end) quote = this.#quoteFrom(quote);
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
        stop = this.#quoteFrom(scanEnd);
        const backslash = this.#backslashFrom(scanEnd);
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
    const path = join(this.#dir, `raw-${randomUUID()}.txt`);
    const fd = openSync(path, 'wx', 0o600);
    this.#paths.push(path);
    this.#open = {
      placeholder,
      path,
      fd,
      hash: createHash('sha256'),
      bytes: 0,
      escapedBytes: 0,
      newlines: 0,
      head: Buffer.allocUnsafe(this.#headBytes),
      headLength: 0,
      tail: Buffer.alloc(0),
      invalid: false,
    };
    if (!this.#batch) {
      this.#batch = Buffer.allocUnsafe(BATCH_BYTES + BATCH_SLACK);
      this.#batchView = new DataView(this.#batch.buffer, this.#batch.byteOffset, this.#batch.length);
    }
    this.#batchLength = 0;
    this.#escape = 0;
    this.#hex = 0;
    this.#pendingHigh = 0;
    this.#state = LONG;
    // The content read so far never holds the closing quote (the string would have ended).
    this.#useSource(literalStart);
    this.#decodeLong(literalStart, 1, literalStart.length);
  }

  /**
   * Unescapes source[i, end) of the open string into the batch. Returns the position after the closing
   * quote, or -1 when the string goes on past `end`.
   */
  #decodeLong(src: Buffer, i: number, end: number): number {
    this.#useSource(src);
    const open = this.#open!;
    const batch = this.#batch!;
    const start = i;
    let o = this.#batchLength;
    let newlines = 0;
    let closedAt = -1;
    // Cached positions of the next backslash / quote, kept in locals for the hot loop.
    let nextBackslash = this.#nextBackslash;
    let nextQuote = this.#nextQuote;
    let dense = this.#dense;
    while (i < end) {
      if (o >= BATCH_BYTES) o = this.#flush(o, false);
      if (this.#escape !== 0) {
        // Slow path: an escape split across pieces, or one with a bad character.
        const c = src[i];
        if (this.#escape === 1) {
          const simple = SIMPLE_ESCAPE[c];
          if (simple >= 0) {
            if (this.#pendingHigh !== 0) o = this.#replacement(o);
            batch[o++] = simple;
            if (simple === NEWLINE) newlines++;
            this.#escape = 0;
          } else if (c === LETTER_U) {
            this.#escape = 2;
            this.#hex = 0;
          } else {
            // Not a JSON escape: keep the byte, mark the string so the skeleton fails to parse.
            open.invalid = true;
            if (this.#pendingHigh !== 0) o = this.#replacement(o);
            batch[o++] = c;
            if (c === NEWLINE) newlines++;
            this.#escape = 0;
          }
          i++;
        } else {
          const digit = HEX[c];
          if (digit < 0) {
            // A bad `\u`: drop it and read this byte again as ordinary content (it may be the closing quote).
            open.invalid = true;
            this.#escape = 0;
            continue;
          }
          this.#hex = (this.#hex << 4) | digit;
          i++;
          if (++this.#escape === 6) {
            this.#escape = 0;
            o = this.#unit(this.#hex, o);
          }
        }
        continue;
      }
      const c = src[i];
      if (c === QUOTE) {
        closedAt = i;
        break;
      }
      if (c === BACKSLASH) {
        // Escapes complete in this piece are decoded here; others go through the slow path above.
        if (i + 1 < end) {
          const simple = SIMPLE_ESCAPE[src[i + 1]];
          if (simple >= 0) {
            if (this.#pendingHigh !== 0) o = this.#replacement(o);
            batch[o++] = simple;
            if (simple === NEWLINE) newlines++;
            i += 2;
            continue;
          }
          if (src[i + 1] === LETTER_U && i + 5 < end) {
            const h1 = HEX[src[i + 2]];
            const h2 = HEX[src[i + 3]];
            const h3 = HEX[src[i + 4]];
            const h4 = HEX[src[i + 5]];
            if ((h1 | h2 | h3 | h4) >= 0) {
              o = this.#unit((h1 << 12) | (h2 << 8) | (h3 << 4) | h4, o);
              i += 6;
              continue;
            }
          }
        }
        this.#escape = 1;
        i++;
        continue;
      }
      if (this.#pendingHigh !== 0) o = this.#replacement(o);
      // The hot loop: raw runs and one-character escapes, until a quote, a `\u`, the end of the piece or
      // a full batch. While runs are short (JSON text inside the string: `\"` every few bytes) they are
      // scanned and copied byte by byte; long runs are found with indexOf and copied in bulk.
      for (;;) {
        const room = BATCH_BYTES - o;
        if (room <= 0) break;
        const runEnd = end - i > room ? i + room : end;
        let native = !dense;
        if (dense) {
          const runStart = i;
          const scanEnd = runEnd - i > JS_SCAN_BYTES ? i + JS_SCAN_BYTES : runEnd;
          for (; i < scanEnd; i++) {
            const c = src[i];
            if (c === QUOTE || c === BACKSLASH) break;
            batch[o++] = c;
          }
          // Raw '\n' is invalid inside a JSON string (the line framer never passes one) but is counted exactly.
          if (this.#nextNewline < i) newlines += this.#newlinesIn(runStart, i);
          if (i === scanEnd && i < runEnd) native = true; // a long run after all
        }
        if (native) {
          if (nextBackslash < i) {
            nextBackslash = src.indexOf(BACKSLASH, i);
            if (nextBackslash < 0) nextBackslash = src.length;
          }
          if (nextQuote < i) {
            nextQuote = src.indexOf(QUOTE, i);
            if (nextQuote < 0) nextQuote = src.length;
          }
          let stop = nextBackslash < nextQuote ? nextBackslash : nextQuote;
          if (stop > runEnd) stop = runEnd;
          dense = stop - i < DENSE_RUN_BYTES;
          if (this.#nextNewline < stop) newlines += this.#newlinesIn(i, stop);
          if (stop - i >= NATIVE_COPY_BYTES) {
            src.copy(batch, o, i, stop);
            o += stop - i;
            i = stop;
          } else {
            const from = (this.#sourceView ??= new DataView(src.buffer, src.byteOffset, src.length));
            const to = this.#batchView!;
            for (const last = stop - 8; i <= last; i += 8, o += 8) {
              to.setUint32(o, from.getUint32(i, true), true);
              to.setUint32(o + 4, from.getUint32(i + 4, true), true);
            }
            while (i < stop) batch[o++] = src[i++];
          }
        }
        if (i + 1 >= end || src[i] !== BACKSLASH) break;
        const simple = SIMPLE_ESCAPE[src[i + 1]];
        if (simple < 0) break;
        batch[o++] = simple;
        if (simple === NEWLINE) newlines++;
        i += 2;
      }
    }
    this.#dense = dense;
    this.#nextBackslash = nextBackslash;
    this.#nextQuote = nextQuote;
    open.escapedBytes += (closedAt < 0 ? end : closedAt) - start;
    open.newlines += newlines;
    this.#batchLength = o;
    return closedAt < 0 ? -1 : closedAt + 1;
  }

  /** Writes one UTF-16 code unit from a `\u` escape, pairing surrogates as JSON.parse + UTF-8 encoding would. */
  #unit(u: number, o: number): number {
    const batch = this.#batch!;
    if (this.#pendingHigh !== 0) {
      if (u >= 0xdc00 && u <= 0xdfff) {
        const cp = 0x10000 + ((this.#pendingHigh - 0xd800) << 10) + (u - 0xdc00);
        this.#pendingHigh = 0;
        batch[o++] = 0xf0 | (cp >> 18);
        batch[o++] = 0x80 | ((cp >> 12) & 0x3f);
        batch[o++] = 0x80 | ((cp >> 6) & 0x3f);
        batch[o++] = 0x80 | (cp & 0x3f);
        return o;
      }
      o = this.#replacement(o);
    }
    if (u < 0x80) {
      batch[o++] = u;
      if (u === NEWLINE) this.#open!.newlines++;
    } else if (u < 0x800) {
      batch[o++] = 0xc0 | (u >> 6);
      batch[o++] = 0x80 | (u & 0x3f);
    } else if (u >= 0xd800 && u <= 0xdbff) {
      this.#pendingHigh = u;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      o = this.#replacement(o);
    } else {
      batch[o++] = 0xe0 | (u >> 12);
      batch[o++] = 0x80 | ((u >> 6) & 0x3f);
      batch[o++] = 0x80 | (u & 0x3f);
    }
    return o;
  }

  /** A lone surrogate becomes U+FFFD, as Buffer.from(string, 'utf8') writes it. */
  #replacement(o: number): number {
    const batch = this.#batch!;
    this.#pendingHigh = 0;
    batch[o++] = 0xef;
    batch[o++] = 0xbf;
    batch[o++] = 0xbd;
    return o;
  }

  /**
   * Writes the batch to the file. Unless `final`, an incomplete UTF-8 char at its end is kept for the
   * next batch. Invalid UTF-8 (only possible from raw input bytes) is replaced the way Buffer#toString
   * does it, so the file holds what the unstreamed path (decode the line, JSON.parse) would have got.
   */
  #flush(o: number, final: boolean): number {
    const open = this.#open!;
    const batch = this.#batch!;
    let cut = o;
    if (!final) {
      for (let k = o - 1; k >= 0 && k >= o - 3; k--) {
        const b = batch[k];
        if ((b & 0xc0) !== 0x80) {
          if (b >= 0xc0) cut = k;
          break;
        }
      }
    }
    let out = batch.subarray(0, cut);
    if (!isUtf8(out)) out = Buffer.from(out.toString('utf8'), 'utf8');
    for (let written = 0; written < out.length; ) written += writeSync(open.fd, out, written, out.length - written);
    open.hash.update(out);
    open.bytes += out.length;
    if (open.headLength < open.head.length) {
      open.headLength += out.copy(open.head, open.headLength, 0, Math.min(out.length, open.head.length - open.headLength));
    }
    if (out.length >= TAIL_BYTES) {
      open.tail = Buffer.from(out.subarray(out.length - TAIL_BYTES));
    } else if (out.length > 0) {
      const joined = Buffer.concat([open.tail, out]);
      open.tail = joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
    }
    if (cut < o) batch.copyWithin(0, cut, o);
    return o - cut;
  }

  /** Ends the open string: closes its file and puts its placeholder's literal into the skeleton. */
  #closeString(terminated: boolean): void {
    const open = this.#open!;
    let o = this.#batchLength;
    if (this.#pendingHigh !== 0) o = this.#replacement(o);
    if (this.#escape !== 0) open.invalid = true;
    this.#escape = 0;
    this.#batchLength = this.#flush(o, true);
    closeSync(open.fd);
    open.fd = -1;
    this.#open = undefined;
    this.#state = OUTSIDE;
    const head =
      open.headLength === open.head.length ? open.head : Buffer.from(open.head.subarray(0, open.headLength));
    this.#strings.push({
      placeholder: open.placeholder,
      path: open.path,
      bytes: open.bytes,
      escapedBytes: open.escapedBytes,
      newlines: open.newlines,
      sha256: open.hash.digest(),
      head,
      tail: open.tail,
    });
    const literal = JSON.stringify(open.placeholder);
    // A bad escape or a missing closing quote: the skeleton must fail JSON.parse like the original would.
    const text = !terminated ? literal.slice(0, -1) : open.invalid ? `${literal.slice(0, -1)}\\invalid"` : literal;
    const bytes = Buffer.from(text, 'utf8');
    this.#skeleton.push(bytes);
    this.#skeletonBytes += bytes.length;
  }
}
