/**
 * Long texts an upstream streamed straight to disk (wire/raw-spool.ts) while its message arrived: the
 * parsed message holds a short placeholder string in their place, this registry knows which file each
 * placeholder stands for. The spill path moves such a file into the store as `text.txt` without ever
 * holding the text in memory (issue 4: time and peak memory flat in the payload); every other path reads
 * it back (`materialize`) and gets exactly the message the upstream sent.
 */
import { isAscii } from 'node:buffer';
import { mkdir, rm } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { TextSample, TokenBudgetCut, TokenCounter } from '../tokens/token-counter.js';
import type { RawSpoolOptions, SpooledString } from '../wire/raw-spool.js';
import type { SpoolTarget } from '../wire/spool-target.js';
import { inlineSpooled, removeSpooled, visitStrings } from '../wire/spooled-strings.js';

/** The folder under the spill folder where texts are spooled; emptied at every start. */
export const RAW_DIR_NAME = '.raw';
/**
 * A line longer than this is streamed through a spool instead of being joined in memory. Such a result
 * is almost always over its threshold, and spilling it from the spool costs less than parsing, hashing and
 * writing it from memory (a 1 MB text, measured here: ~3.6 against ~5.6 ms), its text never in memory.
 */
const DEFAULT_SPOOL_ABOVE_BYTES = 256 * 1024;
/** Strings longer than this (escaped bytes) in a spooled line go to files. */
const DEFAULT_SPOOL_MIN_STRING_BYTES = 64 * 1024;
/** Texts nobody claimed (a cancelled call, a crash in between) are deleted after this long. */
const MAX_AGE_MS = 10 * 60_000;
/**
 * Starts counted while texts arrived, kept at most: a text that is not a tool result is inlined without
 * this registry hearing of it, so its start is only dropped as older ones are.
 */
const MAX_STARTS = 32;

export interface RawTextsOptions {
  /** The spool folder itself, normally `<spill>/.raw`. */
  dir: string;
  now?: () => number;
  aboveBytes?: number;
  minStringBytes?: number;
  /** Counts the start of each long text while the rest still arrives (see `countedStart`). */
  counter?: TokenCounter;
  /** The preview budget most results get, cut in advance on the same start. */
  previewTokens?: () => number;
  /** The threshold most results get: counting the start stops once past it (that decides). */
  thresholdTokens?: () => number | undefined;
}

/** What was worked out on the start of a long text while the rest of it arrived. */
export interface CountedStart {
  /** The exact count of its start (see TokenCounter.countStart). */
  sample: Promise<TextSample | undefined>;
  /** UTF-8 bytes of the sample's characters (to scale the count to the whole text by its size). */
  sampleBytes: Promise<number | undefined>;
  /**
   * Its preview, cut from `chars` characters (its start as the spool handed it over, up to the last line
   * break) for `previewTokens` tokens.
   */
  preview: { chars: number; previewTokens: number; cut: Promise<TokenBudgetCut | undefined> } | undefined;
}

export class RawTexts implements SpoolTarget {
  readonly dir: string;
  readonly aboveBytes: number;
  readonly options: RawSpoolOptions;
  readonly #held = new Map<string, { text: SpooledString; at: number }>();
  /** Starts of texts counted while they arrived, by placeholder. */
  readonly #starts = new Map<string, CountedStart>();
  readonly #previewTokens: (() => number) | undefined;
  readonly #thresholdTokens: (() => number | undefined) | undefined;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;

  private constructor(options: RawTextsOptions) {
    this.dir = options.dir;
    this.#now = options.now ?? Date.now;
    this.aboveBytes = options.aboveBytes ?? DEFAULT_SPOOL_ABOVE_BYTES;
    const counter = options.counter;
    this.#previewTokens = options.previewTokens;
    this.#thresholdTokens = options.thresholdTokens;
    this.options = {
      dir: this.dir,
      minStringBytes: options.minStringBytes ?? DEFAULT_SPOOL_MIN_STRING_BYTES,
      ...(counter ? { onHead: (placeholder: string, head: Buffer) => this.#countStart(counter, placeholder, head) } : {}),
    };
    this.#timer = setInterval(() => this.sweep(), MAX_AGE_MS);
    this.#timer.unref();
  }

  /** Empties what an earlier run left behind and makes the folder (owner only). */
  static async open(options: RawTextsOptions): Promise<RawTexts> {
    await rm(options.dir, { recursive: true, force: true });
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    return new RawTexts(options);
  }

  adopt(strings: SpooledString[]): void {
    const at = this.#now();
    for (const text of strings) this.#held.set(text.placeholder, { text, at });
  }

  /** The spooled text a string stands for, when it is a placeholder this registry holds. */
  get(value: unknown): SpooledString | undefined {
    return typeof value === 'string' && value.charCodeAt(0) === 0 ? this.#held.get(value)?.text : undefined;
  }

  /** Whether any string in `value` (at any depth) is a held placeholder. */
  holds(value: unknown): boolean {
    if (this.#held.size === 0) return false;
    let found = false;
    visitStrings(value, (s) => {
      if (!found && this.get(s)) found = true;
    });
    return found;
  }

  /** `value` with every held placeholder replaced by its text read from disk; the files are deleted. */
  async materialize<T>(value: T): Promise<T> {
    const used = new Set<SpooledString>();
    visitStrings(value, (s) => {
      const text = this.get(s);
      if (text) used.add(text);
    });
    if (used.size === 0) return value;
    for (const text of used) {
      this.#held.delete(text.placeholder);
      this.#starts.delete(text.placeholder);
    }
    return inlineSpooled(value, [...used]);
  }

  /** Hands a text's file over to the caller (which moves or deletes it); the placeholder is forgotten. */
  take(placeholder: string): SpooledString | undefined {
    const held = this.#held.get(placeholder);
    this.#held.delete(placeholder);
    this.#starts.delete(placeholder);
    return held?.text;
  }

  /**
   * What was worked out on a text's start while the rest of it arrived, if it was: the spill decision
   * usually needs nothing more. Undefined for a text shorter than the spool's start, or without a counter.
   */
  countedStart(placeholder: string): CountedStart | undefined {
    return this.#starts.get(placeholder);
  }

  /** Runs inside the spool, which must not fail for it: whatever goes wrong only leaves the start uncounted. */
  #countStart(counter: TokenCounter, placeholder: string, start: Buffer): void {
    try {
      // The start may end inside a character: the decoder holds that back. Plain ASCII is copied as it is.
      const text = isAscii(start) ? start.toString('latin1') : new StringDecoder('utf8').write(start);
      const previewTokens = this.#previewTokens?.();
      let sample: CountedStart['sample'];
      let preview: CountedStart['preview'];
      if (previewTokens !== undefined) {
        const lineEnd = text.lastIndexOf('\n');
        const start = lineEnd <= 0 ? text : text.slice(0, lineEnd + 1);
        // One question to the tokenizer thread for both.
        const asked = counter.countStartAndCut(text, start, previewTokens, this.#thresholdTokens?.());
        sample = asked.sample.catch(() => undefined);
        preview = { chars: start.length, previewTokens, cut: asked.cut.catch(() => undefined) };
      } else {
        sample = counter.countStart(text).catch(() => undefined);
      }
      const sampleBytes = sample.then((s) => (s ? Buffer.byteLength(text.slice(0, s.chars), 'utf8') : undefined));
      this.#starts.set(placeholder, { sample, sampleBytes, preview });
      if (this.#starts.size > MAX_STARTS) this.#starts.delete(this.#starts.keys().next().value!);
    } catch {
      // counted at decision time instead
    }
  }

  /** Forgets the texts and deletes their files (in the background: nothing waits for it). */
  discard(texts: Iterable<SpooledString>): void {
    void this.#remove(texts);
  }

  /** Deletes texts nobody claimed within MAX_AGE_MS (their call was cancelled or failed on the way). */
  sweep(): void {
    const limit = this.#now() - MAX_AGE_MS;
    this.discard([...this.#held.values()].filter((h) => h.at <= limit).map((h) => h.text));
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#starts.clear();
    await this.#remove([...this.#held.values()].map((h) => h.text));
  }

  async #remove(texts: Iterable<SpooledString>): Promise<void> {
    const removed: SpooledString[] = [];
    for (const text of texts) {
      this.#held.delete(text.placeholder);
      this.#starts.delete(text.placeholder);
      removed.push(text);
    }
    await removeSpooled(removed);
  }
}
