/**
 * Audit s21: 1.5 typed where a whole number belongs was refused with "must be a number of days" — a number
 * it already was. An int field says "whole number"; text in a number field still says "a number".
 */
import { describe, expect, it } from 'vitest';
import { SettingsPatchSchema, describeZodError } from '../../shared/config.js';

function refusal(patch: unknown) {
  const parsed = SettingsPatchSchema.safeParse(patch);
  expect(parsed.success).toBe(false);
  return parsed.success ? undefined : describeZodError(parsed.error);
}

describe('a number that is not whole', () => {
  it('1.5 days of log: "must be a whole number of days"', () => {
    expect(refusal({ logRetentionDays: 1.5 })).toEqual({
      field: 'logRetentionDays',
      message: 'The days the log is kept must be a whole number of days.',
    });
  });

  it('1.5 tokens of threshold: "must be a whole number of tokens"', () => {
    expect(refusal({ spill: { thresholdTokens: 1.5 } })?.message).toBe('The spill threshold must be a whole number of tokens.');
  });

  it('text where a number belongs still says "a number", not "a whole number"', () => {
    expect(refusal({ logRetentionDays: 'a week' })?.message).toBe('The days the log is kept must be a number of days.');
  });
});
