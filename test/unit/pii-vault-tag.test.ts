/**
 * Tagged vaults (one per tool call): placeholders carry the call's random tag, so a placeholder another
 * call issued (and a server kept) is never restored with this call's value.
 */
import { describe, expect, it } from 'vitest';
import { createMasker, PiiVault, PLACEHOLDER, restoreText } from '../../electron/core/pii/index.js';

const all = createMasker();

describe('a tagged vault', () => {
  it('issues readable placeholders that end in its tag', () => {
    const vault = PiiVault.tagged();
    expect(vault.tag).toMatch(/^[a-z][a-z0-9]{5}$/);
    const { masked } = all.maskArguments({ to: 'a@x.com', cc: 'b@x.com', phone: '+14155552671' }, vault);
    expect(masked).toEqual({ to: `[EMAIL_1_${vault.tag}]`, cc: `[EMAIL_2_${vault.tag}]`, phone: `[PHONE_1_${vault.tag}]` });
    expect(vault.counts()).toEqual({ EMAIL: 2, PHONE: 1 });
    expect([...`[EMAIL_1_${vault.tag}] [X_2_1]`.matchAll(PLACEHOLDER)].map((m) => [m[1], m[2], m[3]])).toEqual([
      ['EMAIL', '1', vault.tag],
      ['X_2', '1', undefined],
    ]);
  });

  it("never restores another call's placeholder, even with the same label and number", () => {
    const first = all.maskArguments({ observation: 'email alice@example.com' }, PiiVault.tagged());
    const stored = first.masked.observation;
    const second = all.maskArguments({ query: 'bob@example.org' }, PiiVault.tagged());
    expect(second.masked.query).not.toBe(stored.replace('email ', ''));
    expect(restoreText(`found: ${stored}`, second.vault)).toBe(`found: ${stored}`);
    expect(restoreText(`found: ${stored}`, first.vault)).toBe('found: email alice@example.com');
  });

  it('two vaults get different tags', () => {
    const tags = new Set(Array.from({ length: 50 }, () => PiiVault.tagged().tag));
    expect(tags.size).toBe(50);
  });

  it('refuses a tag that would not read back', () => {
    expect(() => new PiiVault('ABC')).toThrow(/vault tag/);
    expect(() => new PiiVault('123456')).toThrow(/vault tag/);
  });
});
