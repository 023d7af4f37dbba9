/** Update offers only a newer version (audit s19): semver's order, pre-releases before their release. */
import { describe, expect, it } from 'vitest';
import { isNewerVersion, isUpdate } from '../../electron/core/registry/version-order.js';

describe('isNewerVersion', () => {
  it.each([
    ['1.7.4', '1.7.3'],
    ['1.10.0', '1.9.9'],
    ['2.0.0', '1.99.99'],
    ['1.0.0', '1.0.0-rc.1'],
    ['1.0.0-rc.2', '1.0.0-rc.1'],
    ['1.0.0-rc.10', '1.0.0-rc.9'],
    ['1.0.0-beta', '1.0.0-alpha.5'],
    ['1.0.0-alpha.1', '1.0.0-alpha'],
    ['v1.2.4', '1.2.3'],
    ['1.0.0-beta.11', '1.0.0-beta.9'],
    ['1.0.0-rc.1', '1.0.0-beta.11'],
    ['1.0.0-alpha.beta', '1.0.0-alpha.1'],
    ['10000000000000000001.0.0', '10000000000000000000.0.0'],
  ])('%s is newer than %s', (candidate, current) => {
    expect(isNewerVersion(candidate, current)).toBe(true);
    expect(isNewerVersion(current, candidate)).toBe(false);
  });

  it('is false for the same version, a build tag only, or versions semver cannot order', () => {
    expect(isNewerVersion('1.7.3', '1.7.3')).toBe(false);
    expect(isNewerVersion('1.7.3+build.2', '1.7.3+build.1')).toBe(false);
    expect(isNewerVersion('latest', '1.7.3')).toBe(false);
    expect(isNewerVersion('2024.10', '1.0.0')).toBe(false);
  });
});

describe('isUpdate', () => {
  it('is a newer version where both are semver, else any other version', () => {
    expect(isUpdate('1.7.4', '1.7.3')).toBe(true);
    expect(isUpdate('1.7.2', '1.7.3')).toBe(false);
    expect(isUpdate('2024.10.02', '2024.10.01')).toBe(true);
    expect(isUpdate('2024.10.01', '2024.10.01')).toBe(false);
  });

  // Review of 62783d3: versions that are not semver were an update both ways (`candidate !== current`).
  it.each([
    ['1.10', '1.9'],
    ['2025.1', '2024.12.31'],
    ['2.0', '1.9.9'],
    ['2024.10.1', '2024.9.30'],
    ['1.0.0.1', '1.0.0'],
    ['3', '2.99'],
    ['2.0', '2.0-rc.1'],
  ])('dotted numbers of any length: %s is an update from %s, not the other way', (newer, older) => {
    expect(isUpdate(newer, older)).toBe(true);
    expect(isUpdate(older, newer)).toBe(false);
  });

  it('a missing part is 0, leading zeros count for nothing, and only versions neither order fall back to any other', () => {
    expect(isUpdate('2.0', '2.0.0')).toBe(false);
    expect(isUpdate('2.0.0', '2')).toBe(false);
    expect(isUpdate('2024.01', '2024.1')).toBe(false);
    expect(isUpdate('nightly-3', 'nightly-2')).toBe(true);
    expect(isUpdate('nightly-2', 'nightly-2')).toBe(false);
  });
});
