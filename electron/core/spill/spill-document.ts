import { LRUCache } from 'lru-cache';
import { numbersParseExactly } from '../encoding/toon-encoding.js';
import { parseJsonExactly } from './exact-json.js';
import { looksLikeJson, parseJson, parseJsonSequence } from './result-view.js';

/** A line's cost beyond its characters: a sliced string's header (32 bytes) and its slot in the array (8). */
const LINE_BYTES = 40;

/** A spilled text view held in memory for read operations; lines and JSON are derived once, on demand. */
export class SpillDocument {
  readonly text: string;
  #lines: string[] | null = null;
  #json: { value: unknown } | undefined | null = null;
  #numbersExact: boolean | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /**
   * What the document may hold in memory once read (what the cache counts): its text (up to 3 bytes a
   * character), the lines it is split into (a string header and a slot each), and for a JSON text its
   * parsed value (about twice the text again). Counting the text alone let a 64 MB cache hold ~1.7x that.
   */
  get weight(): number {
    let lines = 1;
    for (let at = this.text.indexOf('\n'); at !== -1; at = this.text.indexOf('\n', at + 1)) lines++;
    const json = /^\s*[[{]/.test(this.text.slice(0, 64)) ? this.text.length * 2 : 0;
    return this.text.length * 3 + lines * LINE_BYTES + json;
  }

  /** Lines without their terminators (`\n` or `\r\n`); a trailing newline does not add an empty line. */
  get lines(): string[] {
    if (!this.#lines) {
      const lines = this.text.length === 0 ? [] : this.text.split(/\r?\n/);
      if (lines.length > 0 && lines[lines.length - 1] === '' && this.text.endsWith('\n')) lines.pop();
      this.#lines = lines;
    }
    return this.#lines;
  }

  /** Whether JSON.parse holds each number of the text exactly (not so for a 64-bit id): then `json` is JSON.parse's. */
  get numbersExact(): boolean {
    return (this.#numbersExact ??= numbersParseExactly(this.text));
  }

  /**
   * The parsed JSON value (for several JSON values one after another, an array of them: parseJsonSequence),
   * or undefined when the text is not JSON. A number a double cannot hold (a 64-bit
   * id, 1e400) is a LosslessNumber holding its text (exact-json.ts): such a text takes ~5x as long to parse,
   * so the read thread parses it (read-result.ts).
   */
  get json(): { value: unknown } | undefined {
    if (this.#json === null) {
      // The numbers are looked at only in a text that may be JSON (a log's are never parsed).
      if (!looksLikeJson(this.text)) this.#json = undefined;
      else {
        const parse = this.numbersExact ? parseJson : parseJsonExactly;
        // JSON Lines, or JSON texts joined (a result of several JSON text blocks), are queried as an array of their values.
        this.#json = parse(this.text) ?? parseJsonSequence(this.text, parse);
      }
    }
    return this.#json;
  }
}

/** Read-back texts are cached for a model's run of reads, then given back. */
const DOCUMENT_TTL_MS = 2 * 60_000;

/** The store's cache of read-back documents, by handle, bounded by `maxBytes` (see SpillDocument.weight). */
export function documentCache(maxBytes: number): LRUCache<string, SpillDocument> {
  return new LRUCache<string, SpillDocument>({
    maxSize: maxBytes,
    sizeCalculation: (doc) => Math.max(1, doc.weight),
    // Nothing payload-sized stays after the reads: a text unread for a while is dropped (timers unref'd).
    ttl: DOCUMENT_TTL_MS,
    ttlAutopurge: true,
    updateAgeOnGet: true,
  });
}
