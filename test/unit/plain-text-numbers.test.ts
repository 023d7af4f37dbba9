/**
 * The hub writes numbers without Intl (which would map ICU's data into its process): what it writes must
 * be what `Intl.NumberFormat('en-US')` writes, compared here where Intl is at hand.
 */
import { describe, expect, it } from 'vitest';
import { compareText, formatCount, formatNumber } from '../../shared/plain-text.js';

const intl = new Intl.NumberFormat('en-US');

describe('formatNumber', () => {
  it.each([
    0,
    -0,
    1,
    12,
    123,
    1234,
    12345,
    123456,
    1234567,
    1e21,
    1.5e22,
    123456789012345680000,
    -1234.5678,
    1234.5678,
    0.0005,
    0.0015,
    1.0005,
    2.5,
    -2.5,
    999.9996,
    999999.9999,
    NaN,
    Infinity,
    -Infinity,
    1e-7,
    -1e-7,
    4.9999e-4,
    1000.1,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    0.1 + 0.2,
  ])('writes %d as en-US does', (n) => {
    expect(formatNumber(n)).toBe(intl.format(n));
  });

  it('agrees with Intl on numbers of every size (a seeded sweep)', () => {
    let seed = 17;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 20_000; i++) {
      const n = (random() - 0.5) * 10 ** Math.floor(random() * 25);
      expect(formatNumber(n)).toBe(intl.format(n));
      const millis = Math.round(random() * 1e6) / 1000;
      expect(formatNumber(millis)).toBe(intl.format(millis));
    }
  });

  it('formatCount rounds to a whole count first', () => {
    expect(formatCount(14245.6)).toBe('14,246');
    expect(formatCount(999.5)).toBe('1,000');
  });
});

describe('compareText', () => {
  it('orders as people read a list: case aside, punctuation before digits before letters', () => {
    expect(['b', 'B', 'a', 'A', '_x', 'a_b', 'ab', 'a-b', 'a1'].sort(compareText)).toEqual(['_x', 'a', 'A', 'a_b', 'a-b', 'a1', 'ab', 'b', 'B']);
    expect(compareText('x', 'x')).toBe(0);
  });

  it('agrees with localeCompare on ASCII names (a seeded sweep)', () => {
    let seed = 5;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const alphabet = 'abcXYZ_-019 .';
    const word = () => Array.from({ length: 1 + Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let i = 0; i < 20_000; i++) {
      const [a, b] = [word(), word()];
      expect(Math.sign(compareText(a, b)), `${a} vs ${b}`).toBe(Math.sign(a.localeCompare(b)));
    }
  });
});
