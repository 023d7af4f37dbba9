/**
 * Audit s16 (wire), D1 and D2: the `call.started` event's argumentsPreview (call-report.ts) stringified a
 * call's whole arguments on the main thread to keep 300 characters of them: 100 MB of arguments held every
 * session for most of a second, and arguments nested thousands of levels deep overflowed the stack. The
 * preview is now made only as far as it is kept, and is the same text as before.
 */
import { describe, expect, it } from 'vitest';
import { preview } from '../../electron/core/call/call-report.js';
import { longestStallDuring } from '../support/main-thread-stalls.js';

/** What the preview was: the whole JSON text, cut. */
function stringifiedAndCut(value: unknown, max: number): string | undefined {
  const text = JSON.stringify(value);
  if (text === undefined) return undefined;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

const samples: unknown[] = [
  { path: '/tmp/a.txt', encoding: 'utf8', lines: [1, 2, 3], recursive: false, glob: null },
  { q: 'über "quoted" \\ back\nslash\ttab \u0001 \u2028 😀 end', n: -0, f: 1.5e-7, big: 1e21, inf: Infinity, nan: NaN },
  { b: 1, a: 2, 10: 'ten', 2: 'two', nested: { deeper: { list: [{}, [], [[]], '', 0] } } },
  { gone: undefined, fn: () => 1, kept: [undefined, () => 1, Symbol('s'), true] },
  { when: new Date(0), text: 'x'.repeat(1000) },
  { emoji: '😀'.repeat(400) },
  ['a', { b: ['c', { d: 'e'.repeat(350) }] }],
  'a plain string',
  42,
  null,
  [],
  {},
];

describe('the arguments preview', () => {
  it('is the text the whole JSON cut to its length gave, for every kind of value and length', () => {
    for (const value of samples) {
      for (const max of [0, 1, 7, 40, 300, 5000])
        expect(preview(value, max), `${JSON.stringify(value)?.slice(0, 60)} at ${max}`).toBe(stringifiedAndCut(value, max));
    }
    expect(preview(undefined)).toBeUndefined();
  });

  it('holds the main thread for no time with 200 MB of arguments (it stringified all of them)', async () => {
    // Flat strings, as JSON.parse makes them ('x'.repeat makes a rope that a slice would flatten).
    const big = Buffer.alloc(100 * 1024 * 1024, 'a').toString('latin1');
    const args = { first: big, second: [big], many: Array.from({ length: 1_000_000 }, (_, i) => i) };
    let text: string | undefined;
    const stall = await longestStallDuring(async () => void (text = preview(args)));
    expect(stall).toBeLessThan(150);
    expect(text).toBe(`{"first":"${'a'.repeat(290)}…`);
  }, 30_000);

  it('is made for arguments nested far deeper than JSON.stringify can go', () => {
    const deepArray: unknown = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const deepObject: unknown = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expect(() => JSON.stringify(deepArray)).toThrow(RangeError);
    expect(preview({ x: deepArray })).toBe(`{"x":${'['.repeat(295)}…`);
    expect(preview(deepObject)).toBe(`${'{"a":'.repeat(60)}…`);
  });
});
