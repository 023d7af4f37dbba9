/**
 * Finds the next quote, backslash or newline in one buffer lazily, remembering each position until the
 * reader passes it: the raw spool's skeleton walk and its string unescaper share one scanner per piece,
 * so neither searches the same bytes twice.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const NEWLINE = 0x0a;

/**
 * A quote or backslash is first looked for byte by byte over this many bytes, then with Buffer.indexOf:
 * typical JSON has a quote every few bytes, where a native call per quote would cost more than the scan.
 */
export const JS_SCAN_BYTES = 48;

export class ByteScanner {
  /** The buffer being read; positions below refer to it (its length = none left). */
  source: Buffer | undefined;
  /** Next found positions; a value below the reader's position means "not looked for yet". The unescaper's hot loop keeps them in locals and writes them back. */
  nextQuote = -1;
  nextBackslash = -1;
  nextNewline = -1;
  #view: DataView | undefined;

  /** Switches to `source` (a no-op when it is the current one). */
  use(source: Buffer): void {
    if (this.source === source) return;
    this.source = source;
    this.#view = undefined;
    this.nextQuote = -1;
    this.nextBackslash = -1;
    this.nextNewline = -1;
  }

  /** Lets go of the current buffer. */
  release(): void {
    this.source = undefined;
    this.#view = undefined;
  }

  /** A DataView over the current source, made once per source. */
  view(): DataView {
    const source = this.source!;
    return (this.#view ??= new DataView(source.buffer, source.byteOffset, source.length));
  }

  quoteFrom(i: number): number {
    if (this.nextQuote < i) {
      const found = this.source!.indexOf(QUOTE, i);
      this.nextQuote = found < 0 ? this.source!.length : found;
    }
    return this.nextQuote;
  }

  backslashFrom(i: number): number {
    if (this.nextBackslash < i) {
      const found = this.source!.indexOf(BACKSLASH, i);
      this.nextBackslash = found < 0 ? this.source!.length : found;
    }
    return this.nextBackslash;
  }

  /** Raw '\n' bytes in source[from, to) (invalid JSON inside a string, but counted exactly anyway). */
  newlinesIn(from: number, to: number): number {
    let count = 0;
    for (;;) {
      if (this.nextNewline < from) {
        const found = this.source!.indexOf(NEWLINE, from);
        this.nextNewline = found < 0 ? this.source!.length : found;
      }
      if (this.nextNewline >= to) return count;
      count++;
      from = this.nextNewline + 1;
    }
  }
}
