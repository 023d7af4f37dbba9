/**
 * Audit s21: a call that delivered 220 of 157,893 tokens said "100% kept out" — rounding made a share that was
 * not all of it read as all of it. The percentage never reaches 100 while anything was delivered, and never
 * says 0 while anything was kept out.
 */
import { describe, expect, it } from 'vitest';
import { savedPercent } from '../../renderer/src/lib/format.js';

describe('savedPercent', () => {
  it('220 delivered of 157,893 is 99%, not 100%', () => {
    expect(savedPercent(157_893, 220)).toBe(99);
  });

  it('1 delivered of a million is still 99%', () => {
    expect(savedPercent(1_000_000, 1)).toBe(99);
  });

  it('nothing delivered is 100%', () => {
    expect(savedPercent(157_893, 0)).toBe(100);
  });

  it('1 kept out of a million is 1%, not 0%', () => {
    expect(savedPercent(1_000_000, 999_999)).toBe(1);
  });

  it('all of it delivered is 0%', () => {
    expect(savedPercent(5_000, 5_000)).toBe(0);
  });

  it('shares away from the ends round as before', () => {
    expect(savedPercent(1_000, 10)).toBe(99);
    expect(savedPercent(1_000, 254)).toBe(75);
  });

  it('more delivered than produced stays negative; nothing produced is 0', () => {
    expect(savedPercent(1_000, 1_500)).toBe(-50);
    expect(savedPercent(0, 10)).toBe(0);
  });
});
