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
          this.#emit(`${this.#partial}…`);
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
