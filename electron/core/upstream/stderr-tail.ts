import { cutAtWord } from '../text/word-cut.js';

/** Longest stderr line kept; a server dumping megabytes without a newline must not grow memory. */
export const MAX_STDERR_LINE_CHARS = 8 * 1024;

/**
 * The last N lines a server wrote to stderr, split from decoded text chunks. Each completed line is
 * also handed to `onLine`.
 */
export class StderrTail {
  readonly #capacity: number;
  readonly #lines: string[] = [];
  #partial = '';
  /** True while skipping the rest of a line that was cut at MAX_STDERR_LINE_CHARS. */
  #cut = false;

  readonly #onLine: (line: string) => void;

  constructor(capacity: number, onLine: (line: string) => void = () => {}) {
    this.#capacity = Math.max(0, Math.floor(capacity));
    this.#onLine = onLine;
  }

  /** Feeds decoded text (the stream should be set to utf8 so characters are never split). */
  push(text: string): void {
    let start = 0;
    while (start < text.length) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      if (!this.#cut) {
        const room = MAX_STDERR_LINE_CHARS - this.#partial.length;
        this.#partial += text.slice(start, start + Math.min(end - start, room));
        if (end - start > room) {
          // Cut where a word ends: the line is masked for secrets later, by whole values.
          this.#emit(`${cutAtWord(this.#partial + text.slice(start + room, start + room + 1), MAX_STDERR_LINE_CHARS)}…`);
          this.#cut = true;
        }
      }
      if (newline === -1) return;
      if (this.#cut) this.#cut = false;
      else this.#emit(this.#partial);
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  flush(): void {
    if (this.#partial !== '' && !this.#cut) this.#emit(this.#partial);
    this.#partial = '';
    this.#cut = false;
  }

  /** A copy of the kept lines, oldest first. */
  lines(): string[] {
    return [...this.#lines];
  }

  #emit(raw: string): void {
    this.#partial = '';
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.#capacity > 0) {
      this.#lines.push(line);
      if (this.#lines.length > this.#capacity) this.#lines.shift();
    }
    this.#onLine(line);
  }
}

/** Lines of a crash report that say nothing of its cause: stack frames, Node's version trailer, an error object's fields. */
const NOISE = [/^\s+at\s/, /^Node\.js v\d/, /^\s*[{}[\]]\s*,?$/, /^\s*(code|requireStack|errno|syscall|path|cause):/, /^\s*\^+\s*$/];
/** A line naming an error: "Error: …", "TypeError: …", Python's "ModuleNotFoundError: …", Go's "panic: …", Rust's "… panicked at …". */
const ERROR_LINE = /^\s*(Uncaught )?[A-Za-z_.]*(Error|Exception)\b[^:]*:\s*\S|^\s*panic:|\bpanicked at\b/;
/** Telling lines an error line is looked for in: one printed long before the end is an old warning, not why it failed. */
const RECENT_LINES = 5;

/**
 * The stderr lines that say why a server failed: its last error line when it printed one among its last
 * few telling lines, else its last three lines that are not stack frames or trailers.
 */
export function stderrSummary(lines: readonly string[]): string[] {
  const telling = lines.filter((line) => line.trim() !== '' && !NOISE.some((re) => re.test(line)));
  const error = telling.slice(-RECENT_LINES).findLast((line) => ERROR_LINE.test(line));
  return error !== undefined ? [error.trim()] : telling.slice(-3).map((line) => line.trim());
}
