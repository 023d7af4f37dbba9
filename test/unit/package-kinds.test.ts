/**
 * Audit s21: the Browse list said "· pypi" and "· nothing to run" — the registry's codes, not words a
 * non-developer reads. Each kind has its plain name; an entry with none says it cannot be run here.
 */
import { describe, expect, it } from 'vitest';
import { packageKindWords, packageKindsPhrase } from '../../renderer/src/lib/package-kinds.js';

describe('packageKindWords', () => {
  it.each([
    ['npm', 'npm package'],
    ['pypi', 'Python package'],
    ['oci', 'Docker image'],
    ['nuget', '.NET package'],
    ['mcpb', 'MCPB bundle'],
    ['remote', 'web address'],
  ])('%s → %s', (kind, words) => {
    expect(packageKindWords(kind)).toBe(words);
  });

  it('a kind this version does not know is shown as the registry wrote it, never as a word of the object', () => {
    expect(packageKindWords('cargo')).toBe('cargo');
    expect(packageKindWords('toString')).toBe('toString');
  });
});

describe('packageKindsPhrase', () => {
  it('joins the kinds of an entry in plain words', () => {
    expect(packageKindsPhrase(['pypi', 'remote'])).toBe('Python package, web address');
  });

  it('an entry with nothing to run says so in words', () => {
    expect(packageKindsPhrase([])).toBe('no way to run it here');
  });
});
