/**
 * CallCache's per-server index: `clear(server)` deletes just that server's entries and touches none when
 * it has nothing cached (a call of a tool that may change things clears its server twice), and the index
 * follows the LRU through eviction, expiry, overwrite and a clear of everything. Entries touched are
 * counted on the LRU's own methods and on the cache's clock, not timed.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LRUCache } from 'lru-cache';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallCache } from '../../electron/core/policy/call-cache.js';

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** A clock that counts its reads (lru-cache reads it once per entry it checks for staleness). */
function countingClock(start = 1_000) {
  let t = start;
  const clock = {
    reads: 0,
    now: () => {
      clock.reads++;
      return t;
    },
    advance: (ms: number) => (t += ms),
  };
  return clock;
}

/** Counts the LRU's deletes and walks from here on. */
function countLruWork() {
  return { deletes: vi.spyOn(LRUCache.prototype, 'delete'), walks: vi.spyOn(LRUCache.prototype, 'entries') };
}

function fill(cache: CallCache, server: string, count: number, ttlSeconds = 600): void {
  for (let i = 0; i < count; i++) cache.set(server, 'get', { i }, ok(`${server}${i}`), { ttlSeconds });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('CallCache.clear(server)', () => {
  it('touches no entries when the server has nothing cached, with the cache full of another', () => {
    const clock = countingClock();
    const cache = new CallCache({ now: clock.now });
    fill(cache, 'reads', 500);
    expect(cache.stats().entries).toBe(500);
    const work = countLruWork();
    clock.reads = 0;
    cache.clear('writer');
    cache.clear('writer');
    expect(work.walks).not.toHaveBeenCalled();
    expect(work.deletes).not.toHaveBeenCalled();
    expect(clock.reads).toBe(0);
    expect(cache.stats().entries).toBe(500);
  });

  it('still stops a read sent before it from storing its answer, when the server had nothing cached', () => {
    const cache = new CallCache({ now: countingClock().now });
    fill(cache, 'reads', 3);
    const ticket = cache.ticket();
    cache.clear('writer');
    expect(cache.set('writer', 'get', {}, ok('stale'), { ttlSeconds: 60, since: ticket })).toBe(false);
    expect(cache.set('writer', 'get', {}, ok('fresh'), { ttlSeconds: 60, since: cache.ticket() })).toBe(true);
    expect(cache.set('reads', 'get', { i: 9 }, ok('other'), { ttlSeconds: 60, since: ticket })).toBe(true);
  });

  it("deletes exactly the server's entries, by key", () => {
    const cache = new CallCache({ now: countingClock().now });
    fill(cache, 'a', 3);
    fill(cache, 'b', 2);
    const work = countLruWork();
    cache.clear('a');
    expect(work.walks).not.toHaveBeenCalled();
    expect(work.deletes).toHaveBeenCalledTimes(3);
    expect(cache.stats().entries).toBe(2);
    expect(cache.get('a', 'get', { i: 0 })).toBeUndefined();
    expect(cache.get('b', 'get', { i: 1 })?.result).toEqual(ok('b1'));
    work.deletes.mockClear();
    cache.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
  });
});

describe("CallCache's per-server index", () => {
  it('drops keys the LRU evicts, by count and by bytes', () => {
    const byCount = new CallCache({ now: countingClock().now, maxEntries: 3 });
    fill(byCount, 'a', 2);
    fill(byCount, 'b', 3);
    expect(byCount.stats().entries).toBe(3);
    const work = countLruWork();
    byCount.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
    byCount.clear('b');
    expect(work.deletes).toHaveBeenCalledTimes(3);
    expect(byCount.stats().entries).toBe(0);

    work.deletes.mockClear();
    const byBytes = new CallCache({ now: countingClock().now, maxBytes: 200 });
    byBytes.set('a', 'get', {}, ok('x'.repeat(120)), { ttlSeconds: 60 });
    byBytes.set('b', 'get', {}, ok('y'.repeat(120)), { ttlSeconds: 60 });
    expect(byBytes.stats().entries).toBe(1);
    byBytes.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
    byBytes.clear('b');
    expect(work.deletes).toHaveBeenCalledTimes(1);
  });

  it('drops keys once their entries expire and are purged, and keeps expired ones still held', () => {
    const clock = countingClock();
    const cache = new CallCache({ now: clock.now });
    fill(cache, 'a', 2, 1);
    clock.advance(2_000);
    // Not looked up since they expired: the LRU still holds them, so the clear deletes them.
    const work = countLruWork();
    cache.clear('a');
    expect(work.deletes).toHaveBeenCalledTimes(2);
    expect(cache.stats().entries).toBe(0);

    fill(cache, 'a', 2, 1);
    clock.advance(2_000);
    expect(cache.get('a', 'get', { i: 0 })).toBeUndefined();
    expect(cache.get('a', 'get', { i: 1 })).toBeUndefined();
    expect(cache.stats().entries).toBe(0);
    work.deletes.mockClear();
    cache.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
  });

  it('drops keys of entries stored at clock time 0 once they expire (the cache expires those itself)', () => {
    const clock = countingClock(0);
    const cache = new CallCache({ now: clock.now });
    fill(cache, 'a', 1, 1);
    clock.advance(1_000);
    expect(cache.get('a', 'get', { i: 0 })).toBeUndefined();
    const work = countLruWork();
    cache.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
  });

  it('keeps one key for an overwritten entry', () => {
    const cache = new CallCache({ now: countingClock().now, maxEntryBytes: 100 });
    cache.set('a', 'get', {}, ok('one'), { ttlSeconds: 60 });
    cache.set('a', 'get', {}, ok('two'), { ttlSeconds: 60 });
    expect(cache.stats().entries).toBe(1);
    const work = countLruWork();
    cache.clear('a');
    expect(work.deletes).toHaveBeenCalledTimes(1);
    expect(cache.stats().entries).toBe(0);

    // Over maxEntryBytes: not stored, and the entry it would have replaced stays, indexed.
    cache.set('a', 'get', {}, ok('three'), { ttlSeconds: 60 });
    expect(cache.set('a', 'get', {}, ok('z'.repeat(200)), { ttlSeconds: 60 })).toBe(false);
    work.deletes.mockClear();
    cache.clear('a');
    expect(work.deletes).toHaveBeenCalledTimes(1);
    expect(cache.stats().entries).toBe(0);
  });

  it('is emptied by a clear of everything', () => {
    const cache = new CallCache({ now: countingClock().now });
    fill(cache, 'a', 3);
    cache.clear();
    const work = countLruWork();
    cache.clear('a');
    expect(work.deletes).not.toHaveBeenCalled();
    fill(cache, 'a', 1);
    cache.clear('a');
    expect(work.deletes).toHaveBeenCalledTimes(1);
    expect(cache.stats().entries).toBe(0);
  });
});
