/**
 * Unknown keys inside the entries of a list in config.json (a custom PII pattern's key a newer Spillway
 * added): found, named, and put back into that entry while it is the same one — not into another pattern
 * that took its place after an edit or a removal (audit s19).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';
import { withUnknownKeys } from '../../shared/config-unknown-keys.js';
import { withToolPolicy } from '../../shared/policy.js';

const a = { name: 'a', pattern: 'A-\\d+' };
const b = { name: 'b', pattern: 'B-\\d+' };
const file = JSON.stringify({
  version: 1,
  policies: { tools: { s: { t: { pii: { types: [], custom: [{ pattern: a.pattern, futureA: 1, name: 'a', futureA2: [2] }, b] } } } } },
});
const customOf = (value: { policies: { tools: Record<string, Record<string, { pii?: { custom?: unknown[] } }>> } }) =>
  value.policies.tools.s!.t!.pii!.custom;

describe('an unknown key of a list entry', () => {
  it('is found and named with its place in the list', () => {
    const { config, unknown, warnings } = parseConfig(file, 'config.json');
    expect(customOf(config)).toEqual([a, b]);
    expect(unknown.map((u) => u.path.join('.'))).toEqual(['policies.tools.s.t.pii.custom.0.futureA', 'policies.tools.s.t.pii.custom.0.futureA2']);
    expect(warnings[0]).toContain('policies.tools.s.t.pii.custom.0.futureA in config.json, so it has no effect; it stays in the file');
  });

  it('goes back into its entry, however the entry was written, leaving the config in force as it was', () => {
    const { config, unknown } = parseConfig(file);
    const before = JSON.stringify(config);
    const { value, placed } = withUnknownKeys(config, unknown);
    expect(placed).toHaveLength(2);
    expect(customOf(value)).toEqual([{ ...a, futureA: 1, futureA2: [2] }, b]);
    expect(JSON.stringify(config)).toBe(before);
    // The same pattern sent again (a window's save) keeps them.
    const again = { ...config, policies: withToolPolicy(config.policies, 's', 't', { pii: { types: ['email'], custom: [{ ...a }, b] } }) };
    expect(customOf(withUnknownKeys(again, unknown).value)).toEqual([{ ...a, futureA: 1, futureA2: [2] }, b]);
  });

  it('is not put into another pattern that took its place, nor kept once its own was changed', () => {
    const { config, unknown } = parseConfig(file);
    const removed = { ...config, policies: withToolPolicy(config.policies, 's', 't', { pii: { types: [], custom: [b] } }) };
    const first = withUnknownKeys(removed, unknown);
    expect(customOf(first.value)).toEqual([b]);
    expect(first.placed).toEqual([]);
    const edited = { ...config, policies: withToolPolicy(config.policies, 's', 't', { pii: { types: [], custom: [{ ...a, flags: 'i' }, b] } }) };
    expect(customOf(withUnknownKeys(edited, unknown).value)).toEqual([{ ...a, flags: 'i' }, b]);
  });

  it('follows its entry when an earlier one is removed or one is put before it, but not to a twin', () => {
    const later = parseConfig(
      JSON.stringify({ version: 1, policies: { tools: { s: { t: { pii: { types: [], custom: [b, { ...a, futureA: 1 }] } } } } } }),
    );
    const custom = (list: unknown[]) => ({
      ...later.config,
      policies: withToolPolicy(later.config.policies, 's', 't', { pii: { types: [], custom: list as never } }),
    });
    expect(customOf(withUnknownKeys(custom([a]), later.unknown).value)).toEqual([{ ...a, futureA: 1 }]);
    const c = { name: 'c', pattern: 'C-\\d+' };
    expect(customOf(withUnknownKeys(custom([c, b, a]), later.unknown).value)).toEqual([c, b, { ...a, futureA: 1 }]);
    // Moved, and two entries now hold what it held: which one had the key is not known, so neither gets it.
    expect(customOf(withUnknownKeys(custom([a, c, a]), later.unknown).value)).toEqual([a, c, a]);
  });
});
