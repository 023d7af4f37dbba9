/**
 * The tool-call cache (issue 5): LRU with a per-entry TTL, keyed by server, tool, the canonical JSON of
 * the final arguments (after overrides and hidden parameters) and the client's `_meta` forwarded with
 * them. Off unless a policy gives a TTL. Its byte bound counts each entry's key as well as its result.
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
  /** Most bytes kept, keys and results (default 64 MiB). */
  maxBytes?: number;
  /**
   * Most bytes of one entry, its key and its result (default 1 MiB, at most maxBytes): a bigger one is not
   * cached. Such a result (~250k tokens) is spilled under any threshold, and a hit would only write it to
   * disk again, while the cache held it in memory for its whole TTL.
   */
  maxEntryBytes?: number;
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
  /** The `_meta` the call was sent with (part of the key, as in `get`). */
  meta?: CallMeta;
  /**
   * `ticket()` as it was when the call was sent: when its server's entries were cleared since (a call
   * that may have changed what it answers ran meanwhile), the result may be stale and is not stored.
   */
  since?: number;
}

/** The client's `_meta` of a call as the upstream gets it, without its progressToken (Spillway's own). */
export type CallMeta = Record<string, unknown>;

export interface CallCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

export class CallCache {
  readonly #lru: LRUCache<string, CachedCall & { server: string; bytes: number }>;
  readonly #now: () => number;
  readonly #maxEntryBytes: number;
  #hits = 0;
  #misses = 0;
  /** Clears so far; `ticket()` hands it out. */
  #clears = 0;
  /** The `#clears` count of each server's last clear, and of the last clear of everything. */
  readonly #clearedAt = new Map<string, number>();
  #allClearedAt = 0;
  /**
   * Each server's keys in `#lru`, kept by its insert and dispose hooks (so through eviction, expiry and
   * overwrite too): a server's clear deletes just these, and costs nothing when it has none cached.
   */
  readonly #keysOf = new Map<string, Set<string>>();

  constructor(options: CallCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#maxEntryBytes = Math.min(options.maxEntryBytes ?? 1024 * 1024, maxBytes);
    this.#lru = new LRUCache({
      max: options.maxEntries ?? 500,
      maxSize: maxBytes,
      maxEntrySize: maxBytes,
      // Measured in `set` before anything is copied.
      sizeCalculation: (entry) => entry.bytes,
      // lru-cache tracks TTL on this clock; resolution 0 reads it on every check (no debounce timer).
      perf: { now: this.#now },
      ttlResolution: 0,
      onInsert: (entry, key) => this.#index(entry.server, key),
      dispose: (entry, key) => this.#unindex(entry.server, key),
    });
  }

  /** The cache key: server, tool, the arguments' canonical JSON and the forwarded `_meta`'s, when there is one. */
  static key(server: string, tool: string, args: Record<string, unknown> | undefined, meta?: CallMeta): string {
    const key = `${server}\u0000${tool}\u0000${canonicalJson(args ?? {})}`;
    return meta && Object.keys(meta).length > 0 ? `${key}\u0000${canonicalJson(meta)}` : key;
  }

  /**
   * A fresh cached result (a copy), counting a hit or a miss. `meta`: the `_meta` the call would be sent
   * with, which the upstream may answer by (a locale, a user): a result is reused only for the same.
   */
  get(server: string, tool: string, args: Record<string, unknown> | undefined, meta?: CallMeta): CachedCall | undefined {
    const key = CallCache.key(server, tool, args, meta);
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
    const { server: _server, bytes: _bytes, ...call } = entry;
    return { ...call, result: structuredClone(call.result) };
  }

  /**
   * Stores a result for ttlSeconds; returns false when it was not cached (TTL 0, an error, too big with its
   * key, or its server's entries were cleared since `write.since`). The size is measured before anything
   * is copied.
   */
  set(server: string, tool: string, args: Record<string, unknown> | undefined, result: CallToolResult, write: CacheWrite): boolean {
    if (!(write.ttlSeconds > 0)) return false;
    if (result.isError && !write.cacheErrors) return false;
    if (write.since !== undefined && this.#clearedSince(server, write.since)) return false;
    const key = CallCache.key(server, tool, args, write.meta);
    const limit = this.#maxEntryBytes;
    const keyBytes = Buffer.byteLength(key, 'utf8');
    if (keyBytes > limit) return false;
    const bytes = keyBytes + valueBytes(result, limit - keyBytes);
    if (bytes > limit) return false;
    const ttl = write.ttlSeconds * 1000;
    const storedAt = this.#now();
    const entry = {
      server,
      bytes,
      result: structuredClone(result),
      storedAt,
      expiresAt: storedAt + ttl,
      ...(write.durationMs !== undefined ? { durationMs: write.durationMs } : {}),
      ...(write.tokens !== undefined ? { tokens: write.tokens } : {}),
      ...(write.vault ? { vault: write.vault } : {}),
    };
    this.#lru.set(key, entry, { ttl });
    return this.#lru.has(key);
  }

  /**
   * Drops every entry, or one server's (after its upstream restarted, its policy changed, or one of its
   * tools that may change things was called). A call sent before the clear does not store its answer
   * afterwards (see CacheWrite.since).
   */
  clear(server?: string): void {
    this.#clears++;
    if (server === undefined) {
      this.#allClearedAt = this.#clears;
      this.#clearedAt.clear();
      this.#lru.clear();
      return;
    }
    this.#clearedAt.set(server, this.#clears);
    const keys = this.#keysOf.get(server);
    if (!keys) return;
    // A copy: each delete drops its key from `keys` (the dispose hook).
    for (const key of [...keys]) this.#lru.delete(key);
  }

  /** What a call notes when it is sent, for CacheWrite.since. */
  ticket(): number {
    return this.#clears;
  }

  #clearedSince(server: string, ticket: number): boolean {
    return Math.max(this.#allClearedAt, this.#clearedAt.get(server) ?? 0) > ticket;
  }

  #index(server: string, key: string): void {
    const keys = this.#keysOf.get(server);
    if (keys) keys.add(key);
    else this.#keysOf.set(server, new Set([key]));
  }

  #unindex(server: string, key: string): void {
    const keys = this.#keysOf.get(server);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.#keysOf.delete(server);
  }

  stats(): CallCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#lru.size, bytes: this.#lru.calculatedSize };
  }
}

/**
 * About what `value` takes as JSON, in bytes (its strings' UTF-8 bytes, keys included, plus a little per
 * value), without copying it; it stops counting once past `limit`. A stack, not recursion: a result may
 * be nested deeper than the call stack allows.
 */
function valueBytes(value: unknown, limit: number): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes <= limit) {
    const v = stack.pop();
    // A string's UTF-8 bytes are at least its length: one surely too long is not scanned.
    if (typeof v === 'string') bytes += (v.length > limit - bytes ? v.length : Buffer.byteLength(v, 'utf8')) + 2;
    else if (Array.isArray(v)) {
      bytes += 2 + v.length;
      if (bytes <= limit) for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      bytes += 2;
      for (const [k, item] of Object.entries(v)) {
        bytes += Buffer.byteLength(k, 'utf8') + 4;
        stack.push(item);
      }
    } else bytes += 8;
  }
  return bytes;
}
