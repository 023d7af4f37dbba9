import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { CallCache } from '../../electron/core/policy/call-cache.js';
import { canonicalJson } from '../../electron/core/policy/canonical-json.js';

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const bad: CallToolResult = { content: [{ type: 'text', text: 'boom' }], isError: true };

function fakeClock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('canonicalJson', () => {
  it.each([
    ['key order does not matter', { b: 1, a: 2 }, { a: 2, b: 1 }],
    ['at every depth', { x: { d: [1, { z: 1, y: 2 }], c: null } }, { x: { c: null, d: [1, { y: 2, z: 1 }] } }],
    ['undefined members are dropped like JSON.stringify', { a: 1, b: undefined }, { a: 1 }],
  ])('%s', (_label, a, b) => {
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('keeps array order and distinguishes types', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":2,"d":1}]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ n: Number.NaN })).toBe('{"n":null}');
  });

  it('keeps a "__proto__" key as data', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "a": 1}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":1}');
  });
});

describe('CallCache', () => {
  it('serves a hit until its TTL passes, on an injected clock', () => {
    const clock = fakeClock(1_000);
    const cache = new CallCache({ now: clock.now });
    expect(cache.get('fs', 'read', { path: '/a' })).toBeUndefined();
    expect(cache.set('fs', 'read', { path: '/a' }, ok('A'), { ttlSeconds: 10, durationMs: 42, tokens: 7 })).toBe(true);
    clock.advance(9_999);
    const hit = cache.get('fs', 'read', { path: '/a' });
    expect(hit?.result).toEqual(ok('A'));
    expect(hit).toMatchObject({ storedAt: 1_000, expiresAt: 11_000, durationMs: 42, tokens: 7 });
    clock.advance(1);
    expect(cache.get('fs', 'read', { path: '/a' })).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 2, entries: 0, bytes: 0 });
  });

  it('expires entries stored at clock time 0 as well', () => {
    const clock = fakeClock(0);
    const cache = new CallCache({ now: clock.now });
    cache.set('s', 't', {}, ok('x'), { ttlSeconds: 1 });
    expect(cache.get('s', 't', {})).toBeDefined();
    clock.advance(1_000);
    expect(cache.get('s', 't', {})).toBeUndefined();
  });

  it('keys on server, tool and the canonical JSON of the arguments', () => {
    const cache = new CallCache({ now: fakeClock().now });
    cache.set('fs', 'read', { path: '/a', opts: { x: 1, y: 2 } }, ok('A'), { ttlSeconds: 60 });
    expect(cache.get('fs', 'read', { opts: { y: 2, x: 1 }, path: '/a' })?.result).toEqual(ok('A'));
    expect(cache.get('fs', 'read', { path: '/b', opts: { x: 1, y: 2 } })).toBeUndefined();
    expect(cache.get('fs', 'write', { path: '/a', opts: { x: 1, y: 2 } })).toBeUndefined();
    expect(cache.get('other', 'read', { path: '/a', opts: { x: 1, y: 2 } })).toBeUndefined();
    cache.set('fs', 'list', undefined, ok('L'), { ttlSeconds: 60 });
    expect(cache.get('fs', 'list', {})?.result).toEqual(ok('L'));
  });

  it("uses each entry's own TTL", () => {
    const clock = fakeClock(5);
    const cache = new CallCache({ now: clock.now });
    cache.set('s', 'short', {}, ok('1'), { ttlSeconds: 1 });
    cache.set('s', 'long', {}, ok('2'), { ttlSeconds: 100 });
    clock.advance(2_000);
    expect(cache.get('s', 'short', {})).toBeUndefined();
    expect(cache.get('s', 'long', {})).toBeDefined();
  });

  it('does not cache with TTL 0, nor errors unless asked', () => {
    const cache = new CallCache({ now: fakeClock().now });
    expect(cache.set('s', 't', {}, ok('x'), { ttlSeconds: 0 })).toBe(false);
    expect(cache.set('s', 'e', {}, bad, { ttlSeconds: 60 })).toBe(false);
    expect(cache.get('s', 'e', {})).toBeUndefined();
    expect(cache.set('s', 'e', {}, bad, { ttlSeconds: 60, cacheErrors: true })).toBe(true);
    expect(cache.get('s', 'e', {})?.result.isError).toBe(true);
  });

  it('hands out copies, so a caller changing a result does not change the cache', () => {
    const cache = new CallCache({ now: fakeClock().now });
    const result = ok('x');
    cache.set('s', 't', {}, result, { ttlSeconds: 60 });
    (result.content[0] as { text: string }).text = 'changed after set';
    const first = cache.get('s', 't', {})!;
    (first.result.content[0] as { text: string }).text = 'changed after get';
    expect(cache.get('s', 't', {})?.result).toEqual(ok('x'));
  });

  it('evicts the least recently used past maxEntries and refuses results over maxBytes', () => {
    const cache = new CallCache({ now: fakeClock().now, maxEntries: 2, maxBytes: 200 });
    cache.set('s', 'a', {}, ok('a'), { ttlSeconds: 60 });
    cache.set('s', 'b', {}, ok('b'), { ttlSeconds: 60 });
    cache.get('s', 'a', {}); // a is now the most recently used
    cache.set('s', 'c', {}, ok('c'), { ttlSeconds: 60 });
    expect(cache.get('s', 'b', {})).toBeUndefined();
    expect(cache.get('s', 'a', {})).toBeDefined();
    expect(cache.set('s', 'big', {}, ok('x'.repeat(500)), { ttlSeconds: 60 })).toBe(false);
  });

  it('clears one server or everything', () => {
    const cache = new CallCache({ now: fakeClock().now });
    cache.set('one', 't', {}, ok('1'), { ttlSeconds: 60 });
    cache.set('two', 't', {}, ok('2'), { ttlSeconds: 60 });
    cache.clear('one');
    expect(cache.get('one', 't', {})).toBeUndefined();
    expect(cache.get('two', 't', {})).toBeDefined();
    cache.clear();
    expect(cache.stats().entries).toBe(0);
  });

  it('counts the key with the result: big arguments fill the byte bound like big results', () => {
    // Before, only results were counted: 500 entries with 1 MB of arguments each held 514 MB, counted as 23.5 KB.
    const cache = new CallCache({ now: fakeClock().now, maxBytes: 1_000_000, maxEntryBytes: 200_000 });
    for (let i = 0; i < 50; i++) cache.set('s', 'search', { query: `${i} `.padEnd(100_000, 'x') }, ok('no match'), { ttlSeconds: 60 });
    expect(cache.stats().bytes).toBeGreaterThan(900_000);
    expect(cache.stats().bytes).toBeLessThanOrEqual(1_000_000);
    expect(cache.stats().entries).toBeLessThanOrEqual(10);
    // Arguments alone over the bound of one entry: not cached.
    expect(cache.set('s', 'search', { query: 'x'.repeat(300_000) }, ok('no match'), { ttlSeconds: 60 })).toBe(false);
  });

  it('measures a result before copying it, and does not keep one over 1 MiB', () => {
    const cache = new CallCache({ now: fakeClock().now });
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      // Before, a 38 MB result was copied and kept for its whole TTL.
      expect(cache.set('s', 't', {}, ok('x'.repeat(2 * 1024 * 1024)), { ttlSeconds: 60 })).toBe(false);
      expect(clone).not.toHaveBeenCalled();
      expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
      expect(cache.set('s', 't', {}, ok('x'.repeat(512 * 1024)), { ttlSeconds: 60 })).toBe(true);
    } finally {
      clone.mockRestore();
    }
  });

  it("keys on the call's _meta too, in any key order; none and an empty one are the same", () => {
    const cache = new CallCache({ now: fakeClock().now });
    cache.set('s', 't', {}, ok('fr'), { ttlSeconds: 60, meta: { 'openai/locale': 'fr-FR', user: 'a' } });
    expect(cache.get('s', 't', {}, { user: 'a', 'openai/locale': 'fr-FR' })?.result).toEqual(ok('fr'));
    expect(cache.get('s', 't', {}, { 'openai/locale': 'de-DE', user: 'a' })).toBeUndefined();
    expect(cache.get('s', 't', {})).toBeUndefined();
    cache.set('s', 't', {}, ok('plain'), { ttlSeconds: 60 });
    expect(cache.get('s', 't', {}, {})?.result).toEqual(ok('plain'));
  });

  it("does not store an answer when its server's entries were cleared after the call was sent", () => {
    const cache = new CallCache({ now: fakeClock().now });
    const sent = cache.ticket();
    cache.clear('other');
    expect(cache.set('s', 'read', {}, ok('still true'), { ttlSeconds: 60, since: sent })).toBe(true);
    cache.clear('s');
    expect(cache.set('s', 'read', { n: 1 }, ok('maybe stale'), { ttlSeconds: 60, since: sent })).toBe(false);
    const later = cache.ticket();
    expect(cache.set('s', 'read', { n: 1 }, ok('fresh'), { ttlSeconds: 60, since: later })).toBe(true);
    cache.clear();
    expect(cache.set('t', 'read', {}, ok('maybe stale'), { ttlSeconds: 60, since: later })).toBe(false);
  });
});
