/**
 * The tool-call cache (issue 5): LRU with a per-entry TTL, keyed by server, tool and the canonical JSON
 * of the final arguments (after overrides and hidden parameters). Off unless a policy gives a TTL.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LRUCache } from 'lru-cache';
import type { PiiVault } from '../pii/pii-vault.js';
import { canonicalJson } from './canonical-json.js';

export interface CachedCall {
  result: CallToolResult;
  /** When it was stored and when it expires (ms, on the cache's clock). */
  storedAt: number;
  expiresAt: number;
  /** What the original call cost, so a hit can be recorded as time and tokens saved. */
  durationMs?: number;
  tokens?: number;
  /**
   * The PII vault of the call that stored the result: it restores the placeholders the upstream answered
   * with (each call's placeholders carry their own tag, so a hit's own vault restores none of them). The
   * upstream was sent only placeholders of the arguments the entry is keyed by, so a hit (same arguments)
   * gets back its own values.
   */
  vault?: PiiVault;
}

export interface CallCacheOptions {
  /** Most entries kept (default 500). */
  maxEntries?: number;
  /** Most bytes of results kept, as JSON (default 64 MiB); a single bigger result is not cached. */
  maxBytes?: number;
  /** The clock (ms); tests pass a fake one. */
  now?: () => number;
}

export interface CacheWrite {
  ttlSeconds: number;
  /** Store isError results too (default: no — a failed call is retried). */
  cacheErrors?: boolean;
  durationMs?: number;
  tokens?: number;
  /** The call's PII vault, when its arguments were masked (see CachedCall.vault). */
  vault?: PiiVault;
}

export interface CallCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

export class CallCache {
  readonly #lru: LRUCache<string, CachedCall & { server: string }>;
  readonly #now: () => number;
  #hits = 0;
  #misses = 0;

  constructor(options: CallCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#lru = new LRUCache({
      max: options.maxEntries ?? 500,
      maxSize: maxBytes,
      maxEntrySize: maxBytes,
      sizeCalculation: (entry) => Math.max(1, jsonBytes(entry.result)),
      // lru-cache tracks TTL on this clock; resolution 0 reads it on every check (no debounce timer).
      perf: { now: this.#now },
      ttlResolution: 0,
    });
  }

  /** The cache key: server, tool and the arguments' canonical JSON. */
  static key(server: string, tool: string, args: Record<string, unknown> | undefined): string {
    return `${server}\u0000${tool}\u0000${canonicalJson(args ?? {})}`;
  }

  /** A fresh cached result (a copy), counting a hit or a miss. */
  get(server: string, tool: string, args: Record<string, unknown> | undefined): CachedCall | undefined {
    const key = CallCache.key(server, tool, args);
    let entry = this.#lru.get(key);
    // Our own stamp too: lru-cache treats an entry started at clock time 0 as never stale.
    if (entry && this.#now() >= entry.expiresAt) {
      this.#lru.delete(key);
      entry = undefined;
    }
    if (!entry) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    const { server: _server, ...call } = entry;
    return { ...call, result: structuredClone(call.result) };
  }

  /** Stores a result for ttlSeconds; returns false when it was not cached (TTL 0, an error, too big). */
  set(server: string, tool: string, args: Record<string, unknown> | undefined, result: CallToolResult, write: CacheWrite): boolean {
    if (!(write.ttlSeconds > 0)) return false;
    if (result.isError && !write.cacheErrors) return false;
    const ttl = write.ttlSeconds * 1000;
    const storedAt = this.#now();
    const entry = {
      server,
      result: structuredClone(result),
      storedAt,
      expiresAt: storedAt + ttl,
      ...(write.durationMs !== undefined ? { durationMs: write.durationMs } : {}),
      ...(write.tokens !== undefined ? { tokens: write.tokens } : {}),
      ...(write.vault ? { vault: write.vault } : {}),
    };
    const key = CallCache.key(server, tool, args);
    this.#lru.set(key, entry, { ttl });
    return this.#lru.has(key);
  }

  /** Drops every entry, or one server's (after its upstream restarted or its policy changed). */
  clear(server?: string): void {
    if (server === undefined) {
      this.#lru.clear();
      return;
    }
    for (const [key, entry] of this.#lru.entries()) {
      if (entry.server === server) this.#lru.delete(key);
    }
  }

  stats(): CallCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#lru.size, bytes: this.#lru.calculatedSize };
  }
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}
