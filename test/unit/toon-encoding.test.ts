import { decode } from '@toon-format/toon';
import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeValue,
  encodingNote,
  isTabular,
  isUniformObjectArray,
  mayBeTabularJson,
  MIN_SAVING,
  toToon,
  tokensSaved,
} from '../../electron/core/encoding/toon-encoding.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { pick, seededRandom } from '../support/seeded-random.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const AWKWARD_STRINGS = [
  '',
  ' ',
  'a, b, c',
  'say "hi"',
  "it's",
  'line one\nline two',
  'tab\there',
  'back\\slash',
  'key: value',
  '- dash first',
  '[1]',
  '{x}',
  'true',
  'false',
  'null',
  '123',
  '-4.5',
  '1e6',
  '05',
  '  padded  ',
  'émoji 🚀 ünïcode',
  '#hash',
  'a|b',
  '\u0001ctl',
];
const NUMBERS = [0, 1, -1, 42, 3.14, -0.001, 1e-7, 1e21, 123456789012, Number.MAX_SAFE_INTEGER, 2.5e-300];

function primitive(next: () => number): unknown {
  const r = next();
  if (r < 0.35) return pick(next, AWKWARD_STRINGS);
  if (r < 0.6) return pick(next, NUMBERS);
  if (r < 0.7) return null;
  if (r < 0.8) return next() < 0.5;
  return `word${Math.floor(next() * 1000)}`;
}

function field(next: () => number, depth: number): unknown {
  const r = next();
  if (depth < 2 && r < 0.1) return { inner: primitive(next), n: pick(next, NUMBERS) };
  if (depth < 2 && r < 0.15) return [];
  if (depth < 2 && r < 0.2) return [primitive(next), primitive(next)];
  return primitive(next);
}

/** A uniform array of objects with awkward values (and sometimes nested ones and empty arrays). */
function table(next: () => number, rows: number): Record<string, unknown>[] {
  const keys = ['id', 'name', 'note', 'value', 'flag'].slice(0, 2 + Math.floor(next() * 4));
  return Array.from({ length: rows }, () => Object.fromEntries(keys.map((k) => [k, field(next, 1)])));
}

describe('toon encoding: exact round trip', () => {
  it('decode(toon) deep-equals the value for 300 generated tables', () => {
    const next = seededRandom(18);
    let fallbacks = 0;
    for (let i = 0; i < 300; i++) {
      const rows = table(next, 1 + Math.floor(next() * 12));
      const value = next() < 0.5 ? rows : { total: rows.length, items: rows, empty: [], meta: { page: 1 } };
      // Through JSON, as a tool result arrives.
      const json = JSON.parse(JSON.stringify(value)) as unknown;
      const toon = toToon(json);
      if (toon === undefined) {
        fallbacks++;
        continue;
      }
      expect(decode(toon)).toEqual(json);
    }
    // toToon refuses only what would not come back exactly (none of these cases).
    expect(fallbacks).toBe(0);
  });

  it('encodeValue in "toon" shows text that decodes to the value', async () => {
    const next = seededRandom(7);
    for (let i = 0; i < 40; i++) {
      const value = JSON.parse(JSON.stringify(table(next, 3 + Math.floor(next() * 20)))) as unknown;
      const encoded = await encodeValue(value, 'toon', counter);
      if (encoded.encoding === 'toon') expect(decode(encoded.text)).toEqual(value);
      else expect(JSON.parse(encoded.text)).toEqual(value);
    }
  });

  it('falls back to JSON when TOON would not give the same value back (-0)', () => {
    expect(toToon([{ a: -0 }, { a: 1 }])).toBeUndefined();
  });
});

describe('toon encoding: when TOON is used', () => {
  const issues = Array.from({ length: 30 }, (_, i) => ({
    number: 100 + i,
    title: `Fix the thing, part ${i}`,
    state: i % 3 ? 'open' : 'closed',
    comments: i * 2,
    author: `user${i % 5}`,
  }));

  it('knows tabular values', () => {
    expect(isUniformObjectArray(issues)).toBe(true);
    expect(isTabular(issues)).toBe(true);
    expect(isTabular({ total: 30, items: issues })).toBe(true);
    expect(isTabular([{ a: 1 }, { b: 2 }])).toBe(false);
    expect(isTabular([1, 2, 3])).toBe(false);
    expect(isTabular({ a: { b: issues } })).toBe(false);
    expect(isTabular('text')).toBe(false);
    expect(isTabular([{ a: 1 }])).toBe(false);
  });

  it('checks JSON text cheaply before parsing', () => {
    expect(mayBeTabularJson(JSON.stringify(issues))).toBe(true);
    expect(mayBeTabularJson(JSON.stringify({ items: issues }, null, 2))).toBe(true);
    expect(mayBeTabularJson('[1,2,3]')).toBe(false);
    expect(mayBeTabularJson('plain words: [{ not json')).toBe(false);
    expect(mayBeTabularJson('{"a": 1}')).toBe(false);
  });

  it('auto uses TOON where it saves at least 15%, with both counts and a note', async () => {
    const encoded = await encodeValue(issues, 'auto', counter, JSON.stringify(issues, null, 2));
    expect(encoded.encoding).toBe('toon');
    expect(encoded.toonTokens!).toBeLessThanOrEqual(encoded.jsonTokens * (1 - MIN_SAVING));
    expect(tokensSaved(encoded)).toBe(encoded.jsonTokens - encoded.toonTokens!);
    expect(encodingNote(encoded)).toMatch(/^shown as TOON \(tabular\), \d+% fewer tokens than JSON$/);
    expect(decode(encoded.text)).toEqual(issues);
  });

  it('auto keeps JSON where TOON saves less than 15%', async () => {
    // Two rows of long free text: the keys TOON saves are a small share.
    const prose = 'A long description that goes on and on about nothing much. '.repeat(20);
    const rows = [
      { a: prose, b: prose },
      { a: prose, b: prose },
    ];
    const encoded = await encodeValue(rows, 'auto', counter);
    expect(encoded.encoding).toBe('json');
    expect(encoded.toonTokens).not.toBeNull();
    expect(encoded.text).toBe(JSON.stringify(rows));
  });

  it('json never tries TOON; non-tabular values stay JSON in every mode', async () => {
    const off = await encodeValue(issues, 'json', counter);
    expect(off).toMatchObject({ encoding: 'json', toonTokens: null });
    const nested = { a: { b: { c: [1, 2, 3] } } };
    for (const mode of ['auto', 'toon'] as const) expect((await encodeValue(nested, mode, counter)).encoding).toBe('json');
  });
});
