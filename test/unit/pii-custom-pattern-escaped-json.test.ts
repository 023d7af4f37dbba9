/**
 * Custom PII patterns on JSON results whose values JSON writes with an escape: a backslash (`CORP\\tom`
 * for the value CORP\tom) or a `\u` escape (`Jos\u00e9`, as Python's json.dumps writes é). The pattern is
 * written for the value, as it is for the arguments, and masks it in the result text too.
 */
import { describe, expect, it } from 'vitest';
import { createMasker } from '../../electron/core/pii/pii-masker.js';
import { restoreText } from '../../electron/core/pii/pii-vault.js';

const maskedText = (masker: ReturnType<typeof createMasker>, text: string) => {
  const { masked, vault } = masker.maskResult({ content: [{ type: 'text', text }] });
  return { text: masked.content[0]!.text, vault };
};

describe('custom patterns on escaped JSON strings', () => {
  it('DOMAIN\\user: masked in the result text as in the arguments, and restored as written', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'account', pattern: 'CORP\\\\\\w+' }] });
    expect(JSON.stringify(masker.maskArguments({ note: 'CORP\\tom' }).masked)).not.toContain('tom');
    const raw = JSON.stringify({ note: 'CORP\\tom', other: 'x' });
    const { text, vault } = maskedText(masker, raw);
    expect(text).toBe('{"note":"[ACCOUNT_1]","other":"x"}');
    expect(vault.original('[ACCOUNT_1]')).toBe('CORP\\tom');
    expect(restoreText(text, vault)).toBe(raw);
  });

  it('a name written with \\u escapes (Python json.dumps) is masked, and the text stays JSON', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'patient', pattern: 'José García' }] });
    const raw = '{"who": "Dr. Jos\\u00e9 Garc\\u00eda, ward 7", "ward": 7}';
    const { text, vault } = maskedText(masker, raw);
    expect(text).toBe('{"who": "Dr. [PATIENT_1], ward 7", "ward": 7}');
    expect(vault.original('[PATIENT_1]')).toBe('José García');
    expect(JSON.parse(restoreText(text, vault))).toEqual(JSON.parse(raw));
  });

  it('a match on the escaped reading and one on the plain reading of the same string mask both parts', () => {
    // `[A-Z][a-zé]+` reads `Jos` on the plain reading (the escape reads as spaces) and `José` decoded.
    const masker = createMasker({ types: [], custom: [{ name: 'word', pattern: '[A-Z][a-zé]+' }] });
    const { text } = maskedText(masker, '{"a": "Jos\\u00e9 and Ren\\u00e9"}');
    expect(text).not.toMatch(/Jos|Ren|\\u00e9/);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });

  it('`.*` in a pattern stops at the end of a decoded string (or at a line break in it)', () => {
    const masker = createMasker({ types: [], custom: [{ name: 'note', pattern: 'secret: .*' }] });
    const { text, vault } = maskedText(masker, '{"n": "secret: caf\\u00e9", "m": "secret: \\"x\\"\\nline two", "k": "kept"}');
    expect(JSON.parse(text)).toEqual({ n: '[NOTE_1]', m: '[NOTE_2]\nline two', k: 'kept' });
    expect(vault.original('[NOTE_1]')).toBe('secret: café');
    expect(vault.original('[NOTE_2]')).toBe('secret: "x"');
  });
});
