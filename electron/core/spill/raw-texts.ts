/**
 * Long texts an upstream streamed straight to disk (wire/raw-spool.ts) while its message arrived: the
 * parsed message holds a short placeholder string in their place, this registry knows which file each
 * placeholder stands for. The spill path moves such a file into the store as `text.txt` without ever
 * holding the text in memory (issue 4: time and peak memory flat in the payload); every other path reads
 * it back (`materialize`) and gets exactly the message the upstream sent.
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import type { RawSpoolOptions, SpooledString } from '../wire/raw-spool.js';

/** The folder under the spill folder where texts are spooled; emptied at every start. */
export const RAW_DIR_NAME = '.raw';
/** A line longer than this is streamed through a spool instead of being joined in memory. */
const DEFAULT_SPOOL_ABOVE_BYTES = 1024 * 1024;
/** Strings longer than this (escaped bytes) in a spooled line go to files. */
const DEFAULT_SPOOL_MIN_STRING_BYTES = 64 * 1024;
/** Texts nobody claimed (a cancelled call, a crash in between) are deleted after this long. */
const MAX_AGE_MS = 10 * 60_000;

/** What an upstream transport needs to spool long lines into this registry. */
export interface SpoolTarget {
  aboveBytes: number;
  options: RawSpoolOptions;
  /** Takes the texts of a tool result over (its placeholders stay valid until materialized or taken). */
  adopt(strings: SpooledString[]): void;
}

export interface RawTextsOptions {
  /** The spool folder itself, normally `<spill>/.raw`. */
  dir: string;
  now?: () => number;
  aboveBytes?: number;
  minStringBytes?: number;
}

export class RawTexts implements SpoolTarget {
  readonly dir: string;
  readonly aboveBytes: number;
  readonly options: RawSpoolOptions;
  readonly #held = new Map<string, { text: SpooledString; at: number }>();
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;

  private constructor(options: RawTextsOptions) {
    this.dir = options.dir;
    this.#now = options.now ?? Date.now;
    this.aboveBytes = options.aboveBytes ?? DEFAULT_SPOOL_ABOVE_BYTES;
    this.options = { dir: this.dir, minStringBytes: options.minStringBytes ?? DEFAULT_SPOOL_MIN_STRING_BYTES };
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
    for (const text of used) this.#held.delete(text.placeholder);
    return readBackSpooled(value, [...used]);
  }

  /** Hands a text's file over to the caller (which moves or deletes it); the placeholder is forgotten. */
  take(placeholder: string): SpooledString | undefined {
    const held = this.#held.get(placeholder);
    this.#held.delete(placeholder);
    return held?.text;
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
    await this.#remove([...this.#held.values()].map((h) => h.text));
  }

  async #remove(texts: Iterable<SpooledString>): Promise<void> {
    const paths: string[] = [];
    for (const text of texts) {
      this.#held.delete(text.placeholder);
      paths.push(text.path);
    }
    await Promise.all(paths.map((path) => rm(path, { force: true }).catch(() => {})));
  }
}

/**
 * A tool result (or any message) with each of `strings`' placeholders replaced by its text, read from
 * disk without blocking; the files are deleted.
 */
export async function readBackSpooled<T>(message: T, strings: readonly SpooledString[]): Promise<T> {
  const texts = new Map<string, string>();
  try {
    for (const s of strings) texts.set(s.placeholder, await readFile(s.path, 'utf8'));
  } finally {
    await Promise.all(strings.map((s) => rm(s.path, { force: true }).catch(() => {})));
  }
  return replaceStrings(message, (s) => texts.get(s)) as T;
}

/**
 * A message whose spooled texts nobody will adopt (anything but a tool result) as the upstream sent it:
 * each placeholder replaced by its text, the files deleted. Synchronous, for a transport that delivers
 * messages in order as they arrive; tool results take the asynchronous `materialize` path instead.
 */
export function inlineSpooled<T>(message: T, strings: readonly SpooledString[]): T {
  const texts = new Map<string, string>();
  try {
    for (const s of strings) texts.set(s.placeholder, readFileSync(s.path, 'utf8'));
  } finally {
    for (const s of strings) rmSync(s.path, { force: true });
  }
  return replaceStrings(message, (s) => texts.get(s)) as T;
}

/** Calls `visit` with every string in `value`, object keys included, at any depth. */
export function visitStrings(value: unknown, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, visit);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      visit(key);
      visitStrings(item, visit);
    }
  }
}

/** A copy of `value` with the strings `swap` knows replaced (keys too); untouched branches are shared. */
function replaceStrings(value: unknown, swap: (s: string) => string | undefined): unknown {
  if (typeof value === 'string') return swap(value) ?? value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = replaceStrings(item, swap);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const k = swap(key) ?? key;
      const next = replaceStrings(item, swap);
      if (next !== item || k !== key) changed = true;
      out[k] = next;
    }
    return changed ? out : value;
  }
  return value;
}
