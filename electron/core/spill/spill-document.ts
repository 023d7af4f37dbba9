import { LRUCache } from 'lru-cache';
import { parseJson } from './result-view.js';

/** A spilled text view held in memory for read operations; lines and JSON are derived once, on demand. */
export class SpillDocument {
  readonly text: string;
  #lines: string[] | null = null;
  #json: { value: unknown } | undefined | null = null;

  constructor(text: string) {
    this.text = text;
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

  /** The parsed JSON value, or undefined when the text is not JSON. */
  get json(): { value: unknown } | undefined {
    if (this.#json === null) this.#json = parseJson(this.text);
    return this.#json;
  }
}

/** Read-back texts are cached for a model's run of reads, then given back. */
const DOCUMENT_TTL_MS = 2 * 60_000;

/** The store's cache of read-back documents, by handle, bounded by `maxBytes` (3 bytes a character). */
export function documentCache(maxBytes: number): LRUCache<string, SpillDocument> {
  return new LRUCache<string, SpillDocument>({
    maxSize: maxBytes,
    sizeCalculation: (doc) => Math.max(1, doc.text.length * 3),
    // Nothing payload-sized stays after the reads: a text unread for a while is dropped (timers unref'd).
    ttl: DOCUMENT_TTL_MS,
    ttlAutopurge: true,
    updateAgeOnGet: true,
  });
}
