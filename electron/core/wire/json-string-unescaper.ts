import { isUtf8 } from 'node:buffer';
import { BACKSLASH, JS_SCAN_BYTES, NEWLINE, QUOTE, type ByteScanner } from './byte-scanner.js';
import type { SpoolFile } from './spool-file.js';

/** Output is written in batches of about this size: few syscalls, bounded memory. */
const BATCH_BYTES = 1024 * 1024;
/**
 * A batch holding this much is written when a piece has been read, without waiting for it to fill: the
 * writing and hashing keep pace with the message as it arrives, and little is left for its end.
 */
const PIECE_FLUSH_BYTES = 64 * 1024;
/** Room past BATCH_BYTES: one decoding step writes at most 7 bytes (U+FFFD + a 4-byte char). */
const BATCH_SLACK = 16;
/**
 * Runs between escapes shorter than this are copied 8 bytes at a time through DataViews (as integers:
 * floats could alter NaN bits): for text with an escaped newline every line, Buffer#copy's per-call
 * cost would dominate.
 */
const NATIVE_COPY_BYTES = 256;
/** Inside a spooled string, runs shorter than this keep the byte-by-byte scan on for the next run. */
const DENSE_RUN_BYTES = 24;

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

/**
 * Unescapes the content of one JSON string literal at a time, fed in pieces that may cut anywhere (even
 * inside an escape), into UTF-8 batches written to a SpoolFile: the bytes JSON.parse and UTF-8 encoding
 * of the whole literal would give. One unescaper serves every long string of a message, in turn, so its
 * batch buffer is allocated once.
 */
export class JsonStringUnescaper {
  readonly #scan: ByteScanner;
  readonly #batch: Buffer = Buffer.allocUnsafe(BATCH_BYTES + BATCH_SLACK);
  readonly #batchView = new DataView(this.#batch.buffer, this.#batch.byteOffset, this.#batch.length);
  #batchLength = 0;
  #file: SpoolFile | undefined;

  /** 0 = none, 1 = after a backslash, 2..5 = reading the 4 hex digits of `\u`. */
  #escape = 0;
  #hex = 0;
  /** A high surrogate from a `\u` escape, waiting to see whether a low surrogate escape follows. */
  #pendingHigh = 0;
  /** Whether the last raw run inside the string was short (see the hot loop in decode). */
  #dense = true;

  /** Bytes of the current literal's content as it was on the wire (escaped form). */
  escapedBytes = 0;
  /** Number of '\n' characters in the current text. */
  newlines = 0;
  /** A bad escape was seen: JSON.parse would reject the original literal. */
  invalid = false;

  /** `scan` is the spool's scanner: the unescaper reads the same pieces, and reuses what it found. */
  constructor(scan: ByteScanner) {
    this.#scan = scan;
  }

  /** Starts a new string, written to `file`. */
  begin(file: SpoolFile): void {
    this.#file = file;
    this.#batchLength = 0;
    this.#escape = 0;
    this.#hex = 0;
    this.#pendingHigh = 0;
    this.escapedBytes = 0;
    this.newlines = 0;
    this.invalid = false;
  }

  /**
   * Unescapes src[i, end) of the current string into the batch. Returns the position after the closing
   * quote, or -1 when the string goes on past `end`.
   */
  decode(src: Buffer, i: number, end: number): number {
    const scan = this.#scan;
    scan.use(src);
    const batch = this.#batch;
    const start = i;
    let o = this.#batchLength;
    let newlines = 0;
    let closedAt = -1;
    // Cached positions of the next backslash / quote, kept in locals for the hot loop.
    let nextBackslash = scan.nextBackslash;
    let nextQuote = scan.nextQuote;
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
            this.invalid = true;
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
            this.invalid = true;
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
          if (scan.nextNewline < i) newlines += scan.newlinesIn(runStart, i);
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
          if (scan.nextNewline < stop) newlines += scan.newlinesIn(i, stop);
          if (stop - i >= NATIVE_COPY_BYTES) {
            src.copy(batch, o, i, stop);
            o += stop - i;
            i = stop;
          } else {
            const from = scan.view();
            const to = this.#batchView;
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
    scan.nextBackslash = nextBackslash;
    scan.nextQuote = nextQuote;
    this.escapedBytes += (closedAt < 0 ? end : closedAt) - start;
    this.newlines += newlines;
    this.#batchLength = closedAt < 0 && o >= PIECE_FLUSH_BYTES ? this.#flush(o, false) : o;
    return closedAt < 0 ? -1 : closedAt + 1;
  }

  /** Ends the current string (closed or cut short): a dangling surrogate or escape is settled, the rest written. */
  end(): void {
    let o = this.#batchLength;
    if (this.#pendingHigh !== 0) o = this.#replacement(o);
    if (this.#escape !== 0) this.invalid = true;
    this.#escape = 0;
    this.#batchLength = this.#flush(o, true);
    this.#file = undefined;
  }

  /** Writes one UTF-16 code unit from a `\u` escape, pairing surrogates as JSON.parse + UTF-8 encoding would. */
  #unit(u: number, o: number): number {
    const batch = this.#batch;
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
      if (u === NEWLINE) this.newlines++;
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
    const batch = this.#batch;
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
    const batch = this.#batch;
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
    this.#file!.write(out);
    if (cut < o) batch.copyWithin(0, cut, o);
    return o - cut;
  }
}
