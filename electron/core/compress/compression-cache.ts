import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CompressContentType } from './content-type.js';

/** Everything that changes what the model would answer. */
export interface CompressionKey {
  text: string;
  strategy: CompressContentType;
  goal?: string;
  customInstructions?: string;
  model: string;
  /**
   * Part of the key so that retry escalation is not defeated: a repeat call within the window asks for a
   * larger budget and must reach the model, not get the short summary back.
   */
  maxOutputTokens: number;
  /** Whether the text was masked before it was sent (the answer differs). */
  masked?: boolean;
}

export interface CachedCompression {
  /** The condensed text, without the header. */
  body: string;
  bodyTokens: number;
}

export interface CompressionCacheOptions {
  /** Entries kept. Default 500. */
  maxEntries?: number;
  /** Characters of condensed text kept in all. Default 16 Mi. */
  maxChars?: number;
  /** Default 30 minutes: summaries of a live system go stale. */
  ttlMs?: number;
  /** Injected clock for the TTL (lru-cache's `perf` option). */
  now?: () => number;
}

/** Condensed results in memory, keyed by a hash of the text and everything that shaped the summary. */
export class CompressionCache {
  readonly #lru: LRUCache<string, CachedCompression>;

  constructor(options: CompressionCacheOptions = {}) {
    const now = options.now;
    this.#lru = new LRUCache<string, CachedCompression>({
      max: options.maxEntries ?? 500,
      maxSize: options.maxChars ?? 16 * 1024 * 1024,
      sizeCalculation: (entry) => Math.max(1, entry.body.length),
      ttl: options.ttlMs ?? 30 * 60_000,
      // lru-cache reuses a clock reading for `ttlResolution` ms; an injected clock is read every time.
      ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
    });
  }

  /** A sha256 over the key's parts, each length-prefixed so no two keys collide by concatenation. */
  static key(key: CompressionKey): string {
    const hash = createHash('sha256');
    for (const part of [
      key.strategy,
      key.model,
      String(key.maxOutputTokens),
      key.masked ? 'masked' : 'plain',
      key.goal ?? '',
      key.customInstructions ?? '',
      key.text,
    ]) {
      hash.update(`${part.length}:`);
      hash.update(part);
    }
    return hash.digest('hex');
  }

  get(key: string): CachedCompression | undefined {
    return this.#lru.get(key);
  }

  set(key: string, value: CachedCompression): void {
    this.#lru.set(key, value);
  }

  get size(): number {
    return this.#lru.size;
  }

  clear(): void {
    this.#lru.clear();
  }
}
